// The student's card: what a training run records about the student it made (data, training
// settings, the calibrated ensemble's holdout and validation metrics), as card.json's object
// and as the human-readable card.md.

import { cappedLine, DEFAULT_HOLDOUT_FRACTION, totalCount, type Sample, type State } from "../dataset/index.js";
import { EVENT_TYPES, fixed, pct, type EventType } from "../core/index.js";
import {
  atContext,
  calibrateRow,
  FEATURE_COUNT,
  FEATURE_SPEC,
  FEATURE_VERSION,
  modelLayout,
  networkReader,
  nllOf,
  studentExpertShares,
  withEarned,
  type ConfidenceEvidence,
  type ContextTemperature,
  type EarnedShares,
  type ExpertEvidence,
  type FeatureInputs,
  type ModelShape,
  type StudentCalibration,
} from "../predict/index.js";
import { cardMetrics, type CardMetrics } from "./card-metrics.js";
import { ensembleLogits, type FitResult, type TrainingMatrix } from "./fit.js";
import type { Standardiser } from "./standardiser.js";
import { denseFeatures } from "./feature-matrix.js";
import { featureColumn } from "./rows.js";
import { SPLIT_GRID_POINTS } from "./split-grid.js";
import type { StudentCard, TrainStudentOptions } from "./types.js";
import { classTotals } from "./weighting.js";

const K = EVENT_TYPES.length;

/** A trained student as the card scores it: the ensemble's members, their inputs' standardiser and the calibration. */
export interface CalibratedEnsemble {
  readonly shape: ModelShape;
  readonly members: readonly Float64Array[];
  readonly standardiser: Standardiser;
  /** Calibration mode "per-member": each member's temperature before the mean. */
  readonly memberTemperatures: readonly number[] | undefined;
  readonly calibration: StudentCalibration;
  /** Calibration mode "in-context": the temperature's dependence on a feature of the row. */
  readonly context: ContextTemperature | undefined;
  /** The in-context expert's share earned by each run's earlier events, in place of calibration.expertWeight. */
  readonly evidence: ExpertEvidence | undefined;
  /** With evidence: the student's confidence levels weighed by each run's earlier events. */
  readonly confidence: ConfidenceEvidence | undefined;
}

/** The majority baseline's event: the most frequent next event of every non-held-out program, as the eval stage fits it. */
export function majorityEventOf(trainSamples: readonly Sample[], validationStates: readonly State[]): EventType {
  const seen = classTotals(trainSamples);
  for (const state of validationStates) for (const e of EVENT_TYPES) seen[e] += state.counts[e];
  return EVENT_TYPES.reduce((a, b) => (seen[b] > seen[a] ? b : a));
}

/**
 * The card metrics of `states` (their rows `m`) under the calibrated ensemble; null when there
 * are none. `shares` are the expert's evidence-earned shares of the states with samples when
 * the caller has them already (studentEvidence of those states); otherwise they are computed.
 */
export function scoreStates(
  states: readonly State[],
  m: TrainingMatrix,
  student: CalibratedEnsemble,
  majorityEvent: EventType,
  inputs: FeatureInputs,
  known?: EarnedShares | null,
): CardMetrics | null {
  if (states.length === 0) return null;
  const { shape, members, standardiser, memberTemperatures } = student;
  const logits = ensembleLogits(shape, members, m, standardiser, memberTemperatures);
  const kept = states.filter((s) => totalCount(s.counts) > 0);
  const shares =
    known !== undefined
      ? known
      : student.evidence === undefined
        ? null
        : studentEvidence(student, student.evidence, kept, inputs);
  const calibrationOf = rowCalibrations(student, m, shares);
  const features = expertFeatures(m, student.calibration, shares);
  const q = new Float64Array(K);
  const scored = kept.map((s, i) => {
    for (let c = 0; c < K; c++) q[c] = logits[i * K + c];
    calibrateRow(q, K, calibrationOf(i), m.feasible, i * K, features);
    return { counts: EVENT_TYPES.map((e) => s.counts[e]), probabilities: Array.from(q) };
  });
  return cardMetrics(scored, majorityEvent);
}

/** Row r's calibration: the in-context temperature when there is one, the evidence-earned expert share when given. */
function rowCalibrations(
  student: Pick<CalibratedEnsemble, "calibration" | "context">,
  m: TrainingMatrix,
  shares: EarnedShares | null,
): (r: number) => StudentCalibration {
  const { calibration, context } = student;
  const h = context === undefined ? null : featureColumn(m, context.feature);
  return (r) => {
    const at = h === null ? calibration : atContext(calibration, context, h[r]);
    return shares === null ? at : withEarned(at, shares, r);
  };
}

/**
 * The in-context expert's share at each state (`kept`: states with samples, in row order) under
 * `evidence`, as the adapter's predictor will compute it.
 */
export function studentEvidence(
  student: CalibratedEnsemble,
  evidence: ExpertEvidence,
  kept: readonly State[],
  inputs: FeatureInputs,
): EarnedShares {
  const { shape, members, standardiser, calibration, context } = student;
  const network = networkReader({
    shape,
    members,
    mean: standardiser.mean,
    std: standardiser.std,
    ...(standardiser.low === undefined || standardiser.high === undefined
      ? {}
      : { low: standardiser.low, high: standardiser.high }),
    memberTemperatures: student.memberTemperatures ?? members.map(() => 1),
  });
  const column = context === undefined ? -1 : FEATURE_SPEC.names.indexOf(context.feature);
  return studentExpertShares(
    kept.map((s) => s.representative),
    inputs,
    network,
    (row) => (column < 0 ? calibration : atContext(calibration, context, row[column])),
    evidence,
    undefined,
    student.confidence,
  );
}

/** Validation NLL of calibrated logits, with the in-context temperature and the expert's shares (`shares`) when there are. */
export function contextualNll(
  logits: Float64Array,
  m: TrainingMatrix,
  student: Pick<CalibratedEnsemble, "calibration" | "context">,
  shares: EarnedShares | null,
): number {
  const calibrationOf = rowCalibrations(student, m, shares);
  const features = expertFeatures(m, student.calibration, shares);
  return nllOf(logits, m, K, (q, offset) =>
    calibrateRow(q, K, calibrationOf(offset / K), m.feasible, offset, features),
  );
}

/**
 * The raw features calibrateRow reads the in-context expert from (by row and column): the
 * dense rows of `m` when the calibration mixes the expert in (a fixed share, or shares earned by
 * evidence), else null (it reads none).
 */
function expertFeatures(
  m: TrainingMatrix,
  calibration: StudentCalibration,
  shares: EarnedShares | null,
): Float32Array | null {
  return shares !== null || (calibration.expertWeight ?? 0) > 0 ? denseFeatures(m.x) : null;
}

/** What a training run knows when it writes the card. */
export interface CardFacts {
  readonly name: string;
  readonly options: TrainStudentOptions;
  readonly programs: {
    readonly train: readonly string[];
    readonly validation: readonly string[];
    readonly holdout: readonly string[];
  };
  /** Whether split states were trained on at every SPLIT_GRID_POINTS. */
  readonly splitGrid: boolean;
  readonly trainSamples: number;
  readonly trainStates: number;
  readonly trainRows: number;
  readonly validationStates: number;
  readonly holdoutStates: readonly State[];
  readonly classTotals: Readonly<Record<EventType, number>>;
  readonly classWeights: Readonly<Record<EventType, number>>;
  readonly programsWithoutStaticFeatures: readonly string[];
  readonly student: CalibratedEnsemble;
  /** Each member's fit, the first the student's own. */
  readonly fits: readonly FitResult[];
  readonly validationNll: number;
  readonly holdout: CardMetrics | null;
  readonly validation: CardMetrics | null;
}

/** The card of a trained student (card.json). */
export function studentCard(facts: CardFacts): StudentCard {
  const { options, student, fits } = facts;
  const { shape, memberTemperatures, calibration, context } = student;
  const fit = fits[0];
  return {
    name: facts.name,
    createdAt: new Date().toISOString(),
    data: {
      abstraction: options.abstraction,
      holdout: options.holdoutSpec,
      trainPrograms: facts.programs.train,
      validationPrograms: facts.programs.validation,
      holdoutPrograms: facts.programs.holdout,
      validationSplit: "program",
      trainSamples: facts.trainSamples,
      trainStates: facts.trainStates,
      trainRows: facts.trainRows,
      validationStates: facts.validationStates,
      holdoutSamples: facts.holdoutStates.reduce((n, s) => n + totalCount(s.counts), 0),
      holdoutStates: facts.holdoutStates.length,
      classTotals: facts.classTotals,
      classWeights: facts.classWeights,
      programsWithoutStaticFeatures: facts.programsWithoutStaticFeatures,
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
        expertSkip: options.expertSkip ? 1 : 0,
        epochs: options.epochs,
        batchSize: options.batchSize,
        learningRate: options.learningRate,
        l2: options.l2,
        patience: options.patience,
        tagWeight: options.tags ? options.tagWeight : 0,
        balanceTemper: options.balance ? options.balanceTemper : 0,
        balanceCap: options.balance ? options.balanceCap : 1,
        // The dataset split's share of families set aside for validation.
        validationFraction: DEFAULT_HOLDOUT_FRACTION,
        ceSamplesPerProgram: options.objective !== "kl" ? options.ceSamplesPerProgram : "n/a",
        ...(options.objective === "trajectory"
          ? { trajectorySteps: options.trajectorySteps, trajectoryDiscount: options.trajectoryDiscount }
          : {}),
        ...(facts.splitGrid ? { splitGrid: SPLIT_GRID_POINTS.join(",") } : {}),
        feasibility: options.feasibility === "cap" ? `cap ${options.infeasibleCap}` : options.feasibility,
        members: fits.length,
        ...(fits.length > 1 ? { memberBestEpochs: fits.map((f) => f.bestEpoch).join(",") } : {}),
        calibrationMode: options.calibrationMode,
        ...(memberTemperatures === undefined
          ? {}
          : { memberTemperatures: memberTemperatures.map((t) => t.toFixed(3)).join(",") }),
        ...(context === undefined
          ? {}
          : { contextTemperature: `${context.feature} slope ${context.slope} centre ${context.centre.toFixed(3)}` }),
        inContextExpert:
          facts.student.evidence !== undefined
            ? `share earned by evidence: prior ${facts.student.evidence.prior}, switch rate ` +
              `${facts.student.evidence.switchRate}, largest share ${facts.student.evidence.maxShare}`
            : `fixed share ${calibration.expertWeight ?? 0}`,
        confidenceEvidence:
          facts.student.confidence === undefined
            ? "none"
            : `levels ${facts.student.confidence.levels.join(",")}, prior ${facts.student.confidence.prior}, ` +
              `switch rate ${facts.student.confidence.switchRate}`,
        mixtureTemperature: (calibration.mixtureTemperature ?? 1).toFixed(3),
        expertTemperature: (calibration.expertTemperature ?? 1).toFixed(3),
        programWeighting: "min(1, 4·median/n_p) on training rows and validation counts",
      },
      featureVersion: FEATURE_VERSION,
      features: FEATURE_COUNT,
      parameters: modelLayout(shape).size * fits.length,
      epochsRun: fit.epochsRun,
      bestEpoch: fit.bestEpoch,
      temperature: calibration.temperature,
      priorWeight: calibration.priorWeight,
      validationNll: facts.validationNll,
    },
    holdout: facts.holdout,
    validation: facts.validation,
  };
}

function metricsTable(title: string, m: CardMetrics | null): string {
  if (m === null) return `## ${title}\n\nNothing held out.\n`;
  return [
    `## ${title}`,
    "",
    `${m.states} states, ${m.samples} samples.`,
    "",
    "| accuracy | majority (" +
      m.majorityEvent +
      ") | ceiling | macro-F1 | ECE (15 bins) | NLL | recall GoEnd | recall GoSched | recall GoUnblock |",
    "|---|---|---|---|---|---|---|---|---|",
    `| ${pct(m.accuracy)} | ${pct(m.majority)} | ${pct(m.ceiling)} | ${fixed(m.macroF1)} | ${fixed(m.ece)} | ${fixed(m.nll)} ` +
      `| ${pct(m.recall.GoEnd)} | ${pct(m.recall.GoSched)} | ${pct(m.recall.GoUnblock)} |`,
    "",
  ].join("\n");
}

/** The human-readable card (card.md). */
export function cardMarkdown(card: StudentCard): string {
  const t = card.training;
  const d = card.data;
  const hyper = Object.entries(t.hyperParameters)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(", ");
  return [
    `# Student adapter: ${card.name}`,
    "",
    `Trained ${card.createdAt} by \`schedlab train\`. Predictor spec: \`student:<this directory>\`.`,
    "",
    "## Training",
    "",
    `- objective: **${t.objective}**${t.tags ? " + reasoning tags" : ""}${t.balance ? " + class rebalancing" : ""}` +
      `${t.staticFeatures ? " + static source features" : ""}; model: **${t.model}**; seed ${t.seed}`,
    `- hyper-parameters: ${hyper}`,
    `- ${t.features} features (spec version ${t.featureVersion}), ${t.parameters} parameters; ${t.epochsRun} epochs run, best epoch ${t.bestEpoch}`,
    `- calibration fitted on the validation programs: temperature ${fixed(t.temperature)}, ` +
      `weight ${fixed(t.priorWeight, 2)} of the training class marginal (q = F((1 − α)·softmax(z/T) + α·marginal), ` +
      `F the feasibility rule ${String(t.hyperParameters.feasibility ?? "none")}; validation NLL ${fixed(t.validationNll)})`,
    "",
    "## Data",
    "",
    `- abstraction: **${d.abstraction}**; holdout: ${d.holdout}`,
    `- train: ${d.trainPrograms.length} programs, ${d.trainSamples} samples, ${d.trainStates} states (${d.trainRows} training rows)`,
    `- validation (split by ${d.validationSplit}): ${d.validationPrograms.length} programs, ${d.validationStates} states`,
    `- holdout: ${d.holdoutPrograms.length} programs, ${d.holdoutStates} states, ${d.holdoutSamples} samples`,
    `- training class totals: ${EVENT_TYPES.map((e) => `${e} ${d.classTotals[e]}`).join(", ")}`,
    `- class weights: ${EVENT_TYPES.map((e) => `${e} ${fixed(d.classWeights[e], 2)}`).join(", ")}`,
    ...(d.sampleCap === undefined ? [] : [`- ${cappedLine(d.sampleCap)}`]),
    !t.staticFeatures
      ? "- static source features not used (columns zero)"
      : d.programsWithoutStaticFeatures.length > 0
        ? `- programs without static features: ${d.programsWithoutStaticFeatures.join(", ")}`
        : "- static features for every program",
    "",
    metricsTable("Holdout", card.holdout),
    metricsTable("Validation (after calibration)", card.validation),
  ].join("\n");
}
