// The rows of one (abstraction, program) that both builds of its states replace — the build in
// memory (storeProgramStates) and the streaming one (streamProgramStates): clearing its stored
// states and samples, the samples' INSERT, and the input hash the new rows were built from.

import { multiRowInsert, type SchedlabDatabase } from "../store/index.js";
import type { Abstraction } from "./types.js";

/** Deletes the stored states of `abstraction` of the program and the samples of its runs. */
export function clearProgramStates(db: SchedlabDatabase, abstraction: Abstraction, programId: number): void {
  db.prepare("DELETE FROM states WHERE abstraction = ? AND program_id = ?").run(abstraction, programId);
  db.prepare("DELETE FROM samples WHERE abstraction = ? AND run_id IN (SELECT id FROM runs WHERE program_id = ?)").run(
    abstraction,
    programId,
  );
}

/** A writer of sample rows, five values each: abstraction, run id, position, state id, next event. */
export function sampleInserter(db: SchedlabDatabase): (values: readonly unknown[]) => void {
  return multiRowInsert(db, "INSERT INTO samples (abstraction, run_id, position, state_id, next)", 5);
}

/** Records the input hash the program's states of `abstraction` were just built from (storedInputHash reads it). */
export function recordDatasetInput(
  db: SchedlabDatabase,
  abstraction: Abstraction,
  programId: number,
  inputHash: string,
): void {
  db.prepare(
    `INSERT INTO dataset_inputs (abstraction, program_id, input_hash, built_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (abstraction, program_id) DO UPDATE SET input_hash = excluded.input_hash, built_at = excluded.built_at`,
  ).run(abstraction, programId, inputHash, new Date().toISOString());
}
