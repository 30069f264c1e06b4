import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ModelNotFoundError } from "../../src/predict/errors.js";
import { hfPredictor } from "../../src/predict/hf.js";
import { probabilityVectorProblem } from "../../src/predict/probabilities.js";
import { EVENT_TYPES } from "../../src/core/index.js";
import { buildTinyLm } from "../helpers/tiny-lm.js";
import { prefixOf, records, stateOf } from "./states.js";

const LABELS = [...EVENT_TYPES];
const state = stateOf("a1", prefixOf(records(["GoCreate", 1], ["GoStart", 1], ["GoBlock", 1, "chan receive"])));

describe("hf predictor (transformers.js, tiny ONNX LM built by the test)", () => {
  it("scores single-token labels after the prompt and follows the bigram weights", async () => {
    // After ":" (the last prompt token) GoBlock has logit 4, GoStart 2, the rest 0.
    const lm = buildTinyLm({ words: ["Next", "event", ":", ...LABELS], bigram: { ":": { GoBlock: 4, GoStart: 2 } } });
    const predictor = hfPredictor(lm.dir);
    const [prediction] = await predictor.predict([state]);
    const p = prediction.probabilities;
    expect(probabilityVectorProblem(p)).toBeNull();
    // The six labels compete only among themselves: softmax over (0, 2, 4, 0, 0, 0).
    const z = 4 + Math.exp(2) + Math.exp(4);
    const expected = [1 / z, Math.exp(2) / z, Math.exp(4) / z, 1 / z, 1 / z, 1 / z];
    p.forEach((value, i) => expect(value).toBeCloseTo(expected[i], 5));
    expect(p.indexOf(Math.max(...p))).toBe(EVENT_TYPES.indexOf("GoBlock"));
  }, 60_000);

  it('sums log-probs over multi-token labels (each label is "Go" + a sub-word)', async () => {
    // WordPiece splits "GoEnd" into "Go" + "##End"; every label shares "Go", so only the
    // second token separates them: after "Go", "##End" has logit 5, other sub-words 0.
    const subwords = ["##Create", "##Start", "##Block", "##Unblock", "##Sched", "##End"];
    const lm = buildTinyLm({
      words: ["Next", "event", ":", "Go", ...subwords],
      bigram: { ":": { Go: 3 }, Go: { "##End": 5 } },
    });
    const [prediction] = await hfPredictor(lm.dir).predict([state]);
    const p = prediction.probabilities;
    expect(probabilityVectorProblem(p)).toBeNull();
    const z = 5 + Math.exp(5);
    p.slice(0, 5).forEach((value) => expect(value).toBeCloseTo(1 / z, 5));
    expect(p[5]).toBeCloseTo(Math.exp(5) / z, 5);
  }, 60_000);

  it("pads labels of different token lengths in one batch without changing their scores", async () => {
    // "GoEnd" is a whole word (1 token); the other labels are "Go" + "##X" (2 tokens).
    const subwords = ["##Create", "##Start", "##Block", "##Unblock", "##Sched"];
    const words = ["Next", "event", ":", "Go", "GoEnd", ...subwords];
    const lm = buildTinyLm({ words, bigram: { ":": { Go: 2, GoEnd: 1 }, Go: { "##Block": 3 } } });
    const [prediction] = await hfPredictor(lm.dir).predict([state]);
    const v = words.length + 1; // + [UNK]
    const lse1 = Math.log(Math.exp(2) + Math.exp(1) + (v - 2)); // row ":"
    const lse2 = Math.log(Math.exp(3) + (v - 1)); // row "Go"
    const plain = 2 - lse1 - lse2;
    const scores = [plain, plain, 2 - lse1 + 3 - lse2, plain, plain, 1 - lse1];
    const max = Math.max(...scores);
    const total = scores.reduce((a, x) => a + Math.exp(x - max), 0);
    prediction.probabilities.forEach((p, i) => expect(p).toBeCloseTo(Math.exp(scores[i] - max) / total, 5));
  }, 60_000);

  it("cuts the prompt from the left to the model's position limit", async () => {
    // 16 positions: the rendered prompt is far longer, so without the cut the position lookup would fail.
    const lm = buildTinyLm({
      words: ["Next", "event", ":", ...LABELS],
      bigram: { ":": { GoSched: 2 } },
      maxPositions: 16,
    });
    const [prediction] = await hfPredictor(lm.dir).predict([state]);
    const z = 5 + Math.exp(2);
    prediction.probabilities.forEach((p, i) => expect(p).toBeCloseTo(i === 4 ? Math.exp(2) / z : 1 / z, 5));
  }, 60_000);

  it("gives the same answer for a batch as one state at a time, and a stable configHash", async () => {
    const lm = buildTinyLm({ words: ["Next", "event", ":", ...LABELS], bigram: { ":": { GoUnblock: 1.5 } } });
    const other = stateOf("b2", prefixOf(records(["GoCreate", 1], ["GoCreate", 2], ["GoStart", 2])));
    const predictor = hfPredictor(lm.dir);
    const both = await predictor.predict([state, other]);
    const [single] = await predictor.predict([other]);
    single.probabilities.forEach((v, i) => expect(both[1].probabilities[i]).toBeCloseTo(v, 6));
    expect(hfPredictor(lm.dir).configHash).toBe(predictor.configHash);
    expect(predictor.id).toBe(`hf:${lm.dir}`);
  }, 60_000);

  it("refuses a directory that is not a model, naming what is missing", () => {
    const empty = mkdtempSync(join(tmpdir(), "schedlab-notmodel-"));
    expect(() => hfPredictor(empty)).toThrow(/lacks config.json, tokenizer.json, onnx/);
  });

  it("treats a hub id as a missing local model unless downloads are allowed", () => {
    expect(() => hfPredictor("Xenova/tiny-random-gpt2")).toThrow(/no local model at .*Xenova\/tiny-random-gpt2/);
  });

  it("refuses a missing model path with advice, and downloads nothing", () => {
    const missing = join(mkdtempSync(join(tmpdir(), "schedlab-nomodel-")), "absent");
    expect(() => hfPredictor(missing)).toThrow(ModelNotFoundError);
    try {
      hfPredictor(missing);
    } catch (error) {
      expect((error as ModelNotFoundError).hint).toMatch(/--allow-download/);
    }
  });
});
