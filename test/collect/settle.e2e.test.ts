// The harness's settle after main returns, on a real exit race (test/fixtures/collect/exit-race):
// main returns while its worker is parked on a receive and the sender is still runnable.
// A harness run's trace must end with the worker ended, and the per-run check must see no leak.

import { execa } from "execa";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import {
  buildProgram,
  checkRun,
  DEFAULT_SETTLE_MS,
  HARNESS_ENV,
  HARNESS_SOURCE,
  runFiles,
  tracedRun,
  type RunConfig,
} from "../../src/collect/index.js";
import { discoverPrograms, type ProgramSpec } from "../../src/corpus/index.js";
import { goToolchain, type GoToolchain } from "../../src/go/index.js";
import { decodeTrace } from "../../src/trace/index.js";
import type { GoroutineRecord } from "../../src/core/index.js";
import { scratch } from "./helpers.js";

const EXIT_RACE = fileURLToPath(new URL("../fixtures/collect/exit-race/", import.meta.url));
const CONFIG: RunConfig = { key: "procs-1", strategy: "plain", procs: 1, testCount: null };
let go: GoToolchain;
let program: ProgramSpec;
let binary: string;
let work: string;

/** Each goroutine's last record, by entry function. */
async function lastRecords(trace: string): Promise<Map<string, GoroutineRecord>> {
  const records: GoroutineRecord[] = [];
  const summary = await decodeTrace(trace, { mode: "main", goroot: go.goroot }, (batch) => records.push(...batch));
  const entry = new Map(summary.goroutines.map((g) => [g.goroutine, g.canonicalId]));
  const last = new Map<string, GoroutineRecord>();
  for (const r of records) last.set(entry.get(r.goroutine) ?? String(r.goroutine), r);
  return last;
}

function workerRecord(last: Map<string, GoroutineRecord>): GoroutineRecord {
  const key = [...last.keys()].find((k) => k.includes("main.worker"));
  expect(key, [...last.keys()].join(", ")).toBeDefined();
  return last.get(key!)!;
}

beforeAll(async () => {
  go = await goToolchain();
  work = scratch("settle");
  [program] = (await discoverPrograms([EXIT_RACE])).programs as [ProgramSpec];
  const build = await buildProgram(program, go, join(work, "build"));
  expect(build.status, build.output).toBe("ok");
  binary = build.binary!;
}, 120_000);

describe("the harness settles after main returns", () => {
  it("names its bound in HARNESS_ENV, with a small default", () => {
    expect(HARNESS_ENV.settleMs).toBe("SCHEDLAB_SETTLE_MS");
    expect(DEFAULT_SETTLE_MS).toBe(100);
    expect(HARNESS_SOURCE).toContain('schedlabHarnessSettle()\n\tschedlabHarnessFinish("return", 0)');
  });

  it("ends the trace of an exit race with the worker ended, and the check sees no leak", async () => {
    for (let index = 0; index < 5; index++) {
      const result = (await tracedRun({
        kind: "main",
        dir: program.dir,
        binary,
        testName: null,
        config: CONFIG,
        files: runFiles(join(work, "traces"), "exit-race", CONFIG.key, index),
        timeoutMs: 10_000,
        graceMs: 500,
        go,
      }))!;
      expect(result.outcome).toBe("ok");
      const worker = workerRecord(await lastRecords(result.tracePath!));
      expect(worker.kind).toBe("GoEnd");
      const check = await checkRun(result, { kind: "main", dir: EXIT_RACE }, go);
      expect(check).toMatchObject({ finding: null, classes: [], blocked: [] });
    }
  }, 60_000);

  it("without the settle (bound 0) the same program's trace shows the worker blocked in chan receive", async () => {
    // The contrast that makes the test above mean something: the trace stopped the instant
    // main returned. Measured in 30 of 30 runs at GOMAXPROCS 1, but the OS can still delay
    // trace.Stop long enough for the sender to run, so one blocked ending in 5 runs is asked.
    const endings: string[] = [];
    for (let index = 0; index < 5 && !endings.includes("GoBlock chan receive"); index++) {
      const trace = join(work, `nosettle-${index}.trace`);
      const run = await execa(binary, [], {
        env: { GOMAXPROCS: "1", [HARNESS_ENV.trace]: trace, [HARNESS_ENV.settleMs]: "0" },
        reject: false,
      });
      expect(run.exitCode).toBe(0);
      const worker = workerRecord(await lastRecords(trace));
      endings.push(`${worker.kind} ${worker.reason}`.trim());
    }
    expect(endings).toContain("GoBlock chan receive");
  }, 60_000);
});
