// Scoring blocked-goroutine signatures against manifest labels: true positives, false
// positives, misses, precision/recall/F1 overall, by block reason and by bug class, and
// false positives on clean programs. Pure; any detector's signatures can be scored.

import { basename } from "node:path";
import type { ExpectedBlockedGoroutine, Manifest } from "../corpus/index.js";
import { distinctSignatures, functionBaseName, type BlockedSignature } from "./signature.js";

export interface LabelledProgram {
  readonly program: string;
  readonly manifest: Manifest;
}

export interface Counts {
  readonly truePositives: number;
  readonly falsePositives: number;
  readonly missed: number;
  /** TP / (TP + FP); null when nothing was reported. */
  readonly precision: number | null;
  /** TP / (TP + missed); null when nothing was expected. */
  readonly recall: number | null;
  readonly f1: number | null;
}

export interface ProgramScore {
  readonly program: string;
  readonly outcome: Manifest["outcome"];
  readonly bugClass: string | null;
  readonly matched: readonly ExpectedBlockedGoroutine[];
  readonly missed: readonly ExpectedBlockedGoroutine[];
  readonly falsePositives: readonly BlockedSignature[];
  /** Matched goroutines whose finding kind (blocked forever / outlived) differs from the label's. */
  readonly kindDiffers: readonly ExpectedBlockedGoroutine[];
}

export interface LeakScore {
  readonly overall: Counts;
  readonly byReason: Readonly<Record<string, Counts>>;
  readonly byBugClass: Readonly<Record<string, Counts>>;
  /** Clean-labelled programs scored, and those with at least one reported goroutine. */
  readonly cleanPrograms: number;
  readonly cleanProgramsFlagged: number;
  readonly falsePositivesOnClean: number;
  readonly programs: readonly ProgramScore[];
}

/**
 * Whether `signature` is the goroutine `expected` labels: site base name (or root function)
 * and the reason when the detector gives one. The kind of finding (blocked forever or
 * outlived) does not decide a match — a goroutine found is found — and is scored apart
 * (ProgramScore.kindDiffers).
 */
export function matchesExpected(signature: BlockedSignature, expected: ExpectedBlockedGoroutine): boolean {
  // A potential deadlock is labelled by the lock call that would block and matched by any acquisition of its cycle.
  const potential = expected.finding === "potential-deadlock";
  if (potential !== (signature.finding === "potential-deadlock")) return false;
  if (potential)
    return expected.lockSite !== undefined && (signature.lockSites ?? []).includes(basename(expected.lockSite));
  if (signature.reason !== null && signature.reason !== expected.reason) return false;
  if (expected.site === null) {
    return (
      signature.root !== null &&
      (signature.root === expected.creator || functionBaseName(signature.root) === functionBaseName(expected.creator))
    );
  }
  return signature.siteKey !== null && signature.siteKey === basename(expected.site);
}

/** Precision, recall and F1 from counts. */
export function counts(truePositives: number, falsePositives: number, missed: number): Counts {
  const precision = truePositives + falsePositives === 0 ? null : truePositives / (truePositives + falsePositives);
  const recall = truePositives + missed === 0 ? null : truePositives / (truePositives + missed);
  const f1 =
    precision === null || recall === null || precision + recall === 0
      ? precision === null || recall === null
        ? null
        : 0
      : (2 * precision * recall) / (precision + recall);
  return { truePositives, falsePositives, missed, precision, recall, f1 };
}

/** Scores one labelled program: each expected goroutine is found or missed; each distinct reported signature matching none is a false positive. */
export function scoreProgram(labelled: LabelledProgram, signatures: readonly BlockedSignature[]): ProgramScore {
  const own = distinctSignatures(signatures.filter((s) => s.program === labelled.program));
  const expected = labelled.manifest.expected;
  return {
    program: labelled.program,
    outcome: labelled.manifest.outcome,
    bugClass: labelled.manifest.bugClass,
    matched: expected.filter((e) => own.some((s) => matchesExpected(s, e))),
    missed: expected.filter((e) => !own.some((s) => matchesExpected(s, e))),
    falsePositives: own.filter((s) => !expected.some((e) => matchesExpected(s, e))),
    kindDiffers: expected.filter((e) => {
      const found = own.filter((s) => matchesExpected(s, e) && s.finding !== undefined);
      return found.length > 0 && !found.some((s) => s.finding === (e.finding ?? "blocked-forever"));
    }),
  };
}

function tally(
  scores: readonly ProgramScore[],
  groupOf: (score: ProgramScore, reason: string) => string,
): Record<string, Counts> {
  const raw = new Map<string, [number, number, number]>();
  const add = (group: string, i: 0 | 1 | 2): void => {
    const c = raw.get(group) ?? [0, 0, 0];
    c[i]++;
    raw.set(group, c);
  };
  for (const s of scores) {
    for (const e of s.matched) add(groupOf(s, e.reason), 0);
    for (const f of s.falsePositives) add(groupOf(s, f.reason ?? "unknown"), 1);
    for (const e of s.missed) add(groupOf(s, e.reason), 2);
  }
  return Object.fromEntries(
    [...raw].sort(([a], [b]) => a.localeCompare(b)).map(([group, [tp, fp, fn]]) => [group, counts(tp, fp, fn)]),
  );
}

/** Scores every labelled program against the signatures a detector reported. */
export function scoreSignatures(
  labelled: readonly LabelledProgram[],
  signatures: readonly BlockedSignature[],
): LeakScore {
  const programs = labelled.map((l) => scoreProgram(l, signatures));
  const sum = (pick: (s: ProgramScore) => number): number => programs.reduce((n, s) => n + pick(s), 0);
  const clean = programs.filter((s) => s.outcome === "clean");
  return {
    overall: counts(
      sum((s) => s.matched.length),
      sum((s) => s.falsePositives.length),
      sum((s) => s.missed.length),
    ),
    byReason: tally(programs, (_, reason) => reason),
    byBugClass: tally(programs, (s) => s.bugClass ?? (s.outcome === "clean" ? "clean" : "unclassified")),
    cleanPrograms: clean.length,
    cleanProgramsFlagged: clean.filter((s) => s.falsePositives.length > 0).length,
    falsePositivesOnClean: clean.reduce((n, s) => n + s.falsePositives.length, 0),
    programs,
  };
}
