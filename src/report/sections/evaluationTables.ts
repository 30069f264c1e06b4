// The rows of the evaluation tables, shared by the HTML, Markdown and terminal renderings,
// so every output shows the same numbers under the same headings.

import { overconfidenceOfBins, type BootstrapInterval } from "../../metrics/index.js";
import type {
  PredictorComparison,
  PredictorEvaluation,
  ProgramLead,
  SampleConcentration,
  WeightedFigures,
} from "../../eval/index.js";
import {
  count,
  EVENT_TYPES,
  fixed,
  interval,
  MISSING,
  pct,
  pctInterval,
  plural,
  pValue,
  RARE_EVENTS,
  signed,
} from "../../core/index.js";

export const HEADLINE_HEADERS = [
  "predictor",
  "accuracy",
  "95% CI",
  "other runs",
  "mode acc",
  "ceiling",
  "LOO ceiling",
  "majority",
  "macro-F1",
  "ECE",
  "ECE 95% CI",
  "ECE other runs",
  "conf − acc",
  "Brier",
  "NLL",
  "KL",
  "L1",
  "H ρ",
  "H r",
  ...RARE_EVENTS.map((e) => `R ${e}`),
] as const;

/** A bootstrap interval as results and stored boards keep it (boards drop the resample count). */
export type IntervalLike = Pick<BootstrapInterval, "estimate" | "lower" | "upper"> & { readonly resamples?: number };

/** Family and program means as WeightedFigures and the CV board (BoardMeans) both hold them. */
export interface MeansLike {
  readonly accuracy: { readonly familyMean: IntervalLike; readonly programMean: IntervalLike };
  readonly ece: { readonly familyMean: IntervalLike; readonly programMean: IntervalLike };
  readonly nll: { readonly familyMean: IntervalLike; readonly programMean: IntervalLike };
}

/** "[lower, upper]" of a bootstrap interval; "–" when none was computed (results stored before it existed). */
export function bootstrapIntervalCell(i: IntervalLike): string {
  return i.resamples === 0 || !(Number.isFinite(i.lower) && Number.isFinite(i.upper))
    ? MISSING
    : interval(i.lower, i.upper);
}

/** An estimate with its bootstrap interval, e.g. "0.069 [0.031, 0.121]"; the estimate alone when there is no interval. */
export function estimateWithInterval(x: number, i: IntervalLike): string {
  const bounds = bootstrapIntervalCell(i);
  return bounds === MISSING ? fixed(x) : `${fixed(x)} ${bounds}`;
}

/**
 * The pooled figures beside their family and program means: a pooled figure weighs programs by
 * their samples, the means weigh every family, and every program, once (src/eval/weighted.ts).
 */
export const MEANS_HEADERS = [
  "predictor",
  "accuracy pooled",
  "family mean",
  "program mean",
  "ECE pooled",
  "family mean",
  "program mean",
  "NLL pooled",
  "family mean",
  "program mean",
] as const;

/** Column indices of MEANS_HEADERS that hold numbers. */
export const MEANS_NUMERIC = MEANS_HEADERS.map((_, i) => i).filter((i) => i > 0);

/** One predictor's row of MEANS_HEADERS; null when its result predates the means. */
export function meansRow(
  name: string,
  pooled: { readonly accuracy: number; readonly ece: number; readonly nll: number },
  means: MeansLike | undefined,
): string[] | null {
  if (means === undefined) return null;
  return [
    name,
    fixed(pooled.accuracy),
    estimateWithInterval(means.accuracy.familyMean.estimate, means.accuracy.familyMean),
    estimateWithInterval(means.accuracy.programMean.estimate, means.accuracy.programMean),
    fixed(pooled.ece),
    estimateWithInterval(means.ece.familyMean.estimate, means.ece.familyMean),
    estimateWithInterval(means.ece.programMean.estimate, means.ece.programMean),
    fixed(pooled.nll),
    estimateWithInterval(means.nll.familyMean.estimate, means.nll.familyMean),
    estimateWithInterval(means.nll.programMean.estimate, means.nll.programMean),
  ];
}

/** The rows of MEANS_HEADERS of an evaluation's predictors (those whose results have the means). */
export function evaluationMeansRows(predictors: readonly PredictorEvaluation[]): string[][] {
  return predictors.map((p) => meansRow(p.name, p, p.means)).filter((row): row is string[] => row !== null);
}

/**
 * An accuracy's family and program means in words, e.g. "family mean 70.1% [64.2, 75.3], program
 * mean 68.0% [61.9, 73.8]" (the program mean alone when families were too few to resample).
 */
export function accuracyMeansText(means: WeightedFigures): string {
  const { familyMean, programMean } = means.accuracy;
  return (
    (means.unit === "family" ? `family mean ${pct(familyMean.estimate)} ${pctInterval(familyMean)}, ` : "") +
    `program mean ${pct(programMean.estimate)} ${pctInterval(programMean)}`
  );
}

/** What a pooled figure weighs, in a few words: " (half its samples from 2 of 247 programs)"; "" when unknown. */
export function halfSamplesText(c: SampleConcentration | undefined): string {
  return c === undefined || c.programs === 0
    ? ""
    : ` (half its samples from ${c.programsForHalf} of ${plural(c.programs, "program")})`;
}

/**
 * What the pooled figures weigh, in words: e.g. "pooled figures weigh programs by their samples:
 * half of the 325 418 samples come from 2 of 247 programs (the largest, P, holds 31 %; the four
 * largest 62 %); the family and program means count each once".
 */
export function concentrationLine(c: SampleConcentration | undefined, unit: "family" | "program" = "family"): string {
  if (c === undefined || c.programs === 0) return "";
  const means =
    unit === "family"
      ? "the family and program means count each family and program once"
      : "the program means count each program once (too few families to resample them)";
  return (
    `Pooled figures weigh programs by their samples: half of the ${count(c.samples)} samples come from ` +
    `${c.programsForHalf} of ${c.programs} programs (the largest, ${c.largestProgram}, holds ${pct(c.largestShare)}` +
    `${c.programs > 4 ? `; the four largest ${pct(c.largestFourShare)}` : ""}); ${means}.`
  );
}

/** Column indices of HEADLINE_HEADERS that hold numbers. */
export const HEADLINE_NUMERIC = HEADLINE_HEADERS.map((_, i) => i).filter((i) => i > 0);

export function headlineRow(p: PredictorEvaluation): string[] {
  return [
    p.name,
    fixed(p.accuracy),
    interval(p.accuracyInterval.lower, p.accuracyInterval.upper),
    p.otherRunsAccuracy === undefined ? MISSING : fixed(p.otherRunsAccuracy),
    fixed(p.modeAccuracy),
    fixed(p.ceiling),
    fixed(p.ceilingLoo),
    fixed(p.majority),
    fixed(p.macroF1),
    fixed(p.ece),
    bootstrapIntervalCell(p.eceInterval),
    p.otherRunsEce === undefined ? MISSING : fixed(p.otherRunsEce),
    signed(overconfidenceOfBins(p.reliability)),
    fixed(p.brier),
    fixed(p.nll),
    fixed(p.kl),
    fixed(p.l1),
    fixed(p.entropySpearman),
    fixed(p.entropyPearson),
    ...RARE_EVENTS.map((e) => fixed(p.perEvent[e].recall)),
  ];
}

export const PER_EVENT_HEADERS = ["event", "precision", "recall", "F1", "support", "predicted"] as const;

export function perEventRows(p: PredictorEvaluation): string[][] {
  return EVENT_TYPES.map((e) => {
    const s = p.perEvent[e];
    return [e, fixed(s.precision), fixed(s.recall), fixed(s.f1), count(s.support), count(s.predicted)];
  });
}

export const ENTROPY_HEADERS = [
  "predictor",
  "states",
  "mean H(q) bits",
  "mean H(p̂) bits",
  "Spearman ρ",
  "ρ 95% CI (clusters)",
  "p (cluster permutation)",
  "p (assumes independent states)",
  "Pearson r",
] as const;

export function entropyRow(p: PredictorEvaluation): string[] {
  return [
    p.name,
    String(p.entropyStates),
    fixed(p.meanPredictedEntropy),
    fixed(p.meanEmpiricalEntropy),
    fixed(p.entropySpearman),
    bootstrapIntervalCell(p.entropySpearmanInterval),
    pValue(p.entropySpearmanP),
    pValue(p.entropySpearmanPIndependent),
    fixed(p.entropyPearson),
  ];
}

export const COMPARISON_HEADERS = [
  "A",
  "B",
  "acc A",
  "acc B",
  "A − B",
  "95% CI (clusters)",
  "p (cluster sign-flip)",
  "clusters",
  "programs ahead by > 2 points: A / B",
  "p (McNemar, assumes independent samples)",
] as const;

export function comparisonRow(c: PredictorComparison): string[] {
  return [
    c.a,
    c.b,
    fixed(c.accuracyA),
    fixed(c.accuracyB),
    signed(c.difference.estimate),
    interval(c.difference.lower, c.difference.upper),
    pValue(c.clusterTest.pValue),
    `${c.clusterUnit.clusters} ${c.clusterUnit.unit === "family" ? "families" : "programs"}`,
    c.programLeads === undefined ? MISSING : `${c.programLeads.aAhead} / ${c.programLeads.bAhead}`,
    pValue(c.mcnemarIndependent.pValue),
  ];
}

/**
 * One line per predictor of a comparison that leads the other on some program by more than the
 * margin: how many programs, and the largest leads with both accuracies (empty when neither does).
 */
export function programLeadLines(c: PredictorComparison): string[] {
  const leads = c.programLeads;
  if (leads === undefined) return [];
  const line = (
    ahead: string,
    behind: string,
    n: number,
    largest: readonly ProgramLead[],
    first: "A" | "B",
  ): string[] =>
    n === 0
      ? []
      : [
          `${ahead} ahead of ${behind} by more than ${(100 * leads.margin).toFixed(0)} points on ${n} of ${leads.programs} programs: ` +
            largest
              .map((l) => {
                const [mine, theirs] = first === "A" ? [l.accuracyA, l.accuracyB] : [l.accuracyB, l.accuracyA];
                return `${l.program} ${(100 * mine).toFixed(1)} % against ${(100 * theirs).toFixed(1)} % (${count(l.samples)} samples)`;
              })
              .join(", ") +
            (n > largest.length ? ", …" : ""),
        ];
  return [...line(c.a, c.b, leads.aAhead, leads.largestA, "A"), ...line(c.b, c.a, leads.bAhead, leads.largestB, "B")];
}
