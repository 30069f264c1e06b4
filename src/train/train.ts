// One training run end to end: split programs (holdout, validation, train), build feature
// rows for the chosen objective, fit, calibrate (temperature and prior weight), and score for the card.
// Pure apart from reading program sources for static features.

import { totalCount } from "../dataset/distribution.js";
import { statesFromRuns } from "../dataset/abstractions.js";
import type { Abstraction, Prefix, RunRecords, Sample, State } from "../dataset/types.js";
import { UsageError } from "../errors.js";
import { applyRecord, newSchedulerTracker } from "../dataset/scheduler-state.js";
import { EVENT_TYPES, isEventType, RARE_EVENTS, type EventType, type GoroutineRecord } from "../core/index.js";
import { cardMetrics, type CardMetrics } from "./card-metrics.js";
import { calibratedNll, CONTEXT_CALIBRATION_FEATURE, fitContextTemperature, fitStudentCalibration, memberTemperatures } from "./calibration.js";
import {
  atContext,
  calibrateRow,
  FEATURE_COUNT,
  FEATURE_SPEC,
  FEATURE_VERSION,
  featurizePrefixes,
  fitNgram,
  modelLayout,
  nllOf,
  staticFeaturesOf,
  TAG_CLASSES,
  type ContextTemperature,
  type FeatureInputs,
  type ModelShape,
  type StaticFeatures,
  type StudentCalibration,
} from "../predict/index.js";
import { savedNgram } from "./adapter.js";
import { SPLIT_GRID_POINTS, runsOfSamples, splitGridStates } from "./split-grid.js";
import { familyWeightedCounts, outOfFoldRows, withOutOfFold } from "./calibration-set.js";
import { ensembleLogits, eventLogits, fitModel, fitStandardiser, type TrainingMatrix } from "./fit.js";
import { seededRandom, shuffleInPlace } from "../random.js";
import { nextEventRecord, tagTarget } from "./tags.js";
import { ensembleMembers, type StudentCard, type StudentData, type StudentSide, type TrainedStudent, type TrainingData, type TrainStudentOptions } from "./types.js";

const K = EVENT_TYPES.length;
const T = TAG_CLASSES.length;
/** Order of the training n-gram stacked into the features (the ngram:3 baseline's). */
export const STACKED_NGRAM_ORDER = 3;

/** Program split of one training run. Invariant: the three sets are disjoint. */
export interface ProgramSplit {
  readonly train: readonly string[];
  readonly validation: readonly string[];
  readonly holdout: readonly string[];
}

/**
 * Splits programs by name: the holdout as given, then a seeded `fraction` (at least one)
 * of the rest for validation. Throws UsageError when fewer than two programs remain to
 * train on, since validation is split by program, never by sample.
 */
export function splitPrograms(
  programs: readonly string[],
  holdout: readonly string[],
  fraction: number,
  seed: number,
  validationGiven?: readonly string[],
): ProgramSplit {
  const held = new Set(holdout);
  const rest = [...new Set(programs)].filter((p) => !held.has(p)).sort();
  if (rest.length < 2) {
    throw new UsageError(
      `only ${rest.length} program(s) left for training after the holdout; the validation split needs at least 2`,
      "Collect traces of more programs, or hold out fewer (--holdout).",
    );
  }
  const given = (validationGiven ?? []).filter((p) => rest.includes(p));
  if (given.length > 0 && given.length < rest.length) {
    const v = new Set(given);
    return { train: rest.filter((p) => !v.has(p)), validation: [...v].sort(), holdout: [...held].filter((p) => programs.includes(p)).sort() };
  }
  const shuffled = [...rest];
  shuffleInPlace(shuffled, seededRandom(seed ^ 0x5eed));
  const count = Math.min(rest.length - 1, Math.max(1, Math.round(rest.length * fraction)));
  const validation = shuffled.slice(0, count).sort();
  const validationSet = new Set(validation);
  return { train: rest.filter((p) => !validationSet.has(p)), validation, holdout: [...held].filter((p) => programs.includes(p)).sort() };
}

/** Class weights for --balance: (n_max / n_c)^τ for rare events, capped; 1 for the others and for unseen events. */
export function classWeights(totals: Readonly<Record<EventType, number>>, temper: number, cap: number): Record<EventType, number> {
  const max = Math.max(...EVENT_TYPES.map((e) => totals[e]));
  const weights = {} as Record<EventType, number>;
  for (const event of EVENT_TYPES) {
    const n = totals[event];
    weights[event] = RARE_EVENTS.includes(event) && n > 0 ? Math.min(cap, Math.pow(max / n, temper)) : 1;
  }
  return weights;
}

/** Loads static features of each program with a directory; failures give null and are listed. */
export async function loadStaticFeatures(programs: readonly string[], dirs: ReadonlyMap<string, string>): Promise<{ features: Map<string, StaticFeatures>; missing: string[] }> {
  const features = new Map<string, StaticFeatures>();
  const missing: string[] = [];
  for (const program of programs) {
    const dir = dirs.get(program);
    if (dir === undefined) {
      missing.push(program);
      continue;
    }
    try {
      features.set(program, await staticFeaturesOf(dir));
    } catch {
      missing.push(program);
    }
  }
  return { features, missing };
}

/**
 * Trains a student on decoded runs: splits them by program (the holdout as given, validation
 * as given or a seeded share) and builds each side's states, then trains as trainOnSplit.
 */
export async function trainStudent(name: string, data: TrainingData, options: TrainStudentOptions): Promise<TrainedStudent> {
  const programs = [...new Set(data.runs.map((r) => r.program))].sort();
  for (const p of options.holdoutPrograms) {
    if (!programs.includes(p)) throw new UsageError(`holdout program ${p} has no samples`, "List held-out programs by the names `schedlab` shows for them, or collect them first.");
  }
  const split = splitPrograms(programs, options.holdoutPrograms, options.validationFraction, options.seed, options.validationPrograms);
  const side = (set: readonly string[]): StudentSide => {
    const member = new Set(set);
    return { programs: set, ...statesAndSamples(data.runs.filter((r) => member.has(r.program)), options.abstraction) };
  };
  return trainOnSplit(name, { fit: side(split.train), validation: side(split.validation), holdout: side(split.holdout), programDirs: data.programDirs }, options);
}

/** Trains a student on split data and returns its weights, feature file and card. */
export async function trainOnSplit(name: string, data: StudentData, options: TrainStudentOptions): Promise<TrainedStudent> {
  if (options.calibrationMode !== "pooled" && options.calibrationFolds >= 2) {
    throw new UsageError(`calibration mode ${options.calibrationMode} is fitted on the validation families alone and cannot be combined with calibration folds`, "Pass --calibration-folds 0, or --calibration-mode pooled.");
  }
  if (data.validation.programs.length === 0) {
    throw new UsageError(
      `only ${data.fit.programs.length} training program(s) left after the holdout and none for validation: a validation split for early stopping and calibration needs at least 2 (whole families where there are several)`,
      "Collect traces of more programs, or hold out fewer (--holdout).",
    );
  }
  const split = { train: data.fit.programs, validation: data.validation.programs, holdout: data.holdout.programs };
  const programs = [...split.train, ...split.validation, ...split.holdout];
  const { features: staticFeatures, missing } = options.staticFeatures ? await loadStaticFeatures(programs, data.programDirs) : { features: new Map<string, StaticFeatures>(), missing: [] };
  const staticOf = (program: string): StaticFeatures | null => staticFeatures.get(program) ?? null;
  // The training n-gram the features stack (ngram.*, and the base of ctx.mix): fitted on the
  // fit side's samples only, like the ngram:3 baseline, and saved with the adapter.
  const ngram = fitNgram(STACKED_NGRAM_ORDER, 1, { samples: data.fit.samples });
  const inputs: FeatureInputs = { staticOf, ngram };
  // Split states are trained on at every 5 % of the run, the same question at more points.
  const grid = options.abstraction === "split" && options.splitGrid;
  const gridded = (side: StudentSide): StudentSide => (grid ? { programs: side.programs, ...splitGridStates(runsOfSamples(side.samples)) } : side);
  const { states: trainStates, samples: trainSamples } = gridded(data.fit);
  const { states: validationStates, samples: validationSamples } = gridded(data.validation);
  const holdoutStates = data.holdout.states;
  if (trainSamples.length === 0) throw new UsageError("no samples in the training programs", "Check the abstraction and that the training programs' runs were ingested.");

  const totals = classTotals(trainSamples);
  const weights = options.balance ? classWeights(totals, options.balanceTemper, options.balanceCap) : classWeights(totals, 0, 1);
  const sampleTags = options.tags ? tagsOfSamples(trainSamples) : null;
  const ceSamples = options.objective !== "kl" ? capSamplesPerProgram(trainSamples, options.maxSamplesPerProgram, options.seed) : null;
  const train =
    ceSamples !== null
      ? sampleRows(ceSamples.samples, inputs, weights, sampleTags === null ? null : pick(sampleTags, ceSamples.indices))
      : stateRows(trainStates, inputs, weights, options.tags ? stateTagTargets(trainSamples, sampleTags) : null);
  if (options.objective === "trajectory" && ceSamples !== null) setTrajectoryTargets(train, ceSamples.samples, options.trajectorySteps, options.trajectoryDiscount);
  const rowPrograms = ceSamples !== null ? ceSamples.samples.map((s) => s.prefix.program) : keptStates(trainStates).map((s) => s.program);
  scaleByProgram(train, rowPrograms, trainingProgramFactors(trainSamples));
  const validation = stateRows(validationStates, inputs, null, null);
  capProgramCounts(validation, keptStates(validationStates).map((s) => s.program));
  // Early stopping scores held-out rows of the kind the objective trains on. Per-sample rows
  // (ce, trajectory) are fitted to each run's own prefix, which under a pooled abstraction
  // (depth) nearly determines its next event while the state's representative prefix does
  // not determine its pooled p̂: scored on states, every trained epoch looked worse than the
  // random initialisation, and epoch 0 was kept (docs/experiments/training.md).
  const stopping = ceSamples !== null ? validationSampleRows(validationSamples, inputs, options) : validation;
  const holdout = stateRows(holdoutStates, inputs, null, null);

  options.onProgress?.(`${train.rows} training rows (${options.objective}), ${validation.rows} validation and ${holdout.rows} holdout states, ${FEATURE_COUNT} features`);
  const standardiser = fitStandardiser(train);

  const shape: ModelShape = {
    kind: options.model,
    inputs: FEATURE_COUNT,
    hidden: options.model === "mlp" ? options.hidden : 0,
    activation: options.activation,
    events: K,
    tags: options.tags ? T : 0,
  };
  // An ensemble of seeds where the training set is small (split): the members' mean
  // distribution is calibrated as one model (ensembleLogits).
  const memberCount = ensembleMembers(options.members, train.rows);
  const fits = Array.from({ length: memberCount }, (_, member) =>
    fitModel(shape, train, stopping, {
      seed: options.seed + member,
      epochs: options.epochs,
      batchSize: options.batchSize,
      learningRate: options.learningRate,
      l2: options.l2,
      patience: options.patience,
      tagWeight: options.tagWeight,
      onEpoch: (epoch, loss) => options.onProgress?.(`${memberCount > 1 ? `member ${member + 1}/${memberCount} ` : ""}epoch ${epoch}: validation NLL ${loss.toFixed(4)}`, true),
    }, standardiser),
  );
  const fit = fits[0];
  const members = fits.map((f) => f.params);
  // Calibration mode "per-member": each member's own temperature before the mean.
  const perMember = options.calibrationMode === "per-member" && members.length > 1 ? memberTemperatures(members.map((p) => eventLogits(shape, p, validation, standardiser)), validation, K) : undefined;
  const validationLogits = ensembleLogits(shape, members, validation, standardiser, perMember);
  // Calibration toward the training class marginal: a model confidently wrong on programs it
  // has not seen keeps a floor α·prior on every event that can occur, which temperature alone
  // only buys by flattening every prediction (docs/training.md, "Calibration").
  const calibrationSet =
    options.calibrationFolds >= 2
      ? withOutOfFold(
          { logits: validationLogits, rows: validation, programs: keptStates(validationStates).map((s) => s.program) },
          outOfFoldRows(shape, train, rowPrograms, stopping, standardiser, cappedStateRows(trainStates, inputs), keptStates(trainStates).map((s) => s.program), data.familyOf, options, fit.bestEpoch),
        )
      : { logits: validationLogits, rows: validation, programs: keptStates(validationStates).map((s) => s.program) };
  const calibrationRows = options.calibrationWeighting === "families" ? { ...calibrationSet.rows, counts: familyWeightedCounts(calibrationSet, data.familyOf) } : calibrationSet.rows;
  const pooled = fitStudentCalibration(calibrationSet.logits, calibrationRows, K, classMarginal(totals), calibrationRows.feasible, options);
  // Calibration mode "in-context": the temperature scaled by how predictable the run has been to itself.
  const { calibration, context } =
    options.calibrationMode === "in-context"
      ? fitContextTemperature(calibrationSet.logits, calibrationRows, K, pooled, calibrationRows.feasible, featureColumn(validation, CONTEXT_CALIBRATION_FEATURE), CONTEXT_CALIBRATION_FEATURE)
      : { calibration: pooled, context: undefined };
  const temperature = calibration.temperature;
  // The majority baseline is fitted on every non-held-out program, as the eval stage does.
  const seen = classTotals(trainSamples);
  for (const state of validationStates) for (const e of EVENT_TYPES) seen[e] += state.counts[e];
  const majorityEvent = EVENT_TYPES.reduce((a, b) => (seen[b] > seen[a] ? b : a));
  const score = (states: readonly State[], m: TrainingMatrix): CardMetrics | null =>
    states.length === 0 ? null : cardMetrics(scoredStates(states, ensembleLogits(shape, members, m, standardiser, perMember), calibration, m.feasible, context === undefined ? null : featureColumn(m, context.feature), context), majorityEvent);

  const card: StudentCard = {
    name,
    createdAt: new Date().toISOString(),
    data: {
      abstraction: options.abstraction,
      holdout: options.holdoutSpec,
      trainPrograms: split.train,
      validationPrograms: split.validation,
      holdoutPrograms: split.holdout,
      validationSplit: "program",
      trainSamples: trainSamples.length,
      trainStates: trainStates.length,
      trainRows: train.rows,
      validationStates: validationStates.length,
      holdoutSamples: holdoutStates.reduce((n, s) => n + totalCount(s.counts), 0),
      holdoutStates: holdoutStates.length,
      classTotals: totals,
      classWeights: weights,
      programsWithoutStaticFeatures: missing,
    },
    training: {
      objective: options.objective,
      model: options.model,
      tags: options.tags,
      balance: options.balance,
      staticFeatures: options.staticFeatures,
      seed: options.seed,
      hyperParameters: {
        hidden: shape.hidden,
        activation: options.activation,
        epochs: options.epochs,
        batchSize: options.batchSize,
        learningRate: options.learningRate,
        l2: options.l2,
        patience: options.patience,
        tagWeight: options.tags ? options.tagWeight : 0,
        balanceTemper: options.balance ? options.balanceTemper : 0,
        balanceCap: options.balance ? options.balanceCap : 1,
        validationFraction: options.validationFraction,
        maxSamplesPerProgram: options.objective !== "kl" ? options.maxSamplesPerProgram : "n/a",
        ...(options.objective === "trajectory" ? { trajectorySteps: options.trajectorySteps, trajectoryDiscount: options.trajectoryDiscount } : {}),
        ...(grid ? { splitGrid: SPLIT_GRID_POINTS.join(",") } : {}),
        feasibility: options.feasibility === "cap" ? `cap ${options.infeasibleCap}` : options.feasibility,
        members: memberCount,
        ...(memberCount > 1 ? { memberBestEpochs: fits.map((f) => f.bestEpoch).join(",") } : {}),
        calibrationMode: options.calibrationMode,
        ...(perMember === undefined ? {} : { memberTemperatures: perMember.map((t) => t.toFixed(3)).join(",") }),
        ...(context === undefined ? {} : { contextTemperature: `${context.feature} slope ${context.slope} centre ${context.centre.toFixed(3)}` }),
        programWeighting: "min(1, 4·median/n_p) on training rows and validation counts",
      },
      featureVersion: FEATURE_VERSION,
      features: FEATURE_COUNT,
      parameters: modelLayout(shape).size * memberCount,
      epochsRun: fit.epochsRun,
      bestEpoch: fit.bestEpoch,
      temperature,
      priorWeight: calibration.priorWeight,
      validationNll: contextualNll(validationLogits, validation, calibration, context),
    },
    holdout: score(holdoutStates, holdout),
    validation: score(validationStates, validation),
  };
  const staticTable: Record<string, StaticFeatures> = {};
  for (const [program, f] of [...staticFeatures].sort(([a], [b]) => a.localeCompare(b))) staticTable[program] = f;
  return {
    weights: {
      format: "schedlab-student",
      formatVersion: 2,
      featureVersion: FEATURE_VERSION,
      shape,
      params: Array.from(fit.params),
      ...(members.length > 1 ? { moreMembers: members.slice(1).map((p) => Array.from(p)) } : {}),
      mean: Array.from(standardiser.mean),
      std: Array.from(standardiser.std),
      temperature,
      priorWeight: calibration.priorWeight,
      prior: Array.from(calibration.prior),
      ...(perMember === undefined ? {} : { memberTemperatures: perMember }),
      ...(context === undefined ? {} : { contextTemperature: context }),
      feasibility: calibration.feasibility,
      infeasibleCap: calibration.infeasibleCap,
      eventTypes: [...EVENT_TYPES],
      tagClasses: [...TAG_CLASSES],
      usesStaticFeatures: options.staticFeatures,
    },
    features: { spec: FEATURE_SPEC, staticFeatures: staticTable, ngram: savedNgram(ngram) },
    card,
  };
}

/** States and full samples (with prefixes) of `runs` under `abstraction`, via the dataset stage. */
export function statesAndSamples(runs: readonly RunRecords[], abstraction: Abstraction): { states: State[]; samples: Sample[] } {
  const { states, samples: rows } = statesFromRuns(runs, abstraction);
  const byRun = new Map<string, RunRecords>();
  for (const run of runs) byRun.set(`${run.program}\0${run.runId}`, run);
  const samples = rows.map((row): Sample => {
    const run = byRun.get(`${row.program}\0${row.runId}`);
    if (run === undefined) throw new Error(`sample of unknown run ${row.program}#${row.runId}`);
    const prefix: Prefix = { program: run.program, runId: run.runId, procs: run.procs, records: run.records, end: row.end, goroutines: run.goroutines };
    return { stateId: row.stateId, prefix, next: row.next };
  });
  return { states, samples };
}

/**
 * Validation rows for per-sample objectives: each validation sample with its own prefix and
 * observed next event (unweighted), capped per program like the training samples, and with
 * program counts capped like the validation states.
 */
function validationSampleRows(samples: readonly Sample[], inputs: FeatureInputs, options: TrainStudentOptions): TrainingMatrix {
  const capped = capSamplesPerProgram(samples, options.maxSamplesPerProgram, options.seed).samples;
  const rows = sampleRows(capped, inputs, UNIT_WEIGHTS, null);
  capProgramCounts(rows, capped.map((s) => s.prefix.program));
  return rows;
}

const UNIT_WEIGHTS: Readonly<Record<EventType, number>> = { GoCreate: 1, GoStart: 1, GoBlock: 1, GoUnblock: 1, GoSched: 1, GoEnd: 1 };

/** States with at least one sample: the rows stateRows keeps, in the same order. */
function keptStates(states: readonly State[]): State[] {
  return states.filter((s) => totalCount(s.counts) > 0);
}

function pick(values: Int32Array, indices: readonly number[]): Int32Array {
  return Int32Array.from(indices, (i) => values[i]);
}

/**
 * At most `cap` samples per program (a seeded uniform choice, kept in original order), so
 * a program with a huge event stream neither dominates nor slows CE training.
 */
export function capSamplesPerProgram(samples: readonly Sample[], cap: number, seed: number): { samples: Sample[]; indices: number[] } {
  const byProgram = new Map<string, number[]>();
  samples.forEach((s, i) => {
    const list = byProgram.get(s.prefix.program);
    if (list === undefined) byProgram.set(s.prefix.program, [i]);
    else list.push(i);
  });
  const keep: number[] = [];
  const random = seededRandom(seed ^ 0xca9);
  for (const program of [...byProgram.keys()].sort()) {
    const indices = byProgram.get(program) ?? [];
    if (indices.length > cap) shuffleInPlace(indices, random);
    // A loop, not push(...spread): a program can have more samples than the call stack has slots.
    for (let j = 0; j < Math.min(cap, indices.length); j++) keep.push(indices[j]);
  }
  keep.sort((a, b) => a - b);
  return { samples: keep.map((i) => samples[i]), indices: keep };
}

/**
 * Per-program factors min(1, 4·median / n_p) on training weights: programs up to four times
 * the median size count fully; bigger ones are scaled down to that size.
 */
export function trainingProgramFactors(samples: readonly Sample[]): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const s of samples) sizes.set(s.prefix.program, (sizes.get(s.prefix.program) ?? 0) + 1);
  const sorted = [...sizes.values()].sort((a, b) => a - b);
  const median = sorted.length === 0 ? 1 : sorted[Math.floor((sorted.length - 1) / 2)];
  const factors = new Map<string, number>();
  for (const [program, n] of sizes) factors.set(program, Math.min(1, (4 * median) / n));
  return factors;
}

function scaleByProgram(m: TrainingMatrix, programs: readonly string[], factors: ReadonlyMap<string, number>): void {
  for (let r = 0; r < m.rows; r++) m.weights[r] *= factors.get(programs[r]) ?? 1;
}

/**
 * Caps each program's total count at 4 × the median program total (the rule training weights
 * use), so one program with a huge, easy event stream cannot decide early stopping and the
 * temperature alone, while small programs do not weigh more than their samples.
 */
function capProgramCounts(m: TrainingMatrix, programs: readonly string[]): void {
  const totals = new Map<string, number>();
  for (let r = 0; r < m.rows; r++) totals.set(programs[r], (totals.get(programs[r]) ?? 0) + m.counts[r]);
  if (totals.size === 0) return;
  const sorted = [...totals.values()].sort((a, b) => a - b);
  const cap = 4 * sorted[Math.floor((sorted.length - 1) / 2)];
  for (let r = 0; r < m.rows; r++) m.counts[r] *= Math.min(1, cap / (totals.get(programs[r]) ?? cap));
}

function classTotals(samples: readonly Sample[]): Record<EventType, number> {
  const totals = { GoCreate: 0, GoStart: 0, GoBlock: 0, GoUnblock: 0, GoSched: 0, GoEnd: 0 } as Record<EventType, number>;
  for (const s of samples) totals[s.next]++;
  return totals;
}

/**
 * Tag class index per sample (same order as `samples`), exact from the trace: samples of
 * one run are visited in prefix order with one scheduler tracker.
 */
export function tagsOfSamples(samples: readonly Sample[]): Int32Array {
  const tags = new Int32Array(samples.length);
  const byRun = new Map<readonly GoroutineRecord[], number[]>();
  samples.forEach((s, i) => {
    const list = byRun.get(s.prefix.records);
    if (list === undefined) byRun.set(s.prefix.records, [i]);
    else list.push(i);
  });
  for (const [records, indices] of byRun) {
    indices.sort((a, b) => samples[a].prefix.end - samples[b].prefix.end || a - b);
    const tracker = newSchedulerTracker();
    let applied = 0;
    for (const i of indices) {
      const s = samples[i];
      for (; applied < s.prefix.end; applied++) applyRecord(tracker, records[applied]);
      tags[i] = TAG_CLASSES.indexOf(tagTarget(s.next, nextEventRecord(s.prefix, s.next), tracker));
    }
  }
  return tags;
}

function stateTagTargets(samples: readonly Sample[], tags: Int32Array | null): Map<string, Float64Array> {
  const byState = new Map<string, Float64Array>();
  if (tags === null) return byState;
  samples.forEach((s, i) => {
    let v = byState.get(s.stateId);
    if (v === undefined) byState.set(s.stateId, (v = new Float64Array(T)));
    v[tags[i]]++;
  });
  for (const v of byState.values()) {
    const n = v.reduce((a, b) => a + b, 0);
    for (let c = 0; c < T; c++) v[c] /= n;
  }
  return byState;
}

/**
 * Trajectory targets (objective "trajectory"): row i's one-hot target becomes the γ-weighted
 * mixture of the run's next `steps` event types from sample i's position (its own next event
 * first, weight γ^j for step j, normalised over the steps the run still has). The row weight
 * stays the class weight of the next event. Σ_j γ^j·CE(e_{t+j}, q) = (Σ_j γ^j)·CE(mixture, q),
 * so fitting the mixture is the discounted multi-step loss up to a per-row constant.
 */
export function setTrajectoryTargets(m: TrainingMatrix, samples: readonly Sample[], steps: number, discount: number): void {
  if (!Number.isInteger(steps) || steps < 1) throw new UsageError(`trajectory steps must be a positive integer, got ${steps}`, "Pass e.g. --trajectory-steps 4.");
  if (!(discount > 0 && discount <= 1)) throw new UsageError(`trajectory discount must be in (0, 1], got ${discount}`, "Pass e.g. --trajectory-discount 0.5.");
  const sequences = new Map<readonly GoroutineRecord[], number[]>();
  samples.forEach((s, i) => {
    const records = s.prefix.records;
    let events = sequences.get(records);
    if (events === undefined) {
      events = [];
      for (let r = 0; r < records.length; r++) if (isEventType(records[r].kind)) events.push(r);
      sequences.set(records, events);
    }
    let lo = 0;
    let hi = events.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (events[mid] < s.prefix.end) lo = mid + 1;
      else hi = mid;
    }
    const row = m.events.subarray(i * K, (i + 1) * K);
    row.fill(0);
    let total = 0;
    for (let j = 0, w = 1; j < steps && lo + j < events.length; j++, w *= discount) {
      row[EVENT_TYPES.indexOf(records[events[lo + j]].kind as EventType)] += w;
      total += w;
    }
    if (total === 0) row[EVENT_TYPES.indexOf(s.next)] = 1;
    else for (let c = 0; c < K; c++) row[c] /= total;
  });
}

/** CE rows: one per sample, one-hot target, weight = class weight of its label. */
function sampleRows(samples: readonly Sample[], inputs: FeatureInputs, weights: Record<EventType, number>, tags: Int32Array | null): TrainingMatrix {
  const n = samples.length;
  const { x, feasible } = featurizePrefixes(samples.map((s) => s.prefix), inputs);
  const events = new Float64Array(n * K);
  const w = new Float64Array(n);
  const counts = new Float64Array(n).fill(1);
  const tagTargets = tags === null ? null : new Float64Array(n * T);
  samples.forEach((s, i) => {
    events[i * K + EVENT_TYPES.indexOf(s.next)] = 1;
    w[i] = weights[s.next];
    if (tagTargets !== null && tags !== null) tagTargets[i * T + tags[i]] = 1;
  });
  return { rows: n, inputs: FEATURE_COUNT, x, feasible, events, weights: w, counts, tags: tagTargets };
}

/**
 * KL rows: one per state, features of its representative prefix, target p̂. With class
 * weights w, the target becomes p̂·w normalised and the row weight n·Σ p̂_c w_c, which is
 * exactly the class-weighted CE summed over the state's samples.
 */
function stateRows(
  states: readonly State[],
  inputs: FeatureInputs,
  weights: Record<EventType, number> | null,
  tags: Map<string, Float64Array> | null,
): TrainingMatrix {
  const kept = states.filter((s) => totalCount(s.counts) > 0);
  const n = kept.length;
  const { x, feasible } = featurizePrefixes(kept.map((s) => s.representative), inputs);
  const events = new Float64Array(n * K);
  const w = new Float64Array(n);
  const counts = new Float64Array(n);
  const tagTargets = tags === null ? null : new Float64Array(n * T);
  kept.forEach((s, i) => {
    const total = totalCount(s.counts);
    counts[i] = total;
    let mass = 0;
    EVENT_TYPES.forEach((e, c) => {
      const v = (s.counts[e] / total) * (weights === null ? 1 : weights[e]);
      events[i * K + c] = v;
      mass += v;
    });
    for (let c = 0; c < K; c++) events[i * K + c] /= mass;
    w[i] = total * mass;
    if (tagTargets !== null) {
      const t = tags?.get(s.id);
      if (t !== undefined) tagTargets.set(t, i * T);
      else tagTargets[i * T] = 1;
    }
  });
  return { rows: n, inputs: FEATURE_COUNT, x, feasible, events, weights: w, counts, tags: tagTargets };
}

/** The training samples' class frequencies (EVENT_TYPES order), the prior of the calibration. */
function classMarginal(totals: Readonly<Record<EventType, number>>): Float64Array {
  const n = EVENT_TYPES.reduce((a, e) => a + totals[e], 0);
  return Float64Array.from(EVENT_TYPES, (e) => (n > 0 ? totals[e] / n : 1 / K));
}

/** The raw values of one feature column of `m` (the calibration's in-context evidence). */
function featureColumn(m: TrainingMatrix, feature: string): Float64Array {
  const column = FEATURE_SPEC.names.indexOf(feature);
  if (column < 0) throw new Error(`featureColumn: no feature ${feature}`);
  return Float64Array.from({ length: m.rows }, (_, r) => m.x[r * m.inputs + column]);
}

/** Validation NLL of calibrated logits, with the in-context temperature when there is one. */
function contextualNll(logits: Float64Array, m: TrainingMatrix, calibration: StudentCalibration, context: ContextTemperature | undefined): number {
  if (context === undefined) return calibratedNll(logits, m, K, calibration, m.feasible);
  const h = featureColumn(m, context.feature);
  return nllOf(logits, m, K, (q, offset) => calibrateRow(q, K, atContext(calibration, context, h[offset / K]), m.feasible, offset));
}

function scoredStates(
  states: readonly State[],
  logits: Float64Array,
  calibration: StudentCalibration,
  feasible: Uint8Array,
  evidence: Float64Array | null,
  context: ContextTemperature | undefined,
): { counts: number[]; probabilities: number[] }[] {
  const kept = states.filter((s) => totalCount(s.counts) > 0);
  const q = new Float64Array(K);
  return kept.map((s, i) => {
    for (let c = 0; c < K; c++) q[c] = logits[i * K + c];
    calibrateRow(q, K, evidence === null ? calibration : atContext(calibration, context, evidence[i]), feasible, i * K);
    return { counts: EVENT_TYPES.map((e) => s.counts[e]), probabilities: Array.from(q) };
  });
}

/** State rows of `states` (no class weights) with program counts capped like the validation rows. */
function cappedStateRows(states: readonly State[], inputs: FeatureInputs): TrainingMatrix {
  const rows = stateRows(states, inputs, null, null);
  capProgramCounts(rows, keptStates(states).map((s) => s.program));
  return rows;
}
