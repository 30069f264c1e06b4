// The per-state distribution report behind `schedlab dist`: counts, p̂, entropy and runs
// per state, with the ceiling and majority baseline, as data and as a terminal table.

import type { SchedlabDatabase } from "../store/index.js";
import { EVENT_TYPES, fixed, pct, type EventType } from "../core/index.js";
import { summarizeStates } from "./summary.js";
import type { DistributionSummary } from "./summary.js";
import { entropyBits, probabilities, totalCount } from "./distribution.js";
import { resolveHoldout } from "./split.js";
import { cappedLine, DEFAULT_MAX_SAMPLES_PER_PROGRAM, sampleCapJson, type CappedProgram } from "./sample-cap.js";
import { cappedPrograms, loadDataset } from "./store.js";
import type { Abstraction, EventCounts, RunSelection } from "./types.js";

export interface DistributionReportOptions {
  readonly abstraction: Abstraction;
  /** Show only this program's states (pooled abstractions pool over it alone). */
  readonly program?: string;
  /** Holdout spec (see resolveHoldout); without --program, the test programs are shown. */
  readonly holdout?: string;
  /** Which runs feed the states (default plain). */
  readonly runs?: RunSelection;
  /** Samples one program may put into the dataset (default DEFAULT_MAX_SAMPLES_PER_PROGRAM, docs/dataset.md). */
  readonly maxSamplesPerProgram?: number;
}

export interface StateDistributionRow {
  readonly id: string;
  readonly program: string;
  readonly key: string;
  readonly counts: EventCounts;
  readonly entropy: number;
  readonly runs: number;
}

export interface DistributionReport {
  readonly abstraction: Abstraction;
  readonly programs: readonly string[];
  /** Programs the majority class was learned on. */
  readonly trainPrograms: readonly string[];
  readonly majorityClass: EventType | null;
  readonly holdout: string;
  readonly states: readonly StateDistributionRow[];
  readonly summary: DistributionSummary;
  /** The sample cap, and the shown programs above it (each sampled evenly along its runs). */
  readonly cap: number;
  readonly capped: readonly CappedProgram[];
}

/**
 * Shown states: --program's, else the holdout's test programs when --holdout is given, else
 * every program. The majority class is learned on the holdout's training programs (the
 * default holdout when none is given) and scored on the shown states; the ceiling is the
 * mode accuracy of the shown states.
 */
export function distributionReport(db: SchedlabDatabase, options: DistributionReportOptions): DistributionReport {
  const split = resolveHoldout(db, options.holdout, options.runs);
  const shownPrograms =
    options.program !== undefined ? [options.program] : options.holdout !== undefined ? [...split.test] : undefined;
  const cap = options.maxSamplesPerProgram ?? DEFAULT_MAX_SAMPLES_PER_PROGRAM;
  const dataset = { abstraction: options.abstraction, runs: options.runs, maxSamplesPerProgram: cap };
  const shown = loadDataset(db, { ...dataset, programs: shownPrograms, samples: true });
  const train = split.train.length === 0 ? [] : loadDataset(db, { ...dataset, programs: split.train }).states;
  const summary = summarizeStates(train, shown.states, shown.samples);
  const pooledTrain = train.length === 0 ? undefined : majorityOf(train.map((s) => s.counts));
  return {
    abstraction: options.abstraction,
    programs: shown.programs,
    trainPrograms: split.train,
    majorityClass: pooledTrain ?? null,
    holdout: split.spec,
    states: shown.states.map((s) => ({
      id: s.id,
      program: s.program,
      key: s.key,
      counts: s.counts,
      entropy: entropyBits(s.counts),
      runs: s.runs,
    })),
    summary,
    cap,
    capped: cappedPrograms(db, { ...dataset, programs: shown.programs }),
  };
}

function majorityOf(counts: readonly EventCounts[]): EventType | undefined {
  const totals = EVENT_TYPES.map((e) => counts.reduce((sum, c) => sum + c[e], 0));
  let best = -1;
  totals.forEach((n, i) => {
    if (n > 0 && (best < 0 || n > totals[best])) best = i;
  });
  return best < 0 ? undefined : EVENT_TYPES[best];
}

/** The --json document: exactly these field names (see docs/dataset.md). */
export function distributionJson(report: DistributionReport): object {
  return {
    states: report.states.map((s) => ({
      program: s.program,
      key: s.key,
      counts: s.counts,
      entropy: s.entropy,
      runs: s.runs,
    })),
    summary: {
      ceiling: finiteOrNull(report.summary.ceiling),
      ceilingLoo: finiteOrNull(report.summary.ceilingLoo),
      seenOnce: {
        states: finiteOrNull(report.summary.seenOnce.states),
        samples: finiteOrNull(report.summary.seenOnce.samples),
      },
      majority: finiteOrNull(report.summary.majority),
      classFrequencies: report.summary.classFrequencies,
      meanEntropy: finiteOrNull(report.summary.meanEntropy),
      multiOutcomeShare: finiteOrNull(report.summary.multiOutcomeShare),
    },
    cap: sampleCapJson({ maxSamplesPerProgram: report.cap, capped: report.capped }),
  };
}

function finiteOrNull(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}

const SHORT: Readonly<Record<EventType, string>> = {
  GoCreate: "Create",
  GoStart: "Start",
  GoBlock: "Block",
  GoUnblock: "Unblock",
  GoSched: "Sched",
  GoEnd: "End",
};

/**
 * A fixed-width table, one line per state (at most `maxRows`, the rest counted), then the
 * summary. Cells are "count (p̂)"; keys longer than `keyWidth` are cut with "…".
 */
export function formatDistributionTable(
  report: DistributionReport,
  options: { maxRows?: number; keyWidth?: number } = {},
): string {
  const maxRows = options.maxRows ?? Infinity;
  const keyWidth = options.keyWidth ?? 48;
  const cut = (text: string, width: number) =>
    text.length <= width ? text.padEnd(width) : `${text.slice(0, width - 1)}…`;
  const programWidth = Math.min(32, Math.max(7, ...report.states.map((s) => s.program.length)));
  const header = [
    cut("program", programWidth),
    cut("key", keyWidth),
    ...EVENT_TYPES.map((e) => SHORT[e].padStart(11)),
    "H(bits)".padStart(8),
    "runs".padStart(5),
  ].join(" ");
  const lines = [
    `abstraction ${report.abstraction}: ${report.states.length} states over ${report.programs.length} programs`,
    header,
  ];
  for (const s of report.states.slice(0, maxRows)) {
    const p = probabilities(s.counts);
    const cells = EVENT_TYPES.map((e, i) =>
      (s.counts[e] === 0 ? "·" : `${s.counts[e]} (${p[i].toFixed(2)})`).padStart(11),
    );
    lines.push(
      [
        cut(s.program, programWidth),
        cut(s.key, keyWidth),
        ...cells,
        s.entropy.toFixed(3).padStart(8),
        String(s.runs).padStart(5),
      ].join(" "),
    );
  }
  if (report.states.length > maxRows)
    lines.push(`… ${report.states.length - maxRows} more states (use --json or --limit 0 for all)`);
  const samples = report.states.reduce((n, s) => n + totalCount(s.counts), 0);
  const sm = report.summary;
  lines.push(
    "",
    `samples ${samples}; class frequencies: ${EVENT_TYPES.map((e) => `${e} ${pct(sm.classFrequencies[e])}`).join(", ")}`,
    `mean entropy ${fixed(sm.meanEntropy)} bits; states with more than one observed next event: ${pct(sm.multiOutcomeShare)}`,
    `ceiling (mode of p̂): ${pct(sm.ceiling)} in-sample, ${pct(sm.ceilingLoo)} leave-one-run-out; ` +
      `states seen once: ${pct(sm.seenOnce.states)} (${pct(sm.seenOnce.samples)} of samples)`,
    `majority baseline (${report.majorityClass ?? "none"}, ` +
      `learned on ${report.trainPrograms.length} training programs, ` +
      `holdout ${report.holdout}): ${pct(sm.majority)}`,
    cappedLine({ maxSamplesPerProgram: report.cap, capped: report.capped }),
  );
  return lines.join("\n");
}
