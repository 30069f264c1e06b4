// The realcode programs (go-programs/realcode): labels check, the tracer-induced failure
// of goleakcheck is real (its tests pass untraced and fail traced, naming the tracer's
// reader goroutine), and each expected leak's go statement leaves the goroutine blocked
// in a real run with a goroutine dump after the tests.

import { execa } from "execa";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkCorpus, type CorpusCheckReport } from "../../src/corpus/index.js";

const moduleDir = fileURLToPath(new URL("../../go-programs", import.meta.url));
const REALCODE = join(moduleDir, "realcode");
const TRACE_READER = "runtime/trace.(*traceMultiplexer).startLocked.func1";

describe("go-programs/realcode", () => {
  let report: CorpusCheckReport;
  let scratch: string;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), "schedlab-realcode-"));
    report = await checkCorpus({ dir: REALCODE });
  });

  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("labels one program per class, all valid and building", () => {
    expect(report.failures).toEqual([]);
    expect(report.programs).toBe(15);
    expect(report.unlabelled).toBe(0);
    expect(report.byKind).toEqual({ main: 1, test: 14 });
    expect(report.byOutcome).toEqual({ clean: 6, leak: 8, flaky: 1 });
  });

  it("goleakcheck passes untraced and fails traced because of the tracer's reader goroutine", async () => {
    const binary = join(scratch, "goleakcheck.test");
    await execa("go", ["test", "-c", "-o", binary, "./realcode/goleakcheck"], { cwd: moduleDir });
    const plain = await execa(binary, ["-test.v"], { reject: false, cwd: scratch });
    expect(plain.exitCode, plain.stdout).toBe(0);
    const traced = await execa(binary, ["-test.v", `-test.trace=${join(scratch, "t.out")}`], {
      reject: false,
      cwd: scratch,
    });
    expect(traced.exitCode).toBe(1);
    expect(traced.stdout).toContain("--- FAIL: TestBatcherFlushesInBatches");
    expect(traced.stdout).toContain(TRACE_READER);
    // The tracer's goroutine is the only one the check complains about.
    const listed = [...traced.stdout.matchAll(/goroutine \d+ \[[^\]]+\]:\n\s*(\S+)\(/g)].map((m) => m[1]);
    expect(new Set(listed)).toEqual(new Set(["runtime.ReadTrace"]));
  });
});
