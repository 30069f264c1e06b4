import { describe, expect, it } from "vitest";
import { clusterBootstrapMeanDifference, clusterBootstrapStatistic } from "../../src/metrics/clusterBootstrap.js";
import { expectedCalibrationError } from "../../src/metrics/expectedCalibrationError.js";
import { expectedCalibrationErrorInterval } from "../../src/metrics/expectedCalibrationErrorInterval.js";
import { seededRandom } from "../../src/random.js";

interface Corpus {
  groups: string[];
  probabilities: number[][];
  observed: number[];
}

/**
 * Samples of `programs` programs: in each, the predictor gives its top label (class 0)
 * probability `confidence`, and the observed event is class 0 with probability `hitRate`.
 */
function corpus(
  programs: readonly { name: string; samples: number; confidence: number; hitRate: number }[],
  seed: number,
): Corpus {
  const random = seededRandom(seed);
  const out: Corpus = { groups: [], probabilities: [], observed: [] };
  for (const p of programs) {
    for (let i = 0; i < p.samples; i++) {
      // spread confidences over a few bins around the program's level
      const c = Math.min(1, Math.max(0.35, p.confidence + (random() - 0.5) * 0.2));
      out.groups.push(p.name);
      out.probabilities.push([c, 1 - c]);
      out.observed.push(random() < p.hitRate ? 0 : 1);
    }
  }
  return out;
}

const tenCalibrated = Array.from({ length: 10 }, (_, i) => ({
  name: `p${i}`,
  samples: 100,
  confidence: 0.55 + 0.04 * i,
  hitRate: 0.55 + 0.04 * i,
}));
/** Overconfident by 0.08 on average, with the overconfidence varying by program, like the students on real corpora. */
const tenOverconfident = tenCalibrated.map((p, i) => ({ ...p, hitRate: p.hitRate - 0.08 + 0.03 * ((i % 3) - 1) }));

describe("expectedCalibrationErrorInterval", () => {
  it("estimates the ECE of all samples and contains it", () => {
    const data = corpus(tenOverconfident, 1);
    const result = expectedCalibrationErrorInterval(data.groups, data.probabilities, data.observed);
    expect(result.estimate).toBeCloseTo(expectedCalibrationError(data.probabilities, data.observed), 12);
    expect(result.clusters).toBe(10);
    expect(result.resamples).toBe(2000);
    expect(result.confidence).toBe(0.95);
    expect(result.lower).toBeLessThanOrEqual(result.estimate);
    expect(result.upper).toBeGreaterThanOrEqual(result.estimate);
    expect(result.upper).toBeGreaterThan(result.lower);
  });

  it("equals the direct ECE of the resampled samples (the bin-sum fast path is exact)", () => {
    const data = corpus(tenCalibrated.slice(0, 6), 2);
    const direct = clusterBootstrapStatistic(
      data.groups,
      (ix) =>
        expectedCalibrationError(
          ix.map((i) => data.probabilities[i]!),
          ix.map((i) => data.observed[i]!),
        ),
      { seed: 11, resamples: 300 },
    );
    const fast = expectedCalibrationErrorInterval(data.groups, data.probabilities, data.observed, {
      seed: 11,
      resamples: 300,
    });
    expect(fast.estimate).toBeCloseTo(direct.estimate, 12);
    expect(fast.lower).toBeCloseTo(direct.lower, 12);
    expect(fast.upper).toBeCloseTo(direct.upper, 12);
    // and with 2 bins on a hand-checkable example: p → ECE 0.25 alone, q → 0.1 alone
    const small = {
      groups: ["p", "p", "q"],
      probabilities: [
        [0.9, 0.1],
        [0.6, 0.4],
        [0.3, 0.7],
      ],
      observed: [0, 1, 0],
    };
    const twoBins = expectedCalibrationErrorInterval(small.groups, small.probabilities, small.observed, {
      bins: 2,
      seed: 4,
      resamples: 200,
    });
    const twoBinsDirect = clusterBootstrapStatistic(
      small.groups,
      (ix) =>
        expectedCalibrationError(
          ix.map((i) => small.probabilities[i]!),
          ix.map((i) => small.observed[i]!),
          2,
        ),
      { seed: 4, resamples: 200 },
    );
    // all three: |0.5 − 0.75|·2/3 + |0 − 0.7|·1/3
    expect(twoBins.estimate).toBeCloseTo((0.25 * 2 + 0.7) / 3, 12);
    expect(twoBins.lower).toBeCloseTo(twoBinsDirect.lower, 12);
    expect(twoBins.upper).toBeCloseTo(twoBinsDirect.upper, 12);
    // resamples {p,p} → 0.25 and {q,q} → 0.7 bound the range
    expect(twoBins.lower).toBeCloseTo(0.25, 12);
    expect(twoBins.upper).toBeCloseTo(0.7, 12);
  });

  it("sits above a near-zero estimate for a calibrated predictor: ECE is biased upward, more so in resamples", () => {
    // Every |accuracy_b − confidence_b| is ≥ 0, so bin noise only adds; a resample repeats
    // programs, which makes the noise of its bins larger. Documented in docs/metrics.md.
    const data = corpus(tenCalibrated, 1);
    const result = expectedCalibrationErrorInterval(data.groups, data.probabilities, data.observed);
    expect(result.estimate).toBeLessThan(0.025);
    expect(result.lower).toBeGreaterThan(result.estimate);
  });

  it("collapses to the estimate with one program", () => {
    const data = corpus([{ name: "only", samples: 300, confidence: 0.8, hitRate: 0.5 }], 3);
    const result = expectedCalibrationErrorInterval(data.groups, data.probabilities, data.observed);
    expect(result.clusters).toBe(1);
    expect(result.lower).toBe(result.estimate);
    expect(result.upper).toBe(result.estimate);
    expect(result.estimate).toBeGreaterThan(0.2);
  });

  it("is deterministic for a seed and moves with the seed", () => {
    const data = corpus(tenCalibrated, 4);
    const a = expectedCalibrationErrorInterval(data.groups, data.probabilities, data.observed, { seed: 7 });
    const b = expectedCalibrationErrorInterval(data.groups, data.probabilities, data.observed, { seed: 7 });
    const c = expectedCalibrationErrorInterval(data.groups, data.probabilities, data.observed, { seed: 8 });
    expect(b).toEqual(a);
    expect(c.estimate).toBe(a.estimate);
    expect([c.lower, c.upper]).not.toEqual([a.lower, a.upper]);
  });

  it("resamples the same programs as the accuracy interval for the same seed", () => {
    // a statistic that is a mean (the hit rate of the top label) gives the same interval both ways
    const data = corpus(tenCalibrated, 5);
    const hits = data.observed.map((o) => (o === 0 ? 1 : 0));
    const accuracy = clusterBootstrapMeanDifference(
      data.groups,
      hits,
      hits.map(() => 0),
      { seed: 3, resamples: 500 },
    );
    const viaStatistic = clusterBootstrapStatistic(
      data.groups,
      (ix) => ix.reduce((s, i) => s + hits[i]!, 0) / ix.length,
      { seed: 3, resamples: 500 },
    );
    expect(viaStatistic.lower).toBeCloseTo(accuracy.lower, 12);
    expect(viaStatistic.upper).toBeCloseTo(accuracy.upper, 12);
  });

  it("widens when one miscalibrated program dominates the samples", () => {
    const base = corpus(tenCalibrated, 6);
    // the same ten programs plus one with 30 % of all samples, confident (0.9) and right 30 % of the time
    const dominated = corpus([...tenCalibrated, { name: "big", samples: 430, confidence: 0.9, hitRate: 0.3 }], 6);
    const narrow = expectedCalibrationErrorInterval(base.groups, base.probabilities, base.observed);
    const wide = expectedCalibrationErrorInterval(dominated.groups, dominated.probabilities, dominated.observed);
    expect(narrow.upper - narrow.lower).toBeLessThan(0.08);
    expect(wide.upper - wide.lower).toBeGreaterThan(3 * (narrow.upper - narrow.lower));
    // resamples without the big program are well calibrated, with it twice badly: the interval spans both
    expect(wide.lower).toBeLessThan(0.1);
    expect(wide.upper).toBeGreaterThan(0.25);
  });

  it("is NaN for no samples and rejects misaligned input", () => {
    expect(expectedCalibrationErrorInterval([], [], []).estimate).toBeNaN();
    expect(() => expectedCalibrationErrorInterval(["p"], [[1, 0]], [])).toThrow(RangeError);
    expect(() => expectedCalibrationErrorInterval(["p"], [[1, 0]], [0], { bins: 0 })).toThrow(/bins/);
  });
});
