// Writing a trained student as an adapter directory (the files adapter.ts names and loads):
// weights, feature file, card.json and card.md, each replaced atomically.

import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ADAPTER_FILES } from "./adapter.js";
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
