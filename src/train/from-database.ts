// The train stage's SQLite edge: loads the ingested runs of a database, resolves the
// holdout with the dataset stage, trains, and (optionally) saves the adapter.

import { basename, resolve } from "node:path";
import { loadProgramRuns, resolveHoldout, selectPrograms } from "../dataset/index.js";
import type { RunRecords } from "../dataset/types.js";
import { UsageError } from "../errors.js";
import type { SchedlabDatabase } from "../store/index.js";
import { saveAdapter } from "./adapter.js";
import { trainStudent } from "./train.js";
import { DEFAULT_TRAIN_OPTIONS, type TrainedStudent, type TrainStudentOptions } from "./types.js";

export type TrainFromDatabaseOptions = Partial<Omit<TrainStudentOptions, "holdoutPrograms" | "holdoutSpec" | "validationPrograms">> &
  Pick<TrainStudentOptions, "objective" | "abstraction"> & {
    /** A --holdout spec for resolveHoldout (dir:, tag:, list:, outcome:, saved name, default). */
    readonly holdout?: string;
    /** Where to write the adapter; its last path component names it. */
    readonly out?: string;
  };

/** Trains a student on every ingested program of `db` (minus the holdout) and saves it to `out`. */
export async function trainFromDatabase(db: SchedlabDatabase, options: TrainFromDatabaseOptions): Promise<TrainedStudent> {
  const progress = options.onProgress ?? (() => undefined);
  const programs = selectPrograms(db);
  if (programs.length === 0) {
    throw new UsageError("the database has no ingested runs to train on", "Run `schedlab collect` on a corpus (e.g. go-programs/) first, or pass --db with the right file.");
  }
  const split = resolveHoldout(db, options.holdout);
  progress(`holdout ${split.spec}: ${split.description} (${split.test.length} test, ${split.train.length} train programs)`);
  const runs: RunRecords[] = [];
  const programDirs = new Map<string, string>();
  for (const program of programs) {
    programDirs.set(program.name, resolve(program.root, program.dir));
    for (const run of loadProgramRuns(db, program)) runs.push(run);
  }
  progress(`loaded ${runs.length} runs of ${programs.length} programs`);
  const { holdout: _holdout, out, ...rest } = options;
  const trainOptions: TrainStudentOptions = {
    ...DEFAULT_TRAIN_OPTIONS,
    ...rest,
    holdoutPrograms: split.test,
    holdoutSpec: `${split.spec} (${split.description})`,
    validationPrograms: split.validation,
  };
  const name = out === undefined ? "student" : basename(resolve(out));
  const student = await trainStudent(name, { runs, programDirs }, trainOptions);
  if (out !== undefined) {
    saveAdapter(out, student);
    progress(`saved adapter to ${out}`);
  }
  return student;
}
