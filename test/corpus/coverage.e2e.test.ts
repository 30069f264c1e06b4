// Corpus coverage on real traces (issue 4, balance): a small sample of the hand-written
// patterns is collected and ingested, and together its runs show all six event types and
// the block reasons the toolkit must be trained and scored on, rare ones included.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collect } from "../../src/collect/index.js";
import { openDatabase } from "../../src/store/index.js";
import { EVENT_TYPES } from "../../src/core/index.js";
import { ingestRuns } from "../../src/trace/index.js";

const corpus = fileURLToPath(new URL("../../go-programs/patterns", import.meta.url));
// One program per mechanism: yields and preemption, a condition variable, locks and a
// WaitGroup, timers, select, and plain channel hand-offs.
const sample = [
  "sched/cooperative-yield-scheduler",
  "sync/cond-bounded-queue",
  "sync/mutex-lru-cache",
  "timers/ticker-heartbeat",
  "select/event-loop-many-cases",
  "channels/unbuffered-handoff",
];

describe("a sample of the corpus exercises every event and the common block reasons", () => {
  const scratch = mkdtempSync(join(tmpdir(), "schedlab-coverage-"));
  const kinds = new Set<string>();
  const reasons = new Set<string>();

  beforeAll(async () => {
    const dbFile = join(scratch, "coverage.db");
    await collect({
      paths: sample.map((p) => join(corpus, p)),
      runs: 2,
      timeoutMs: 5000,
      procs: [2],
      db: dbFile,
      traces: join(scratch, "traces"),
    });
    const db = openDatabase(dbFile);
    try {
      const summary = await ingestRuns(db);
      expect(summary.errors).toBe(0);
      for (const row of db.prepare("SELECT DISTINCT kind FROM events").all() as { kind: string }[]) kinds.add(row.kind);
      for (const row of db.prepare("SELECT DISTINCT reason FROM events WHERE kind = 'GoBlock'").all() as {
        reason: string;
      }[])
        reasons.add(row.reason);
    } finally {
      db.close();
    }
  });

  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("shows all six event types", () => {
    for (const kind of EVENT_TYPES) expect(kinds, kind).toContain(kind);
  });

  it("shows the block reasons chan send, chan receive, select, sync, sync.(*Cond).Wait and sleep", () => {
    for (const reason of ["chan send", "chan receive", "select", "sync", "sync.(*Cond).Wait", "sleep"])
      expect(reasons, reason).toContain(reason);
  });
});
