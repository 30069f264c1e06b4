import { describe, expect, it } from "vitest";
import {
  clusterBootstrapMeanDifference,
  clusterBootstrapMeanDifferenceOfSums,
  clusterBootstrapStatistic,
  clusterIndex,
} from "../../src/metrics/clusterBootstrap.js";
import {
  expectedCalibrationError,
  expectedCalibrationErrorOfBins,
} from "../../src/metrics/expectedCalibrationError.js";
import {
  expectedCalibrationErrorInterval,
  expectedCalibrationErrorIntervalOfCells,
} from "../../src/metrics/expectedCalibrationErrorInterval.js";
import { calibrationBin, reliabilityBins, reliabilityBinsOfSums } from "../../src/metrics/reliabilityBins.js";
import { tieCredit } from "../../src/metrics/tieCredit.js";
import { seededRandom } from "../../src/random.js";

// Intervals from per-cluster sufficient statistics (sums per cluster, bin sums per cluster)
// resample clusters without touching the samples; they must equal the sample-level cluster
// bootstrap of the same statistic with the same seed.
function clusteredSamples(n: number, seed: number) {
  const random = seededRandom(seed);
  const groups: string[] = [];
  const probabilities: number[][] = [];
  const observed: number[] = [];
  for (let i = 0; i < n; i++) {
    const g = Math.floor(random() * 9);
    groups.push(`p${g}`);
    const w = [random() + g / 9, random(), random() / 2];
    const t = w[0]! + w[1]! + w[2]!;
    probabilities.push(w.map((x) => x / t));
    observed.push(random() < 0.5 + g / 30 ? 0 : Math.floor(random() * 3));
  }
  return { groups, probabilities, observed };
}

describe("intervals from per-cluster sufficient statistics", () => {
  const { groups, probabilities, observed } = clusteredSamples(400, 8);
  const credit = probabilities.map((q, i) => tieCredit(q, observed[i]!));
  const options = { resamples: 500, seed: 13 };

  it("the mean bootstrap from cluster sums is the sample-level bootstrap of the mean", () => {
    const { clusterOf, sizes } = clusterIndex(groups);
    const sums = new Float64Array(sizes.length);
    credit.forEach((c, i) => (sums[clusterOf[i]!]! += c));
    const ofSums = clusterBootstrapMeanDifferenceOfSums(sizes, sums, new Float64Array(sizes.length), options);
    expect(ofSums).toEqual(
      clusterBootstrapMeanDifference(
        groups,
        credit,
        credit.map(() => 0),
        options,
      ),
    );
    const itemLevel = clusterBootstrapStatistic(
      groups,
      (ix) => ix.reduce((s, i) => s + credit[i]!, 0) / ix.length,
      options,
    );
    expect(ofSums.estimate).toBeCloseTo(itemLevel.estimate, 12);
    expect(ofSums.lower).toBeCloseTo(itemLevel.lower, 12);
    expect(ofSums.upper).toBeCloseTo(itemLevel.upper, 12);
  });

  it("the ECE bootstrap from per-cluster bin sums is the sample-level bootstrap of the ECE", () => {
    const bins = 15;
    const { clusterOf, sizes } = clusterIndex(groups);
    const cells = {
      count: new Float64Array(sizes.length * bins),
      confidenceSum: new Float64Array(sizes.length * bins),
      hits: new Float64Array(sizes.length * bins),
    };
    probabilities.forEach((q, i) => {
      const confidence = Math.max(...q);
      const cell = clusterOf[i]! * bins + calibrationBin(confidence, bins);
      cells.count[cell]! += 1;
      cells.confidenceSum[cell]! += confidence;
      cells.hits[cell]! += credit[i]!;
    });
    const ofCells = expectedCalibrationErrorIntervalOfCells(sizes, cells, options);
    expect(ofCells).toEqual(expectedCalibrationErrorInterval(groups, probabilities, observed, options));
    const itemLevel = clusterBootstrapStatistic(
      groups,
      (ix) =>
        expectedCalibrationError(
          ix.map((i) => probabilities[i]!),
          ix.map((i) => observed[i]!),
        ),
      options,
    );
    expect(ofCells.estimate).toBeCloseTo(itemLevel.estimate, 12);
    expect(ofCells.lower).toBeCloseTo(itemLevel.lower, 12);
    expect(ofCells.upper).toBeCloseTo(itemLevel.upper, 12);
  });

  it("the reliability bins and ECE from bin sums are those of the samples", () => {
    const direct = reliabilityBins(probabilities, observed);
    const count = direct.map((b) => b.count);
    const confidenceSum = new Array<number>(15).fill(0);
    const hits = new Array<number>(15).fill(0);
    probabilities.forEach((q, i) => {
      const b = calibrationBin(Math.max(...q), 15);
      confidenceSum[b]! += Math.max(...q);
      hits[b]! += credit[i]!;
    });
    expect(reliabilityBinsOfSums(count, confidenceSum, hits)).toEqual(direct);
    expect(expectedCalibrationErrorOfBins(direct, probabilities.length)).toBe(
      expectedCalibrationError(probabilities, observed),
    );
  });
});
