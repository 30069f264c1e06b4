// The words of findings on programs of our own (test/fixtures/words; issue 41, item 5),
// collected, ingested and analysed as a user runs them: a module at major version 2 prints its
// package's name; a table-driven subtest is named as `-run` selects it; a goroutine parked
// inside io.Copy is placed at the user's go statement with the call named; an outlived ticker
// loop says what keeps it alive; a program of one run says "the only run"; a flaky Example's
// failure column shows what it got and wanted.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { collect } from "../../src/collect/index.js";
import { analyseLeaks, formatFindings, type LeakAnalysis, type LeakFinding } from "../../src/leaks/index.js";
import { openDatabase } from "../../src/store/index.js";
import { ingestRuns } from "../../src/trace/index.js";

const WORDS = fileURLToPath(new URL("../fixtures/words/", import.meta.url));

let dir: string;
let several: LeakAnalysis;
let once: LeakAnalysis;

/** Collects `programs` of the fixtures with `runs` runs per GOMAXPROCS value of `procs`, then ingests and analyses them. */
async function analysed(name: string, programs: string[], runs: number, procs: number[]): Promise<LeakAnalysis> {
  const db = join(dir, `${name}.db`);
  await collect({ paths: [WORDS], programs, runs, procs, jobs: 2, db, traces: join(dir, `${name}-traces`) });
  const opened = openDatabase(db);
  try {
    await ingestRuns(opened);
    return await analyseLeaks(opened);
  } finally {
    opened.close();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "schedlab-words-"));
  several = await analysed("several", ["ringbuf", "ratelimit", "pipewait", "ticker", "flakyexample"], 2, [1, 2]);
  once = await analysed("once", ["consumer"], 1, [2]);
}, 600_000);

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

function findingsOf(analysis: LeakAnalysis, program: string): LeakFinding[] {
  return analysis.findings.filter((f) => f.program === program);
}

describe("words of findings on our own programs", () => {
  test("a module whose path ends in /v2 prints its package's name, never 'v2.'", () => {
    const [f] = findingsOf(several, "ringbuf");
    expect(f.goroutine).toBe("TestDrain/ringbuf.(*Ring).send@ring.go:12#0");
    expect(f.blockingSite).toBe("schedlab.dev/fixtures/words/ringbuf/v2.(*Ring).send ring.go:14");
    const text = formatFindings(several);
    expect(text).toContain("ringbuf.(*Ring).send waits at ring.go:14 in chan send.");
    expect(text).not.toMatch(/\bv2\./);
  });

  test("a table-driven subtest is named as testing names it, a name -run selects", () => {
    const [f] = findingsOf(several, "ratelimit");
    expect(f.test).toBe("TestRateLimiter/burst_of_3");
    expect(formatFindings(several)).not.toContain("{tt.name}");
  });

  test("a goroutine parked inside the standard library is placed at the user's line, the call named", () => {
    const byTest = new Map(findingsOf(several, "pipewait").map((f) => [f.test, f]));
    const copy = byTest.get("TestCopyNoWriter");
    expect(copy?.blockingSite).toBe("schedlab.dev/fixtures/words/pipewait.TestCopyNoWriter copy_test.go:20");
    expect(copy?.explanation?.inside).toBe("io.Copy");
    expect(copy?.explanation?.text).toMatch(/^io\.Copy waits at copy_test\.go:20 in select inside io\.Copy\. /);
    const drain = byTest.get("TestDrainNoWriter");
    expect(drain?.blockingSite).toBe("schedlab.dev/fixtures/words/pipewait.Drain copy.go:11");
    expect(drain?.explanation?.text).toMatch(
      /^pipewait\.Drain waits at copy\.go:11 in select inside io\.\(\*PipeReader\)\.Read\. /,
    );
    expect(formatFindings(several)).not.toContain("select.go");
  });

  test("an outlived ticker loop says the timer keeps it alive and that it outlived its test", () => {
    const [f] = findingsOf(several, "ticker");
    expect(`${f.verdict} ${f.kind}`).toBe("proven outlived");
    const text = f.explanation?.text ?? "";
    expect(text).toMatch(
      /^ticker\.\(\*Poller\)\.loop waits at poll\.go:27 in select, but a timer woke it there \d+ times, so it is alive, not blocked; its test TestPoll ended without stopping it\.$/,
    );
    expect(text).toContain(f.why);
    const bug = several.bugs.find((b) => b.program === "ticker");
    expect(formatFindings(several)).not.toMatch(/nothing is left to wake it[^\n]*timer woke it/);
    expect(bug?.differing).toEqual([]);
  });

  test("a program collected with one run says 'the only run', never 'other runs'", () => {
    const [f] = findingsOf(once, "consumer");
    expect(f.runsSeen).toBe(1);
    expect(f.explanation?.text).toBe(
      "consumer.Consume waits at queue.go:9 in chan receive. Earlier in the only run, it was woken there by " +
        "TestConsume, which had ended. Nothing is left to wake it.",
    );
    expect(formatFindings(once)).not.toContain("other runs");
  });

  test("a flaky Example's failure column shows what it got and wanted", () => {
    const [flaky] = several.flaky.filter((f) => f.program === "flakyexample");
    expect(flaky.test).toBe("ExampleSpread");
    expect(`${flaky.runsFailed} failed / ${flaky.runsPassed} passed`).toBe("2 failed / 2 passed");
    expect(flaky.summary).toBe("got workers: 2; want workers: 1");
    const row = formatFindings(several)
      .split("\n")
      .find((l) => l.startsWith("flakyexample"));
    expect(row?.trimEnd().endsWith("got workers: 2; want workers: 1")).toBe(true);
  });
});
