// Report section on rollout survival (docs/rollout.md): the stored `schedlab rollout` runs, with
// mean survival per predictor, unconstrained beside constrained, so a trajectory-trained
// student can be compared with the single-step one at the same k.

import type { StoredRolloutRun } from "../../rollout/index.js";
import { escapeXml } from "../escape.js";
import { fixed } from "../../core/index.js";
import { htmlTable } from "../html.js";
import { markdownTable } from "../markdown.js";
import { barChart } from "../svg/barChart.js";
import type { ReportSection } from "../types.js";

const HEADERS = [
  "run",
  "predictor",
  "mode",
  "abstraction",
  "k",
  "n",
  "T",
  "prefixes",
  "mean survival",
  "reached k",
  "k-step acc",
  "per-step acc",
  "L1",
  "KL",
] as const;
const NUMERIC = [0, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13];

const NOTES = [
  "survival: valid steps before the first event the goroutine state machine rejects (unconstrained); " +
    "constrained rollouts mask rejected event types, so they end only when no event type is valid.",
  "k-step acc: share of rollouts whose k event types equal some real run's next k from the prefix's state; " +
    "per-step acc: step j counts when it matches step j of some real continuation.",
  "L1 = Σ|rolled − empirical|/6 and KL(empirical‖rolled) over the event types of the rollouts against those " +
    "of the real continuations. Definitions: docs/rollout.md.",
];

function row(r: StoredRolloutRun): string[] {
  return [
    String(r.id),
    r.predictor,
    r.constrained ? "constrained" : "free",
    r.abstraction,
    String(r.steps),
    String(r.samples),
    String(r.temperature),
    String(r.prefixes),
    fixed(r.meanSurvival, 2),
    fixed(r.reachedK),
    fixed(r.kStepAccuracy),
    fixed(r.perStepAccuracy),
    fixed(r.l1),
    fixed(r.kl),
  ];
}

/**
 * The latest run of each (predictor, mode) at the k of the newest run, as chart series:
 * predictors along x, one bar for free and one for constrained rollouts.
 */
export function survivalByPredictor(runs: readonly StoredRolloutRun[]): {
  k: number;
  predictors: string[];
  free: number[];
  constrained: number[];
} {
  const k = runs[0]?.steps ?? 0;
  const latest = new Map<string, StoredRolloutRun>();
  for (const r of runs) {
    if (r.steps !== k) continue;
    const key = `${r.predictor}\0${r.constrained}`;
    const seen = latest.get(key);
    if (seen === undefined || r.id > seen.id) latest.set(key, r);
  }
  const predictors = [...new Set([...latest.values()].map((r) => r.predictor))].sort();
  const pick = (p: string, constrained: boolean): number => latest.get(`${p}\0${constrained}`)?.meanSurvival ?? NaN;
  return {
    k,
    predictors,
    free: predictors.map((p) => pick(p, false)),
    constrained: predictors.map((p) => pick(p, true)),
  };
}

/** The rollout section over stored runs (newest first, as listRolloutRuns returns them). */
export function rolloutSurvivalSection(runs: readonly StoredRolloutRun[]): ReportSection {
  const rows = runs.map(row);
  const bars = survivalByPredictor(runs);
  const chart = () =>
    barChart({
      title: `Mean survival (steps of ${bars.k}) by predictor`,
      categories: bars.predictors,
      series: [
        { name: "free", values: bars.free },
        { name: "constrained", values: bars.constrained },
      ],
      max: Math.max(1, bars.k),
      yLabel: "steps",
      width: Math.max(520, 90 * bars.predictors.length),
    });
  return {
    id: "rollout-survival",
    title: "Multi-step rollouts: survival under the goroutine state machine",
    html: () =>
      `${chart()}\n<div class="scroll">${htmlTable({ headers: HEADERS, rows, numeric: NUMERIC })}</div>\n` +
      `<ul class="note">${NOTES.map((n) => `<li>${escapeXml(n)}</li>`).join("")}</ul>`,
    markdown: () => `${markdownTable(HEADERS, rows, NUMERIC)}\n\n${NOTES.map((n) => `- ${n}`).join("\n")}`,
    json: () => ({ runs, survivalByPredictor: bars }),
  };
}
