// The network reader: an MLP's first layer reads the raw row with the standardisation folded
// into its weights, and must give what the dense pass gives on the standardised row (one
// member, an ensemble, a skip head, a tag head); a logistic regression reads the standardised row.

import { describe, expect, it } from "vitest";
import {
  FEATURE_COUNT,
  forward,
  modelLayout,
  networkReader,
  newWorkspace,
  softmaxInPlace,
  type ModelShape,
} from "../../../src/predict/index.js";
import { seededRandom } from "../../../src/random.js";

const random = seededRandom(7);

function randomParams(shape: ModelShape): Float64Array {
  const params = new Float64Array(modelLayout(shape).size);
  for (let i = 0; i < params.length; i++) params[i] = (random() - 0.5) * 0.4;
  return params;
}

/** A raw row like the featurizer's: two thirds zeros, the rest counts and shares. */
function rawRow(): Float64Array {
  const x = new Float64Array(FEATURE_COUNT);
  for (let j = 0; j < FEATURE_COUNT; j++)
    if (random() < 1 / 3) x[j] = random() < 0.5 ? random() : Math.floor(10 * random());
  return x;
}

/** What the reader must compute: the dense pass on the z-scored row, members averaged as distributions. */
function denseLogits(
  shape: ModelShape,
  members: Float64Array[],
  mean: Float64Array,
  std: Float64Array,
  x: Float64Array,
) {
  const z = Float64Array.from(x, (v, j) => (v - mean[j]) / std[j]);
  const ws = newWorkspace(shape);
  if (members.length === 1) {
    forward(shape, members[0], z, 0, ws);
    return Array.from(ws.eventLogits);
  }
  const mix = new Float64Array(shape.events);
  for (const params of members) {
    forward(shape, params, z, 0, ws);
    softmaxInPlace(ws.eventLogits, shape.events, 1);
    for (let c = 0; c < shape.events; c++) mix[c] += ws.eventLogits[c] / members.length;
  }
  return Array.from(mix, Math.log);
}

describe("networkReader", () => {
  const cases: readonly { name: string; shape: ModelShape; members: number }[] = [
    {
      name: "an MLP",
      shape: { kind: "mlp", inputs: FEATURE_COUNT, hidden: 16, events: 6, tags: 0, activation: "tanh" },
      members: 1,
    },
    {
      name: "an MLP ensemble with a skip and a tag head",
      shape: {
        kind: "mlp",
        inputs: FEATURE_COUNT,
        hidden: 8,
        events: 6,
        tags: 9,
        activation: "relu",
        skip: [3, 40, 41],
      },
      members: 3,
    },
    {
      name: "a logistic regression",
      shape: { kind: "logreg", inputs: FEATURE_COUNT, hidden: 0, events: 6, tags: 0, activation: "tanh" },
      members: 1,
    },
  ];
  for (const { name, shape, members: count } of cases) {
    it(`${name}: the raw row read through the reader equals the dense pass on the z-scored row`, () => {
      const members = Array.from({ length: count }, () => randomParams(shape));
      const mean = Float64Array.from({ length: FEATURE_COUNT }, () => random() * 3);
      const std = Float64Array.from({ length: FEATURE_COUNT }, () => (random() < 0.1 ? 1 : 0.1 + 2 * random()));
      const reader = networkReader({ shape, members, mean, std, memberTemperatures: members.map(() => 1) });
      const logits = new Float64Array(shape.events);
      for (let r = 0; r < 20; r++) {
        const x = rawRow();
        reader.read(x, 0, logits);
        const expected = denseLogits(shape, members, mean, std, x);
        for (let c = 0; c < shape.events; c++) expect(logits[c]).toBeCloseTo(expected[c], 9);
      }
    });
  }

  it("reads a non-zero value outside the training range as the nearest bound, and zeros as zeros", () => {
    const shape: ModelShape = { kind: "mlp", inputs: FEATURE_COUNT, hidden: 8, events: 6, tags: 0, activation: "tanh" };
    const members = [randomParams(shape)];
    const mean = Float64Array.from({ length: FEATURE_COUNT }, () => random());
    const std = Float64Array.from({ length: FEATURE_COUNT }, () => 0.5 + random());
    const low = new Float64Array(FEATURE_COUNT).fill(0.2);
    const high = new Float64Array(FEATURE_COUNT).fill(3);
    const clipped = networkReader({ shape, members, mean, std, low, high, memberTemperatures: [1] });
    const plain = networkReader({ shape, members, mean, std, memberTemperatures: [1] });
    const a = new Float64Array(6);
    const b = new Float64Array(6);
    for (let r = 0; r < 10; r++) {
      const x = rawRow();
      x[0] = 50; // far above the range
      x[1] = 0.01; // below it
      const inRange = Float64Array.from(x, (v) => (v === 0 ? 0 : Math.min(3, Math.max(0.2, v))));
      clipped.read(x, 0, a);
      plain.read(inRange, 0, b);
      for (let c = 0; c < 6; c++) expect(a[c]).toBeCloseTo(b[c], 12);
    }
  });
});
