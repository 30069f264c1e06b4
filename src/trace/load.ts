// Reading decoded runs back: the one API later stages (dataset, leaks, events) use to get
// records and lock operations, or a summary run's end states. It owns the compact layout of
// event_records and lock_ops (kind codes, interned strings; docs/schema.md) and
// run_end_states, so no other module reads those tables. The records of a run ingested with
// --store summary were never stored: asking for them is a SummaryOnlyRunError.

import { decodeEndStates, END_STATE_FORMAT, EndStateFormatError, type RunGoroutineStates } from "../model/index.js";
import type { SchedlabDatabase } from "../store/index.js";
import { SummaryOnlyRunError } from "./errors.js";
import type { Excerpt } from "./excerpt.js";
import { RECORD_KINDS, type GoroutineInfo, type GoroutineRecord, type LockOp } from "../core/index.js";

/** Text by trace_strings id, one per connection. */
const stringTables = new WeakMap<SchedlabDatabase, (id: number) => string>();

/**
 * The text of interned strings. The table is read once per connection and an id it does
 * not know yet (an ingest added it since) is fetched on its own, so a reader holds no more
 * than the distinct strings, and every record with the same site shares one JS string.
 */
function traceStrings(db: SchedlabDatabase): (id: number) => string {
  const cached = stringTables.get(db);
  if (cached !== undefined) return cached;
  const texts: string[] = [];
  for (const [i, text] of db.prepare("SELECT id, text FROM trace_strings").raw().iterate() as IterableIterator<
    [number, string]
  >)
    texts[i] = text;
  const one = db.prepare("SELECT text FROM trace_strings WHERE id = ?").pluck();
  const textOf = (id: number): string => {
    const known = texts[id];
    if (known !== undefined) return known;
    const text = one.get(id) as string | undefined;
    if (text === undefined)
      throw new Error(`an event record refers to trace string ${id}, which trace_strings does not have`);
    texts[id] = text;
    return text;
  };
  stringTables.set(db, textOf);
  return textOf;
}

/**
 * Refuses to read the records of a run ingested with --store summary (runs.store), naming the
 * run and the command that stores its events. A run that is not ingested has no records and passes.
 */
function requireEvents(db: SchedlabDatabase, runId: number): void {
  const run = db
    .prepare(
      "SELECT r.store, r.config, r.run_index AS runIndex, p.name FROM runs r JOIN programs p ON p.id = r.program_id " +
        "WHERE r.id = ? AND r.ingest_status IS NOT NULL",
    )
    .get(runId) as { store: "events" | "summary"; config: string; runIndex: number; name: string } | undefined;
  if (run?.store !== "summary") return;
  throw new SummaryOnlyRunError(
    `run ${runId} (${run.name}, ${run.config} #${run.runIndex}) was ingested with --store summary: ` +
      "only its goroutines and end state are stored, not its events",
    `Store its events with \`schedlab ingest --store events --db ${db.name}\` (it decodes the traces on disk again, of summary runs only), then retry.`,
  );
}

type EventRow = [
  seq: number,
  timeNs: number,
  kind: number,
  gid: number,
  actor: number | null,
  reason: number,
  site: number | null,
  stack: number | null,
];

const EVENT_COLUMNS = "seq, time_ns, kind, gid, actor_gid, reason, site, stack";
const RUN_RECORDS_SQL = `SELECT ${EVENT_COLUMNS} FROM event_records WHERE run_id = ? ORDER BY seq`;

/** A GoBlock's stack is its string, or null (id 0: the trace gave none); NULL (other kinds, older rows) is undefined. */
function rowToRecord(textOf: (id: number) => string, row: EventRow): GoroutineRecord {
  const stack = row[7];
  return {
    seq: row[0],
    timeNs: row[1],
    kind: RECORD_KINDS[row[2]],
    goroutine: row[3],
    actor: row[4],
    reason: textOf(row[5]),
    site: row[6] === null ? null : textOf(row[6]),
    stack: stack === null ? undefined : stack === 0 ? null : textOf(stack),
  };
}

type LockOpRow = [
  seq: number,
  timeNs: number,
  gid: number,
  phase: LockOp["phase"],
  mode: LockOp["mode"],
  lock: string,
  site: number | null,
  stack: number | null,
];

const RUN_LOCK_OPS_SQL =
  "SELECT seq, time_ns, gid, phase, mode, lock, site, stack FROM lock_ops WHERE run_id = ? ORDER BY seq, ord";

function rowToLockOp(textOf: (id: number) => string, row: LockOpRow): LockOp {
  return {
    seq: row[0],
    timeNs: row[1],
    goroutine: row[2],
    phase: row[3],
    mode: row[4],
    lock: row[5],
    site: row[6] === null ? null : textOf(row[6]),
    stack: row[7] === null ? null : textOf(row[7]),
  };
}

/**
 * Streams the records of a run in seq order to `visit`, one at a time, from one indexed
 * range scan; returns how many there were. Memory stays flat in the run's length: this
 * is the reader for whole collections. 0 for a run that is not ingested (check
 * runs.ingest_status, 'ok' or 'truncated', to tell "no user events" from "not ingested").
 *
 * With `onLockOp`, the run's lock operations are merged in from a second range scan read
 * in step: each op is handed over just before the record whose seq equals op.seq, ops
 * after the last record at the end.
 */
export function forEachRunRecord(
  db: SchedlabDatabase,
  runId: number,
  visit: (record: GoroutineRecord) => void,
  onLockOp?: (op: LockOp) => void,
): number {
  requireEvents(db, runId);
  const textOf = traceStrings(db);
  const ops = onLockOp === undefined ? undefined : lockOpFeed(db, runId, textOf, onLockOp);
  let n = 0;
  try {
    for (const row of db.prepare(RUN_RECORDS_SQL).raw().iterate(runId) as IterableIterator<EventRow>) {
      ops?.through(row[0]);
      visit(rowToRecord(textOf, row));
      n++;
    }
    ops?.through(Infinity);
  } finally {
    ops?.close(); // a visitor that throws must not leave the scan open: the connection could not write
  }
  return n;
}

/**
 * Streams the records and lock operations of some goroutines of a run (runtime ids `gids`),
 * each in seq order, from one range scan of each table filtered by goroutine: a view of a few
 * goroutines over a long run holds no more than the record at hand.
 */
export function forEachGoroutineRecord(
  db: SchedlabDatabase,
  runId: number,
  gids: readonly number[],
  visit: (record: GoroutineRecord) => void,
  onLockOp: (op: LockOp) => void = () => {},
): void {
  requireEvents(db, runId);
  const textOf = traceStrings(db);
  const wanted = JSON.stringify([...new Set(gids)]);
  const among = "AND gid IN (SELECT value FROM json_each(?))";
  const records = `SELECT ${EVENT_COLUMNS} FROM event_records WHERE run_id = ? ${among} ORDER BY seq`;
  for (const row of db.prepare(records).raw().iterate(runId, wanted) as IterableIterator<EventRow>)
    visit(rowToRecord(textOf, row));
  const ops = RUN_LOCK_OPS_SQL.replace("ORDER BY", `${among} ORDER BY`);
  for (const row of db.prepare(ops).raw().iterate(runId, wanted) as IterableIterator<LockOpRow>)
    onLockOp(rowToLockOp(textOf, row));
}

/** A run's lock ops from one range scan, handed to `onLockOp` as far as the records have come. */
function lockOpFeed(
  db: SchedlabDatabase,
  runId: number,
  textOf: (id: number) => string,
  onLockOp: (op: LockOp) => void,
) {
  const rows = db.prepare(RUN_LOCK_OPS_SQL).raw().iterate(runId) as IterableIterator<LockOpRow>;
  let next = rows.next();
  return {
    /** Hands over every op not yet handed over whose seq is at most `seq`. */
    through(seq: number): void {
      for (; next.done !== true && next.value[0] <= seq; next = rows.next()) onLockOp(rowToLockOp(textOf, next.value));
    },
    close(): void {
      rows.return?.();
    },
  };
}

const RUN_CHUNK_SQL = `SELECT ${EVENT_COLUMNS} FROM event_records WHERE run_id = ? AND seq >= ? ORDER BY seq LIMIT ?`;

/**
 * Streams a run's records like forEachRunRecord, but in chunks of `chunk` records (one indexed
 * range scan each) and calls `between()` after every chunk, when no read is open on the
 * connection: there the caller may write to the database (SQLite connections cannot write
 * while a read is being stepped). Returns how many records there were.
 */
export function forEachRunRecordInChunks(
  db: SchedlabDatabase,
  runId: number,
  chunk: number,
  visit: (record: GoroutineRecord) => void,
  between: () => void,
): number {
  requireEvents(db, runId);
  const textOf = traceStrings(db);
  const select = db.prepare(RUN_CHUNK_SQL).raw();
  let from = 0;
  let n = 0;
  for (;;) {
    let got = 0;
    for (const row of select.iterate(runId, from, chunk) as IterableIterator<EventRow>) {
      visit(rowToRecord(textOf, row));
      from = row[0] + 1;
      got++;
    }
    n += got;
    between();
    if (got < chunk) return n;
  }
}

/**
 * The number of six-type events (kind codes 0–5) among a run's stored records, all of them or
 * those numbered `fromSeq` up to (not including) `toSeq` — one excerpt window's events; an
 * index range scan, no records built.
 */
export function countRunEvents(db: SchedlabDatabase, runId: number, fromSeq = 0, toSeq?: number): number {
  requireEvents(db, runId);
  return db
    .prepare("SELECT COUNT(*) FROM event_records WHERE run_id = ? AND seq >= ? AND seq < ? AND kind < 6")
    .pluck()
    .get(runId, fromSeq, toSeq ?? Number.MAX_SAFE_INTEGER) as number;
}

/** The same stream as forEachRunRecord, as a generator (stop early by breaking out of the loop). */
export function* iterateRunRecords(db: SchedlabDatabase, runId: number): Generator<GoroutineRecord> {
  requireEvents(db, runId);
  const textOf = traceStrings(db);
  for (const row of db.prepare(RUN_RECORDS_SQL).raw().iterate(runId) as IterableIterator<EventRow>)
    yield rowToRecord(textOf, row);
}

/**
 * All records of a run in seq order, in memory: for stages that need random access to a
 * run's records (the dataset's prefixes). [] for a run that is not ingested.
 */
export function loadRunRecords(db: SchedlabDatabase, runId: number): GoroutineRecord[] {
  const records: GoroutineRecord[] = [];
  forEachRunRecord(db, runId, (r) => records.push(r));
  return records;
}

/** The seq and time of a run's last record (an index seek, no scan), or null when it has none. */
export function lastRunRecord(
  db: SchedlabDatabase,
  runId: number,
): { readonly seq: number; readonly timeNs: number } | null {
  requireEvents(db, runId);
  const row = db
    .prepare("SELECT seq, time_ns FROM event_records WHERE run_id = ? ORDER BY seq DESC LIMIT 1")
    .raw()
    .get(runId) as [number, number] | undefined;
  return row === undefined ? null : { seq: row[0], timeNs: row[1] };
}

/** The user goroutines of a run, by goroutine id. */
export function loadRunGoroutines(db: SchedlabDatabase, runId: number): GoroutineInfo[] {
  const rows = db
    .prepare(
      "SELECT gid, canonical_id, parent_gid, entry, creation_site, is_root FROM goroutines WHERE run_id = ? ORDER BY gid",
    )
    .raw()
    .all(runId) as [number, string, number | null, string | null, string | null, number][];
  return rows.map(([goroutine, canonicalId, parent, entry, creationSite, isRoot]) => ({
    goroutine,
    canonicalId,
    parent,
    entry,
    creationSite,
    isRoot: isRoot === 1,
  }));
}

/**
 * The end states of a run ingested with --store summary (what runStateFold concluded from
 * all its records and lock operations at ingest), its goroutines named by `goroutines` (the
 * run's, from loadRunGoroutines); null for a run whose events are stored, or not ingested.
 */
export function loadRunEndStates(
  db: SchedlabDatabase,
  runId: number,
  goroutines: readonly GoroutineInfo[],
): RunGoroutineStates | null {
  const row = db.prepare("SELECT format, states FROM run_end_states WHERE run_id = ?").get(runId) as
    { format: number; states: string } | undefined;
  if (row === undefined) return null;
  if (row.format !== END_STATE_FORMAT)
    throw new EndStateFormatError(
      `run ${runId}'s stored end states have format ${row.format}; this schedlab reads format ${END_STATE_FORMAT}`,
    );
  return decodeEndStates(row.states, goroutines);
}

/**
 * The windows of a run stored as an excerpt (run_excerpts, docs/schema.md "Excerpts"), in
 * order, with the whole run's records and events; null for a run stored whole (or not ingested).
 */
export function loadRunExcerpt(db: SchedlabDatabase, runId: number): Excerpt | null {
  const rows = db
    .prepare(
      "SELECT first_seq, source_seq, events_before, records, events FROM run_excerpts WHERE run_id = ? ORDER BY first_seq",
    )
    .raw()
    .all(runId) as [number, number, number, number, number][];
  if (rows.length === 0) return null;
  return {
    records: rows[0][3],
    events: rows[0][4],
    windows: rows.map(([firstSeq, sourceSeq, eventsBefore]) => ({ firstSeq, sourceSeq, eventsBefore })),
  };
}

/** A GoBlock with reason "preempted" is a GC stack-scan suspension, not a real block (docs/events.md). */
export function isGcPreemption(record: GoroutineRecord): boolean {
  return record.kind === "GoBlock" && record.reason === "preempted";
}
