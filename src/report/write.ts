// Writing a report to disk: index.html, report.md and metrics.json in one directory.

import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { SchedlabError } from "../errors.js";
import { htmlDocument } from "./html.js";
import { markdownDocument } from "./markdown.js";
import type { ReportMeta, ReportSection } from "./types.js";

export interface WrittenReport {
  readonly dir: string;
  readonly html: string;
  readonly markdown: string;
  readonly json: string;
}

/** The report could not be written. */
export class ReportWriteError extends SchedlabError {}

/** Writes `text` via a temporary file and a rename, so a reader never sees half a file. */
function writeAtomically(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, file);
}

/**
 * Renders the sections and writes DIR/index.html, DIR/report.md and DIR/metrics.json
 * (`{ meta, sections: { [id]: json } }`). Section ids must be unique.
 */
export function writeReport(sections: readonly ReportSection[], outDir: string, meta: ReportMeta): WrittenReport {
  const ids = sections.map((s) => s.id);
  const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
  if (duplicate !== undefined) throw new RangeError(`writeReport: duplicate section id ${duplicate}`);
  const dir = resolve(outDir);
  const files = {
    dir,
    html: join(dir, "index.html"),
    markdown: join(dir, "report.md"),
    json: join(dir, "metrics.json"),
  };
  const metrics = { meta, sections: Object.fromEntries(sections.map((s) => [s.id, s.json()])) };
  try {
    mkdirSync(dir, { recursive: true });
    writeAtomically(files.html, htmlDocument(meta, sections));
    writeAtomically(files.markdown, markdownDocument(meta, sections));
    writeAtomically(files.json, `${JSON.stringify(metrics, null, 2)}\n`);
  } catch (error) {
    throw new ReportWriteError(
      `cannot write the report to ${dir}: ${(error as Error).message}`,
      "Pass --out with a writable directory.",
    );
  }
  return files;
}
