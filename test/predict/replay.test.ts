import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ngramPredictor } from "../../src/predict/baselines.js";
import { createPredictor } from "../../src/predict/registry.js";
import { ReplayFormatError, ReplayMissingStatesError } from "../../src/predict/errors.js";
import { writeReplayFile } from "../../src/predict/replay.js";
import { prefixOf, records, sampleOf, stateOf } from "./states.js";

const scratch = () => mkdtempSync(join(tmpdir(), "schedlab-replay-"));
const states = [
  stateOf("0123456789abcdef", prefixOf(records(["GoCreate", 2], ["GoStart", 2]))),
  stateOf("fedcba9876543210", prefixOf(records(["GoStart", 1], ["GoBlock", 1, "chan send"]))),
];

describe("replay", () => {
  it("round-trips predictions through a JSONL file exactly", async () => {
    const source = ngramPredictor(2, 0.5, {
      samples: [sampleOf(states[0].representative, "GoBlock"), sampleOf(states[0].representative, "GoEnd")],
    });
    const original = await source.predict(states);
    const file = join(scratch(), "preds.jsonl");
    writeReplayFile(
      file,
      states.map((s, i) => [s, original[i]] as const),
    );
    const replay = await createPredictor(`replay:${file}`);
    expect(await replay.predict(states)).toEqual(original);
    expect(replay.id).toBe(`replay:${file}`);
    // Editing the file changes the configHash, so cached answers of the old file are not reused.
    writeReplayFile(
      file,
      states.map((s) => [s, { probabilities: [0, 0, 0, 0, 0, 1] }] as const),
    );
    expect((await createPredictor(`replay:${file}`)).configHash).not.toBe(replay.configHash);
  });

  it("accepts arrays in EVENT_TYPES order and objects with omitted zero labels", async () => {
    const file = join(scratch(), "mixed.jsonl");
    writeFileSync(
      file,
      [
        JSON.stringify({ stateId: states[0].id, probabilities: [0.1, 0.2, 0.3, 0.1, 0.1, 0.2] }),
        "",
        JSON.stringify({ stateId: states[1].id, probabilities: { GoUnblock: 0.75, GoEnd: 0.25 } }),
      ].join("\n"),
    );
    const [a, b] = await (await createPredictor(`replay:${file}`)).predict(states);
    expect(a.probabilities).toEqual([0.1, 0.2, 0.3, 0.1, 0.1, 0.2]);
    expect(b.probabilities).toEqual([0, 0, 0, 0.75, 0, 0.25]);
  });

  it("names how many states are missing and one example", async () => {
    const file = join(scratch(), "partial.jsonl");
    writeFileSync(file, JSON.stringify({ stateId: states[0].id, probabilities: [1, 0, 0, 0, 0, 0] }) + "\n");
    const replay = await createPredictor(`replay:${file}`);
    const failure = replay.predict(states);
    await expect(failure).rejects.toThrow(ReplayMissingStatesError);
    await expect(replay.predict(states)).rejects.toThrow(
      /no prediction for 1 of 2 states \(e\.g\. state fedcba9876543210/,
    );
  });

  it("rejects malformed lines, naming the line", async () => {
    const dir = scratch();
    const cases: Array<[string, RegExp]> = [
      ['{"stateId": "a", "probabilities": [1, 0, 0]}', /:1: "probabilities" has 3 entries/],
      ['{"stateId": "a", "probabilities": {"GoFoo": 1}}', /unknown label "GoFoo"/],
      ['{"stateId": "a", "probabilities": [0.5, 0.5, 0.5, 0, 0, 0]}', /sums to 1.5/],
      ['{"stateId": "a", "probabilities": [1.5, -0.5, 0, 0, 0, 0]}', /negative/],
      ['{"probabilities": [1, 0, 0, 0, 0, 0]}', /missing string field "stateId"/],
      ["{not json", /not valid JSON/],
    ];
    for (const [i, [line, message]] of cases.entries()) {
      const file = join(dir, `bad${i}.jsonl`);
      writeFileSync(file, line + "\n");
      await expect(createPredictor(`replay:${file}`)).rejects.toThrow(message);
      await expect(createPredictor(`replay:${file}`)).rejects.toThrow(ReplayFormatError);
    }
  });

  it("renormalises sums within 1e-3 of 1 (rounding elsewhere), and reports a missing file", async () => {
    const file = join(scratch(), "rounded.jsonl");
    writeFileSync(
      file,
      JSON.stringify({ stateId: states[0].id, probabilities: [0.333, 0.333, 0.333, 0, 0, 0] }) + "\n",
    );
    const [p] = await (await createPredictor(`replay:${file}`)).predict([states[0]]);
    p.probabilities.slice(0, 3).forEach((v) => expect(v).toBeCloseTo(1 / 3, 12));
    await expect(createPredictor(`replay:${join(scratch(), "absent.jsonl")}`)).rejects.toThrow(
      /cannot read replay file .*ENOENT/,
    );
  });
  it("does not use a line made for another prefix of the same state id", async () => {
    const file = join(scratch(), "stale.jsonl");
    writeFileSync(
      file,
      [
        JSON.stringify({ stateId: states[0].id, prefixHash: states[0].prefixHash, probabilities: [0, 1, 0, 0, 0, 0] }),
        JSON.stringify({ stateId: states[1].id, prefixHash: "0000000000000000", probabilities: [0, 1, 0, 0, 0, 0] }),
      ].join("\n"),
    );
    const replay = await createPredictor(`replay:${file}`);
    expect((await replay.predict([states[0]]))[0]!.probabilities).toEqual([0, 1, 0, 0, 0, 0]);
    await expect(replay.predict(states)).rejects.toThrow(/1 of them have a line made for another prefix/);
  });
});
