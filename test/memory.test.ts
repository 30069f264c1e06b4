// collectGarbage: a full collection without starting Node with --expose-gc.

import { describe, expect, it } from "vitest";
import { collectGarbage, collectorEvery } from "../src/memory.js";

/** Allocates half a million objects that nothing references once it returns; the heap in use while they live. */
function heapWithGarbage(): number {
  const garbage = Array.from({ length: 500_000 }, (_, i) => ({ i, s: `x${i}` }));
  expect(garbage).toHaveLength(500_000);
  return process.memoryUsage().heapUsed;
}

describe("collectGarbage", () => {
  it("frees what nothing references any more, in a process started without --expose-gc", () => {
    const held = heapWithGarbage();
    collectGarbage();
    const freed = held - process.memoryUsage().heapUsed;
    expect(freed).toBeGreaterThan(20 * 1024 * 1024); // the half-million objects, at least 20 MB
    collectGarbage(); // the collector is taken once and reused
  });
});

describe("collectorEvery", () => {
  it("collects once the amounts told add up to its budget", () => {
    const collect = collectorEvery(100);
    collect(60);
    const held = heapWithGarbage();
    collect(40);
    expect(held - process.memoryUsage().heapUsed).toBeGreaterThan(20 * 1024 * 1024);
  });
});
