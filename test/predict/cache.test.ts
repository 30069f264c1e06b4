import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { State } from "../../src/dataset/types.js";
import { ngramPredictor } from "../../src/predict/baselines.js";
import { predictWithCache, readCachedPredictions } from "../../src/predict/cache.js";
import { PredictorOutputError } from "../../src/predict/errors.js";
import type { Predictor } from "../../src/predict/types.js";
import { openDatabase } from "../../src/store/index.js";
import { prefixOf, records, sampleOf, stateOf } from "./states.js";

const freshDb = () => openDatabase(join(mkdtempSync(join(tmpdir(), "schedlab-cache-")), "schedlab.db"));

const states: State[] = [
  stateOf("s1", prefixOf(records(["GoCreate", 2], ["GoStart", 2]))),
  stateOf("s2", prefixOf(records(["GoStart", 1], ["GoCreate", 2]))),
  stateOf("s3", prefixOf(records(["GoStart", 1], ["GoBlock", 1, "select"]))),
  stateOf("s4", prefixOf(records(["GoStart", 1], ["GoEnd", 1]))),
  stateOf("s5", prefixOf(records(["GoStart", 1], ["GoSched", 1, "preempted"]))),
];

/** Wraps a real ngram predictor and records which state ids each predict() call asked for. */
function recording(inner: Predictor): Predictor & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    id: inner.id,
    configHash: inner.configHash,
    calls,
    predict: async (batch) => {
      calls.push(batch.map((s) => s.id));
      return inner.predict(batch);
    },
  };
}

const trained = () =>
  ngramPredictor(2, 1, {
    samples: [sampleOf(states[0].representative, "GoBlock"), sampleOf(states[1].representative, "GoStart")],
  });

describe("predictWithCache", () => {
  it("asks the backend only for missing states, in batches, and returns stored values on the next call", async () => {
    const db = freshDb();
    const first = recording(trained());
    const result = await predictWithCache(db, first, states.slice(0, 3), { batchSize: 2 });
    expect(first.calls).toEqual([["s1", "s2"], ["s3"]]);
    expect(result).toMatchObject({ hits: 0, computed: 3 });

    const second = recording(trained());
    const again = await predictWithCache(db, second, states, { batchSize: 2 });
    expect(second.calls).toEqual([["s4", "s5"]]);
    expect(again).toMatchObject({ hits: 3, computed: 2 });
    const direct = await trained().predict(states);
    expect(again.predictions.map((p) => p.probabilities)).toEqual(direct.map((p) => p.probabilities));
    db.close();
  });

  it("keys by configHash: a differently trained model is asked again", async () => {
    const db = freshDb();
    await predictWithCache(db, trained(), states);
    const retrained = recording(ngramPredictor(2, 1, { samples: [sampleOf(states[0].representative, "GoEnd")] }));
    expect(retrained.configHash).not.toBe(trained().configHash);
    await predictWithCache(db, retrained, states);
    expect(retrained.calls.flat()).toHaveLength(states.length);
    db.close();
  });

  it("asks once for a state repeated in the input and answers every position", async () => {
    const db = freshDb();
    const predictor = recording(trained());
    const result = await predictWithCache(db, predictor, [states[0], states[1], states[0]]);
    expect(predictor.calls).toEqual([["s1", "s2"]]);
    expect(result.predictions[2]).toEqual(result.predictions[0]);
    db.close();
  });

  it("stores nothing from a batch with an invalid vector, but keeps earlier batches", async () => {
    const db = freshDb();
    let call = 0;
    const flaky: Predictor = {
      id: "flaky",
      configHash: "h",
      predict: async (batch) => {
        call += 1;
        return batch.map(() => ({ probabilities: call === 1 ? [1, 0, 0, 0, 0, 0] : [0.5, 0.6, 0, 0, 0, 0] }));
      },
    };
    await expect(predictWithCache(db, flaky, states, { batchSize: 2 })).rejects.toThrow(PredictorOutputError);
    const stored = readCachedPredictions(
      db,
      flaky,
      states.map((s) => s.prefixHash),
    );
    expect([...stored.keys()].sort()).toEqual([states[0].prefixHash, states[1].prefixHash].sort());
    expect(stored.get(states[0].prefixHash)?.probabilities).toEqual([1, 0, 0, 0, 0, 0]);
    db.close();
  });

  it("keeps reasoning tags", async () => {
    const db = freshDb();
    const tagged: Predictor = {
      id: "tagged",
      configHash: "t",
      predict: async (batch) =>
        batch.map(() => ({ probabilities: [0, 0, 1, 0, 0, 0], tags: { blockReason: "chan receive" } })),
    };
    await predictWithCache(db, tagged, states.slice(0, 1));
    const again = await predictWithCache(db, { ...tagged, predict: async () => [] }, states.slice(0, 1));
    expect(again.predictions[0]).toEqual({ probabilities: [0, 0, 1, 0, 0, 0], tags: { blockReason: "chan receive" } });
    db.close();
  });
});

describe("the cache key", () => {
  it("is the prefix's content: the same state id with another prefix (another collection) is asked again", async () => {
    const db = freshDb();
    const p = recording(trained());
    const here = stateOf("same-id", prefixOf(records(["GoCreate", 2], ["GoStart", 2])));
    const elsewhere = stateOf(
      "same-id",
      prefixOf(records(["GoCreate", 2], ["GoStart", 2], ["GoBlock", 2, "chan send"])),
    );
    await predictWithCache(db, p, [here]);
    const again = await predictWithCache(db, p, [elsewhere]);
    expect(again).toMatchObject({ hits: 0, computed: 1 });
    // Another state whose representative prefix is the same content reuses the answer.
    const twin = stateOf("other-id", prefixOf(records(["GoCreate", 2], ["GoStart", 2])));
    expect(await predictWithCache(db, p, [twin])).toMatchObject({ hits: 1, computed: 0 });
    db.close();
  });
});
