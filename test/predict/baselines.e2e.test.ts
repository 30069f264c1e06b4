import { describe, expect, it } from "vitest";
import {
  contextCountsOf,
  contextNgramProbabilities,
  eventToken,
  fitNgram,
  forEachContextPrefix,
  majorityPredictor,
  newContextNgramCounts,
  ngramProbabilities,
  observeContextEvent,
  recentTokens,
  uniformPredictor,
} from "../../src/predict/baselines.js";
import { createPredictor } from "../../src/predict/registry.js";
import { PredictorSpecError } from "../../src/predict/errors.js";
import { prefixOf, records, sampleOf, stateOf } from "./states.js";

const close = (actual: readonly number[], expected: readonly number[]): void => {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((v, i) => expect(v).toBeCloseTo(expected[i], 12));
};

// Prefixes ending in a given event, each a tiny made-up run.
const endsWithStart = prefixOf(records(["GoCreate", 2], ["GoStart", 2]));
const endsWithCreate = prefixOf(records(["GoStart", 1], ["GoCreate", 2]));
const endsWithChanBlock = prefixOf(records(["GoStart", 1], ["GoBlock", 1, "chan receive"]));
const endsWithSyncBlock = prefixOf(records(["GoStart", 1], ["GoBlock", 1, "sync"]));

describe("uniform", () => {
  it("gives 1/6 to every event", async () => {
    const [p] = await uniformPredictor().predict([stateOf("x", endsWithStart)]);
    close(
      p.probabilities,
      [1, 1, 1, 1, 1, 1].map((v) => v / 6),
    );
  });
});

describe("majority", () => {
  it("predicts the training marginal from samples: [GoStart, GoStart, GoBlock, GoEnd]", async () => {
    const samples = [
      sampleOf(endsWithCreate, "GoStart"),
      sampleOf(endsWithCreate, "GoStart"),
      sampleOf(endsWithStart, "GoBlock"),
      sampleOf(endsWithStart, "GoEnd"),
    ];
    const [p] = await majorityPredictor({ samples }).predict([stateOf("x", endsWithChanBlock)]);
    close(p.probabilities, [0, 0.5, 0.25, 0, 0, 0.25]);
  });

  it("falls back to state counts when there are no samples", async () => {
    const states = [
      stateOf("a", endsWithStart, { GoBlock: 3, GoEnd: 1 }),
      stateOf("b", endsWithCreate, { GoStart: 4 }),
    ];
    const [p] = await majorityPredictor({ states }).predict([stateOf("x", endsWithStart)]);
    close(p.probabilities, [0, 0.5, 0.375, 0, 0, 0.125]);
  });

  it("is uniform without training data, and its configHash follows the data", () => {
    expect(majorityPredictor({}).configHash).not.toBe(
      majorityPredictor({ samples: [sampleOf(endsWithStart, "GoEnd")] }).configHash,
    );
  });
});

describe("ngram tokens", () => {
  it("keeps the reason of GoBlock and GoSched only", () => {
    expect(eventToken("GoBlock", "chan receive")).toBe("GoBlock:chan receive");
    expect(eventToken("GoSched", "preempted")).toBe("GoSched:preempted");
    expect(eventToken("GoUnblock", "")).toBe("GoUnblock");
    expect(eventToken("GoBlock", "")).toBe("GoBlock");
  });

  it("skips non-event records and respects the prefix end", () => {
    const recs = records(
      ["Initial", 1, "running"],
      ["GoCreate", 2],
      ["SyscallEnter", 1],
      ["GoBlock", 1, "sync"],
      ["GoStart", 2],
    );
    expect(recentTokens(prefixOf(recs), 5)).toEqual(["GoCreate", "GoBlock:sync", "GoStart"]);
    expect(recentTokens(prefixOf(recs, 4), 2)).toEqual(["GoCreate", "GoBlock:sync"]);
  });
});

describe("ngram", () => {
  // GoStart → GoBlock ×2, GoEnd ×1; GoCreate → GoStart ×1.
  const samples = [
    sampleOf(endsWithStart, "GoBlock"),
    sampleOf(endsWithStart, "GoBlock"),
    sampleOf(endsWithStart, "GoEnd"),
    sampleOf(endsWithCreate, "GoStart"),
  ];

  it("K=2, k=1: (n_e + 1) / (n + 6) in a seen context", () => {
    const model = fitNgram(2, 1, { samples });
    close(ngramProbabilities(model, ["GoStart"]), [1 / 9, 1 / 9, 3 / 9, 1 / 9, 1 / 9, 2 / 9]);
    close(ngramProbabilities(model, ["GoCreate"]), [1 / 7, 2 / 7, 1 / 7, 1 / 7, 1 / 7, 1 / 7]);
  });

  it("backs off to the empty context for an unseen one", () => {
    const model = fitNgram(2, 1, { samples });
    // Marginal: GoStart 1, GoBlock 2, GoEnd 1 → (n+1)/(4+6).
    close(ngramProbabilities(model, ["GoSched:preempted"]), [0.1, 0.2, 0.3, 0.1, 0.1, 0.2]);
  });

  it("K=3 uses two tokens, backing off to one when the pair is unseen", () => {
    const model = fitNgram(3, 0.5, { samples });
    // Context (GoCreate, GoStart) seen 3 times: GoBlock 2, GoEnd 1 → (n+.5)/(3+3).
    close(ngramProbabilities(model, ["GoCreate", "GoStart"]), [0.5 / 6, 0.5 / 6, 2.5 / 6, 0.5 / 6, 0.5 / 6, 1.5 / 6]);
    // (GoEnd, GoStart) unseen → context GoStart alone, same counts.
    close(ngramProbabilities(model, ["GoEnd", "GoStart"]), [0.5 / 6, 0.5 / 6, 2.5 / 6, 0.5 / 6, 0.5 / 6, 1.5 / 6]);
  });

  it("fits the same from samples it reads lazily, and from states when an iterable yields no sample", () => {
    // What cross-validation passes: samples loaded program by program while the fit reads them.
    const lazily = {
      *[Symbol.iterator]() {
        yield* samples;
      },
    };
    expect(fitNgram(3, 0.5, { samples: lazily })).toEqual(fitNgram(3, 0.5, { samples }));
    const states = [stateOf("a", endsWithStart, { GoBlock: 2, GoEnd: 1 })];
    const none = { *[Symbol.iterator](): Generator<(typeof samples)[number]> {} };
    expect(fitNgram(2, 1, { samples: none, states })).toEqual(fitNgram(2, 1, { states }));
    expect(fitNgram(2, 1, { samples: [], states })).toEqual(fitNgram(2, 1, { states }));
  });

  it("tells block reasons apart", async () => {
    const reasonSamples = [sampleOf(endsWithChanBlock, "GoUnblock"), sampleOf(endsWithSyncBlock, "GoStart")];
    const predictor = await createPredictor("ngram:2", { training: { samples: reasonSamples } });
    const [chan, sync] = await predictor.predict([stateOf("c", endsWithChanBlock), stateOf("s", endsWithSyncBlock)]);
    close(chan.probabilities, [1 / 7, 1 / 7, 1 / 7, 2 / 7, 1 / 7, 1 / 7]);
    close(sync.probabilities, [1 / 7, 2 / 7, 1 / 7, 1 / 7, 1 / 7, 1 / 7]);
    expect(predictor.id).toBe("ngram:2");
  });

  it("trains from states weighted by their counts when there are no samples", async () => {
    const predictor = await createPredictor("ngram:2", {
      training: { states: [stateOf("a", endsWithStart, { GoBlock: 2, GoEnd: 1 })] },
    });
    const [p] = await predictor.predict([stateOf("x", endsWithStart)]);
    close(p.probabilities, [1 / 9, 1 / 9, 3 / 9, 1 / 9, 1 / 9, 2 / 9]);
  });

  it("is uniform with no training data", async () => {
    const [p] = await (await createPredictor("ngram:3")).predict([stateOf("x", endsWithStart)]);
    close(
      p.probabilities,
      [1, 1, 1, 1, 1, 1].map((v) => v / 6),
    );
  });
});

describe("createPredictor specs", () => {
  it("rejects unknown kinds and bad arguments with a hint listing the specs", async () => {
    await expect(createPredictor("gpt")).rejects.toThrow(PredictorSpecError);
    await expect(createPredictor("gpt")).rejects.toMatchObject({ hint: expect.stringContaining("ngram:K") });
    await expect(createPredictor("ngram:0")).rejects.toThrow(/integer from 1 to 32/);
    await expect(createPredictor("ngram:two")).rejects.toThrow(/integer from 1 to 32/);
    await expect(createPredictor("ngram")).rejects.toThrow(/needs an order/);
    await expect(createPredictor("openai:")).rejects.toThrow(/needs a model name/);
    await expect(createPredictor("ngram:2", { ngramAddK: 0 })).rejects.toThrow(/add-k must be positive/);
    await expect(createPredictor("uniform:3")).rejects.toThrow(/takes no argument/);
  });
});

describe("createPredictor student:PATH", () => {
  it("loads the adapter at PATH, whose error names the missing adapter file", async () => {
    const { mkdtempSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const dir = mkdtempSync(join(tmpdir(), "schedlab-noadapter-"));
    await expect(createPredictor(`student:${dir}`)).rejects.toThrow(
      /is not a schedlab adapter: weights.json is missing/,
    );
    // studentDir maps PATH to the adapter directory (cross-validation: a recipe to its fold's student).
    await expect(createPredictor("student:kl", { studentDir: (path) => join(dir, path) })).rejects.toThrow(
      `${join(dir, "kl")} is not a schedlab adapter`,
    );
    await expect(createPredictor("student:")).rejects.toThrow(/needs an adapter directory/);
  });
});

describe("ngram-ctx (in-context n-gram)", () => {
  // A run that alternates GoStart / GoBlock(chan receive): the prefix's own counts say what comes next.
  const cycle = records(
    ["GoStart", 2],
    ["GoBlock", 2, "chan receive"],
    ["GoStart", 2],
    ["GoBlock", 2, "chan receive"],
    ["GoStart", 2],
    ["GoBlock", 2, "chan receive"],
    ["GoStart", 2],
  );

  it("counts each context of the prefix and interpolates them over the base (Witten–Bell)", () => {
    const counts = newContextNgramCounts(2);
    for (const r of cycle)
      if (r.kind !== "Initial") observeContextEvent(counts, r.kind as "GoStart" | "GoBlock", r.reason);
    // Unigram: 4 GoStart, 3 GoBlock (n 7, u 2, λ 7/9); after "GoStart": GoBlock ×3 (n 3, u 1, λ 3/4).
    expect(Array.from(contextCountsOf(counts, 0) ?? [])).toEqual([0, 4, 3, 0, 0, 0]);
    expect(Array.from(contextCountsOf(counts, 1) ?? [])).toEqual([0, 0, 3, 0, 0, 0]);
    const base = [1, 1, 1, 1, 1, 1].map((v) => v / 6);
    const unigram = base.map((b, i) => (7 / 9) * ([0, 4, 3, 0, 0, 0][i] / 7) + (2 / 9) * b);
    const expected = unigram.map((p, i) => (3 / 4) * (i === 2 ? 1 : 0) + (1 / 4) * p);
    close(contextNgramProbabilities(counts, base), expected);
  });

  it("predicts from the representative prefix alone, and gives the base for an empty prefix", async () => {
    const predictor = await createPredictor("ngram-ctx:2");
    expect(predictor.id).toBe("ngram-ctx:2");
    const [inLoop, empty] = await predictor.predict([stateOf("a", prefixOf(cycle)), stateOf("b", prefixOf(cycle, 0))]);
    expect(inLoop.probabilities[2]).toBeGreaterThan(0.75); // GoBlock after GoStart
    close(
      empty.probabilities,
      [1, 1, 1, 1, 1, 1].map((v) => v / 6),
    );
  });

  it("walks prefixes of one run once, each seeing exactly its own records", () => {
    const seen: number[][] = [];
    forEachContextPrefix([prefixOf(cycle, 4), prefixOf(cycle, 2)], 2, (i, counts) => {
      seen[i] = Array.from(contextCountsOf(counts, 0) ?? []);
    });
    expect(seen[1]).toEqual([0, 1, 1, 0, 0, 0]);
    expect(seen[0]).toEqual([0, 2, 2, 0, 0, 0]);
  });

  it("rejects a bad order like ngram does", async () => {
    await expect(createPredictor("ngram-ctx:0")).rejects.toThrow(/ngram-ctx order must be an integer/);
  });
});
