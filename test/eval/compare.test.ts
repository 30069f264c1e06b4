import { describe, expect, it } from "vitest";
import { compare } from "../../src/eval/compare.js";
import { EvaluationInputError } from "../../src/eval/errors.js";
import type { SampleScores } from "../../src/eval/types.js";

function scores(name: string, correct: boolean[], programs: string[]): SampleScores {
  return { name, abstraction: "depth", holdout: "h", correct, programs };
}

describe("compare", () => {
  it("reports both accuracies, McNemar and the bootstrap difference", () => {
    const programs = ["p", "p", "q", "q", "r", "r"];
    const a = scores("a", [true, true, true, false, true, true], programs);
    const b = scores("b", [false, true, false, false, true, false], programs);
    const c = compare(a, b, { seed: 3 });
    expect(c.accuracyA).toBeCloseTo(5 / 6, 12);
    expect(c.accuracyB).toBeCloseTo(2 / 6, 12);
    expect(c.difference.estimate).toBeCloseTo(0.5, 12);
    expect(c.difference.clusters).toBe(3);
    // three discordant pairs, all for A: p = 2 · (1/2)³
    expect(c.mcnemar).toEqual({ onlyA: 3, onlyB: 0, method: "exact", statistic: 0, pValue: expect.closeTo(0.25, 12) });
    expect(compare(b, a, { seed: 3 }).difference.estimate).toBeCloseTo(-0.5, 12);
  });

  it("refuses to compare predictors scored on different samples", () => {
    const a = scores("a", [true, false], ["p", "q"]);
    expect(() => compare(a, scores("b", [true], ["p"]))).toThrow(EvaluationInputError);
    expect(() => compare(a, scores("b", [true, true], ["p", "r"]))).toThrow(/different samples/);
    expect(() => compare(a, { ...scores("b", [true, true], ["p", "q"]), abstraction: "split" })).toThrow(/different samples/);
  });
});
