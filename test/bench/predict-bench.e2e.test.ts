// bench/predict.mjs at toy size: like bench/train.mjs (train-bench.e2e.test.ts), the benchmark
// imports the built package, so an API it calls that changed shows here rather than the next
// time somebody measures (its states once lacked the prefix hash the cache is keyed by). It
// checks that both lines the bench promises are printed, not the timings.

import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));

describe("bench/predict.mjs", () => {
  it("answers from the cache and from a local endpoint at toy size, printing both ratios", () => {
    const out = execFileSync(process.execPath, ["bench/predict.mjs", "500"], { cwd: root, encoding: "utf8" });
    expect(out).toMatch(
      /^cache: 500 states computed\+stored in [\d.]+ s, answered from cache in [\d.]+ s; ratio [\d.]+$/m,
    );
    expect(out).toMatch(
      /^openai: 80 states at 10 ms\/reply: concurrency 1 [\d.]+ s, concurrency 8 [\d.]+ s; ratio [\d.]+$/m,
    );
  }, 60_000);
});
