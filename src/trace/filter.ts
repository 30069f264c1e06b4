// The default user-goroutine filter; mirrors defaultDrop/defaultKeep in src/gohelper/decode/filter.go.

import type { GoroutineFilter } from "./types.js";

/**
 * Entry functions of goroutines that are not the user's: the runtime's (except
 * runtime.main), the trace writer, the testing driver (top-level TestXxx goroutines and
 * subtests started by user goroutines are kept apart from this rule), signal.Notify's
 * loop, time.AfterFunc's timer goroutines, and the collect harness's goroutines.
 */
export const DEFAULT_GOROUTINE_FILTER: GoroutineFilter = {
  drop: ["runtime.*", "runtime/trace.*", "testing.*", "os/signal.*", "time.goFunc", "main.schedlabHarness*"],
  keep: ["runtime.main"],
};

/** True when a goroutine starting in `entry` is not a user goroutine under `filter`. */
export function isDroppedEntry(entry: string, filter: GoroutineFilter = DEFAULT_GOROUTINE_FILTER): boolean {
  return matchesAny(filter.drop, entry) && !matchesAny(filter.keep, entry);
}

function matchesAny(patterns: readonly string[], name: string): boolean {
  return patterns.some((p) => (p.endsWith("*") ? name.startsWith(p.slice(0, -1)) : p === name));
}
