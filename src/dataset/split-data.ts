// The one split loader: ingested runs → a resolved holdout → the states, samples and
// prefixes of each side (fit, validation, test). Train, eval, predict, rollout, fidelity and
// `schedlab run` all read their data through loadSplitData, once per command, and pass the
// result around in memory instead of rebuilding it stage by stage.

import { createHash } from "node:crypto";
import type { SchedlabDatabase } from "../store/index.js";
import { sampleOf, statesFromRuns } from "./abstractions.js";
import { resolveHoldout, type HoldoutSplit } from "./split.js";
import {
  DEFAULT_MAX_SAMPLES_PER_PROGRAM,
  sampleCapReport,
  type CappedProgram,
  type SampleCapReport,
} from "./sample-cap.js";
import {
  cappedPrograms,
  eachProgramRun,
  loadProgramRuns,
  programInputHash,
  refreshDataset,
  runSelectionName,
  selectPrograms,
  storeProgramStates,
  storedEventCounts,
  storedInputHash,
  storedRunSamples,
  type DatasetProgram,
} from "./store.js";
import type { Abstraction, RunRecords, RunSelection, Sample, SampleRow, State } from "./types.js";

/** The states and samples of one side of a split, with the runs their prefixes live in. */
export interface SplitSide {
  /** Hash of what the side was built from (abstraction, run selection, each program's input hash). */
  readonly fingerprint: string;
  readonly programs: readonly string[];
  readonly states: readonly State[];
  readonly samples: readonly SampleRow[];
  /** Every run of the side's programs, by run id. */
  readonly runs: ReadonlyMap<number, RunRecords>;
  /** The sample cap the side was built under (docs/dataset.md, "Bounded per program"). */
  readonly cap: number;
  /** Its programs above the cap, each sampled evenly along its runs. */
  readonly capped: readonly CappedProgram[];
}

/**
 * A split and its data. Invariants: `fit` holds the training programs that are not in
 * validation (what fitted predictors and students learn from), `validation` the whole
 * families set aside for early stopping, calibration and model selection, `test` the
 * held-out programs; no family spans two sides.
 */
export interface SplitData {
  /** Hash of the split and of every side's inputs: equal fingerprints mean equal data, so stages hash it instead of the data. */
  readonly fingerprint: string;
  readonly abstraction: Abstraction;
  readonly split: HoldoutSplit;
  readonly fit: SplitSide;
  readonly validation: SplitSide;
  readonly test: SplitSide;
}

export interface LoadSplitOptions {
  readonly abstraction: Abstraction;
  /** A --holdout spec (see resolveHoldout) or a split already resolved (so a command resolves it once); the default family holdout when absent. */
  readonly holdout?: string | HoldoutSplit;
  /** Train only on the programs this spec selects (resolveHoldout; ignored when `holdout` is a resolved split). */
  readonly trainOn?: string;
  /** Which runs feed the distributions (default: plain runs only). */
  readonly runs?: RunSelection;
  /**
   * Samples one program may put into each side (default DEFAULT_MAX_SAMPLES_PER_PROGRAM): above
   * it, the whole-run positions 0, s, 2s … of each of its runs (docs/dataset.md, "Bounded per program").
   */
  readonly maxSamplesPerProgram?: number;
}

/** Where a command's split comes from: loaded from the database, or already loaded by the caller. */
export interface SplitSource extends LoadSplitOptions {
  /** The split already loaded (schedlab run loads it once for every stage); holdout and runs are then ignored. */
  readonly data?: SplitData;
}

/** The split `source` names: the one given, else loaded from `db`. */
export function splitDataOf(db: SchedlabDatabase, source: SplitSource): SplitData {
  return source.data ?? loadSplitData(db, source);
}

/** The side's samples with their prefixes (no copying: a prefix is its run's records and an end). */
export function samplesWithPrefixes(side: SplitSide): Sample[] {
  const samples: Sample[] = [];
  for (const row of side.samples) {
    const run = side.runs.get(row.runId);
    if (run !== undefined) samples.push(sampleOf(row, run));
  }
  return samples;
}

/**
 * The data of one set of programs: every run loaded once, states and samples computed from
 * them (pooled over the programs for pooled abstractions) under the sample cap — a capped
 * program's states and samples are only those at its kept positions, so what is featurised and
 * predicted follows the cap — and each program's stored states refreshed when its inputs
 * changed, so `dist` and `export` read what this computed.
 */
export function loadSide(
  db: SchedlabDatabase,
  abstraction: Abstraction,
  names: readonly string[],
  runs: RunSelection = "plain",
  cap = DEFAULT_MAX_SAMPLES_PER_PROGRAM,
): SplitSide {
  const allRuns: RunRecords[] = [];
  const { fingerprint, programs } = visitSide(db, abstraction, names, runs, cap, (program, hash, current) => {
    const programRuns = loadProgramRuns(db, program, runs);
    if (!current) storeRebuilt(db, abstraction, program, programRuns, hash, cap);
    for (const run of programRuns) allRuns.push(run);
  });
  const { states, samples, capped } = statesFromRuns(allRuns, abstraction, cap);
  return {
    fingerprint,
    programs: programs.map((p) => p.name),
    states,
    samples,
    runs: new Map(allRuns.map((r) => [r.runId, r])),
    cap,
    capped,
  };
}

/**
 * loadSide of each of the side's programs on its own, in the order loadSide visits them
 * (selectPrograms: by name), each loaded only when the caller asks for the next: at most one
 * program's runs are in memory. A program's samples never depend on the other programs, so
 * the samples of all these sides are loadSide's; under an abstraction that does not pool
 * programs (isPooled) so are the states, and the concatenated states and samples are exactly
 * loadSide's, in its order.
 */
export function* programSides(
  db: SchedlabDatabase,
  abstraction: Abstraction,
  names: readonly string[],
  runs: RunSelection = "plain",
  cap = DEFAULT_MAX_SAMPLES_PER_PROGRAM,
): Generator<SplitSide> {
  const programs = names.length === 0 ? [] : selectPrograms(db, names, runs);
  for (const program of programs) yield loadSide(db, abstraction, [program.name], runs, cap);
}

/**
 * The samples of a side's programs with their prefixes, run by run from the stored samples
 * (a program's stored states rebuilt first when its inputs changed, as loadSide does): at most
 * one run's records are in memory, so a caller that reads each sample once (fitting a baseline)
 * never holds a program. The samples of samplesWithPrefixes(loadSide(…)), in its order (by
 * program, run and position).
 */
export function* storedSamplesWithPrefixes(
  db: SchedlabDatabase,
  abstraction: Abstraction,
  names: readonly string[],
  runs: RunSelection = "plain",
  cap = DEFAULT_MAX_SAMPLES_PER_PROGRAM,
): Generator<Sample> {
  const programs = names.length === 0 ? [] : selectPrograms(db, names, runs);
  for (const program of programs) {
    // Rebuilt streaming when stale (refreshDataset: one chunk of records at a time), then read run by run.
    refreshDataset(db, { abstraction, programs: [program.name], runs, maxSamplesPerProgram: cap });
    for (const run of eachProgramRun(db, program, runs))
      for (const row of storedRunSamples(db, abstraction, program.name, run.runId)) yield sampleOf(row, run);
  }
}

/**
 * The side's programs in name order, each visited with its input hash and whether its stored
 * states were built from those inputs, and the side's fingerprint (abstraction, run selection,
 * every program's input hash, which covers the cap): what loadSide and sideSampleCounts share.
 */
function visitSide(
  db: SchedlabDatabase,
  abstraction: Abstraction,
  names: readonly string[],
  runs: RunSelection,
  cap: number,
  visit: (program: DatasetProgram, hash: string, current: boolean) => void,
): { readonly fingerprint: string; readonly programs: readonly DatasetProgram[] } {
  const programs = names.length === 0 ? [] : selectPrograms(db, names, runs);
  const fingerprint = createHash("sha256").update(`${abstraction}\0${runSelectionName(runs)}\0`);
  for (const program of programs) {
    const hash = programInputHash(db, program.id, abstraction, runs, cap);
    fingerprint.update(`${program.name}=${hash};`);
    visit(program, hash, storedInputHash(db, abstraction, program.id) === hash);
  }
  return { fingerprint: fingerprint.digest("hex"), programs };
}

/** Rebuilds one program's states and samples from its runs (in memory: loadSide holds them anyway) and stores them under `hash`. */
function storeRebuilt(
  db: SchedlabDatabase,
  abstraction: Abstraction,
  program: DatasetProgram,
  programRuns: readonly RunRecords[],
  hash: string,
  cap: number,
): void {
  const { states, samples } = statesFromRuns(programRuns, abstraction, cap);
  storeProgramStates(db, abstraction, program, states, samples, hash);
}

/** What sideSampleCounts returns: loadSide's fingerprint and programs, and each program's sample counts. */
export interface SideSampleCounts {
  readonly fingerprint: string;
  /** The programs above the cap (counted in SQLite), as loadSide reports them. */
  readonly capped: readonly CappedProgram[];
  /** In name order, as loadSide lists them. */
  readonly programs: readonly {
    readonly name: string;
    readonly samples: number;
    /** Samples per next event, in EVENT_TYPES order. */
    readonly events: readonly number[];
  }[];
}

/**
 * The fingerprint loadSide(db, abstraction, names, runs) would give and the samples of each
 * program under it, without holding the side's runs (loadSide holds every one): what CV needs
 * to weigh families before it loads any fold, and to know a fold's sides without loading them.
 * A program whose stored states are up to date is counted in SQLite; one whose are not is
 * rebuilt and stored first by the streaming build (refreshDataset: the states loadSide would
 * store, one chunk of records in memory at a time), so memory stays flat in the number of events.
 * A program's samples do not depend on the other programs (pooling merges states, never samples).
 */
export function sideSampleCounts(
  db: SchedlabDatabase,
  abstraction: Abstraction,
  names: readonly string[],
  runs: RunSelection = "plain",
  cap = DEFAULT_MAX_SAMPLES_PER_PROGRAM,
): SideSampleCounts {
  const counts: { name: string; samples: number; events: number[] }[] = [];
  const { fingerprint, programs } = visitSide(db, abstraction, names, runs, cap, (program, _hash, current) => {
    if (!current) refreshDataset(db, { abstraction, programs: [program.name], runs, maxSamplesPerProgram: cap });
    // Stored from these very inputs: one row per sample, counted without loading a record.
    const events = storedEventCounts(db, abstraction, program.id);
    counts.push({ name: program.name, samples: events.reduce((sum, n) => sum + n, 0), events });
  });
  const capped =
    programs.length === 0
      ? []
      : cappedPrograms(db, { abstraction, programs: programs.map((p) => p.name), runs, maxSamplesPerProgram: cap });
  return { fingerprint, capped, programs: counts };
}

/** Resolves the holdout (unless given resolved) and loads fit, validation and test. */
export function loadSplitData(db: SchedlabDatabase, options: LoadSplitOptions): SplitData {
  const split =
    typeof options.holdout === "object"
      ? options.holdout
      : resolveHoldout(db, options.holdout, options.runs, options.trainOn);
  const validation = new Set(split.validation);
  const cap = options.maxSamplesPerProgram ?? DEFAULT_MAX_SAMPLES_PER_PROGRAM;
  return splitData(
    options.abstraction,
    split,
    loadSide(
      db,
      options.abstraction,
      split.train.filter((p) => !validation.has(p)),
      options.runs,
      cap,
    ),
    loadSide(db, options.abstraction, split.validation, options.runs, cap),
    loadSide(db, options.abstraction, split.test, options.runs, cap),
  );
}

/** Assembles a SplitData from its sides (so several test sides can share one training side). */
export function splitData(
  abstraction: Abstraction,
  split: HoldoutSplit,
  fit: SplitSide,
  validation: SplitSide,
  test: SplitSide,
): SplitData {
  const fingerprint = createHash("sha256")
    .update(
      JSON.stringify({
        spec: split.spec,
        ...(split.trainOn === undefined ? {} : { trainOn: split.trainOn }),
        train: split.train,
        validation: split.validation,
        test: split.test,
      }),
    )
    .update(`${fit.fingerprint}${validation.fingerprint}${test.fingerprint}`)
    .digest("hex");
  return { fingerprint, abstraction, split, fit, validation, test };
}

/** The training side as one: fit and validation together (all of the split's training programs), under the fit side's cap. */
export function trainingSide(data: SplitData): SplitSide {
  const runs = new Map([...data.fit.runs, ...data.validation.runs]);
  const cap = data.fit.cap;
  const { states, samples, capped } = statesFromRuns([...runs.values()], data.abstraction, cap);
  const fingerprint = createHash("sha256")
    .update(`${data.fit.fingerprint}${data.validation.fingerprint}`)
    .digest("hex");
  const programs = [...data.fit.programs, ...data.validation.programs].sort();
  return { fingerprint, programs, states, samples, runs, cap, capped };
}

/** The cap a split was loaded under and the programs it capped, over its three sides (a program is on one). */
export function splitSampleCap(data: SplitData): SampleCapReport {
  return sampleCapReport(data.fit.cap, data.fit.capped, data.validation.capped, data.test.capped);
}
