// The dataset stage's SQLite edge: reads ingested runs (runs, events, goroutines tables),
// stores states and samples per (abstraction, program), and skips a program whose inputs
// hash is unchanged since its last build. The core it calls (statesFromRuns) is pure.

import { cappedProgram, DEFAULT_MAX_SAMPLES_PER_PROGRAM, type CappedProgram } from "./sample-cap.js";
import { createHash } from "node:crypto";
import { basename } from "node:path";
import { UsageError } from "../errors.js";
import { inTransaction, multiRowInsert } from "../store/index.js";
import type { SchedlabDatabase } from "../store/index.js";
import { EVENT_TYPES, type EventType } from "../core/index.js";
import { lastRunRecord, loadRunExcerpt, loadRunGoroutines, loadRunRecords } from "../trace/index.js";
import { poolStates, prefixAt } from "./abstractions.js";
import { clearProgramStates, recordDatasetInput, sampleInserter } from "./program-rows.js";
import { storedRunPositions, streamProgramStates } from "./stream-build.js";
import { countsFromVector } from "./distribution.js";
import {
  RUN_STRATEGIES,
  type Abstraction,
  type Prefix,
  type RunRecords,
  type RunSelection,
  type SampleRow,
  type State,
} from "./types.js";

/** Bump when keys, ids or sampling change, so every stored build is redone. */
export const DATASET_FORMAT_VERSION = 3;

/** Ingest statuses whose records are used. A truncated trace keeps what parsed. */
const USABLE = "('ok', 'truncated')";

/** The SQL condition on runs (alias r) that a run selection stands for; the strategies are literals of RUN_STRATEGIES. */
function strategyCondition(selection: RunSelection): string {
  if (selection === "all") return "1";
  const strategies =
    selection === "plain" ? ["plain"] : selection.filter((s) => (RUN_STRATEGIES as readonly string[]).includes(s));
  return `r.strategy IN (${strategies.map((s) => `'${s}'`).join(", ") || "''"})`;
}

/** Selection text for hashes and messages: "plain", "all" or "plain,race". */
export function runSelectionName(selection: RunSelection): string {
  return typeof selection === "string" ? selection : [...selection].sort().join(",");
}

/** A program that has at least one usable ingested run. */
export interface DatasetProgram {
  readonly id: number;
  readonly name: string;
  readonly root: string;
  readonly dir: string;
  /** The manifest JSON as stored, or null. */
  readonly manifest: string | null;
  /** Label of the corpus (collect root) it came from: the corpora row, else the root's base name. */
  readonly corpus: string;
  /** From a test corpus (corpora.role = 'test'): never trained on. */
  readonly testOnly: boolean;
}

/** Programs with usable ingested runs (of the selected strategies), by name. */
export function ingestedPrograms(db: SchedlabDatabase, runs: RunSelection = "plain"): DatasetProgram[] {
  const rows = db
    .prepare(
      `SELECT p.id, p.name, p.root, p.dir, p.manifest, c.label, c.role FROM programs p LEFT JOIN corpora c ON c.root = p.root
       WHERE EXISTS (SELECT 1 FROM runs r WHERE r.program_id = p.id AND r.ingest_status IN ${USABLE} AND ${strategyCondition(runs)})
       ORDER BY p.name`,
    )
    .all() as {
    id: number;
    name: string;
    root: string;
    dir: string;
    manifest: string | null;
    label: string | null;
    role: string | null;
  }[];
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    root: r.root,
    dir: r.dir,
    manifest: r.manifest,
    corpus: r.label ?? basename(r.root),
    testOnly: r.role === "test",
  }));
}

/**
 * The programs named by `names` (all ingested programs when undefined), in name order.
 * Unknown names are a UsageError that lists a few known ones.
 */
export function selectPrograms(
  db: SchedlabDatabase,
  names?: readonly string[],
  runs: RunSelection = "plain",
): DatasetProgram[] {
  const all = ingestedPrograms(db, runs);
  if (names === undefined) return all;
  const byName = new Map(all.map((p) => [p.name, p]));
  const missing = names.filter((n) => !byName.has(n));
  if (missing.length > 0) {
    const known = all
      .slice(0, 8)
      .map((p) => p.name)
      .join(", ");
    throw new UsageError(
      `no ingested runs for program${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`,
      all.length === 0
        ? "Run `schedlab collect` (and ingest) first; the database has no ingested runs."
        : `Use a program name as stored by collect (e.g. ${known}); \`schedlab dist --abstraction split --json\` lists them.`,
    );
  }
  return [...new Set(names)]
    .map((n) => byName.get(n)!)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

interface RunRow {
  readonly id: number;
  readonly procs: number;
  readonly ingest_status: string;
  readonly trace_sha256: string | null;
}

function usableRuns(db: SchedlabDatabase, programId: number, runs: RunSelection): RunRow[] {
  return db
    .prepare(
      "SELECT r.id, r.procs, r.ingest_status, r.trace_sha256 FROM runs r " +
        `WHERE r.program_id = ? AND r.ingest_status IN ${USABLE} AND ${strategyCondition(runs)} ORDER BY r.id`,
    )
    .all(programId) as RunRow[];
}

/** Hash of everything a program's states depend on: its usable runs, their records and goroutine ids. */
export function programInputHash(
  db: SchedlabDatabase,
  programId: number,
  abstraction: Abstraction,
  runs: RunSelection = "plain",
  cap = DEFAULT_MAX_SAMPLES_PER_PROGRAM,
): string {
  const hash = createHash("sha256").update(
    `dataset v${DATASET_FORMAT_VERSION} ${abstraction} ${runSelectionName(runs)} cap ${cap}\n`,
  );
  // Index seeks only (no scan of a run's events): the last record's seq and time change
  // whenever a run is re-ingested into different records; the trace hash covers the rest.
  const ids = db.prepare("SELECT gid, canonical_id FROM goroutines WHERE run_id = ? ORDER BY gid").raw();
  for (const run of usableRuns(db, programId, runs)) {
    const last = lastRunRecord(db, run.id);
    hash.update(
      `${run.id} ${run.procs} ${run.ingest_status} ${run.trace_sha256 ?? ""} ${last?.seq ?? -1} ${last?.timeNs ?? -1}\n`,
    );
    for (const row of ids.all(run.id) as [number, string][]) hash.update(`${row[0]}=${row[1]};`);
    hash.update("\n");
  }
  return hash.digest("hex");
}

/** Every usable run (of the selected strategies) of the program with all its records and goroutines. */
export function loadProgramRuns(
  db: SchedlabDatabase,
  program: Pick<DatasetProgram, "id" | "name">,
  runs: RunSelection = "plain",
): RunRecords[] {
  return usableRuns(db, program.id, runs).map((run) => loadRun(db, program.name, run.id, run.procs));
}

/** loadProgramRuns one run at a time, in run order, each loaded when the caller asks for the next. */
export function* eachProgramRun(
  db: SchedlabDatabase,
  program: Pick<DatasetProgram, "id" | "name">,
  runs: RunSelection = "plain",
): Generator<RunRecords> {
  for (const run of usableRuns(db, program.id, runs)) yield loadRun(db, program.name, run.id, run.procs);
}

/** The stored samples of `abstraction` of one run of `program`, in position order (the order statesFromRuns visits them). */
export function storedRunSamples(
  db: SchedlabDatabase,
  abstraction: Abstraction,
  program: string,
  runId: number,
): SampleRow[] {
  const rows = db
    .prepare("SELECT state_id, position, next FROM samples WHERE abstraction = ? AND run_id = ? ORDER BY position")
    .raw()
    .all(abstraction, runId) as [string, number, string][];
  const samples: SampleRow[] = [];
  for (const [stateId, end, next] of rows)
    if ((EVENT_TYPES as readonly string[]).includes(next))
      samples.push({ stateId, program, runId, end, next: next as EventType });
  return samples;
}

function loadRun(db: SchedlabDatabase, programName: string, runId: number, procs: number): RunRecords {
  return {
    program: programName,
    runId,
    procs,
    records: loadRunRecords(db, runId),
    goroutines: loadRunGoroutines(db, runId),
    excerpt: loadRunExcerpt(db, runId),
  };
}

/** Replaces the stored states and samples of one (abstraction, program) in one transaction. */
export function storeProgramStates(
  db: SchedlabDatabase,
  abstraction: Abstraction,
  program: DatasetProgram,
  states: readonly State[],
  samples: readonly SampleRow[],
  inputHash: string,
): void {
  inTransaction(db, () => {
    clearProgramStates(db, abstraction, program.id);
    const stateRow = (st: State): unknown[] => {
      const c = st.counts;
      return [
        abstraction,
        program.id,
        st.key,
        st.id,
        c.GoCreate,
        c.GoStart,
        c.GoBlock,
        c.GoUnblock,
        c.GoSched,
        c.GoEnd,
        st.runs,
        st.representative.runId,
        st.representative.end,
        st.prefixHash,
      ];
    };
    const insertStates = multiRowInsert(
      db,
      "INSERT INTO states (abstraction, program_id, key, state_id, n_gocreate, n_gostart, n_goblock, " +
        "n_gounblock, n_gosched, n_goend, runs, rep_run_id, rep_end, prefix_hash)",
      14,
    );
    const insertSamples = sampleInserter(db);
    insertStates(states.flatMap(stateRow));
    insertSamples(samples.flatMap((sm) => [abstraction, sm.runId, sm.end, sm.stateId, sm.next]));
    recordDatasetInput(db, abstraction, program.id, inputHash);
  });
}

/**
 * How many samples of `abstraction` are stored for the program's runs, per next event in
 * EVENT_TYPES order (one row per sample; index seeks only).
 */
export function storedEventCounts(db: SchedlabDatabase, abstraction: Abstraction, programId: number): number[] {
  const rows = db
    .prepare(
      "SELECT next, count(*) AS n FROM samples WHERE abstraction = ? AND run_id IN (SELECT id FROM runs WHERE program_id = ?) GROUP BY next",
    )
    .all(abstraction, programId) as { next: EventType; n: number }[];
  const counts = EVENT_TYPES.map(() => 0);
  for (const row of rows) counts[EVENT_TYPES.indexOf(row.next)] = row.n;
  return counts;
}

/** The input hash the program's stored states of `abstraction` were built from, if any. */
export function storedInputHash(db: SchedlabDatabase, abstraction: Abstraction, programId: number): string | undefined {
  const row = db
    .prepare("SELECT input_hash FROM dataset_inputs WHERE abstraction = ? AND program_id = ?")
    .get(abstraction, programId) as { input_hash: string } | undefined;
  return row?.input_hash;
}

export interface DatasetOptions {
  readonly abstraction: Abstraction;
  /** Program names; all programs with ingested runs when omitted. */
  readonly programs?: readonly string[];
  /** Which runs feed the states (default: plain runs only). */
  readonly runs?: RunSelection;
  /** Samples one program may put into the dataset (default DEFAULT_MAX_SAMPLES_PER_PROGRAM): above it, every s-th sample of each run. */
  readonly maxSamplesPerProgram?: number;
}

/** States pooled over the selected programs, and their samples (without prefixes). */
export interface Dataset {
  readonly abstraction: Abstraction;
  readonly programs: readonly string[];
  readonly states: State[];
  readonly samples: SampleRow[];
}

/** What a refresh did, for progress output and tests. */
export interface RefreshReport {
  readonly rebuilt: readonly string[];
  readonly unchanged: readonly string[];
  /** Rebuilt programs whose runs gave more samples than the cap: each kept the positions 0, s, 2s … of every run. */
  readonly capped: readonly CappedProgram[];
}

/**
 * Recomputes and stores the states and samples of every selected program whose inputs
 * changed since its last build (idempotent: a second call rebuilds nothing), streaming each
 * program's runs from SQLite (streamProgramStates), so memory stays flat in the number of events.
 */
export function refreshDataset(db: SchedlabDatabase, options: DatasetOptions): RefreshReport {
  const rebuilt: string[] = [];
  const unchanged: string[] = [];
  const capped: CappedProgram[] = [];
  const runs = options.runs ?? "plain";
  const cap = options.maxSamplesPerProgram ?? DEFAULT_MAX_SAMPLES_PER_PROGRAM;
  for (const program of selectPrograms(db, options.programs, runs)) {
    const hash = programInputHash(db, program.id, options.abstraction, runs, cap);
    if (storedInputHash(db, options.abstraction, program.id) === hash) {
      unchanged.push(program.name);
      continue;
    }
    const built = streamProgramStates(db, options.abstraction, program, usableRuns(db, program.id, runs), hash, cap);
    if (built !== null) capped.push(built);
    rebuilt.push(program.name);
  }
  return { rebuilt, unchanged, capped };
}

/**
 * The selected programs whose runs give more samples of `abstraction` than the cap, with the
 * stride their stored samples were (or will be) taken with and what it keeps. Counts each run's
 * events in SQLite (an index range per run or excerpt window); builds nothing.
 */
export function cappedPrograms(db: SchedlabDatabase, options: DatasetOptions): CappedProgram[] {
  const runs = options.runs ?? "plain";
  const cap = options.maxSamplesPerProgram ?? DEFAULT_MAX_SAMPLES_PER_PROGRAM;
  const capped: CappedProgram[] = [];
  for (const program of selectPrograms(db, options.programs, runs)) {
    const positions = usableRuns(db, program.id, runs).map((run) =>
      storedRunPositions(db, options.abstraction, run.id),
    );
    const above = cappedProgram(program.name, options.abstraction, positions, cap);
    if (above !== null) capped.push(above);
  }
  return capped;
}

export interface LoadDatasetOptions extends DatasetOptions {
  /** Also read the samples table (one row per sample). Default false. */
  readonly samples?: boolean;
  /** Never rebuild: read what is stored, even if stale (for read-only databases). Default false. */
  readonly readonly?: boolean;
}

interface StoredStateRow {
  readonly program: string;
  readonly procs: number;
  readonly key: string;
  readonly state_id: string;
  readonly n_gocreate: number;
  readonly n_gostart: number;
  readonly n_goblock: number;
  readonly n_gounblock: number;
  readonly n_gosched: number;
  readonly n_goend: number;
  readonly runs: number;
  readonly rep_run_id: number;
  readonly rep_end: number;
  readonly prefix_hash: string;
}

/**
 * Reads the stored dataset of the selected programs (refreshing stale programs first),
 * pooling pooled abstractions, and loads only the representative runs' records.
 */
export function loadDataset(db: SchedlabDatabase, options: LoadDatasetOptions): Dataset {
  const programs = selectPrograms(db, options.programs, options.runs);
  if (!options.readonly)
    refreshDataset(db, {
      abstraction: options.abstraction,
      programs: programs.map((p) => p.name),
      runs: options.runs,
      ...(options.maxSamplesPerProgram === undefined ? {} : { maxSamplesPerProgram: options.maxSamplesPerProgram }),
    });
  const select = db.prepare(
    `SELECT p.name AS program, r.procs AS procs, s.key, s.state_id, s.n_gocreate, s.n_gostart, s.n_goblock, s.n_gounblock, s.n_gosched, s.n_goend,
            s.runs, s.rep_run_id, s.rep_end, s.prefix_hash
     FROM states s JOIN programs p ON p.id = s.program_id JOIN runs r ON r.id = s.rep_run_id
     WHERE s.abstraction = ? AND s.program_id = ?`,
  );
  // States come ordered by program and representative run, so a small cache of the runs
  // last read serves consecutive states without holding every representative run at once.
  const runCache = new Map<number, RunRecords>();
  const RUNS_CACHED = 4;
  const representative = (row: StoredStateRow): Prefix => {
    let run = runCache.get(row.rep_run_id);
    if (run === undefined) {
      run = loadRun(db, row.program, row.rep_run_id, row.procs);
      runCache.set(row.rep_run_id, run);
      if (runCache.size > RUNS_CACHED) runCache.delete(runCache.keys().next().value as number);
    }
    return prefixAt(run, row.rep_end);
  };
  const perProgram: State[][] = [];
  for (const program of programs) {
    const rows = select.all(options.abstraction, program.id) as StoredStateRow[];
    // Stored rows come back in key order; statesFromRuns order is first-seen. Order by the
    // representative position so both agree for non-pooled abstractions.
    rows.sort(
      (a, b) => a.rep_run_id - b.rep_run_id || a.rep_end - b.rep_end || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
    );
    perProgram.push(
      rows.map((row) => ({
        id: row.state_id,
        abstraction: options.abstraction,
        program: row.program,
        key: row.key,
        counts: countsFromVector([
          row.n_gocreate,
          row.n_gostart,
          row.n_goblock,
          row.n_gounblock,
          row.n_gosched,
          row.n_goend,
        ]),
        runs: row.runs,
        representative: lazyPrefix(() => representative(row)),
        prefixHash: row.prefix_hash,
      })),
    );
  }
  const states = poolStates(perProgram);
  const samples = options.samples ? loadSamples(db, options.abstraction, programs) : [];
  return { abstraction: options.abstraction, programs: programs.map((p) => p.name), states, samples };
}

/**
 * A Prefix whose records are loaded when accessed, so loading many states does not read
 * every representative run unless a caller renders them. It keeps nothing itself (the
 * loader's small run cache does), so rendering every state of a big collection, as export
 * does, holds a few runs at a time, never all of them.
 */
function lazyPrefix(load: () => Prefix): Prefix {
  const get = load;
  return {
    get program() {
      return get().program;
    },
    get runId() {
      return get().runId;
    },
    get procs() {
      return get().procs;
    },
    get records() {
      return get().records;
    },
    get end() {
      return get().end;
    },
    get goroutines() {
      return get().goroutines;
    },
  };
}

function loadSamples(db: SchedlabDatabase, abstraction: Abstraction, programs: readonly DatasetProgram[]): SampleRow[] {
  const select = db
    .prepare(
      `SELECT s.state_id, s.run_id, s.position, s.next FROM samples s JOIN runs r ON r.id = s.run_id
       WHERE s.abstraction = ? AND r.program_id = ? ORDER BY s.run_id, s.position`,
    )
    .raw();
  const samples: SampleRow[] = [];
  for (const program of programs) {
    for (const [stateId, runId, end, next] of select.all(abstraction, program.id) as [
      string,
      number,
      number,
      string,
    ][]) {
      if ((EVENT_TYPES as readonly string[]).includes(next))
        samples.push({ stateId, program: program.name, runId, end, next: next as EventType });
    }
  }
  return samples;
}
