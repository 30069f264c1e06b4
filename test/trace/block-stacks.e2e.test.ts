// GoBlock stacks and lock operations from a real traced program (test/fixtures/lockops):
// built with the Go toolchain, run under the tracer, decoded by decodeTrace, ingested into
// a real SQLite file and read back by forEachRunRecord. Every expected site comes from the
// fixture's "at:NAME" line markers; both paths must give the same records and lock ops in
// the same order, and merging the database keeps them.

import { execa } from "execa";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { mergeDatabases, openDatabase } from "../../src/store/index.js";
import {
  decodeTrace,
  forEachRunRecord,
  ingestRuns,
  iterateRunRecords,
  loadRunRecords,
  type DecodeSummary,
} from "../../src/trace/index.js";
import type { GoroutineRecord, LockOp } from "../../src/core/index.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/lockops/", import.meta.url));
const SOURCE = readFileSync(join(FIXTURE, "main.go"), "utf8").split("\n");

/** Line number (1-based) of each "// at:NAME" marker of the fixture. */
const LINE = new Map(
  SOURCE.flatMap((text, i) => [...text.matchAll(/\/\/ at:([\w-]+)/g)].map((m) => [m[1], i + 1] as const)),
);

function line(marker: string): number {
  const n = LINE.get(marker);
  if (n === undefined) throw new Error(`no "at:${marker}" in the fixture`);
  return n;
}

/** The function a fixture line belongs to, as the trace names it ("main.writer"). */
function functionAt(lineNumber: number): string {
  for (let i = lineNumber - 1; i >= 0; i--) {
    const m = /^func (\w+)\(/.exec(SOURCE[i]);
    if (m) return `main.${m[1]}`;
  }
  throw new Error(`line ${lineNumber} is in no function`);
}

const site = (marker: string) => `${functionAt(line(marker))} main.go:${line(marker)}`;

/** Every schedlabLockOp call of the fixture: each runs once, so each is one lock op. */
const CALLS = SOURCE.flatMap((text, i) => {
  const m = /^\s*schedlabLockOp\("(\w+)", "(\w)", &(\w+)\)/.exec(text);
  return m ? [{ phase: m[1], mode: m[2], variable: m[3], site: `${functionAt(i + 1)} main.go:${i + 1}` }] : [];
});

/** One delivered item, in delivery order. */
type Item = { readonly record: GoroutineRecord } | { readonly op: LockOp };

let decoded: { summary: DecodeSummary; items: Item[]; batches: number };
let stored: Item[];
let storedRecords: GoroutineRecord[];
let iterated: GoroutineRecord[];
let merged: Item[];
let tracePath: string;
let dbFile: string;
let runId: number;

const records = (items: readonly Item[]) => items.flatMap((i) => ("record" in i ? [i.record] : []));
const ops = (items: readonly Item[]) => items.flatMap((i) => ("op" in i ? [i.op] : []));

function gidOf(entry: string): number {
  const g = decoded.summary.goroutines.find((x) => x.entry === entry);
  if (g === undefined) throw new Error(`no goroutine runs ${entry}`);
  return g.goroutine;
}

function readBack(file: string, run: number): Item[] {
  const db = openDatabase(file, { readonly: true });
  try {
    const items: Item[] = [];
    forEachRunRecord(
      db,
      run,
      (record) => items.push({ record }),
      (op) => items.push({ op }),
    );
    return items;
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "schedlab-block-stacks-"));
  const binary = join(dir, "lockops");
  await execa("go", ["build", "-o", binary, "."], { cwd: FIXTURE, env: { GOTOOLCHAIN: "local" } });
  const trace = join(dir, "lockops.trace");
  await execa(binary, [trace], { env: { GOMAXPROCS: "2" }, timeout: 60_000 });
  tracePath = trace;

  const items: Item[] = [];
  let batches = 0;
  const summary = await decodeTrace(
    trace,
    { mode: "main", onLockOps: (batch) => items.push(...batch.map((op) => ({ op }))) },
    (batch) => {
      batches++;
      items.push(...batch.map((record) => ({ record })));
    },
  );
  decoded = { summary, items, batches };

  dbFile = join(dir, "schedlab.db");
  const db = openDatabase(dbFile);
  try {
    const program = Number(
      db
        .prepare("INSERT INTO programs (name, root, dir, kind, source_hash) VALUES ('lockops', ?, ?, 'main', 'x')")
        .run(FIXTURE, FIXTURE).lastInsertRowid,
    );
    runId = Number(
      db
        .prepare(
          "INSERT INTO runs (program_id, config, procs, run_index, outcome, trace_path, created_at) " +
            "VALUES (?, 'procs-2', 2, 0, 'ok', ?, '2026-01-01T00:00:00Z')",
        )
        .run(program, trace).lastInsertRowid,
    );
    // Twice: a re-ingest replaces the run's rows (lock_ops' primary key would refuse duplicates).
    expect((await ingestRuns(db)).ok).toBe(1);
    expect((await ingestRuns(db, { force: true })).ok).toBe(1);
    storedRecords = loadRunRecords(db, runId);
    iterated = [...iterateRunRecords(db, runId)];
  } finally {
    db.close();
  }
  stored = readBack(dbFile, runId);

  const mergedFile = join(dir, "merged.db");
  mergeDatabases(mergedFile, [dbFile]);
  const out = openDatabase(mergedFile, { readonly: true });
  const mergedRun = out.prepare("SELECT id FROM runs").pluck().get() as number;
  out.close();
  merged = readBack(mergedFile, mergedRun);
}, 180_000);

describe("GoBlock stacks of a real trace", () => {
  // [marker of the waiting line, block reason, the API part of the stack]
  const WAITS = [
    ["writer-lock", "sync", "sync.(*Mutex).Lock"],
    ["reader-rlock", "sync", "sync.(*RWMutex).RLock"],
    ["main-wait", "sync", "sync.(*WaitGroup).Wait"],
    ["main-cond", "sync.(*Cond).Wait", "sync.(*Cond).Wait"],
    ["main-recv1", "chan receive", "runtime.chanrecv1"],
    ["main-recv2", "chan receive", "runtime.chanrecv2"],
    ["main-select", "select", "runtime.selectgo"],
    ["main-sleep", "sleep", "time.Sleep"],
    ["deep-receive", "chan receive", "runtime.chanrecv1"],
  ] as const;

  for (const [marker, reason, api] of WAITS) {
    it(`names ${api} and the user's frames, the first one the site, for the wait at ${marker}`, () => {
      const blocks = records(decoded.items).filter((r) => r.kind === "GoBlock" && r.site === site(marker));
      expect(blocks.length).toBeGreaterThanOrEqual(1);
      for (const block of blocks) {
        expect(block.reason).toBe(reason);
        const frames = block.stack!.split(";");
        expect(frames[0]).toBe(api);
        expect(frames[1]).toBe(block.site);
      }
    });
  }

  it("keeps twelve user frames of a deep stack, innermost first", () => {
    const block = records(decoded.items).find((r) => r.kind === "GoBlock" && r.site === site("deep-receive"))!;
    expect(block.stack!.split(";")).toEqual([
      "runtime.chanrecv1",
      site("deep-receive"),
      ...Array.from({ length: 11 }, () => site("deep-call")),
    ]);
  });

  it("gives a stack to GoBlock records only", () => {
    const all = records(decoded.items);
    for (const r of all) {
      if (r.kind === "GoBlock") expect(typeof r.stack).toBe("string");
      else expect(r.stack).toBeUndefined();
    }
  });
});

describe("lock operations of a real trace", () => {
  it("reads one op per instrumented call, with its phase, mode and the calling line as site; other logs are ignored", () => {
    const got = ops(decoded.items);
    expect(CALLS.length).toBeGreaterThanOrEqual(15);
    expect(got.map((op) => `${op.site} ${op.phase} ${op.mode}`).sort()).toEqual(
      CALLS.map((c) => `${c.site} ${c.phase} ${c.mode}`).sort(),
    );
    for (const op of got) {
      expect(op.stack).toBe(`;${op.site}`); // every call is in its goroutine's entry function
      expect(op.goroutine).toBe(gidOf(op.site!.split(" ")[0]));
      expect(op.lock).toMatch(/^[0-9a-f]+$/);
    }
  });

  it("names each mutex by one id per run, a different one per mutex", () => {
    const idsOf = (variable: string) =>
      new Set(
        ops(decoded.items)
          .filter((op) => CALLS.find((c) => c.site === op.site)!.variable === variable)
          .map((op) => op.lock),
      );
    const mu = idsOf("mu");
    const rw = idsOf("rw");
    expect(mu.size).toBe(1);
    expect(rw.size).toBe(1);
    expect([...mu][0]).not.toBe([...rw][0]);
  });

  it("puts each op where it happened among the records: seq is the next record's", () => {
    let next = decoded.summary.recordCount; // ops after the last record
    for (let i = decoded.items.length - 1; i >= 0; i--) {
      const item = decoded.items[i];
      if ("record" in item) next = item.record.seq;
      else expect(item.op.seq).toBe(next);
    }
    const items = decoded.items;
    const index = (test: (item: Item) => boolean, from = 0) => {
      const at = items.findIndex((item, i) => i >= from && test(item));
      expect(at).toBeGreaterThanOrEqual(0);
      return at;
    };
    const isOp = (marker: string) => (item: Item) => "op" in item && item.op.site === site(marker);
    for (const [who, want, wait, got, drop] of [
      ["main.writer", "writer-want", "writer-lock", "writer-got", "main-drop"],
      ["main.reader", "reader-want", "reader-rlock", "reader-got", "main-rw-drop"],
    ] as const) {
      const gid = gidOf(who);
      const mine = (item: Item) => ("record" in item ? item.record.goroutine : item.op.goroutine) === gid;
      // want, then the goroutine's block at the Lock line, with nothing of it in between
      const block = index(
        (item) => "record" in item && item.record.kind === "GoBlock" && item.record.site === site(wait),
      );
      expect(items.slice(0, block).filter(mine).at(-1)).toEqual(items[index(isOp(want))]);
      // main logs its drop before the unlock that wakes the goroutine
      const wake = index(
        (item) => "record" in item && item.record.kind === "GoUnblock" && item.record.goroutine === gid,
        block,
      );
      expect((items[wake] as { record: GoroutineRecord }).record.actor).toBe(gidOf("main.main"));
      expect(index(isOp(drop))).toBeLessThan(wake);
      expect(index(isOp(drop))).toBeGreaterThan(block);
      // got is the first thing the goroutine does once running again (a runtime preemption —
      // GoSched "preempted", then GoStart — may come first on a loaded machine)
      const start = index(
        (item) => "record" in item && item.record.kind === "GoStart" && item.record.goroutine === gid,
        wake,
      );
      const preempted = (item: Item) =>
        "record" in item &&
        ((item.record.kind === "GoSched" && item.record.reason === "preempted") || item.record.kind === "GoStart");
      expect(items.slice(start + 1).find((item) => mine(item) && !preempted(item))).toEqual(items[index(isOp(got))]);
    }
  });

  it("reaches ops of a goroutine that existed before tracing started", () => {
    const pre = ops(decoded.items).filter((op) => op.goroutine === gidOf("main.preTrace"));
    expect(pre.map((op) => op.phase)).toEqual(["want", "got", "drop"]);
    expect(records(decoded.items).some((r) => r.goroutine === gidOf("main.preTrace") && r.kind === "Initial")).toBe(
      true,
    );
  });

  it("cuts record batches at lock ops only when they are asked for", async () => {
    let batches = 0;
    const plain: GoroutineRecord[] = [];
    await decodeTrace(tracePath, { mode: "main" }, (batch) => {
      batches++;
      plain.push(...batch);
    });
    expect(plain).toEqual(records(decoded.items));
    expect(plain.length).toBeLessThan(4096); // one default batch
    expect(batches).toBe(1);
    expect(decoded.batches).toBeGreaterThan(1);
  });
});

describe("lock ops and stacks through the database", () => {
  it("forEachRunRecord merges records and ops in the order decodeTrace delivered them", () => {
    expect(ops(stored).length).toBe(CALLS.length);
    expect(stored).toEqual(decoded.items);
  });

  it("loadRunRecords and iterateRunRecords fill GoBlock stacks", () => {
    expect(storedRecords).toEqual(records(decoded.items));
    expect(iterated).toEqual(records(decoded.items));
    expect(storedRecords.filter((r) => r.kind === "GoBlock").every((r) => typeof r.stack === "string")).toBe(true);
  });

  it("stores a stack id on GoBlock rows only, shows it as text in the events view, and numbers ops sharing a seq", () => {
    const db = openDatabase(dbFile, { readonly: true });
    try {
      expect(
        db
          .prepare("SELECT count(*) FROM event_records WHERE run_id = ? AND (kind = 2) != (stack IS NOT NULL)")
          .pluck()
          .get(runId),
      ).toBe(0);
      const view = db
        .prepare("SELECT stack FROM events WHERE run_id = ? AND kind = 'GoBlock' AND site = ?")
        .pluck()
        .all(runId, site("writer-lock"));
      expect(view).toEqual([`sync.(*Mutex).Lock;${site("writer-lock")}`]);
      const rows = db.prepare("SELECT seq, ord FROM lock_ops WHERE run_id = ? ORDER BY seq, ord").raw().all(runId) as [
        number,
        number,
      ][];
      expect(rows.length).toBe(CALLS.length);
      rows.forEach(([seq, ord], i) => expect(ord).toBe(i > 0 && rows[i - 1][0] === seq ? rows[i - 1][1] + 1 : 0));
      expect(rows.some(([, ord]) => ord > 0)).toBe(true); // want/got/drop with no record between
    } finally {
      db.close();
    }
  });

  it("a merged database reads back the same records and ops", () => {
    expect(merged).toEqual(decoded.items);
  });

  it("stops cleanly when a visitor throws, leaving the connection free for writes", () => {
    const db = openDatabase(dbFile);
    try {
      let seen = 0;
      expect(() =>
        forEachRunRecord(
          db,
          runId,
          () => {
            if (++seen === 5) throw new Error("stop");
          },
          () => undefined,
        ),
      ).toThrow("stop");
      expect(db.prepare("DELETE FROM lock_ops WHERE run_id = -1").run().changes).toBe(0);
    } finally {
      db.close();
    }
  });
});
