// Writing a trained student as an adapter directory (the files src/predict/student/adapter.ts
// names and loads): weights, feature file, card.json and card.md, each replaced atomically,
// and the n-gram as features.json keeps it.

import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ADAPTER_FILES, type NgramModel, type SavedNgram } from "../predict/index.js";
import { cardMarkdown } from "./card.js";
import type { TrainedStudent } from "./types.js";

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

/** The n-gram as features.json keeps it (contexts sorted, so equal models save equal bytes). */
export function savedNgram(model: NgramModel): SavedNgram {
  const table = [...model.table.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, counts]) => [key, [...counts]] as const);
  return { order: model.order, addK: model.addK, table };
}
