import { describe, expect, it } from "vitest";
import { mapWithConcurrency } from "../../src/predict/concurrency.js";
import {
  argmax,
  logSoftmax,
  normalizeWeights,
  probabilityVectorProblem,
  softmax,
  uniformProbabilities,
} from "../../src/predict/probabilities.js";

describe("probability vectors", () => {
  it("says what is wrong with a vector", () => {
    expect(probabilityVectorProblem([1, 0, 0, 0, 0, 0])).toBeNull();
    expect(probabilityVectorProblem(uniformProbabilities())).toBeNull();
    expect(probabilityVectorProblem([1, 0, 0])).toBe("has 3 entries, expected 6");
    expect(probabilityVectorProblem([0.5, 0.5, 0.5, 0, 0, -0.5])).toBe("entry GoEnd is negative (-0.5)");
    expect(probabilityVectorProblem([NaN, 1, 0, 0, 0, 0])).toBe("entry GoCreate is not a finite number");
    expect(probabilityVectorProblem([0.5, 0, 0, 0, 0, 0])).toBe("sums to 0.5, not 1");
  });

  it("normalises weights with a floor", () => {
    expect(normalizeWeights([2, 2, 0, 0, 0, 0])).toEqual([0.5, 0.5, 0, 0, 0, 0]);
    // Raised to the floor first, then scaled: total 0.6 + 4·0.05 + 0.2 = 1.
    normalizeWeights([0.6, 0, 0, 0, 0, 0.2], 0.05).forEach((v, i) =>
      expect(v).toBeCloseTo([0.6, 0.05, 0.05, 0.05, 0.05, 0.2][i], 12),
    );
    normalizeWeights([3, 1, 0, 0, 0, 0], 1).forEach((v, i) => expect(v).toBeCloseTo([3, 1, 1, 1, 1, 1][i] / 8, 12));
    expect(normalizeWeights([0, 0, 0, 0, 0, 0])).toEqual(uniformProbabilities());
    expect(normalizeWeights([-1, NaN, 3, 0, 0, 1])).toEqual([0, 0, 0.75, 0, 0, 0.25]);
  });

  it("computes a stable softmax and log-softmax", () => {
    const p = softmax([0, Math.log(3), -Infinity]);
    expect(p[0]).toBeCloseTo(0.25, 12);
    expect(p[1]).toBeCloseTo(0.75, 12);
    expect(p[2]).toBe(0);
    expect(softmax([1000, 1000])).toEqual([0.5, 0.5]);
    const l = logSoftmax(new Float32Array([0, 0, 0, 0]));
    l.forEach((v) => expect(v).toBeCloseTo(Math.log(0.25), 6));
    expect(argmax([0.1, 0.4, 0.4, 0.1, 0, 0])).toBe(1);
  });
});

describe("mapWithConcurrency", () => {
  it("keeps order and the limit, and stops starting work after a failure", async () => {
    let inFlight = 0;
    let most = 0;
    const started: number[] = [];
    const work = async (x: number): Promise<number> => {
      started.push(x);
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((r) => setImmediate(r));
      inFlight -= 1;
      if (x === 3) throw new Error("three");
      return x * 10;
    };
    expect(await mapWithConcurrency([5, 4, 2, 1], 2, work)).toEqual([50, 40, 20, 10]);
    expect(most).toBe(2);
    started.length = 0;
    await expect(mapWithConcurrency([1, 3, 5, 6, 7, 8, 9], 2, work)).rejects.toThrow("three");
    expect(started.length).toBeLessThan(7);
  });
});
