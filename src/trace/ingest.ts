// Ingest: decodes the traces of recorded runs into the user_goroutines, event_records and
// lock_ops tables (--store events), or into user_goroutines and each run's folded end state
// in run_end_states (--store summary: what leaks and replay need, a few rows per run). With
// --store events a run whose trace gives more records than the cap on stored records is
// stored as an excerpt (excerpt.ts): windows of its records, and its end state folded from all.
// Decoding runs in parallel (a small pool of helper processes); every database write
// happens on this thread in short transactions, so writes never interleave mid-batch.

import { existsSync, rmSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, isAbsolute, resolve } from "node:path";
import { inTransaction, multiRowInsert, type SchedlabDatabase } from "../store/index.js";
import { goHelperPath } from "../gohelper/index.js";
import { encodeEndStates, END_STATE_FORMAT, leakRunOf, runStateFold, type RunEnd } from "../model/index.js";
import { countTraceRecords, decodeTrace, type DecodeOptions } from "./decode.js";
import { excerptWriter, type Excerpt } from "./excerpt.js";
import { TraceCorruptError, TraceDecodeError } from "./errors.js";
import { testFunctionsInOrder } from "./testOrder.js";
import {
  recordKindCode,
  type GoroutineInfo,
  type GoroutineRecord,
  type LockOp,
  type ProgramKind,
} from "../core/index.js";
import type { GoroutineFilter, RootMode, StoreMode } from "./types.js";
import type { Progress } from "../progress.js";

export interface IngestOptions {
  /** Re-ingest runs that were already ingested. */
  readonly force?: boolean;
  /** Only these run ids (default: every run with a trace). */
  readonly runIds?: readonly number[];
  /** Traces decoded at once (default: min(2, cores)). */
  readonly concurrency?: number;
  readonly filter?: GoroutineFilter;
  /**
   * What to keep of each run (default "events", docs/schema.md): every record, or only its
   * goroutines and folded end state. With "events", runs stored as summaries are ingested
   * again (with their events) as well as the runs not yet ingested.
   */
  readonly store?: StoreMode;
  /** After each run: "D/T traces" (transient). */
  readonly onProgress?: Progress;
  /** GOROOT of the toolchain that built the traced binaries (default: `go env GOROOT`). */
  readonly goroot?: string;
  /**
   * With store "events": a run whose trace gives more records stores an excerpt of about
   * this many (default DEFAULT_MAX_STORED_RECORDS; docs/schema.md, "Excerpts").
   */
  readonly maxStoredRecords?: number;
  /**
   * Delete a run's trace file once its ingest has committed (status ok or truncated; a trace
   * that failed to decode stays for inspection). The files beside it (dump, race log, peer
   * reports, leak profile) stay. A run stored without its trace is complete: collect does not
   * run it again, and ingest (even with force) leaves it as stored.
   */
  readonly dropTraces?: boolean;
}

/**
 * Records stored of one run by default: 16 times the bundled corpus's longest run (6 014
 * records), so every run of it is stored whole, while a real suite's run of 20 M records
 * stores 1 in 200 and a corpus of real modules fits a few GB (docs/schema.md, "Excerpts").
 */
export const DEFAULT_MAX_STORED_RECORDS = 100_000;

/** What ingest keeps of each run: the store mode and, for events, the cap on stored records. */
export type IngestKeep = Pick<IngestOptions, "store" | "maxStoredRecords" | "dropTraces">;

/** Sees one run's records and lock ops as its ingest decodes them (collect --budget's check folds them: one decode for both). */
export interface DecodeTap {
  onRecords(records: readonly GoroutineRecord[]): void;
  onLockOps(ops: readonly LockOp[]): void;
}

/** One run ingested by runIngester, and its goroutines as decoded (null when the trace could not be). */
export interface IngestedRun {
  readonly result: RunIngestResult;
  readonly goroutines: readonly GoroutineInfo[] | null;
}

export interface RunIngestResult {
  readonly runId: number;
  readonly status: "ok" | "truncated" | "error";
  /** Records the trace gave (stored with --store events, folded with summary). */
  readonly events: number;
  /** Stored as an excerpt: the trace gave more records than the cap (the windows are stored, every record folded). */
  readonly excerpt: boolean;
  readonly goroutines: number;
  /** Why the run is truncated or failed; "" when ok. */
  readonly message: string;
}

export interface IngestSummary {
  readonly runs: readonly RunIngestResult[];
  readonly events: number;
  /** Runs stored as excerpts. */
  readonly excerpts: number;
  readonly ok: number;
  readonly truncated: number;
  readonly errors: number;
  /** Runs left as stored because their trace was dropped after an earlier ingest (IngestOptions.dropTraces). */
  readonly withoutTrace: number;
}

/** WAL pages (4 KiB) between automatic checkpoints during ingest: at most ~80 MB of WAL. */
const BULK_CHECKPOINT_PAGES = 20_000;

interface RunToIngest {
  readonly id: number;
  readonly trace_path: string;
  readonly run_index: number;
  readonly config: string;
  readonly outcome: RunEnd;
  readonly stderr_tail: string | null;
  readonly output_digest: string | null;
  readonly wall_ms: number | null;
  readonly kind: ProgramKind;
  /** Set when the program is one test of a package (collect --split-tests). */
  readonly test_name: string | null;
  readonly dir: string;
  /** The root given to collect: sites of packages outside a module are made relative to it. */
  readonly root: string;
  readonly ingest_status: string | null;
}

/** The trace file of `run`: relative paths are resolved against the database file's directory. */
function tracePathOf(db: SchedlabDatabase, run: Pick<RunToIngest, "trace_path">): string {
  return isAbsolute(run.trace_path) ? run.trace_path : resolve(dirname(db.name), run.trace_path);
}

/** Whether `run` is stored and its trace is gone (dropped after its ingest): nothing to decode it from again. */
function storedWithoutTrace(db: SchedlabDatabase, run: RunToIngest): boolean {
  return (run.ingest_status === "ok" || run.ingest_status === "truncated") && !existsSync(tracePathOf(db, run));
}

/**
 * Decodes and stores the runs that have a trace and no ingest_status (all of them with
 * `force`; with store "events" also those stored as summaries). Per run: its old rows are
 * deleted and ingest_status cleared in one transaction; with store "events" its records and
 * the lock ops among them are inserted in batch transactions, with "summary" they are folded
 * as they stream by (nothing written); a last transaction writes the goroutines (and the
 * summary's end states), and sets runs.store and ingest_status ('ok' | 'truncated' |
 * 'error'). ingest_status
 * is therefore the commit mark: a run whose status is NULL is incomplete and is
 * ingested again next time. A bad trace marks its run 'error' and the batch goes on. A run
 * stored whose trace is gone (dropTraces) is left as it is, even with `force`.
 * Relative trace paths are resolved against the database file's directory.
 */
export async function ingestRuns(db: SchedlabDatabase, options: IngestOptions = {}): Promise<IngestSummary> {
  const { runs, withoutTrace } = selectRuns(db, options);
  if (runs.length === 0) return { ...ingestSummaryOf([]), withoutTrace };
  // A missing toolchain or a helper that does not build is not any trace's fault: fail
  // once, before touching a run, instead of marking every run as an error.
  await goHelperPath();
  const statements = prepare(db);
  const results: RunIngestResult[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < runs.length) {
      const run = runs[next++];
      const { result } = await ingestRun(statements, run, tracePathOf(db, run), options);
      results.push(result);
      options.onProgress?.(`${results.length}/${runs.length} traces`, true);
    }
  };
  const size = Math.max(1, Math.min(options.concurrency ?? Math.min(2, availableParallelism()), runs.length));
  // Fewer, larger WAL checkpoints while bulk-inserting (each one syncs); restored after.
  const checkpointPages = db.pragma("wal_autocheckpoint", { simple: true }) as number;
  db.pragma(`wal_autocheckpoint = ${Math.max(checkpointPages, BULK_CHECKPOINT_PAGES)}`);
  try {
    await Promise.all(Array.from({ length: size }, worker));
  } finally {
    db.pragma(`wal_autocheckpoint = ${checkpointPages}`);
  }
  return { ...ingestSummaryOf(results), withoutTrace };
}

/** The summary of ingested runs, in run order (withoutTrace: the runs left as stored, their traces gone). */
export function ingestSummaryOf(results: readonly RunIngestResult[], withoutTrace = 0): IngestSummary {
  const runs = [...results].sort((a, b) => a.runId - b.runId);
  return {
    runs,
    events: runs.reduce((n, r) => n + r.events, 0),
    excerpts: runs.filter((r) => r.excerpt).length,
    ok: runs.filter((r) => r.status === "ok").length,
    truncated: runs.filter((r) => r.status === "truncated").length,
    errors: runs.filter((r) => r.status === "error").length,
    withoutTrace,
  };
}

/**
 * Ingests single runs as they are recorded, each with a `tap` on its decode (collect
 * --budget checks each run from the same decode), the way ingestRuns ingests them; the
 * statements are prepared once. Resolves with the run's result and decoded goroutines.
 */
export function runIngester(
  db: SchedlabDatabase,
  options: Pick<IngestOptions, "store" | "filter" | "goroot" | "maxStoredRecords" | "dropTraces"> = {},
): (runId: number, tap?: DecodeTap) => Promise<IngestedRun> {
  const statements = prepare(db);
  return async (runId, tap) => {
    const run = statements.selectRun.get(runId) as RunToIngest | undefined;
    if (run === undefined) throw new Error(`run ${runId} has no trace to ingest`);
    return ingestRun(statements, run, tracePathOf(db, run), options, tap);
  };
}

/**
 * The runs (alias r) an ingest with `force` and `store` decodes, and its two parameters: those
 * with a trace and no ingest_status, every one with a trace under force, and with store
 * "events" also the runs stored as summaries.
 */
function toIngest(force: boolean, store: StoreMode): { readonly where: string; readonly params: [number, number] } {
  return {
    where: `r.trace_path IS NOT NULL AND (? OR r.ingest_status IS NULL OR (? AND r.store = 'summary' AND r.ingest_status IN ('ok', 'truncated')))`,
    params: [force ? 1 : 0, store === "events" ? 1 : 0],
  };
}

/** The columns of RunToIngest (runs r, programs p). */
const RUN_TO_INGEST =
  "SELECT r.id, r.trace_path, r.run_index, r.config, r.outcome, r.stderr_tail, r.output_digest, r.wall_ms, r.ingest_status, " +
  "p.kind, p.test_name, p.dir, p.root " +
  "FROM runs r JOIN programs p ON p.id = r.program_id";

/** The runs an ingest decodes, and how many of the runs it would otherwise decode are stored without their trace. */
function selectRuns(
  db: SchedlabDatabase,
  options: Pick<IngestOptions, "force" | "store" | "runIds">,
): { readonly runs: RunToIngest[]; readonly withoutTrace: number } {
  const { where, params } = toIngest(options.force ?? false, options.store ?? "events");
  const rows = db.prepare(`${RUN_TO_INGEST} WHERE ${where} ORDER BY r.id`).all(...params) as RunToIngest[];
  const wanted = options.runIds === undefined ? null : new Set(options.runIds);
  const asked = wanted === null ? rows : rows.filter((r) => wanted.has(r.id));
  const runs = asked.filter((r) => !storedWithoutTrace(db, r));
  return { runs, withoutTrace: asked.length - runs.length };
}

type Statements = ReturnType<typeof prepare>;

/** Rows per multi-row INSERT: one statement call per 128 events, not per row (docs/experiments/ingest.md). */
const ROWS_PER_INSERT = 128;

const EVENT_COLUMNS = 9;
const LOCK_OP_COLUMNS = 10;

/** event_records.stack of a record: a GoBlock's stack id (0 when it has none), NULL otherwise (docs/schema.md). */
function stackId(s: Statements, r: GoroutineRecord): number | null {
  if (r.stack === undefined) return null;
  return r.stack === null ? 0 : s.intern.id(r.stack);
}

/** Inserts records ROWS_PER_INSERT at a time. */
function insertRecords(s: Statements, runId: number, records: readonly GoroutineRecord[]): void {
  const values: (number | null)[] = new Array(records.length * EVENT_COLUMNS);
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    const o = i * EVENT_COLUMNS;
    values[o] = runId;
    values[o + 1] = r.seq;
    values[o + 2] = r.timeNs;
    values[o + 3] = recordKindCode(r.kind);
    values[o + 4] = r.goroutine;
    values[o + 5] = r.actor;
    values[o + 6] = s.intern.id(r.reason);
    values[o + 7] = r.site === null ? null : s.intern.id(r.site);
    values[o + 8] = stackId(s, r);
  }
  s.insertEvents(values);
}

/**
 * Numbers lock ops for lock_ops.ord: 0 for the first op before a record, then 1, 2, …
 * for the ops that share its seq. One per run: ops arrive in order.
 */
function lockOpNumbering(): (op: LockOp) => number {
  let seq = -1;
  let ord = 0;
  return (op) => {
    ord = op.seq === seq ? ord + 1 : 0;
    seq = op.seq;
    return ord;
  };
}

/** Inserts lock ops ROWS_PER_INSERT at a time, like insertRecords (a hunt's runs log about as many ops as records). */
function insertLockOps(s: Statements, runId: number, ops: readonly LockOp[], ordOf: (op: LockOp) => number): void {
  const values: (number | string | null)[] = new Array(ops.length * LOCK_OP_COLUMNS);
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    const o = i * LOCK_OP_COLUMNS;
    values[o] = runId;
    values[o + 1] = op.seq;
    values[o + 2] = ordOf(op);
    values[o + 3] = op.timeNs;
    values[o + 4] = op.goroutine;
    values[o + 5] = op.phase;
    values[o + 6] = op.mode;
    values[o + 7] = op.lock;
    values[o + 8] = op.site === null ? null : s.intern.id(op.site);
    values[o + 9] = op.stack === null ? null : s.intern.id(op.stack);
  }
  s.insertLockOps(values);
}

interface StringInterner {
  /** The trace_strings id of `text`, added if new. */
  id(text: string): number;
  /**
   * The same, without caching: for texts that recur only across runs (canonical goroutine
   * ids, distinct per goroutine of a run), whose cache would grow with the collection.
   */
  uncachedId(text: string): number;
  /** Drops the cache: after a rolled-back transaction, ids it added may not exist. */
  forget(): void;
}

/**
 * Interns strings into trace_strings for one ingest, caching ids (a run's records repeat a
 * few hundred distinct strings millions of times). Committed ids never change.
 */
function stringInterner(db: SchedlabDatabase): StringInterner {
  const ids = new Map<string, number>();
  const add = db.prepare("INSERT OR IGNORE INTO trace_strings (text) VALUES (?)");
  const find = db.prepare("SELECT id FROM trace_strings WHERE text = ?").pluck();
  // Only a text not found is added, so the insert is never ignored and its row id is the text's.
  const lookup = (text: string): number =>
    (find.get(text) as number | undefined) ?? Number(add.run(text).lastInsertRowid);
  return {
    id(text) {
      const known = ids.get(text);
      if (known !== undefined) return known;
      const id = lookup(text);
      ids.set(text, id);
      return id;
    },
    uncachedId(text) {
      return ids.get(text) ?? lookup(text);
    },
    forget() {
      ids.clear();
    },
  };
}

function prepare(db: SchedlabDatabase) {
  return {
    db,
    intern: stringInterner(db),
    deleteEvents: db.prepare("DELETE FROM event_records WHERE run_id = ?"),
    deleteLockOps: db.prepare("DELETE FROM lock_ops WHERE run_id = ?"),
    deleteEndStates: db.prepare("DELETE FROM run_end_states WHERE run_id = ?"),
    deleteExcerpt: db.prepare("DELETE FROM run_excerpts WHERE run_id = ?"),
    insertExcerptWindow: db.prepare(
      "INSERT INTO run_excerpts (run_id, first_seq, source_seq, events_before, records, events) VALUES (?, ?, ?, ?, ?, ?)",
    ),
    insertEndStates: db.prepare("INSERT INTO run_end_states (run_id, records, format, states) VALUES (?, ?, ?, ?)"),
    insertLockOps: multiRowInsert(
      db,
      "INSERT INTO lock_ops (run_id, seq, ord, time_ns, gid, phase, mode, lock, site, stack)",
      LOCK_OP_COLUMNS,
      ROWS_PER_INSERT,
    ),
    deleteGoroutines: db.prepare("DELETE FROM user_goroutines WHERE run_id = ?"),
    selectRun: db.prepare(`${RUN_TO_INGEST} WHERE r.id = ? AND r.trace_path IS NOT NULL`),
    clearStatus: db.prepare("UPDATE runs SET ingest_status = NULL, ingest_error = NULL, store = 'events' WHERE id = ?"),
    insertEvents: multiRowInsert(
      db,
      "INSERT INTO event_records (run_id, seq, time_ns, kind, gid, actor_gid, reason, site, stack)",
      EVENT_COLUMNS,
      ROWS_PER_INSERT,
    ),
    insertGoroutine: db.prepare(
      `INSERT INTO user_goroutines (run_id, gid, canonical_id, parent_gid, entry, creation_site, is_root)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ),
    setStatus: db.prepare(
      "UPDATE runs SET ingest_status = ?, ingest_error = ?, truncated = CASE WHEN ? THEN 1 ELSE truncated END, store = ? WHERE id = ?",
    ),
  };
}

/** The tests a test run executed, in order: the split test, or the package's tests. */
function expectedTests(run: RunToIngest): string[] | undefined {
  if (run.kind !== "test") return undefined;
  return run.test_name !== null ? [run.test_name] : testFunctionsInOrder(run.dir);
}

/** Records (or lock ops) per write transaction. */
const INGEST_BATCH = 8192;

/** Where a run's decoded records and lock ops go while its trace streams by. */
interface RunSink {
  onRecords(batch: GoroutineRecord[]): void;
  onLockOps(batch: LockOp[]): void;
  /** After the decode: writes what is still held, in transactions of its own. */
  flush(): void;
  /** Inside the run's last transaction, once its goroutines are known. */
  finish(goroutines: readonly GoroutineInfo[]): void;
  /** Records taken in so far (after flush, all of the run's). */
  readonly records: number;
}

/** Runs one batch's inserts in a transaction; after a rollback the interner forgets the ids it may have added. */
function writeBatch(s: Statements, work: () => void): void {
  try {
    inTransaction(s.db, work);
  } catch (error) {
    s.intern.forget();
    throw error;
  }
}

/** Thrown by an event sink whose run gives more records than the cap: the run is stored as an excerpt instead. */
class OverCap extends Error {}

/**
 * --store events: records and lock ops are inserted in batch transactions as they come; a run
 * that gives more than `cap` records throws OverCap (what it wrote is deleted by the caller).
 */
function eventSink(s: Statements, runId: number, cap: number): RunSink {
  let written = 0;
  // Lock ops cut the decoder's batches short; records and ops are gathered here until a
  // batch's worth, so a run with many ops is still written in large transactions.
  let records: GoroutineRecord[] = [];
  let ops: LockOp[] = [];
  const ordOf = lockOpNumbering();
  const write = (): void => {
    if (records.length === 0 && ops.length === 0) return;
    writeBatch(s, () => {
      insertLockOps(s, runId, ops, ordOf);
      insertRecords(s, runId, records);
    });
    written += records.length;
    records = [];
    ops = [];
  };
  return {
    onRecords(batch) {
      if (written + records.length + batch.length > cap) throw new OverCap();
      if (records.length === 0) records = batch;
      else for (const r of batch) records.push(r);
      if (records.length >= INGEST_BATCH) write();
    },
    onLockOps(batch) {
      for (const op of batch) ops.push(op);
      if (ops.length >= INGEST_BATCH) write();
    },
    flush: write,
    finish() {},
    get records() {
      return written;
    },
  };
}

/**
 * --store summary: records and lock ops go through the goroutine model's fold as they come
 * (memory follows the run's goroutines), and only its end states are written, with the
 * goroutines that name them. The fold sees the run as `leaks` does (leakRunOf), so `leaks`
 * reads from the summary exactly what it would fold from the stored records.
 */
function summarySink(s: Statements, run: RunToIngest): RunSink {
  const fold = runStateFold(
    leakRunOf(
      {
        id: run.id,
        runIndex: run.run_index,
        config: run.config,
        outcome: run.outcome,
        stderrTail: run.stderr_tail,
        outputDigest: run.output_digest,
        wallMs: run.wall_ms,
      },
      [],
    ),
  );
  let records = 0;
  return {
    onRecords(batch) {
      for (const record of batch) fold.add(record);
      records += batch.length;
    },
    onLockOps(batch) {
      for (const op of batch) fold.addLockOp(op);
    },
    flush() {},
    finish(goroutines) {
      s.insertEndStates.run(run.id, records, END_STATE_FORMAT, encodeEndStates(fold.finish(goroutines), goroutines));
    },
    get records() {
      return records;
    },
  };
}

/**
 * A run over the cap, stored as an excerpt: it is folded as --store summary folds it (so
 * `leaks` reads from run_end_states what it would fold from the whole run; lock ops are folded,
 * not stored), and every record also goes through the excerpt writer, whose windows are
 * inserted in batch transactions. `finish` writes the end states and the windows.
 */
function excerptSink(
  s: Statements,
  run: RunToIngest,
  totals: { readonly records: number; readonly events: number },
  cap: number,
): RunSink {
  const summary = summarySink(s, run);
  let held: GoroutineRecord[] = [];
  const write = (): void => {
    if (held.length === 0) return;
    writeBatch(s, () => insertRecords(s, run.id, held));
    held = [];
  };
  const writer = excerptWriter(totals, cap, (record) => {
    held.push(record);
    if (held.length >= INGEST_BATCH) write();
  });
  let excerpt: Excerpt | null = null;
  return {
    onRecords(batch) {
      summary.onRecords(batch);
      for (const record of batch) writer.push(record);
    },
    onLockOps: (batch) => summary.onLockOps(batch),
    flush() {
      write();
      excerpt = writer.finish();
    },
    finish(goroutines) {
      summary.finish(goroutines);
      for (const w of excerpt!.windows)
        s.insertExcerptWindow.run(run.id, w.firstSeq, w.sourceSeq, w.eventsBefore, excerpt!.records, excerpt!.events);
    },
    get records() {
      return summary.records;
    },
  };
}

/**
 * A tap that sees a run's first decode only once it is known to be the one kept: while the
 * run may still go over the cap, its calls are held (at most the cap's records) and handed
 * over by `release`; `drop` forgets them when the run is decoded again as an excerpt.
 */
function heldTap(tap: DecodeTap | undefined) {
  const calls: (() => void)[] = [];
  return {
    onRecords(records: readonly GoroutineRecord[]) {
      if (tap === undefined) return;
      const copy = [...records];
      calls.push(() => tap.onRecords(copy));
    },
    onLockOps(ops: readonly LockOp[]) {
      if (tap === undefined) return;
      const copy = [...ops];
      calls.push(() => tap.onLockOps(copy));
    },
    release() {
      for (const call of calls.splice(0)) call();
    },
    drop() {
      calls.length = 0;
    },
  };
}

async function ingestRun(
  s: Statements,
  run: RunToIngest,
  path: string,
  options: IngestOptions,
  tap?: DecodeTap,
): Promise<IngestedRun> {
  const store = options.store ?? "events";
  const cap = options.maxStoredRecords ?? DEFAULT_MAX_STORED_RECORDS;
  if (!Number.isInteger(cap) || cap < 1)
    throw new RangeError(`the cap on stored records must be a positive integer, got ${cap}`);
  const clear = (): void => {
    s.deleteEvents.run(run.id);
    s.deleteLockOps.run(run.id);
    s.deleteEndStates.run(run.id);
    s.deleteExcerpt.run(run.id);
    s.deleteGoroutines.run(run.id);
  };
  inTransaction(s.db, () => {
    clear();
    s.clearStatus.run(run.id);
  });
  const decodeOptions: DecodeOptions = {
    mode: (run.kind === "test" ? "test" : "main") satisfies RootMode,
    filter: options.filter,
    goroot: options.goroot,
    batchSize: INGEST_BATCH,
    testNames: expectedTests(run),
    packageRoot: run.root,
  };
  try {
    const whole = store === "events" ? eventSink(s, run.id, cap) : summarySink(s, run);
    // The tap sees each batch before the sink, which may append later batches to it; with
    // store "events" it sees them once the run is known to fit the cap.
    const first = store === "events" ? heldTap(tap) : null;
    const firstTap = first ?? tap;
    let ingested: IngestedRun;
    try {
      ingested = await decodeInto(s, run, path, decodeOptions, whole, store, false, firstTap, () => first?.release());
    } catch (error) {
      if (!(error instanceof OverCap)) throw error;
      first?.drop();
      inTransaction(s.db, clear);
      const totals = await countTraceRecords(path, decodeOptions);
      ingested = await decodeInto(s, run, path, decodeOptions, excerptSink(s, run, totals, cap), store, true, tap);
    }
    // Committed (ok or truncated: decodeInto only returns those): the trace is no longer needed.
    if (options.dropTraces === true) rmSync(path, { force: true });
    return ingested;
  } catch (error) {
    if (!(error instanceof TraceCorruptError || error instanceof TraceDecodeError)) throw error;
    const message = error.message;
    inTransaction(s.db, () => {
      clear();
      s.setStatus.run("error", message, 0, store, run.id);
    });
    return {
      result: { runId: run.id, status: "error", events: 0, excerpt: false, goroutines: 0, message },
      goroutines: null,
    };
  }
}

/**
 * One decode of a run's trace into `sink`, then its goroutines, the sink's last rows and the
 * run's status in one transaction (the commit mark). `decoded` runs after the decode, before
 * anything else is written (a held tap is released there).
 */
async function decodeInto(
  s: Statements,
  run: RunToIngest,
  path: string,
  decodeOptions: DecodeOptions,
  sink: RunSink,
  store: StoreMode,
  excerpt: boolean,
  tap: DecodeTap | undefined,
  decoded: () => void = () => {},
): Promise<IngestedRun> {
  const summary = await decodeTrace(
    path,
    {
      ...decodeOptions,
      onLockOps: (ops) => {
        tap?.onLockOps(ops);
        sink.onLockOps(ops);
      },
    },
    (records) => {
      tap?.onRecords(records);
      sink.onRecords(records);
    },
  );
  decoded();
  sink.flush();
  writeBatch(s, () => {
    for (const g of summary.goroutines) {
      s.insertGoroutine.run(
        run.id,
        g.goroutine,
        s.intern.uncachedId(g.canonicalId),
        g.parent,
        g.entry === null ? null : s.intern.id(g.entry),
        g.creationSite === null ? null : s.intern.id(g.creationSite),
        g.isRoot ? 1 : 0,
      );
    }
    sink.finish(summary.goroutines);
    s.setStatus.run(
      summary.status,
      summary.status === "ok" ? null : summary.message,
      summary.status === "truncated" ? 1 : 0,
      store,
      run.id,
    );
  });
  return {
    result: {
      runId: run.id,
      status: summary.status,
      events: sink.records,
      excerpt,
      goroutines: summary.goroutines.length,
      message: summary.message,
    },
    goroutines: summary.goroutines,
  };
}

/**
 * Runs the next ingestRuns with `store` (default "events") will decode: those with a trace
 * not (completely) ingested yet, and with "events" those stored as summaries (not those
 * stored whose trace is gone).
 */
export function pendingIngestCount(db: SchedlabDatabase, store: StoreMode = "events"): number {
  return selectRuns(db, { store }).runs.length;
}

/** Every run's id and trace hash, in id order: a new or re-collected run changes it. */
export function recordedTraces(db: SchedlabDatabase): { readonly id: number; readonly trace_sha256: string | null }[] {
  return db.prepare("SELECT id, trace_sha256 FROM runs ORDER BY id").all() as {
    id: number;
    trace_sha256: string | null;
  }[];
}
