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
