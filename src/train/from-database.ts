// The train stage's SQLite edge: loads the split with the dataset stage (or takes it
// loaded), trains on its fit side with its validation families, scores the test side for the
// card, and (optionally) saves the adapter.

import { basename, resolve } from "node:path";
import {
  cappedLine,
  ingestedPrograms,
  splitSampleCap,
  samplesWithPrefixes,
  splitDataOf,
  type SplitSide,
  type SplitSource,
} from "../dataset/index.js";
import { UsageError } from "../errors.js";
import type { SchedlabDatabase } from "../store/index.js";
import { saveAdapter } from "./save-adapter.js";
import { trainOnSplit } from "./train.js";
import { DEFAULT_TRAIN_OPTIONS, type StudentSide, type TrainedStudent, type TrainStudentOptions } from "./types.js";

export type TrainFromDatabaseOptions = Partial<Omit<TrainStudentOptions, "holdoutSpec">> &
  Pick<TrainStudentOptions, "objective" | "abstraction"> &
  SplitSource & {
    /** Where to write the adapter; its last path component names it. */
    readonly out?: string;
  };

function studentSide(side: SplitSide): StudentSide {
  return { programs: side.programs, states: side.states, samples: samplesWithPrefixes(side) };
}

/** Trains a student on the split's training programs of `db` and saves it to `out`. */
export async function trainFromDatabase(
  db: SchedlabDatabase,
  options: TrainFromDatabaseOptions,
): Promise<TrainedStudent> {
  const progress = options.onProgress ?? (() => undefined);
  const programs = ingestedPrograms(db, options.runs);
  if (programs.length === 0) {
    throw new UsageError(
      "the database has no ingested runs to train on",
      "Run `schedlab collect` on a corpus (e.g. go-programs/) first, or pass --db with the right file.",
    );
  }
  const data = splitDataOf(db, options);
  const split = data.split;
  progress(
    `holdout ${split.spec}: ${split.description} (${split.test.length} test programs in ${split.families.test} families; ` +
      `${data.fit.programs.length} train, ${data.validation.programs.length} validation programs in ${split.families.validation} families)`,
  );
  const programDirs = new Map(programs.map((p) => [p.name, resolve(p.root, p.dir)] as const));
  const {
    holdout: _holdout,
    trainOn: _trainOn,
    data: _data,
    runs: _runs,
    maxSamplesPerProgram: _cap,
    out,
    ...rest
  } = options;
  const trainOptions: TrainStudentOptions = {
    ...DEFAULT_TRAIN_OPTIONS,
    ...rest,
    abstraction: data.abstraction,
    holdoutSpec: `${split.spec} (${split.description})`,
  };
  const name = out === undefined ? "student" : basename(resolve(out));
  const sampleCap = splitSampleCap(data);
  if (sampleCap.capped.length > 0) progress(cappedLine(sampleCap));
  const trained = await trainOnSplit(
    name,
    {
      fit: studentSide(data.fit),
      validation: studentSide(data.validation),
      holdout: studentSide(data.test),
      programDirs,
      familyOf: split.familyOf,
    },
    trainOptions,
  );
  const student: TrainedStudent = { ...trained, card: { ...trained.card, data: { ...trained.card.data, sampleCap } } };
  if (out !== undefined) {
    saveAdapter(out, student);
    progress(`saved adapter to ${out}`);
  }
  return student;
}
