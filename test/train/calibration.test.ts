// The student calibration variants (pure): the in-context temperature T·exp(β·(h − h̄)) and its
// fit, and each ensemble member's own temperature, on hand-made logits with known answers.

import { describe, expect, it } from "vitest";
import { nllOfLogits, type CalibrationTargets } from "../../src/predict/calibration.js";
import {
  atContext,
  calibrateRow,
  EXPERT_COLUMN,
  type StudentCalibration,
} from "../../src/predict/student/calibration.js";
import { FEATURE_COUNT, FEATURE_SPEC } from "../../src/predict/student/features.js";
import {
  fitContextTemperature,
  temperatureOrOne,
  fitStudentCalibration,
  memberTemperatures,
} from "../../src/train/calibration.js";

const K = 6;
const base: StudentCalibration = {
  temperature: 1.5,
  priorWeight: 0,
  prior: new Array<number>(K).fill(1 / K),
  feasibility: "none",
  infeasibleCap: 0,
};

/** `rows` rows of the same logits [z0, 0, 0, 0, 0, 0]; target rows given. */
function rowsOf(targets: readonly (readonly number[])[], z0: number): { logits: Float64Array; m: CalibrationTargets } {
  const logits = new Float64Array(targets.length * K);
  const events = new Float64Array(targets.length * K);
  targets.forEach((t, r) => {
    logits[r * K] = z0;
    events.set(t, r * K);
  });
  return { logits, m: { rows: targets.length, events, counts: new Float64Array(targets.length).fill(1) } };
}

describe("atContext", () => {
  it("scales the temperature by exp(slope·(h − centre)) and leaves slope 0 alone", () => {
    expect(atContext(base, { feature: "f", centre: 0.5, slope: 0 }, 0.9)).toBe(base);
    expect(atContext(base, undefined, 0.9)).toBe(base);
    expect(atContext(base, { feature: "f", centre: 0.5, slope: 2 }, 1).temperature).toBeCloseTo(1.5 * Math.exp(1), 12);
    expect(atContext(base, { feature: "f", centre: 0.5, slope: 2 }, 0.5).temperature).toBeCloseTo(1.5, 12);
  });
});

describe("fitContextTemperature", () => {
  const sure = [1, 0, 0, 0, 0, 0];
  const unsure = [0.3, 0.14, 0.14, 0.14, 0.14, 0.14];

  it("sharpens the rows whose run has been predictable and flattens the others: a negative slope", () => {
    // Half the rows (h = 1) always end in event 0, the other half (h = 0) are nearly uniform.
    const { logits, m } = rowsOf([sure, sure, sure, unsure, unsure, unsure], 2);
    const h = Float64Array.of(1, 1, 1, 0, 0, 0);
    const { calibration, context } = fitContextTemperature(logits, m, K, base, null, h, "ctx.selfHits.recent");
    expect(context.centre).toBe(0.5);
    expect(context.slope).toBeLessThan(0);
    expect(calibration.priorWeight).toBe(base.priorWeight);
    const nllAt = (c: StudentCalibration, rows: number[]): number => {
      const sub = rowsOf(
        rows.map((r) => (r < 3 ? sure : unsure)),
        2,
      );
      return nllOfLogits(sub.logits, sub.m, K, atContext(c, context, h[rows[0]!]!));
    };
    // Predictable rows get a lower temperature than unpredictable ones.
    expect(atContext(calibration, context, 1).temperature).toBeLessThan(atContext(calibration, context, 0).temperature);
    // And the fit beats the plain temperature on these rows.
    const plainBest = Math.min(...[0.5, 1, 1.5, 2, 3].map((t) => nllOfLogits(logits, m, K, t)));
    expect((nllAt(calibration, [0, 1, 2]) + nllAt(calibration, [3, 4, 5])) / 2).toBeLessThan(plainBest);
  });

  it("keeps the pooled fit when the evidence says nothing (every row the same h)", () => {
    const { logits, m } = rowsOf([sure, unsure, sure, unsure], 2);
    const pooled = fitStudentCalibration(logits, m, K, base.prior, null, base);
    const { calibration, context } = fitContextTemperature(
      logits,
      m,
      K,
      pooled,
      null,
      Float64Array.of(0.4, 0.4, 0.4, 0.4),
      "ctx.selfHits.recent",
    );
    expect(context.slope).toBe(0);
    expect(calibration).toBe(pooled);
  });
});

describe("memberTemperatures", () => {
  it("gives each member the temperature that undoes its over- or under-confidence", () => {
    // Targets with p̂(0) = e²/(e² + 5): logits [2, 0, …] are calibrated at T = 1; doubled logits need T = 2.
    const p0 = Math.exp(2) / (Math.exp(2) + 5);
    const target = [p0, ...new Array<number>(5).fill((1 - p0) / 5)];
    const calibrated = rowsOf([target, target], 2);
    const doubled = rowsOf([target, target], 4);
    const [t1, t2] = memberTemperatures([calibrated.logits, doubled.logits], calibrated.m, K);
    expect(t1).toBeCloseTo(1, 4);
    expect(t2).toBeCloseTo(2, 4);
  });
});

describe("the in-context expert's share β", () => {
  /** Raw feature rows (rows × FEATURE_COUNT) whose ctx.mix.p block is each row's expert distribution. */
  function featuresWith(experts: readonly (readonly number[])[]): Float32Array {
    const x = new Float32Array(experts.length * FEATURE_COUNT);
    experts.forEach((e, r) => x.set(e, r * FEATURE_COUNT + EXPERT_COLUMN));
    return x;
  }
  const one = (k: number): number[] => Array.from({ length: K }, (_, i) => (i === k ? 1 : 0));

  it("reads the expert from the ctx.mix.p columns and mixes it in after the temperature and prior", () => {
    expect(FEATURE_SPEC.names[EXPERT_COLUMN]).toBe("ctx.mix.p.GoCreate");
    expect(FEATURE_SPEC.names[EXPERT_COLUMN + K - 1]).toBe("ctx.mix.p.GoEnd");
    const features = featuresWith([one(0), one(3)]);
    const q = new Float64Array(K); // uniform logits
    calibrateRow(q, K, { ...base, temperature: 1, expertWeight: 0.4 }, null, K, features);
    // Row 1: 0.6 · 1/6 everywhere, plus 0.4 on event 3.
    expect(q[3]).toBeCloseTo(0.6 / 6 + 0.4, 12);
    expect(q[0]).toBeCloseTo(0.6 / 6, 12);
    expect(q.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    // Without features, or at β = 0, the row is as before.
    const plain = new Float64Array(K);
    calibrateRow(plain, K, { ...base, temperature: 1, expertWeight: 0.4 }, null, K);
    expect(plain[3]).toBeCloseTo(1 / 6, 12);
  });

  it("fits a share where the expert knows what the logits do not, and none where it is noise", () => {
    // The logits always favour event 0; the observed event is the expert's in 3 rows of 4.
    const targets = [one(2), one(4), one(1), one(0)];
    const { logits, m } = rowsOf(targets, 1);
    const informed = fitStudentCalibration(
      logits,
      m,
      K,
      base.prior,
      null,
      base,
      featuresWith([one(2), one(4), one(1), one(5)]),
    );
    expect(informed.expertWeight).toBeGreaterThan(0);
    const withoutExpert = fitStudentCalibration(logits, m, K, base.prior, null, base);
    expect(withoutExpert.expertWeight).toBeUndefined();
    // The expert is always wrong: β stays 0 (the fit without it).
    const noise = fitStudentCalibration(
      logits,
      m,
      K,
      base.prior,
      null,
      base,
      featuresWith([one(5), one(5), one(5), one(5)]),
    );
    expect(noise.expertWeight).toBeUndefined();
    expect(noise).toEqual(withoutExpert);
  });
});

describe("the temperature of the mixture T_m", () => {
  it("finds the temperature that minimises the loss, and keeps 1 unless another one lowers it", () => {
    expect(temperatureOrOne((t) => (Math.log(t) - Math.log(2.5)) ** 2)).toBeCloseTo(2.5, 3);
    expect(temperatureOrOne((t) => Math.log(t) ** 2)).toBe(1);
  });

  it("tempers the distribution after the expert is mixed in, keeping the order of the events", () => {
    const q = Float64Array.of(Math.log(0.5), Math.log(0.3), Math.log(0.2), -Infinity, -Infinity, -Infinity);
    calibrateRow(q, K, { ...base, temperature: 1, mixtureTemperature: 0.5 }, null, 0, null);
    const total = 0.25 + 0.09 + 0.04;
    expect(q[0]).toBeCloseTo(0.25 / total, 12);
    expect(q[1]).toBeCloseTo(0.09 / total, 12);
    expect(q[3]).toBe(0);
  });
});
