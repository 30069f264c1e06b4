// CI gates over an analysis: which classes of finding fail the run. Only goroutines
// blocked forever (and not seen only in runs the deadline cut) count as leaks; outlived,
// background, races and flaky tests each have a gate of their own. Pure.

import type { LeakAnalysis } from "./from-database.js";

export const GATES = ["leak", "outlived", "background", "race", "flaky"] as const;
export type Gate = (typeof GATES)[number];

/** How many findings each gate counts. */
export function gateCounts(analysis: LeakAnalysis): Record<Gate, number> {
  const f = analysis.findings;
  return {
    leak: f.filter((x) => x.gating).length,
    outlived: f.filter((x) => x.kind === "outlived").length,
    background: f.filter((x) => x.kind === "background").length,
    race: analysis.races.length,
    flaky: analysis.flaky.length,
  };
}

/** The gates among `gates` that fail, in GATES order. */
export function gateFailures(analysis: LeakAnalysis, gates: readonly Gate[]): Gate[] {
  const counts = gateCounts(analysis);
  return GATES.filter((g) => gates.includes(g) && counts[g] > 0);
}
