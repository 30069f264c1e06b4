// Train/test/validation splits by program, never by sample (a program's runs share
// states, so splitting samples would leak the test set into training). resolveHoldout is
// the one place training, evaluation, dist and export turn a --holdout spec into programs.

import { createHash } from "node:crypto";
import { UsageError } from "../errors.js";
import { OUTCOMES } from "../corpus/manifest.js";
import type { Outcome } from "../corpus/manifest.js";
import type { SchedlabDatabase } from "../store/index.js";
import { ingestedPrograms } from "./store.js";

/** Share of programs the default holdout (and the validation split) takes from each stratum. */
export const DEFAULT_HOLDOUT_FRACTION = 0.2;

/** A program as the splitter sees it: its name and the manifest labels that matter here. */
export interface SplitProgram {
  readonly name: string;
  readonly outcome: Outcome | null;
  readonly tags: readonly string[];
}

/** A resolved split. Invariant: train ∪ test = all programs, disjoint; validation ⊂ train. */
export interface HoldoutSplit {
  /** The spec as given ("default" when none). */
  readonly spec: string;
  /** One line on how the test programs were chosen. */
  readonly description: string;
  readonly train: readonly string[];
  readonly test: readonly string[];
  /** Training programs set aside for early stopping (chosen by hashing, like the default holdout). */
  readonly validation: readonly string[];
}

const SPEC_FORMS = "dir:PREFIX, tag:TAG, list:a,b,c, outcome:OUTCOME, default, or the name of a saved holdout";

/** Parses a stored manifest's labels; an unreadable manifest counts as unlabelled. */
export function splitProgram(name: string, manifest: string | null): SplitProgram {
  if (manifest === null) return { name, outcome: null, tags: [] };
  try {
    const m = JSON.parse(manifest) as { outcome?: unknown; tags?: unknown };
    const outcome = OUTCOMES.includes(m.outcome as Outcome) ? (m.outcome as Outcome) : null;
    const tags = Array.isArray(m.tags) ? m.tags.filter((t): t is string => typeof t === "string") : [];
    return { name, outcome, tags };
  } catch {
    return { name, outcome: null, tags: [] };
  }
}

function hashRank(salt: string, name: string): string {
  return createHash("sha256").update(`${salt}\0${name}`).digest("hex");
}

/** Stratum for the default split: buggy and clean programs are both represented in test. */
function stratum(program: SplitProgram): string {
  if (program.outcome === null) return "unlabelled";
  return program.outcome === "clean" ? "clean" : "buggy";
}

/**
 * Picks about `fraction` of the programs deterministically: within each stratum (buggy,
 * clean, unlabelled), the programs with the smallest sha256(salt, name), at least one from
 * every stratum of two or more programs. Pure; the same names give the same pick.
 */
export function hashedPick(programs: readonly SplitProgram[], salt: string, fraction = DEFAULT_HOLDOUT_FRACTION): string[] {
  const strata = new Map<string, SplitProgram[]>();
  for (const p of programs) strata.set(stratum(p), [...(strata.get(stratum(p)) ?? []), p]);
  const picked: string[] = [];
  for (const members of strata.values()) {
    if (members.length < 2) continue;
    const k = Math.max(1, Math.round(members.length * fraction));
    const ranked = [...members].sort((a, b) => (hashRank(salt, a.name) < hashRank(salt, b.name) ? -1 : 1));
    picked.push(...ranked.slice(0, k).map((p) => p.name));
  }
  return picked.sort();
}

/**
 * The test programs a spec names, from `programs` (pure). `saved` resolves a bare name to
 * the program list of a saved holdout. Throws UsageError for malformed or empty specs.
 */
export function holdoutPrograms(
  programs: readonly SplitProgram[],
  spec: string | undefined,
  saved: (name: string) => readonly string[] | undefined = () => undefined,
): { test: string[]; description: string } {
  const text = (spec ?? "default").trim();
  const colon = text.indexOf(":");
  const form = colon < 0 ? text : text.slice(0, colon);
  const value = colon < 0 ? "" : text.slice(colon + 1).trim();
  const names = programs.map((p) => p.name);
  const matching = (predicate: (p: SplitProgram) => boolean) => programs.filter(predicate).map((p) => p.name);
  let test: string[];
  let description: string;
  if (colon >= 0 && value === "") throw new UsageError(`--holdout ${text} has nothing after the colon`, `Use one of: ${SPEC_FORMS}.`);
  const kind = colon < 0 ? (text === "default" || text === "" ? "default" : "saved") : form === "default" || form === "saved" ? `${form}:` : form;
  switch (kind) {
    case "default":
      test = hashedPick(programs, "holdout");
      description = `default: ~${Math.round(DEFAULT_HOLDOUT_FRACTION * 100)}% of programs by name hash, stratified by outcome`;
      break;
    case "dir": {
      const prefix = value.replace(/\/+$/, "");
      test = matching((p) => p.name === prefix || p.name.startsWith(`${prefix}/`));
      description = `programs under ${prefix}/`;
      break;
    }
    case "tag":
      test = matching((p) => p.tags.includes(value));
      description = `programs tagged ${value}`;
      break;
    case "outcome":
      if (!OUTCOMES.includes(value as Outcome)) throw new UsageError(`unknown outcome ${JSON.stringify(value)} in --holdout`, `Use outcome:${OUTCOMES.join(" | outcome:")}.`);
      test = matching((p) => p.outcome === value);
      description = `programs whose manifest outcome is ${value}`;
      break;
    case "list": {
      const wanted = value.split(",").map((n) => n.trim()).filter((n) => n !== "");
      const unknown = wanted.filter((n) => !names.includes(n));
      if (unknown.length > 0) {
        throw new UsageError(`--holdout list names programs without ingested runs: ${unknown.join(", ")}`, `Use program names as collected, e.g. ${names.slice(0, 3).join(", ")}.`);
      }
      test = [...new Set(wanted)].sort();
      description = `listed programs`;
      break;
    }
    case "saved": {
      const list = saved(text);
      if (list === undefined) throw new UsageError(`unknown holdout ${JSON.stringify(text)}`, `Use one of: ${SPEC_FORMS}.`);
      test = list.filter((n) => names.includes(n)).sort();
      description = `saved holdout ${text}`;
      break;
    }
    default:
      throw new UsageError(`unknown holdout form ${JSON.stringify(form)}`, `Use one of: ${SPEC_FORMS}.`);
  }
  if (test.length === 0 && programs.length > 0 && kind !== "default") {
    throw new UsageError(`--holdout ${text} selects no program`, `Check the spec against the program names (e.g. ${names.slice(0, 3).join(", ")}); forms: ${SPEC_FORMS}.`);
  }
  return { test, description };
}

/** Splits `programs` by `spec` into train, test and validation (pure). */
export function splitPrograms(
  programs: readonly SplitProgram[],
  spec: string | undefined,
  saved?: (name: string) => readonly string[] | undefined,
): HoldoutSplit {
  const { test, description } = holdoutPrograms(programs, spec, saved);
  const held = new Set(test);
  const trainPrograms = programs.filter((p) => !held.has(p.name));
  if (trainPrograms.length === 0 && programs.length > 0) {
    throw new UsageError(`--holdout ${spec ?? "default"} holds out every program, leaving nothing to train on`, "Hold out a smaller set, e.g. dir:PREFIX of one category folder.");
  }
  return {
    spec: spec ?? "default",
    description,
    train: trainPrograms.map((p) => p.name).sort(),
    test: [...test].sort(),
    validation: hashedPick(trainPrograms, "validation"),
  };
}

function savedHoldout(db: SchedlabDatabase, name: string): string[] | undefined {
  const row = db.prepare("SELECT programs FROM holdouts WHERE name = ?").get(name) as { programs: string } | undefined;
  return row === undefined ? undefined : (JSON.parse(row.programs) as string[]);
}

/** The programs with ingested runs, with their labels. */
export function splitCandidates(db: SchedlabDatabase): SplitProgram[] {
  return ingestedPrograms(db).map((p) => splitProgram(p.name, p.manifest));
}

/** Resolves a --holdout spec against the database's ingested programs. */
export function resolveHoldout(db: SchedlabDatabase, spec?: string): HoldoutSplit {
  return splitPrograms(splitCandidates(db), spec, (name) => savedHoldout(db, name));
}

/**
 * Saves the test programs `spec` selects now under `name`, so later runs use the same set
 * even after programs are added. Overwrites a holdout of the same name.
 */
export function saveHoldout(db: SchedlabDatabase, name: string, spec: string): HoldoutSplit {
  if (!/^[A-Za-z0-9_.-]+$/.test(name) || name === "default") {
    throw new UsageError(`invalid holdout name ${JSON.stringify(name)}`, "Use letters, digits, '.', '_' or '-' (not \"default\").");
  }
  const split = resolveHoldout(db, spec);
  db.prepare(
    `INSERT INTO holdouts (name, spec, programs, created_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET spec = excluded.spec, programs = excluded.programs, created_at = excluded.created_at`,
  ).run(name, spec, JSON.stringify(split.test), new Date().toISOString());
  return split;
}
