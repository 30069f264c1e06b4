// A full garbage collection where a long computation moves from one large working set to the
// next (between `run`'s stages, between cross-validation folds). V8 leaves the dead objects of
// the last step in the old generation until the heap is under pressure, so without it the next
// step's peak stacks on them (docs/run.md, "Peak memory"). The collector is exposed at run time
// (`--expose-gc` set from inside, the function taken from a fresh context), so neither the CLI
// nor a library caller has to start Node with a flag.

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

let collector: (() => void) | undefined;

/** Runs a full, synchronous garbage collection. */
export function collectGarbage(): void {
  if (collector === undefined) {
    const exposed = (globalThis as { gc?: () => void }).gc;
    if (typeof exposed === "function") collector = exposed;
    else {
      setFlagsFromString("--expose-gc");
      collector = runInNewContext("gc") as () => void;
    }
  }
  collector();
}

/**
 * A collector for a loop that loads and drops its data piece by piece (a side of a split,
 * program by program): told how much each piece held, it collects whenever the pieces since
 * its last collection add up to `budget`. Each piece lives long enough to reach the old
 * generation, which V8 collects only under pressure, so without it the dead pieces pile up to
 * a peak set by V8's heuristics rather than by the largest piece.
 */
export function collectorEvery(budget: number): (amount: number) => void {
  let since = 0;
  return (amount) => {
    since += amount;
    if (since < budget) return;
    collectGarbage();
    since = 0;
  };
}
