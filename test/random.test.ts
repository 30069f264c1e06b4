import { describe, expect, it } from "vitest";
import { seededRandom } from "../src/random.js";

describe("seededRandom", () => {
  it("repeats its sequence for the same seed and differs across seeds", () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const c = seededRandom(8);
    const xs = [a(), a(), a()];
    expect([b(), b(), b()]).toEqual(xs);
    expect(c()).not.toBe(xs[0]);
  });
  it("stays in [0, 1) with a mean near 1/2", () => {
    const next = seededRandom(1);
    let sum = 0;
    for (let i = 0; i < 10000; i++) {
      const x = next();
      expect(x >= 0 && x < 1).toBe(true);
      sum += x;
    }
    expect(sum / 10000).toBeCloseTo(0.5, 1);
  });
});
