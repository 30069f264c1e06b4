import { describe, expect, it } from "vitest";
import { tieCredit } from "../../src/metrics/tieCredit.js";
import { topLabels } from "../../src/metrics/topLabel.js";

describe("tieCredit", () => {
  it("is 1 for a single top label that happened, 0 for one that did not", () => {
    expect(tieCredit([0.2, 0.7, 0.1], 1)).toBe(1);
    expect(tieCredit([0.2, 0.7, 0.1], 0)).toBe(0);
  });
  it("is 1/m for a tie of m top labels that contains the observed one", () => {
    expect(tieCredit([0.5, 0.5, 0], 1)).toBe(0.5);
    expect(tieCredit([0.5, 0.5, 0], 2)).toBe(0);
    expect(
      tieCredit(
        Array.from({ length: 6 }, () => 1 / 6),
        4,
      ),
    ).toBeCloseTo(1 / 6, 15);
  });
  it("treats values equal up to float rounding as tied", () => {
    const q = [0.1 + 0.2, 0.3, 0.4 - 0.1 - 1e-17];
    expect(topLabels(q)).toEqual([0, 1, 2]);
  });
});
