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
