// Training's sparse raw feature rows: built run by run they equal featurizePrefixes' dense rows
// exactly, every reader (dense rows, a column, row subsets, joins) gives back the dense values,
// and the standardiser fitted on them is the dense computation's to the bit.

import { describe, expect, it } from "vitest";
import type { Prefix } from "../../src/dataset/types.js";
import type { GoroutineRecord, RecordKind } from "../../src/core/index.js";
import { FEATURE_COUNT, featurizePrefixes, NO_FEATURE_INPUTS } from "../../src/predict/index.js";
import {
  denseFeatures,
  featureColumnOf,
  featureMatrixOf,
  featureRowsAt,
  featurizeSparse,
  joinedFeatureRows,
} from "../../src/train/feature-matrix.js";
import { fitStandardiser } from "../../src/train/standardiser.js";
import { eventLogits } from "../../src/train/fit.js";
import { clipNonZero, modelLayout, networkReader, type ModelShape } from "../../src/predict/index.js";
import { seededRandom } from "../../src/random.js";

function run(kinds: readonly [RecordKind, number, number | null, string][]): GoroutineRecord[] {
  return kinds.map(([kind, goroutine, actor, reason], seq) => ({
    seq,
    timeNs: seq * 1000,
    kind,
    goroutine,
    actor,
    reason,
    site: null,
  }));
}

// Two runs: g1 creates g2 and g3 and waits on a channel; in the second, g2 is woken from a sleep.
const first = run([
  ["Initial", 1, null, "Running"],
  ["GoCreate", 2, 1, ""],
  ["GoCreate", 3, 1, ""],
  ["GoBlock", 1, 1, "chan receive"],
  ["GoStart", 2, null, ""],
  ["GoUnblock", 1, 2, ""],
  ["GoStart", 3, null, ""],
  ["GoBlock", 3, 3, "sleep"],
  ["GoEnd", 2, 2, ""],
  ["GoStart", 1, null, ""],
]);
const second = run([
  ["Initial", 1, null, "Running"],
  ["GoCreate", 2, 1, ""],
  ["GoStart", 2, null, ""],
  ["GoBlock", 2, 2, "sleep"],
  ["GoUnblock", 2, null, ""],
  ["GoSched", 1, 1, "runtime.Gosched"],
  ["GoStart", 2, null, ""],
  ["GoEnd", 2, 2, ""],
]);
const prefixOf = (records: GoroutineRecord[], runId: number, end: number): Prefix => ({
  program: "p",
  runId,
  procs: 2,
  records,
  end,
});
// The runs' prefixes interleaved and out of order, as a state's representatives come.
const prefixes = [
  prefixOf(first, 1, 7),
  prefixOf(second, 2, 3),
  prefixOf(first, 1, 2),
  prefixOf(second, 2, 8),
  prefixOf(first, 1, 10),
  prefixOf(first, 1, 0),
  prefixOf(second, 2, 5),
];

describe("sparse feature rows", () => {
  it("built run by run, equal featurizePrefixes' dense rows and feasible flags exactly", () => {
    const dense = featurizePrefixes(prefixes, NO_FEATURE_INPUTS);
    const sparse = featurizeSparse(prefixes, NO_FEATURE_INPUTS);
    expect(sparse.x.rows).toBe(prefixes.length);
    expect(sparse.x.inputs).toBe(FEATURE_COUNT);
    expect(Array.from(denseFeatures(sparse.x))).toEqual(Array.from(dense.x));
    expect(Array.from(sparse.feasible)).toEqual(Array.from(dense.feasible));
    // Only non-zeros are stored, in ascending columns per row.
    expect(Array.from(sparse.x.value).every((v) => v !== 0)).toBe(true);
    expect(sparse.x.start[prefixes.length]).toBe(Array.from(dense.x).filter((v) => v !== 0).length);
    for (let r = 0; r < sparse.x.rows; r++)
      for (let k = sparse.x.start[r] + 1; k < sparse.x.start[r + 1]; k++)
        expect(sparse.x.index[k]).toBeGreaterThan(sparse.x.index[k - 1]);
  });

  it("reads back columns, row subsets and joins as the dense matrix has them", () => {
    // Rows with zeros of both signs, a NaN kept as stored, and an all-zero row.
    const x = Float32Array.from([0, 1.5, -0, 2, 0, 0, 0, 0, NaN, 0, -3, 0.25]);
    const m = featureMatrixOf(x, 3, 4);
    expect(Array.from(m.start)).toEqual([0, 2, 2, 5]);
    expect(Array.from(m.index)).toEqual([1, 3, 0, 2, 3]);
    const dense = Array.from(x, (v) => (v === 0 ? 0 : v));
    expect(Array.from(denseFeatures(m))).toEqual(dense);
    expect(Array.from(featureColumnOf(m, 3))).toEqual([2, 0, 0.25]);
    expect(Array.from(featureColumnOf(m, 0))).toEqual([0, 0, NaN]);
    expect(Array.from(denseFeatures(featureRowsAt(m, [2, 0, 2])))).toEqual([
      ...dense.slice(8, 12),
      ...dense.slice(0, 4),
      ...dense.slice(8, 12),
    ]);
    const joined = joinedFeatureRows(featureRowsAt(m, [1]), m);
    expect(joined.rows).toBe(4);
    expect(Array.from(denseFeatures(joined))).toEqual([...dense.slice(4, 8), ...dense]);
  });

  it("fits the standardiser of the dense rows to the bit", () => {
    const { x } = featurizePrefixes(prefixes, NO_FEATURE_INPUTS);
    const rows = prefixes.length;
    // The dense computation, sums in row order over every column.
    const mean = new Float64Array(FEATURE_COUNT);
    const std = new Float64Array(FEATURE_COUNT);
    for (let r = 0; r < rows; r++) for (let j = 0; j < FEATURE_COUNT; j++) mean[j] += x[r * FEATURE_COUNT + j];
    for (let j = 0; j < FEATURE_COUNT; j++) mean[j] /= rows;
    for (let r = 0; r < rows; r++) {
      for (let j = 0; j < FEATURE_COUNT; j++) {
        const d = x[r * FEATURE_COUNT + j] - mean[j];
        std[j] += d * d;
      }
    }
    for (let j = 0; j < FEATURE_COUNT; j++) {
      const s = Math.sqrt(std[j] / rows);
      std[j] = s > 1e-9 ? s : 1;
    }
    const fitted = fitStandardiser({ x: featureMatrixOf(x, rows, FEATURE_COUNT) });
    expect(Array.from(fitted.mean)).toEqual(Array.from(mean));
    expect(Array.from(fitted.std)).toEqual(Array.from(std));
  });
});

describe("the training range of each column", () => {
  it("is the range of the column's non-zero values, [0, 0] for a column never non-zero, and clips only non-zeros", () => {
    const x = new Float32Array(3 * FEATURE_COUNT);
    x[0] = 2; // column 0: 2, 0, 5
    x[2 * FEATURE_COUNT] = 5;
    x[1] = -1; // column 1: -1, -3, 0
    x[FEATURE_COUNT + 1] = -3;
    const { low, high } = fitStandardiser({ x: featureMatrixOf(x, 3, FEATURE_COUNT) });
    expect([low![0], high![0]]).toEqual([2, 5]);
    expect([low![1], high![1]]).toEqual([-3, -1]);
    expect([low![2], high![2]]).toEqual([0, 0]);
    expect(clipNonZero(9, 2, 5)).toBe(5);
    expect(clipNonZero(1, 2, 5)).toBe(2);
    expect(clipNonZero(3, 2, 5)).toBe(3);
    expect(clipNonZero(0, 2, 5)).toBe(0); // absent stays absent
    expect(clipNonZero(4, 0, 0)).toBe(0); // never seen non-zero: nothing learned to read
  });
});

describe("training and the predictor read a row outside the training range alike", () => {
  it("the sparse training pass clips as the predictor's reader does", () => {
    const random = seededRandom(3);
    const shape: ModelShape = { kind: "mlp", inputs: FEATURE_COUNT, hidden: 8, events: 6, tags: 0, activation: "tanh" };
    const params = Float64Array.from({ length: modelLayout(shape).size }, () => (random() - 0.5) * 0.4);
    const fit = new Float32Array(4 * FEATURE_COUNT);
    for (let i = 0; i < fit.length; i++) if (random() < 0.3) fit[i] = Math.floor(1 + 4 * random());
    const standardiser = fitStandardiser({ x: featureMatrixOf(fit, 4, FEATURE_COUNT) });
    // Rows unlike the fit rows: values up to 40, in columns the fit rows never used too.
    const rows = 3;
    const test = new Float32Array(rows * FEATURE_COUNT);
    for (let i = 0; i < test.length; i++) if (random() < 0.3) test[i] = Math.floor(1 + 40 * random());
    const m = {
      rows,
      inputs: FEATURE_COUNT,
      x: featureMatrixOf(test, rows, FEATURE_COUNT),
      feasible: new Uint8Array(rows * 6),
      events: new Float64Array(rows * 6),
      weights: new Float64Array(rows).fill(1),
      counts: new Float64Array(rows).fill(1),
      tags: null,
    };
    const trained = eventLogits(shape, params, m, standardiser);
    const reader = networkReader({ shape, members: [params], ...standardiser, memberTemperatures: [1] });
    const logits = new Float64Array(6);
    for (let r = 0; r < rows; r++) {
      reader.read(test, r * FEATURE_COUNT, logits);
      for (let c = 0; c < 6; c++) expect(trained[r * 6 + c]).toBeCloseTo(logits[c]!, 9);
    }
    // Unclipped, the same rows read differently: the range is doing something here.
    const unclipped = eventLogits(shape, params, m, { mean: standardiser.mean, std: standardiser.std });
    expect(Array.from(unclipped)).not.toEqual(Array.from(trained));
  });
});
