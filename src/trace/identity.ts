// Canonical goroutine identity: the creation path from the root goroutine, stable across
// runs of the same program (docs/identity.md). Pure.

import type { DecodedGoroutine, GoroutineInfo } from "./types.js";

/** "example.com/m/pkg.Worker.func1" → "pkg.Worker.func1": the package path's directories dropped. */
export function shortFunctionName(fn: string): string {
  const slash = fn.lastIndexOf("/");
  return slash < 0 ? fn : fn.slice(slash + 1);
}

/** "example.com/m/pkg.TestFoo" → "TestFoo": a test root is named by its test function. */
export function testName(fn: string): string {
  const short = shortFunctionName(fn);
  const dot = short.indexOf(".");
  return dot < 0 ? short : short.slice(dot + 1);
}

/**
 * Assigns canonical ids:
 * - program root: `main.main`;
 * - test root: the test function (`TestFoo`), or `(test)` when no stack of it named it;
 *   with `testNames` (the tests the binary ran, in order; repeated for -test.count) a root
 *   no stack named takes its name by position, only if the roots' count and every known
 *   name agree;
 *   a repeated root name (e.g. -count=2) gets `#1`, `#2`, … after the first;
 * - child: `<parent id>/<entry>@<file>:<line>#<ordinal>`, entry shortened by
 *   shortFunctionName (the user function for wrapper entries), file a base name;
 * - goroutine that existed before tracing began (not the root): `(pre-trace)/<entry>#<k>`,
 *   k counting same-entry such goroutines in goroutine-id order.
 */
export function canonicalGoroutineIds(
  goroutines: readonly DecodedGoroutine[],
  options: { readonly testNames?: readonly string[] } = {},
): GoroutineInfo[] {
  const testNames = testRootNames(goroutines, options.testNames);
  const byId = new Map(goroutines.map((g) => [g.goroutine, g]));
  const ids = new Map<number, string>();
  const rootCounts = new Map<string, number>();
  const preCounts = new Map<string, number>();
  const ordered = [...goroutines].sort((a, b) => a.goroutine - b.goroutine);
  for (const g of ordered) {
    if (g.root === "none") continue;
    const name = g.root === "program" ? "main.main" : (testNames.get(g.goroutine) ?? "(test)");
    const seen = rootCounts.get(name) ?? 0;
    rootCounts.set(name, seen + 1);
    ids.set(g.goroutine, seen === 0 ? name : `${name}#${seen}`);
  }
  for (const g of ordered) {
    if (g.root !== "none" || g.parent !== null) continue;
    const entry = shortFunctionName(g.runs ?? g.entry);
    const k = preCounts.get(entry) ?? 0;
    preCounts.set(entry, k + 1);
    ids.set(g.goroutine, `${g.preTrace ? "(pre-trace)" : "(orphan)"}/${entry}#${k}`);
  }
  const idOf = (g: DecodedGoroutine, depth: number): string => {
    const known = ids.get(g.goroutine);
    if (known !== undefined) return known;
    const parent = g.parent === null ? undefined : byId.get(g.parent);
    const prefix = parent === undefined || depth > 10_000 ? "(orphan)" : idOf(parent, depth + 1);
    const id = `${prefix}/${shortFunctionName(g.runs ?? g.entry)}@${g.siteKey ?? "?"}#${g.ordinal}`;
    ids.set(g.goroutine, id);
    return id;
  };
  return goroutines.map((g) => ({
    goroutine: g.goroutine,
    canonicalId: idOf(g, 0),
    parent: g.parent,
    entry: g.runs ?? g.entry,
    creationSite: g.creationSite,
    isRoot: g.root !== "none",
  }));
}

/** Names of the test roots: from their stacks, else by position in `expected` when consistent. */
function testRootNames(goroutines: readonly DecodedGoroutine[], expected: readonly string[] | undefined): Map<number, string> {
  const roots = goroutines.filter((g) => g.root === "test").sort((a, b) => a.goroutine - b.goroutine);
  const names = new Map<number, string>();
  for (const g of roots) if (g.runs) names.set(g.goroutine, testName(g.runs));
  if (expected === undefined || expected.length === 0 || roots.length % expected.length !== 0) return names;
  // -test.count=N runs the whole list N times
  const order = roots.map((_, i) => expected[i % expected.length]);
  const consistent = roots.every((g, i) => !names.has(g.goroutine) || names.get(g.goroutine) === order[i]);
  if (consistent) roots.forEach((g, i) => names.set(g.goroutine, order[i]));
  return names;
}
