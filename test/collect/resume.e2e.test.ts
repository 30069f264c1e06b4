// Interrupt and resume: an aborted collect keeps the runs it finished (and nothing
// half-done), the next collect runs only what is missing, and --force redoes all.

import Database from "better-sqlite3";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { collect, CollectInterruptedError } from "../../src/collect/index.js";
import { PROGRAMS, scratch } from "./helpers.js";

function recordedRuns(db: string): { tracePath: string }[] {
  const handle = new Database(db, { readonly: true });
  try {
    return handle.prepare("SELECT trace_path AS tracePath FROM runs ORDER BY id").all() as { tracePath: string }[];
  } finally {
    handle.close();
  }
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

describe("collect resume", () => {
  it("resumes after an interrupt, skips finished runs, and redoes everything with force", async () => {
    const dir = scratch("resume");
    const db = join(dir, "s.db");
    const traces = join(dir, "traces");
    const paths = [join(PROGRAMS, "clean"), join(PROGRAMS, "leak-select")];
    const base = { paths, runs: 3, procs: [1], jobs: 2, db, traces, timeoutMs: 3000 };

    const controller = new AbortController();
    const interrupted = await collect({
      ...base,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.runsDone >= 2) controller.abort();
      },
    }).catch((error: unknown) => error);
    expect(interrupted).toBeInstanceOf(CollectInterruptedError);
    expect((interrupted as CollectInterruptedError).exitCode).toBe(130);

    const afterInterrupt = recordedRuns(db);
    expect(afterInterrupt.length).toBeGreaterThanOrEqual(2);
    expect(afterInterrupt.length).toBeLessThan(6);
    for (const run of afterInterrupt) expect(existsSync(run.tracePath)).toBe(true);
    // Killed runs leave no partial files and no unrecorded traces.
    const onDisk = filesUnder(traces);
    expect(onDisk.filter((f) => f.endsWith(".partial"))).toEqual([]);
    expect(onDisk.filter((f) => f.endsWith(".trace")).sort()).toEqual(afterInterrupt.map((r) => r.tracePath).sort());

    const resumed = await collect(base);
    expect(resumed.executed).toBe(6 - afterInterrupt.length);
    expect(resumed.skipped).toBe(afterInterrupt.length);
    expect(recordedRuns(db)).toHaveLength(6);
    expect(resumed.programs.map((p) => p.runs.map((r) => r.index))).toEqual([
      [0, 1, 2],
      [0, 1, 2],
    ]);

    const again = await collect(base);
    expect(again.executed).toBe(0);
    expect(again.skipped).toBe(6);

    const forced = await collect({ ...base, force: true });
    expect(forced.executed).toBe(6);
    expect(recordedRuns(db)).toHaveLength(6);
  });
});
