// Saving adapters: the four files of adapters/NAME/ (src/predict/student/adapter.ts loads
// them), the human-readable card and the n-gram as features.json keeps it.

import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ADAPTER_FILES, type NgramModel, type SavedNgram } from "../predict/index.js";
import { EVENT_TYPES, fixed, pct } from "../core/index.js";
import type { CardMetrics } from "./card-metrics.js";
import type { StudentCard, TrainedStudent } from "./types.js";

function writeAtomically(file: string, text: string): void {
  const temporary = `${file}.tmp-${process.pid}`;
  writeFileSync(temporary, text);
  renameSync(temporary, file);
}

/** Writes the adapter's four files into `dir` (created if needed). */
export function saveAdapter(dir: string, student: TrainedStudent): void {
  mkdirSync(dir, { recursive: true });
  writeAtomically(join(dir, ADAPTER_FILES.weights), JSON.stringify(student.weights));
  writeAtomically(join(dir, ADAPTER_FILES.features), JSON.stringify(student.features, null, 1));
  writeAtomically(join(dir, ADAPTER_FILES.card), JSON.stringify(student.card, null, 2) + "\n");
  writeAtomically(join(dir, ADAPTER_FILES.cardMarkdown), cardMarkdown(student.card));
}


function metricsTable(title: string, m: CardMetrics | null): string {
  if (m === null) return `## ${title}\n\nNothing held out.\n`;
  return [
    `## ${title}`,
    "",
    `${m.states} states, ${m.samples} samples.`,
    "",
    "| accuracy | majority (" + m.majorityEvent + ") | ceiling | macro-F1 | ECE (15 bins) | NLL | recall GoEnd | recall GoSched | recall GoUnblock |",
    "|---|---|---|---|---|---|---|---|---|",
    `| ${pct(m.accuracy)} | ${pct(m.majority)} | ${pct(m.ceiling)} | ${fixed(m.macroF1)} | ${fixed(m.ece)} | ${fixed(m.nll)} | ${pct(m.recall.GoEnd)} | ${pct(m.recall.GoSched)} | ${pct(m.recall.GoUnblock)} |`,
    "",
  ].join("\n");
}

/** The human-readable card. */
export function cardMarkdown(card: StudentCard): string {
  const t = card.training;
  const d = card.data;
  const hyper = Object.entries(t.hyperParameters).map(([k, v]) => `${k}=${String(v)}`).join(", ");
  return [
    `# Student adapter: ${card.name}`,
    "",
    `Trained ${card.createdAt} by \`schedlab train\`. Predictor spec: \`student:<this directory>\`.`,
    "",
    "## Training",
    "",
    `- objective: **${t.objective}**${t.tags ? " + reasoning tags" : ""}${t.balance ? " + class rebalancing" : ""}${t.staticFeatures ? " + static source features" : ""}; model: **${t.model}**; seed ${t.seed}`,
    `- hyper-parameters: ${hyper}`,
    `- ${t.features} features (spec version ${t.featureVersion}), ${t.parameters} parameters; ${t.epochsRun} epochs run, best epoch ${t.bestEpoch}`,
    `- calibration fitted on the validation programs: temperature ${fixed(t.temperature)}, weight ${fixed(t.priorWeight, 2)} of the training class marginal (q = F((1 − α)·softmax(z/T) + α·marginal), F the feasibility rule ${String(t.hyperParameters.feasibility ?? "none")}; validation NLL ${fixed(t.validationNll)})`,
    "",
    "## Data",
    "",
    `- abstraction: **${d.abstraction}**; holdout: ${d.holdout}`,
    `- train: ${d.trainPrograms.length} programs, ${d.trainSamples} samples, ${d.trainStates} states (${d.trainRows} training rows)`,
    `- validation (split by ${d.validationSplit}): ${d.validationPrograms.length} programs, ${d.validationStates} states`,
    `- holdout: ${d.holdoutPrograms.length} programs, ${d.holdoutStates} states, ${d.holdoutSamples} samples`,
    `- training class totals: ${EVENT_TYPES.map((e) => `${e} ${d.classTotals[e]}`).join(", ")}`,
    `- class weights: ${EVENT_TYPES.map((e) => `${e} ${fixed(d.classWeights[e], 2)}`).join(", ")}`,
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

/** The n-gram as features.json keeps it (contexts sorted, so equal models save equal bytes). */
export function savedNgram(model: NgramModel): SavedNgram {
  const table = [...model.table.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, counts]) => [key, [...counts]] as const);
  return { order: model.order, addK: model.addK, table };
}
