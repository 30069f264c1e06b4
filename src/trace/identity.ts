// Canonical goroutine identity: the creation path from the root goroutine, stable across
// runs of the same program (docs/identity.md). Pure.

import { createHash } from "node:crypto";
import type { DecodedGoroutine } from "./types.js";
import { shortFunction, type GoroutineInfo } from "../core/index.js";

/**
 * "example.com/m/pkg.Worker.func1" → "pkg.Worker.func1": the package path's directories
 * dropped, a versioned module's package named by its name, not its "/v2" (core's shortFunction).
 */
export function shortFunctionName(fn: string): string {
  return shortFunction(fn);
}

/** "example.com/m/pkg.TestFoo" → "TestFoo": a test root is named by its test function. */
export function testName(fn: string): string {
  const short = shortFunctionName(fn);
  const dot = short.indexOf(".");
  return dot < 0 ? short : short.slice(dot + 1);
}

/** Segments below the root that a long id keeps written out at its head. */
export const ID_HEAD_SEGMENTS = 4;
/** The most segments below the root an id writes out; a deeper chain's middle is elided. */
export const ID_MAX_SEGMENTS = 8;
/** Hex digits of the elided segments' hash shown in the marker. */
const ELIDED_HASH_DIGITS = 12;

/**
 * A goroutine's creation path, kept in the parts a bounded id is made of, so a child's is
 * computed from its parent's in O(segment length) whatever the depth: the root and the
 * first ID_HEAD_SEGMENTS segments (`head`), the segments after them written out while the
 * chain is at most ID_MAX_SEGMENTS deep (`middle`), or else their count and running hash
 * (`elided`, `hash`), and the last segment.
 */
interface IdChain {
  readonly id: string;
  /** Segments below the root. */
  readonly depth: number;
  readonly head: string;
  readonly middle: readonly string[];
  readonly elided: number;
  /** sha256 chained over the elided segments in order: h_k = sha256(h_{k-1} "\n" segment_k), h_0 = "". */
  readonly hash: string;
  readonly last: string | null;
}

function rootChain(root: string): IdChain {
  return { id: root, depth: 0, head: root, middle: [], elided: 0, hash: "", last: null };
}

function hashStep(hash: string, segment: string): string {
  return createHash("sha256").update(hash).update("\n").update(segment).digest("hex");
}

/** The chain of a child created below `parent`, one more segment deep. */
function childChain(parent: IdChain, segment: string): IdChain {
  const depth = parent.depth + 1;
  if (parent.depth < ID_HEAD_SEGMENTS) {
    const head = `${parent.head}/${segment}`;
    return { id: head, depth, head, middle: [], elided: 0, hash: "", last: null };
  }
  let { middle, elided, hash } = parent;
  if (parent.last !== null) {
    if (elided > 0) {
      hash = hashStep(hash, parent.last);
      elided++;
    } else {
      middle = [...middle, parent.last];
      if (depth > ID_MAX_SEGMENTS) {
        hash = middle.reduce(hashStep, "");
        elided = middle.length;
        middle = [];
      }
    }
  }
  const marker = elided > 0 ? [`…{${elided} steps:${hash.slice(0, ELIDED_HASH_DIGITS)}}`] : [];
  const id = [parent.head, ...middle, ...marker, segment].join("/");
  return { id, depth, head: parent.head, middle, elided, hash, last: segment };
}

/**
 * Assigns canonical ids:
 * - program root: `main.main`;
 * - test root: the test function (`TestFoo`), or `(test)` when no stack of it named it;
 *   with `testNames` (the tests the binary ran, in order; repeated for -test.count) a root
 *   no stack named takes its name by position, only if the roots' count and every known
 *   name agree;
 *   a repeated root name (e.g. -count=2) gets `#1`, `#2`, … after the first;
 * - named root (no goroutine of its own): `TestMain` or `ExampleXxx`, for the goroutines
 *   the testing driver started while running that function (`namedRoot`);
 * - child: `<parent id>/<entry>@<file>:<line>#<ordinal>`, entry shortened by
 *   shortFunctionName (the user function for wrapper entries), file a base name;
 * - goroutine that existed before tracing began (not the root): `(pre-trace)/<entry>#<k>`,
 *   k counting same-entry such goroutines in goroutine-id order;
 * - a chain more than ID_MAX_SEGMENTS segments below its root keeps its root, first
 *   ID_HEAD_SEGMENTS segments and last segment, the ones between replaced by
 *   `…{<count> steps:<hash>}` (docs/identity.md), so ids stay bounded at any depth.
 */
export function canonicalGoroutineIds(
  goroutines: readonly DecodedGoroutine[],
  options: { readonly testNames?: readonly string[] } = {},
): GoroutineInfo[] {
  const testNames = testRootNames(goroutines, options.testNames);
  const byId = new Map(goroutines.map((g) => [g.goroutine, g]));
  const chains = new Map<number, IdChain>();
  const rootCounts = new Map<string, number>();
  const preCounts = new Map<string, number>();
  const ordered = [...goroutines].sort((a, b) => a.goroutine - b.goroutine);
  for (const g of ordered) {
    if (g.root === "none") continue;
    const name = g.root === "program" ? "main.main" : (testNames.get(g.goroutine) ?? "(test)");
    const seen = rootCounts.get(name) ?? 0;
    rootCounts.set(name, seen + 1);
    chains.set(g.goroutine, rootChain(seen === 0 ? name : `${name}#${seen}`));
  }
  for (const g of ordered) {
    if (g.root !== "none" || g.parent !== null || g.namedRoot) continue;
    const entry = shortFunctionName(g.runs ?? g.entry);
    const k = preCounts.get(entry) ?? 0;
    preCounts.set(entry, k + 1);
    chains.set(g.goroutine, rootChain(`${g.preTrace ? "(pre-trace)" : "(orphan)"}/${entry}#${k}`));
  }
  const segmentOf = (g: DecodedGoroutine): string =>
    `${shortFunctionName(g.runs ?? g.entry)}@${g.siteKey ?? "?"}#${g.ordinal}`;
  const chainOf = (start: DecodedGoroutine): IdChain => {
    // Walk up to the first ancestor with a known chain, then down: iterative, so a chain
    // of any depth neither recurses nor revisits; a parent cycle or a missing parent is "(orphan)".
    const path: DecodedGoroutine[] = [];
    const onPath = new Set<number>();
    let g = start;
    let base = chains.get(g.goroutine);
    while (base === undefined) {
      path.push(g);
      onPath.add(g.goroutine);
      if (g.namedRoot) {
        base = rootChain(g.namedRoot);
        break;
      }
      const parent: DecodedGoroutine | undefined = g.parent === null ? undefined : byId.get(g.parent);
      if (parent === undefined || onPath.has(parent.goroutine)) {
        base = rootChain("(orphan)");
        break;
      }
      g = parent;
      base = chains.get(g.goroutine);
    }
    let chain = base;
    for (let i = path.length - 1; i >= 0; i--) {
      chain = childChain(chain, segmentOf(path[i]));
      chains.set(path[i].goroutine, chain);
    }
    return chain;
  };
  return goroutines.map((g) => ({
    goroutine: g.goroutine,
    canonicalId: chainOf(g).id,
    parent: g.parent,
    entry: g.runs ?? g.entry,
    creationSite: g.creationSite,
    isRoot: g.root !== "none",
  }));
}

/** Names of the test roots: from their stacks, else by position in `expected` when consistent. */
function testRootNames(
  goroutines: readonly DecodedGoroutine[],
  expected: readonly string[] | undefined,
): Map<number, string> {
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
