// Train/validation/test splits by program family, never by sample or by sibling program:
// a program's runs share states, and programs of one family share a template or a
// category, so splitting any finer would leak the test set into training. resolveHoldout
// is the one place a --holdout spec becomes programs; every command resolves it once.

import { createHash } from "node:crypto";
import { resolve } from "node:path";
import { UsageError } from "../errors.js";
import { OUTCOMES, readCorpusFile, type Outcome } from "../corpus/index.js";
import type { SchedlabDatabase } from "../store/index.js";
import { familyGroup, programFamily, type FamilyLabels } from "./family.js";
import { ingestedPrograms } from "./store.js";
import type { RunSelection } from "./types.js";

/** Share of families the default holdout (and the validation split) takes from each group. */
export const DEFAULT_HOLDOUT_FRACTION = 0.2;

/** A program as the splitter sees it: its name, family, corpus and the manifest labels that matter here. */
export interface SplitProgram {
  readonly name: string;
  /** See programFamily: the template, category or directory it shares with its siblings. */
  readonly family: string;
  /** Label of the corpus (collect root) it came from. */
  readonly corpus: string;
  /** Absolute root directory it was collected from. */
  readonly root: string;
  /** Collected as a test corpus: never trained on, evaluated only when a spec selects it. */
  readonly testOnly: boolean;
  readonly outcome: Outcome | null;
  readonly tags: readonly string[];
}

/** Family counts of a resolved split. */
export interface SplitFamilies {
  readonly train: number;
  readonly validation: number;
  readonly test: number;
}

/**
 * A resolved split. Invariants: train and test are disjoint and share no family;
 * validation ⊂ train and shares no family with the rest of train; excluded holds the
 * test-corpus programs the spec did not select (in neither train nor test).
 */
export interface HoldoutSplit {
  /** The spec as given ("default" when none). */
  readonly spec: string;
  /** One line on how the test programs were chosen. */
  readonly description: string;
  readonly train: readonly string[];
  readonly test: readonly string[];
  /** Training programs of whole families set aside for early stopping and calibration. */
  readonly validation: readonly string[];
  readonly excluded: readonly string[];
  /**
   * The --train-on spec when training was restricted to the programs it selects (absent: every
   * program not held out trains); the programs outside it and outside test are in `excluded`.
   */
  readonly trainOn?: string;
  /** Family of every program of the split (train, test, excluded). */
  readonly familyOf: Readonly<Record<string, string>>;
  readonly families: SplitFamilies;
}

const SPEC_FORMS =
  "default, family:NAME, corpus:DIR, corpus-file:FILE, dir:PREFIX, tag:TAG, outcome:OUTCOME, list:a,b,c, " +
  "the name of a saved holdout, or several joined by + (their union)";

/** A module pinned by version, as a corpus file lists it. */
export interface PinnedModule {
  readonly module: string;
  readonly version: string;
}

/** What spec terms look up outside the program list: saved holdouts and corpus files. */
export interface SpecLookups {
  /** The option the spec came from, for error messages (default "--holdout"). */
  readonly flag?: string;
  /** The program list of a saved holdout, or undefined when there is none of that name. */
  readonly saved?: (name: string) => readonly string[] | undefined;
  /** The modules a corpus file lists (default: the file read with readCorpusFile). */
  readonly corpusFile?: (path: string) => readonly PinnedModule[];
}

/** Options of splitPrograms beyond the holdout spec. */
export interface SplitOptions extends SpecLookups {
  /**
   * Train only on the programs this spec selects (the same forms as the holdout, not
   * "default"); the held-out families stay out of it as always, and a default holdout picks
   * its families among these programs. Absent: every program that is not held out trains.
   */
  readonly trainOn?: string;
}

interface ManifestLabels extends FamilyLabels {
  readonly outcome?: unknown;
  readonly tags?: unknown;
}

/** Parses a stored manifest's labels; an unreadable manifest counts as unlabelled. */
export function splitProgram(
  name: string,
  manifest: string | null,
  corpus: { label: string; root: string; testOnly: boolean } = defaultCorpus,
): SplitProgram {
  let m: ManifestLabels | null = null;
  if (manifest !== null) {
    try {
      const parsed = JSON.parse(manifest) as unknown;
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) m = parsed as ManifestLabels;
    } catch {
      m = null;
    }
  }
  const outcome = m !== null && OUTCOMES.includes(m.outcome as Outcome) ? (m.outcome as Outcome) : null;
  const tags = m !== null && Array.isArray(m.tags) ? m.tags.filter((t): t is string => typeof t === "string") : [];
  return {
    name,
    family: programFamily(name, m),
    corpus: corpus.label,
    root: corpus.root,
    testOnly: corpus.testOnly,
    outcome,
    tags,
  };
}

const defaultCorpus = { label: "", root: "", testOnly: false };

function hashRank(salt: string, name: string): string {
  return createHash("sha256").update(`${salt}\0${name}`).digest("hex");
}

/**
 * Picks about `fraction` of the families of `programs` deterministically and returns their
 * programs: within each group of families (familyGroup: "generated", "patterns", "kernels", …)
 * the families with the smallest sha256(salt, family), round(n · fraction) of them and at
 * least one from every group of two or more families; when no group has two, as many among
 * all families. Pure; the same families give the same pick.
 *
 * @example hashedFamilyPick(programs, "holdout") // => every program of the picked families, sorted
 */
export function hashedFamilyPick(
  programs: readonly SplitProgram[],
  salt: string,
  fraction = DEFAULT_HOLDOUT_FRACTION,
): string[] {
  const groups = new Map<string, Set<string>>();
  for (const p of programs) {
    const group = familyGroup(p.family);
    const families = groups.get(group) ?? new Set<string>();
    families.add(p.family);
    groups.set(group, families);
  }
  const picked = new Set<string>();
  const rankedPick = (families: Iterable<string>, k: number): void => {
    const ranked = [...families].sort((a, b) => (hashRank(salt, a) < hashRank(salt, b) ? -1 : 1));
    for (const family of ranked.slice(0, k)) picked.add(family);
  };
  for (const families of groups.values()) {
    if (families.size >= 2) rankedPick(families, Math.max(1, Math.round(families.size * fraction)));
  }
  // Every group has a single family (e.g. a small corpus): pick among all families instead.
  const all = new Set(programs.map((p) => p.family));
  if (picked.size === 0 && all.size >= 2) rankedPick(all, Math.max(1, Math.round(all.size * fraction)));
  return programs
    .filter((p) => picked.has(p.family))
    .map((p) => p.name)
    .sort();
}

/**
 * Validation programs of a training set: whole families by hash (hashedFamilyPick); when the
 * training programs form a single family, programs by hash instead (the only way to stop
 * early and calibrate at all), and the split says so.
 */
function validationPick(train: readonly SplitProgram[]): { validation: string[]; byProgram: boolean } {
  const byFamily = hashedFamilyPick(train, "validation");
  if (byFamily.length > 0 || train.length < 2) return { validation: byFamily, byProgram: false };
  const asFamilies = train.map((p) => ({ ...p, family: p.name }));
  return { validation: hashedFamilyPick(asFamilies, "validation"), byProgram: true };
}

/** The programs one spec term selects (pure). */
function selectTerm(
  programs: readonly SplitProgram[],
  term: string,
  lookups: SpecLookups,
): { test: string[]; description: string } {
  const colon = term.indexOf(":");
  const form = colon < 0 ? term : term.slice(0, colon);
  const value = colon < 0 ? "" : term.slice(colon + 1).trim();
  const names = programs.map((p) => p.name);
  const matching = (predicate: (p: SplitProgram) => boolean) => programs.filter(predicate).map((p) => p.name);
  const flag = lookups.flag ?? "--holdout";
  if (colon >= 0 && value === "")
    throw new UsageError(`${flag} ${term} has nothing after the colon`, `Use one of: ${SPEC_FORMS}.`);
  switch (colon < 0 ? "saved" : form) {
    case "family": {
      const known = [...new Set(programs.map((p) => p.family))].sort();
      if (!known.includes(value))
        throw new UsageError(
          `no program is in family ${JSON.stringify(value)}`,
          `Families here: ${known.slice(0, 12).join(", ")}${known.length > 12 ? ", …" : ""}.`,
        );
      return { test: matching((p) => p.family === value), description: `family ${value}` };
    }
    case "corpus": {
      const root = resolve(value);
      const selected = matching((p) => p.root === root || p.corpus === value);
      if (selected.length === 0) {
        const corpora = [...new Set(programs.map((p) => `${p.corpus} (${p.root})`))].join(", ");
        throw new UsageError(
          `no collected program comes from corpus ${JSON.stringify(value)}`,
          `Collect it first (\`schedlab collect DIR --test-corpus\` or \`schedlab run --test-corpus DIR\`), or name one of: ${corpora}.`,
        );
      }
      return { test: selected, description: `corpus ${value}` };
    }
    case "corpus-file": {
      // A module's corpus label is MODULE@VERSION (src/collect/corpora.ts), whatever its root.
      const modules = (lookups.corpusFile ?? readCorpusFile)(value);
      const labels = new Set(modules.map((m) => `${m.module}@${m.version}`));
      return {
        test: matching((p) => labels.has(p.corpus)),
        description: `the ${modules.length} modules of ${value}`,
      };
    }
    case "dir": {
      const prefix = value.replace(/\/+$/, "");
      return {
        test: matching((p) => p.name === prefix || p.name.startsWith(`${prefix}/`)),
        description: `programs under ${prefix}/`,
      };
    }
    case "tag":
      return { test: matching((p) => p.tags.includes(value)), description: `programs tagged ${value}` };
    case "outcome":
      if (!OUTCOMES.includes(value as Outcome))
        throw new UsageError(
          `unknown outcome ${JSON.stringify(value)} in ${flag}`,
          `Use outcome:${OUTCOMES.join(" | outcome:")}.`,
        );
      return { test: matching((p) => p.outcome === value), description: `programs whose manifest outcome is ${value}` };
    case "list": {
      const wanted = value
        .split(",")
        .map((n) => n.trim())
        .filter((n) => n !== "");
      const unknown = wanted.filter((n) => !names.includes(n));
      if (unknown.length > 0) {
        throw new UsageError(
          `${flag} list names programs without ingested runs: ${unknown.join(", ")}`,
          `Use program names as collected, e.g. ${names.slice(0, 3).join(", ")}.`,
        );
      }
      return { test: [...new Set(wanted)], description: "listed programs" };
    }
    case "saved": {
      const list = lookups.saved?.(term);
      if (list === undefined)
        throw new UsageError(`unknown holdout ${JSON.stringify(term)}`, `Use one of: ${SPEC_FORMS}.`);
      return { test: list.filter((n) => names.includes(n)), description: `saved holdout ${term}` };
    }
    default:
      throw new UsageError(`unknown holdout form ${JSON.stringify(form)}`, `Use one of: ${SPEC_FORMS}.`);
  }
}

/**
 * The test programs a spec names, from `programs` (pure unless it names a corpus file, which
 * `lookups.corpusFile` reads). "default" picks whole families by hash among the programs that
 * are not from a test corpus; the other forms select programs, and the union of "+"-joined
 * terms is taken. `lookups.saved` resolves a bare name to the program list of a saved holdout.
 * Throws UsageError for malformed or empty specs.
 */
export function holdoutPrograms(
  programs: readonly SplitProgram[],
  spec: string | undefined,
  lookups: SpecLookups = {},
): { test: string[]; description: string } {
  const flag = lookups.flag ?? "--holdout";
  const text = (spec ?? "default").trim();
  if (text === "default" || text === "") {
    const test = hashedFamilyPick(
      programs.filter((p) => !p.testOnly),
      "holdout",
    );
    return {
      test,
      description: `default: ~${Math.round(DEFAULT_HOLDOUT_FRACTION * 100)}% of the families of each group (generated, patterns, kernels, …) by hash`,
    };
  }
  const terms = text.split("+").map((t) => t.trim());
  if (terms.some((t) => t === "" || t === "default")) {
    throw new UsageError(
      `${flag} ${text} is not a valid union`,
      `Join non-empty terms with +, e.g. dir:kernels+family:generated/pipeline ("default" stands alone); forms: ${SPEC_FORMS}.`,
    );
  }
  const test = new Set<string>();
  const descriptions: string[] = [];
  for (const term of terms) {
    const selected = selectTerm(programs, term, lookups);
    if (selected.test.length === 0 && programs.length > 0) {
      throw new UsageError(
        `${flag} ${term} selects no program`,
        `Check the spec against the program names (e.g. ${programs
          .slice(0, 3)
          .map((p) => p.name)
          .join(", ")}); forms: ${SPEC_FORMS}.`,
      );
    }
    for (const name of selected.test) test.add(name);
    descriptions.push(selected.description);
  }
  return { test: [...test].sort(), description: descriptions.join(" + ") };
}

/**
 * The programs a --train-on spec selects, and its words (the forms of a holdout spec but
 * "default"). Throws UsageError for "default" or a spec that selects nothing.
 */
export function trainingPrograms(
  programs: readonly SplitProgram[],
  spec: string,
  lookups: SpecLookups = {},
): { names: Set<string>; description: string } {
  if (spec.trim() === "" || spec.trim() === "default")
    throw new UsageError(
      `--train-on ${spec === "" ? '""' : spec} names no programs`,
      `Name the programs to train on with the forms of --holdout but default, e.g. corpus:go-programs or corpus-file:FILE: ${SPEC_FORMS}.`,
    );
  const selected = holdoutPrograms(programs, spec, { ...lookups, flag: "--train-on" });
  return { names: new Set(selected.test), description: selected.description };
}

/**
 * Splits `programs` by `spec` into train, validation and test (pure unless a spec names a
 * corpus file). Every family with a program in test is held out whole: its other programs
 * are excluded from training, so no test program has a sibling there. Validation takes whole
 * families of the training programs by hash. Programs of test corpora train nothing: the ones
 * not selected are `excluded`. With `options.trainOn`, only the programs it selects train (the
 * others not in test are `excluded` too), and a default holdout picks among them.
 */
export function splitPrograms(
  programs: readonly SplitProgram[],
  spec: string | undefined,
  saved?: (name: string) => readonly string[] | undefined,
  options: SplitOptions = {},
): HoldoutSplit {
  const lookups: SpecLookups = { saved: saved ?? options.saved, corpusFile: options.corpusFile };
  const trainOn = options.trainOn === undefined ? undefined : trainingPrograms(programs, options.trainOn, lookups);
  const isDefault = spec === undefined || spec.trim() === "" || spec.trim() === "default";
  // A default holdout of a restricted training set is drawn from that set's families.
  const universe = trainOn !== undefined && isDefault ? programs.filter((p) => trainOn.names.has(p.name)) : programs;
  const { test, description } = holdoutPrograms(universe, spec, lookups);
  const held = new Set(test);
  const testFamilies = new Set(programs.filter((p) => held.has(p.name)).map((p) => p.family));
  const trains = (p: SplitProgram): boolean =>
    !held.has(p.name) && !p.testOnly && !testFamilies.has(p.family) && (trainOn?.names.has(p.name) ?? true);
  const trainPrograms = programs.filter(trains);
  const excluded = programs.filter((p) => !held.has(p.name) && !trains(p)).map((p) => p.name);
  if (trainPrograms.length === 0 && programs.length > 0) {
    throw new UsageError(
      trainOn === undefined
        ? `--holdout ${spec ?? "default"} holds out every program (or every family), leaving nothing to train on`
        : `--train-on ${options.trainOn} leaves nothing to train on once --holdout ${spec ?? "default"} is held out ` +
            "(its programs are held out, in a held-out family, or from a test corpus)",
      trainOn === undefined
        ? "Hold out a smaller set, e.g. family:NAME or dir:PREFIX of one category folder."
        : "Train on programs outside the holdout's families, e.g. --train-on corpus:go-programs --holdout corpus-file:FILE.",
    );
  }
  const { validation, byProgram } = validationPick(trainPrograms);
  const familyOf: Record<string, string> = {};
  for (const p of programs) familyOf[p.name] = p.family;
  const familiesOf = (names: readonly string[]): number => new Set(names.map((n) => familyOf[n])).size;
  const train = trainPrograms.map((p) => p.name).sort();
  const words = trainOn === undefined ? description : `${description}; trained on ${trainOn.description} only`;
  return {
    spec: spec ?? "default",
    description: byProgram ? `${words}; validation by program (the training programs form one family)` : words,
    train,
    test,
    validation,
    excluded: excluded.sort(),
    ...(options.trainOn === undefined ? {} : { trainOn: options.trainOn }),
    familyOf,
    families: { train: familiesOf(train), validation: familiesOf(validation), test: familiesOf(test) },
  };
}

function savedHoldout(db: SchedlabDatabase, name: string): string[] | undefined {
  const row = db.prepare("SELECT programs FROM holdouts WHERE name = ?").get(name) as { programs: string } | undefined;
  return row === undefined ? undefined : (JSON.parse(row.programs) as string[]);
}

/** The programs with ingested runs (of the selected strategies), with their labels, families and corpora. */
export function splitCandidates(db: SchedlabDatabase, runs: RunSelection = "plain"): SplitProgram[] {
  return ingestedPrograms(db, runs).map((p) =>
    splitProgram(p.name, p.manifest, { label: p.corpus, root: p.root, testOnly: p.testOnly }),
  );
}

/** Resolves a --holdout spec (and a --train-on spec, when given) against the database's ingested programs. */
export function resolveHoldout(
  db: SchedlabDatabase,
  spec?: string,
  runs: RunSelection = "plain",
  trainOn?: string,
): HoldoutSplit {
  return splitPrograms(splitCandidates(db, runs), spec, (name) => savedHoldout(db, name), { trainOn });
}

/** The ingested programs a --train-on spec selects (see trainingPrograms), with its words. */
export function resolveTrainOn(
  db: SchedlabDatabase,
  spec: string,
  runs: RunSelection = "plain",
): { names: Set<string>; description: string } {
  return trainingPrograms(splitCandidates(db, runs), spec, { saved: (name) => savedHoldout(db, name) });
}

/**
 * Saves the test programs `spec` selects now under `name`, so later runs use the same set
 * even after programs are added. Overwrites a holdout of the same name.
 */
export function saveHoldout(db: SchedlabDatabase, name: string, spec: string): HoldoutSplit {
  if (!/^[A-Za-z0-9_.-]+$/.test(name) || name === "default") {
    throw new UsageError(
      `invalid holdout name ${JSON.stringify(name)}`,
      "Use letters, digits, '.', '_' or '-' (not \"default\").",
    );
  }
  const split = resolveHoldout(db, spec);
  db.prepare(
    `INSERT INTO holdouts (name, spec, programs, created_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET spec = excluded.spec, programs = excluded.programs, created_at = excluded.created_at`,
  ).run(name, spec, JSON.stringify(split.test), new Date().toISOString());
  return split;
}
