// The default user-goroutine filter; mirrors defaultDrop/defaultKeep in src/gohelper/decode/filter.go.

import type { GoroutineFilter } from "./types.js";

/**
 * Entry functions of goroutines that are not the user's: the runtime's (except
 * runtime.main), the trace writer, the testing driver (top-level TestXxx goroutines and
 * subtests started by user goroutines are kept apart from this rule), signal.Notify's
 * loop, time.AfterFunc's timer goroutines, the collect harness's goroutines, and the run
 * agent's (src/collect/agent.ts), which live in whatever package the tests are in.
 */
export const DEFAULT_GOROUTINE_FILTER: GoroutineFilter = {
  drop: [
    "runtime.*",
    "runtime/trace.*",
    "testing.*",
    "os/signal.*",
    "time.goFunc",
    "main.schedlabHarness*",
    "*.schedlabAgent*",
  ],
  keep: ["runtime.main"],
};

/**
 * True when a goroutine starting in `entry` is not a user goroutine under `filter`. A
 * pattern is an exact function name, a prefix ending in `*`, or, starting with `*.`, either
 * of those for the function's name in any package ("*.schedlabAgent*" matches
 * "example.com/m/pkg_test.schedlabAgentProbe": the name after the package path, which ends at
 * the first dot after the last slash; the linker writes a dot inside the last path element as %2e).
 */
export function isDroppedEntry(entry: string, filter: GoroutineFilter = DEFAULT_GOROUTINE_FILTER): boolean {
  return matchesAny(filter.drop, entry) && !matchesAny(filter.keep, entry);
}

function matchesAny(patterns: readonly string[], name: string): boolean {
  return patterns.some((p) => (p.startsWith("*.") ? matches(p.slice(2), functionName(name)) : matches(p, name)));
}

function matches(pattern: string, name: string): boolean {
  return pattern.endsWith("*") ? name.startsWith(pattern.slice(0, -1)) : pattern === name;
}

/** The function's name without its package path: "example.com/m/pkg.(*T).Run.func1" → "(*T).Run.func1". */
function functionName(name: string): string {
  const last = name.slice(name.lastIndexOf("/") + 1);
  const dot = last.indexOf(".");
  return dot < 0 ? "" : last.slice(dot + 1);
}
