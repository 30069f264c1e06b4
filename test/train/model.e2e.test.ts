// The student networks: exact gradients, determinism of the PRNG, Adam convergence and
// temperature fitting.

import { describe, expect, it } from "vitest";
import {
  calibrateInPlace,
  eventLogits,
  fitCalibration,
  fitModel,
  fitTemperature,
  nllOfLogits,
  type TrainingMatrix,
} from "../../src/train/fit.js";
import { forward, modelLayout, newWorkspace, softmaxInPlace, type ModelShape } from "../../src/predict/index.js";
import { featureMatrixOf } from "../../src/train/feature-matrix.js";
import { backward, initialParameters } from "../../src/train/model.js";
import { seededRandom } from "../../src/random.js";
import {
  centreWidth,
  finishBatchGradient,
  firstLayerCentre,
  sparseBackward,
  sparseForward,
  sparseRows,
} from "../../src/train/sparse.js";

/**
 * `rows` rows of six logits uniform in [−6, 6], each labelled with one event drawn from
 * the distribution `calibrate` makes of its logits (in place).
 */
function drawLabelled(
  random: () => number,
  rows: number,
  calibrate: (q: Float64Array) => void,
): { z: Float64Array; m: TrainingMatrix } {
  const z = new Float64Array(rows * 6);
  const m: TrainingMatrix = {
    rows,
    inputs: 0,
    x: featureMatrixOf(new Float32Array(0), rows, 0),
    feasible: new Uint8Array(rows * 6).fill(1),
    events: new Float64Array(rows * 6),
    weights: new Float64Array(rows).fill(1),
    counts: new Float64Array(rows).fill(1),
    tags: null,
  };
  const q = new Float64Array(6);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < 6; c++) z[r * 6 + c] = q[c] = (random() * 2 - 1) * 6;
    calibrate(q);
    let u = random();
    let label = 5;
    for (let c = 0; c < 6; c++) {
      u -= q[c];
      if (u < 0) {
        label = c;
        break;
      }
    }
    m.events[r * 6 + label] = 1;
  }
  return { z, m };
}

/** Loss of one row: soft CE of the event head plus 0.5 × soft CE of the tag head. */
function rowLoss(
  shape: ModelShape,
  params: Float64Array,
  x: Float64Array,
  target: Float64Array,
  tagTarget: Float64Array,
): number {
  const ws = newWorkspace(shape);
  forward(shape, params, x, 0, ws);
  softmaxInPlace(ws.eventLogits, shape.events);
  softmaxInPlace(ws.tagLogits, shape.tags);
  let loss = 0;
  for (let c = 0; c < shape.events; c++) loss -= target[c] * Math.log(ws.eventLogits[c]);
  for (let c = 0; c < shape.tags; c++) loss -= 0.5 * tagTarget[c] * Math.log(ws.tagLogits[c]);
  return loss;
}

/** Skip weights start at zero; give them values so the tests see their contribution. */
function withRandomSkip(shape: ModelShape, params: Float64Array, random: () => number): Float64Array {
  const l = modelLayout(shape);
  if (l.skipW >= 0) for (let i = l.skipW; i < l.size; i++) params[i] = random() * 2 - 1;
  return params;
}

describe("student networks", () => {
  for (const kind of ["logreg", "mlp"] as const) {
    for (const [activation, skip] of [
      ["tanh", undefined],
      ["relu", undefined],
      ["tanh", [1, 3]],
    ] as const) {
      it(`${kind}/${activation}${skip ? " with a skip" : ""}: backward matches finite differences`, () => {
        const shape: ModelShape = {
          kind,
          inputs: 5,
          hidden: kind === "mlp" ? 4 : 0,
          activation,
          events: 6,
          tags: 3,
          ...(skip ? { skip } : {}),
        };
        const random = seededRandom(7);
        const params = withRandomSkip(shape, initialParameters(shape, random), random);
        const x = Float64Array.from({ length: 5 }, () => random() * 2 - 1);
        const target = Float64Array.from([0.1, 0.5, 0, 0.2, 0.2, 0]);
        const tagTarget = Float64Array.from([0, 1, 0]);
        const ws = newWorkspace(shape);
        forward(shape, params, x, 0, ws);
        softmaxInPlace(ws.eventLogits, 6);
        softmaxInPlace(ws.tagLogits, 3);
        const dEvent = Float64Array.from(ws.eventLogits, (q, c) => q - target[c]);
        const dTag = Float64Array.from(ws.tagLogits.subarray(0, 3), (q, c) => 0.5 * (q - tagTarget[c]));
        const grad = new Float64Array(params.length);
        backward(shape, params, x, 0, ws, dEvent, dTag, grad);
        const h = 1e-6;
        for (let i = 0; i < params.length; i++) {
          const plus = params.slice();
          plus[i] += h;
          const minus = params.slice();
          minus[i] -= h;
          const numeric =
            (rowLoss(shape, plus, x, target, tagTarget) - rowLoss(shape, minus, x, target, tagTarget)) / (2 * h);
          expect(grad[i]).toBeCloseTo(numeric, 5);
        }
      });
    }
  }

  it("the seeded PRNG repeats for a seed and differs across seeds", () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const c = seededRandom(43);
    const xs = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(xs);
    expect(Array.from({ length: 5 }, () => c())).not.toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
  });

  it("fits a separable problem, and recovers the temperature of over-confident logits", () => {
    // Two features; the event is GoStart when x0 > 0, else GoBlock.
    const random = seededRandom(3);
    const make = (rows: number): TrainingMatrix => {
      const x = new Float32Array(rows * 2);
      const events = new Float64Array(rows * 6);
      for (let r = 0; r < rows; r++) {
        x[r * 2] = random() * 2 - 1;
        x[r * 2 + 1] = random() * 2 - 1;
        events[r * 6 + (x[r * 2] > 0 ? 1 : 2)] = 1;
      }
      return {
        rows,
        inputs: 2,
        x: featureMatrixOf(x, rows, 2),
        feasible: new Uint8Array(rows * 6).fill(1),
        events,
        weights: new Float64Array(rows).fill(1),
        counts: new Float64Array(rows).fill(1),
        tags: null,
      };
    };
    const shape: ModelShape = { kind: "logreg", inputs: 2, hidden: 0, activation: "tanh", events: 6, tags: 0 };
    const fit = fitModel(shape, make(400), make(200), {
      seed: 1,
      epochs: 40,
      batchSize: 32,
      learningRate: 0.05,
      l2: 0,
      patience: 40,
      tagWeight: 0,
    });
    const test = make(200);
    const logits = eventLogits(shape, fit.params, test);
    let hits = 0;
    for (let r = 0; r < test.rows; r++) {
      const row = Array.from(logits.subarray(r * 6, r * 6 + 6));
      if (test.events[r * 6 + row.indexOf(Math.max(...row))] === 1) hits++;
    }
    expect(hits / test.rows).toBeGreaterThan(0.95);
    expect(fit.validationLoss.length).toBeGreaterThan(0);
    expect(modelLayout(shape).size).toBe(fit.params.length);

    // Labels drawn from softmax(z / 2): the fitted temperature should be close to 2.
    const { z, m } = drawLabelled(random, 4000, (q) => softmaxInPlace(q, 6, 2));
    expect(fitTemperature(z, m, 6)).toBeGreaterThan(1.7);
    expect(fitTemperature(z, m, 6)).toBeLessThan(2.3);
  });

  it("fits the calibration's prior weight only when mixing in the prior lowers the NLL", () => {
    const random = seededRandom(17);
    const prior = Float64Array.from([0.1, 0.4, 0.3, 0.1, 0.05, 0.05]);
    // Labels drawn from (1 − α)·softmax(z / T) + α·prior, for z the logits given to the fit.
    const draw = (temperature: number, priorWeight: number): { z: Float64Array; m: TrainingMatrix } =>
      drawLabelled(random, 6000, (q) => calibrateInPlace(q, 6, { temperature, priorWeight, prior }));
    const mixed = draw(1, 0.3);
    const fitted = fitCalibration(mixed.z, mixed.m, 6, prior);
    expect(fitted.priorWeight).toBeGreaterThan(0.2);
    expect(fitted.priorWeight).toBeLessThan(0.4);
    expect(fitted.temperature).toBeGreaterThan(0.75);
    expect(fitted.temperature).toBeLessThan(1.33);
    expect(Array.from(fitted.prior)).toEqual(Array.from(prior));
    // Temperature scaling alone must flatten everything to cover the prior's mass: worse NLL.
    expect(nllOfLogits(mixed.z, mixed.m, 6, fitted)).toBeLessThan(
      nllOfLogits(mixed.z, mixed.m, 6, fitTemperature(mixed.z, mixed.m, 6)) - 0.01,
    );

    const plain = draw(2, 0);
    const scaled = fitCalibration(plain.z, plain.m, 6, prior);
    expect(scaled.priorWeight).toBeLessThanOrEqual(0.04);
    expect(scaled.temperature).toBeGreaterThan(1.7);
    expect(scaled.temperature).toBeLessThan(2.3);
  });
});

describe("sparse standardised rows", () => {
  for (const [kind, skip] of [
    ["logreg", undefined],
    ["mlp", undefined],
    ["mlp", [0, 1, 4]],
  ] as const) {
    it(`${kind}${skip ? " with a skip over stored and unstored columns" : ""}: forward and backward equal the dense pass on the z-scored row`, () => {
      const shape: ModelShape = {
        kind,
        inputs: 7,
        hidden: kind === "mlp" ? 5 : 0,
        activation: "tanh",
        events: 6,
        tags: 2,
        ...(skip ? { skip } : {}),
      };
      const random = seededRandom(3);
      const params = withRandomSkip(shape, initialParameters(shape, random), random);
      // Two raw rows with zeros (the sparse part) and a standardiser with non-trivial μ, σ.
      const x = Float32Array.from([0, 1, 0, 0, 2.5, 0, 1, 3, 0, 0, 1, 0, 0, -2]);
      const standardiser = {
        mean: Float64Array.from([0.5, 0.2, 0, 1, 1, 0, 0.3]),
        std: Float64Array.from([2, 0.5, 1, 1, 3, 1, 0.7]),
      };
      const rows = sparseRows(featureMatrixOf(x, 2, 7), standardiser);
      expect(rows.start[2]).toBe(6); // six stored non-zeros
      const centre = new Float64Array(centreWidth(shape));
      firstLayerCentre(shape, params, rows.centre, centre);
      const sparseGrad = new Float64Array(params.length);
      const denseGrad = new Float64Array(params.length);
      const unitGrad = new Float64Array(centreWidth(shape));
      const dEvent = Float64Array.from([0.1, -0.3, 0.2, 0, 0.05, -0.05]);
      const dTag = Float64Array.from([0.2, -0.2]);
      for (let r = 0; r < 2; r++) {
        const dense = Float64Array.from(
          { length: 7 },
          (_, j) => (x[r * 7 + j] - standardiser.mean[j]) / standardiser.std[j],
        );
        const a = newWorkspace(shape);
        const b = newWorkspace(shape);
        forward(shape, params, dense, 0, a);
        sparseForward(shape, params, rows, r, centre, b);
        for (let c = 0; c < 6; c++) expect(b.eventLogits[c]).toBeCloseTo(a.eventLogits[c], 12);
        for (let c = 0; c < 2; c++) expect(b.tagLogits[c]).toBeCloseTo(a.tagLogits[c], 12);
        backward(shape, params, dense, 0, a, dEvent, dTag, denseGrad);
        sparseBackward(shape, params, rows, r, b, dEvent, dTag, sparseGrad, unitGrad);
      }
      finishBatchGradient(shape, rows, sparseGrad, unitGrad);
      for (let i = 0; i < params.length; i++) expect(sparseGrad[i]).toBeCloseTo(denseGrad[i], 12);
    });
  }
});
