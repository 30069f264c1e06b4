// Building and storing one program's states and samples by streaming its runs from SQLite:
// records are read in chunks, pushed through the abstraction's stepper, and each chunk's
// samples are written before the next is read; states are then counted by SQL. Memory stays
// flat in the number of events (one chunk, plus the stepper's per-goroutine state), so
// `dist`, `export` and the pipeline's distributions stage work on collections of any size.

import { inTransaction, multiRowInsert, type SchedlabDatabase } from "../store/index.js";
import { countRunEvents, forEachRunRecordInChunks, loadRunExcerpt, loadRunGoroutines } from "../trace/index.js";
import { EVENT_TYPES, type EventType } from "../core/index.js";
import { growingPrefixHash } from "./prefix-hash.js";
import { clearProgramStates, recordDatasetInput, sampleInserter } from "./program-rows.js";
import {
  cappedProgram,
  DEFAULT_MAX_SAMPLES_PER_PROGRAM,
  everyNthSample,
  sampleStride,
  storedPositions,
  type CappedProgram,
  type PositionRange,
} from "./sample-cap.js";
import { sampleStepper } from "./sample-stepper.js";
import { stateId } from "./state-id.js";
import type { Abstraction } from "./types.js";

/** Records read per chunk; each chunk's samples are written before the next is read. */
export const STREAM_CHUNK = 50_000;

/** A usable run of the program, as the build needs it. */
export interface StreamedRun {
  readonly id: number;
  readonly procs: number;
}

/** What a stepper needs to know of a stored run before its records (but its goroutines), read once. */
function storedShape(db: SchedlabDatabase, runId: number) {
  return { eventCount: countRunEvents(db, runId), excerpt: loadRunExcerpt(db, runId) };
}

/**
 * The whole-run positions the samples of a stored run may take under `abstraction`
 * (storedPositions): counted in SQLite, an index range per excerpt window, no record built.
 */
export function storedRunPositions(
  db: SchedlabDatabase,
  abstraction: Abstraction,
  runId: number,
  shape = storedShape(db, runId),
): PositionRange[] {
  return storedPositions(abstraction, shape.eventCount, shape.excerpt?.windows, (from, to) =>
    countRunEvents(db, runId, from, to),
  );
}

const COUNT_COLUMNS = EVENT_TYPES.map((e, i) => `SUM(s.next = '${e}') AS n${i}`).join(", ");

/**
 * Replaces the stored states and samples of one (abstraction, program) from its runs, in
 * one transaction, streaming: the same states, counts and samples statesFromRuns gives over
 * the program's runs in memory. A state's representative is its first sample in run-id
 * order (the lowest run id, earliest position), its prefix hash that prefix's. A program whose
 * runs give more than `cap` samples keeps the whole-run positions 0, s, 2s … of each run, as
 * statesFromRuns does; it is returned as capped (null when the cap does not bind).
 */
export function streamProgramStates(
  db: SchedlabDatabase,
  abstraction: Abstraction,
  program: { readonly id: number; readonly name: string },
  runs: readonly StreamedRun[],
  inputHash: string,
  cap = DEFAULT_MAX_SAMPLES_PER_PROGRAM,
  chunk = STREAM_CHUNK,
): CappedProgram | null {
  const shapes = new Map(runs.map((run) => [run.id, storedShape(db, run.id)]));
  const positions = runs.map((run) => storedRunPositions(db, abstraction, run.id, shapes.get(run.id)));
  const stride = sampleStride(positions, cap);
  inTransaction(db, () => {
    clearProgramStates(db, abstraction, program.id);
    db.exec(
      "CREATE TEMP TABLE IF NOT EXISTS stream_states (state_id TEXT PRIMARY KEY, key TEXT NOT NULL, " +
        `rep_run_id INTEGER NOT NULL, rep_end INTEGER NOT NULL, prefix_hash TEXT NOT NULL) WITHOUT ROWID;
      DELETE FROM temp.stream_states;`,
    );
    // The first sample of a state (in run-id, then position order) is its representative.
    const insertStates = multiRowInsert(
      db,
      "INSERT OR IGNORE INTO temp.stream_states (state_id, key, rep_run_id, rep_end, prefix_hash)",
      5,
    );
    const insertSamples = sampleInserter(db);
    for (const run of [...runs].sort((a, b) => a.id - b.id)) {
      const goroutines = loadRunGoroutines(db, run.id);
      const hash = growingPrefixHash({ program: program.name, procs: run.procs, goroutines });
      let rows: unknown[] = [];
      let states: unknown[] = [];
      const visit = everyNthSample((key: string, end: number, next: EventType): void => {
        const id = stateId(abstraction, program.name, key);
        rows.push(abstraction, run.id, end, id, next);
        states.push(id, key, run.id, end, hash.digest());
      }, stride);
      const step = sampleStepper(abstraction, { ...shapes.get(run.id)!, goroutines }, visit);
      let index = 0;
      forEachRunRecordInChunks(
        db,
        run.id,
        chunk,
        (record) => {
          step(record, index++);
          hash.add(record);
        },
        () => {
          insertStates(states);
          insertSamples(rows);
          rows = [];
          states = [];
        },
      );
    }
    // One pass over the program's samples counts every state; the representative comes from stream_states.
    db.prepare(
      "INSERT INTO states (abstraction, program_id, key, state_id, n_gocreate, n_gostart, n_goblock, n_gounblock, " +
        `n_gosched, n_goend, runs, rep_run_id, rep_end, prefix_hash)
       SELECT ?, ?, t.key, c.state_id, c.n0, c.n1, c.n2, c.n3, c.n4, c.n5, c.runs, t.rep_run_id, t.rep_end, t.prefix_hash
       FROM (SELECT s.state_id, ${COUNT_COLUMNS}, COUNT(DISTINCT s.run_id) AS runs FROM samples s
             WHERE s.abstraction = ? AND s.run_id IN (SELECT id FROM runs WHERE program_id = ?) GROUP BY s.state_id) c
       JOIN temp.stream_states t ON t.state_id = c.state_id`,
    ).run(abstraction, program.id, abstraction, program.id);
    db.exec("DELETE FROM temp.stream_states;");
    recordDatasetInput(db, abstraction, program.id, inputHash);
  });
  return cappedProgram(program.name, abstraction, positions, cap);
}
