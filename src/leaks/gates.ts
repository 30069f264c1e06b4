// CI gates over an analysis: which classes of finding fail the run. Gates count bugs, not
// goroutines (src/model/bugs.ts): a bug repeated by -test.count, or made of several
// goroutines, counts once. Only bugs blocked forever (and not seen only in runs the
// deadline cut) count as leaks; outlived, background, potential deadlocks, races and flaky
// tests each have a gate of their own, and failing tests and crashes share one (failing);
// tracer-induced failures are never counted. What a baseline accepted (its fingerprints,
// src/leaks/fingerprints.ts) is never counted (docs/ci.md, "Baselines"). Pure.

import { crashFingerprint, failingFingerprint, flakyFingerprint, raceFingerprint } from "./fingerprints.js";
import type { LeakAnalysis } from "./from-database.js";

export const GATES = ["leak", "outlived", "background", "potential", "race", "flaky", "failing"] as const;
export type Gate = (typeof GATES)[number];

const NOTHING_ACCEPTED: ReadonlySet<string> = new Set();

/** How many bugs (or races, flaky tests, failing tests and crashes) each gate counts, leaving out the fingerprints in `accepted`. */
export function gateCounts(
  analysis: LeakAnalysis,
  accepted: ReadonlySet<string> = NOTHING_ACCEPTED,
): Record<Gate, number> {
  const bugs = analysis.bugs.filter((b) => !accepted.has(b.fingerprint));
  return {
    leak: bugs.filter((b) => b.gating).length,
    outlived: bugs.filter((b) => b.kind === "outlived").length,
    background: bugs.filter((b) => b.kind === "background").length,
    potential: analysis.potentialDeadlocks.filter((p) => !accepted.has(p.fingerprint)).length,
    race: analysis.races.filter((r) => !accepted.has(raceFingerprint(r))).length,
    flaky: analysis.flaky.filter((f) => !accepted.has(flakyFingerprint(f))).length,
    failing:
      analysis.failing.filter((f) => !accepted.has(failingFingerprint(f))).length +
      analysis.crashed.filter((c) => !accepted.has(crashFingerprint(c))).length,
  };
}

/** The gates among `gates` that fail, in GATES order, leaving out the fingerprints in `accepted`. */
export function gateFailures(
  analysis: LeakAnalysis,
  gates: readonly Gate[],
  accepted: ReadonlySet<string> = NOTHING_ACCEPTED,
): Gate[] {
  const counts = gateCounts(analysis, accepted);
  return GATES.filter((g) => gates.includes(g) && counts[g] > 0);
}
