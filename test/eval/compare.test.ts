import { describe, expect, it } from "vitest";
import { compare, PROGRAM_LEAD_MARGIN } from "../../src/eval/compare.js";
import { EvaluationInputError } from "../../src/eval/errors.js";
import type { SampleScores } from "../../src/eval/types.js";

function scores(name: string, credit: number[], clusters: string[], programs = clusters): SampleScores {
  return {
    name,
    abstraction: "depth",
    holdout: "h",
    credit,
    clusters,
    clusterUnit: { unit: "program", clusters: new Set(clusters).size },
    programs,
  };
}

describe("compare", () => {
  it("reports both accuracies, the cluster sign-flip test, McNemar and the bootstrap difference", () => {
    const programs = ["p", "p", "q", "q", "r", "r"];
    const a = scores("a", [1, 1, 1, 0, 1, 1], programs);
    const b = scores("b", [0, 1, 0, 0, 1, 0], programs);
    const c = compare(a, b, { seed: 3 });
    expect(c.accuracyA).toBeCloseTo(5 / 6, 12);
    expect(c.accuracyB).toBeCloseTo(2 / 6, 12);
    expect(c.difference.estimate).toBeCloseTo(0.5, 12);
    expect(c.difference.clusters).toBe(3);
    // three discordant pairs, all for A: p = 2 · (1/2)³
    expect(c.mcnemarIndependent).toEqual({
      onlyA: 3,
      onlyB: 0,
      method: "exact",
      statistic: 0,
      pValue: expect.closeTo(0.25, 12),
    });
    // one +1 in each cluster: only the all-plus and all-minus patterns reach |T| → 2/8
    expect(c.clusterTest.pValue).toBeCloseTo(0.25, 12);
    expect(compare(b, a, { seed: 3 }).difference.estimate).toBeCloseTo(-0.5, 12);
  });

  it("says on which programs either leads by more than the margin, largest first, though one family pools them", () => {
    // One family: p is long and A's; q and r are short and B's by 50 and 100 points; s is a tie.
    const programs = [...Array<string>(10).fill("p"), "q", "q", "r", "s"];
    const family = programs.map(() => "f");
    const a = scores("a", [...Array<number>(10).fill(1), 1, 0, 0, 1], family, programs);
    const b = scores("b", [...Array<number>(10).fill(0.5), 1, 1, 1, 1], family, programs);
    const c = compare(a, b, { seed: 1 });
    expect(c.accuracyA).toBeGreaterThan(c.accuracyB); // pooled, A leads
    expect(c.programLeads).toEqual({
      margin: PROGRAM_LEAD_MARGIN,
      programs: 4,
      aAhead: 1,
      bAhead: 2,
      largestA: [{ program: "p", samples: 10, accuracyA: 1, accuracyB: 0.5 }],
      largestB: [
        { program: "r", samples: 1, accuracyA: 0, accuracyB: 1 },
        { program: "q", samples: 2, accuracyA: 0.5, accuracyB: 1 },
      ],
    });
    // A lead of exactly the margin is no lead.
    const even = compare(scores("a", [0.52], ["p"]), scores("b", [0.5], ["p"]));
    expect(even.programLeads).toMatchObject({ aAhead: 0, bAhead: 0 });
  });

  it("refuses to compare predictors scored on different samples", () => {
    const a = scores("a", [1, 0], ["p", "q"]);
    expect(() => compare(a, scores("b", [1], ["p"]))).toThrow(EvaluationInputError);
    expect(() => compare(a, scores("b", [1, 1], ["p", "r"]))).toThrow(/different samples/);
    expect(() => compare(a, { ...scores("b", [1, 1], ["p", "q"]), abstraction: "split" })).toThrow(/different samples/);
  });
});
