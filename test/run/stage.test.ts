// The pipeline's stage runner: a stage is skipped exactly when the input it is given hashes as
// at its last completion, so the hash cannot drift from what the work receives.

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  pipelineSettings,
  runStage,
  stageInputHash,
  type StageContext,
  type StageDescriptor,
} from "../../src/run/index.js";
import { openDatabase } from "../../src/store/index.js";

function context(force = false): StageContext {
  const db = openDatabase(join(mkdtempSync(join(tmpdir(), "schedlab-stage-")), "s.db"));
  return {
    db,
    settings: { ...pipelineSettings({}), force },
    progress: () => undefined,
    started: performance.now(),
    timings: [],
    warnings: [],
  };
}

interface Input {
  readonly n: number;
  readonly data: { readonly fingerprint: string; readonly rows: readonly number[] };
}

function counting(): StageDescriptor<Input, { sum: number }> & { calls: Input[] } {
  const calls: Input[] = [];
  return {
    name: "sum",
    calls,
    work: async (input) => {
      calls.push(input);
      return { output: { sum: input.n + input.data.rows.reduce((a, b) => a + b, 0) }, note: "summed" };
    },
  };
}

describe("runStage", () => {
  it("tells each stage's name as it is reached, and starts none once the signal is aborted", async () => {
    const controller = new AbortController();
    const reached: string[] = [];
    const ctx: StageContext = { ...context(), signal: controller.signal, onStage: (name) => reached.push(name) };
    const stage = counting();
    await runStage(ctx, stage, { n: 1, data: { fingerprint: "f1", rows: [] } });
    await runStage(ctx, stage, { n: 1, data: { fingerprint: "f1", rows: [] } });
    expect(reached).toEqual(["sum", "sum"]);
    controller.abort();
    const interrupted = runStage(ctx, stage, { n: 2, data: { fingerprint: "f1", rows: [] } });
    await expect(interrupted).rejects.toMatchObject({
      exitCode: 130,
      message: expect.stringMatching(/before the sum stage/),
    });
    expect(stage.calls).toHaveLength(1);
    expect(reached).toHaveLength(2);
  });

  it("reruns a stage when any field of its input changes, and skips it otherwise", async () => {
    const ctx = context();
    const stage = counting();
    const input: Input = { n: 1, data: { fingerprint: "f1", rows: [1, 2] } };
    expect(await runStage(ctx, stage, input)).toEqual({ sum: 4 });
    expect(await runStage(ctx, stage, { ...input })).toEqual({ sum: 4 });
    expect(stage.calls).toHaveLength(1);
    expect(await runStage(ctx, stage, { ...input, n: 2 })).toEqual({ sum: 5 });
    expect(stage.calls).toHaveLength(2);
    expect(ctx.timings.map((t) => t.status)).toEqual(["done", "skipped", "done"]);
  });

  it("hashes loaded data by its fingerprint: the fingerprint decides, the rows behind it do not", async () => {
    const a = { n: 1, data: { fingerprint: "f1", rows: [1, 2] } };
    expect(stageInputHash("sum", a)).toBe(
      stageInputHash("sum", { n: 1, data: { fingerprint: "f1", rows: [9, 9, 9] } }),
    );
    expect(stageInputHash("sum", a)).not.toBe(
      stageInputHash("sum", { n: 1, data: { fingerprint: "f2", rows: [1, 2] } }),
    );
    expect(stageInputHash("sum", a)).not.toBe(stageInputHash("other", a));
  });

  it("reruns with --force, and turns an optional stage's failure into a warning", async () => {
    const ctx = context(true);
    const stage = counting();
    const input: Input = { n: 1, data: { fingerprint: "f1", rows: [] } };
    await runStage(ctx, stage, input);
    await runStage(ctx, stage, input);
    expect(stage.calls).toHaveLength(2);
    const failing: StageDescriptor<Input, never> = {
      name: "fails",
      optional: true,
      work: async () => Promise.reject(new Error("no luck")),
    };
    expect(await runStage(ctx, failing, input)).toBeNull();
    expect(ctx.warnings).toEqual(["fails: no luck"]);
    await expect(runStage(ctx, { ...failing, optional: false }, input)).rejects.toThrow("no luck");
  });
});

describe("pipelineSettings", () => {
  it("trains kl and kl-tags unless told otherwise, and takes any recipe eval --cv takes", () => {
    expect(pipelineSettings({}).students.map((s) => s.name)).toEqual(["kl", "kl-tags"]);
    const settings = pipelineSettings({ students: ["kl-confevid", "kl-clip", "kl-confevid"] });
    expect(settings.students.map((s) => s.name)).toEqual(["kl-confevid", "kl-clip"]);
    expect(settings.students[0]!.confidenceEvidence).not.toBeNull();
    expect(settings.students[1]!.clipFeatures).toBe(true);
    expect(() => pipelineSettings({ students: ["kl-bogus"] })).toThrow(/not a student recipe/);
  });
});
