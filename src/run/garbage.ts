// A full garbage collection between `run`'s stages. V8 leaves a finished stage's dead objects in
// the old generation until the heap is under pressure, so without it a stage's peak stacks on
// the garbage of the stages before it (docs/run.md, "Peak memory"). The collector is exposed at
// run time (`--expose-gc` set from inside, the function taken from a fresh context), so neither
// the CLI nor a library caller has to start Node with a flag.

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
