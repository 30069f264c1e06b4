// Report section for teacher/student fidelity (docs/fidelity.md): the stored `schedlab fidelity`
// runs with each relation's violation rate beside both accuracies and the thresholds,
// and prediction flips on original programs against their metamorphic variants.

import type { StoredFidelityRun, VariantComparison } from "../../fidelity/index.js";
import { escapeXml } from "../escape.js";
import { fixed } from "../../core/index.js";
import { htmlTable } from "../html.js";
import { markdownTable } from "../markdown.js";
import type { ReportSection } from "../types.js";

const RUN_HEADERS = [
  "run",
  "mode",
  "teacher",
  "student",
  "abstraction",
  "states from",
  "MR1",
  "MR2",
  "MR3",
  "MR4",
  "acc teacher",
  "acc student",
  "thresholds",
] as const;
const RUN_NUMERIC = [0, 6, 7, 8, 9, 10, 11];
const FLIP_HEADERS = [
  "predictor",
  "kind",
  "pairs",
  "matched states",
  "flip rate",
  "flip CI",
  "acc original",
  "acc variant",
] as const;
const FLIP_NUMERIC = [2, 3, 4, 6, 7];

/** JSON stores NaN as null; the table shows both as a dash. */
const num = (x: number | null): number => (x === null ? NaN : x);

function runRow(r: StoredFidelityRun): string[] {
  const t = r.thresholds;
  return [
    String(r.id),
    r.mode,
    r.teacher,
    r.student,
    r.abstraction,
    r.holdout,
    ...r.rates.map((x) => fixed(x)),
    fixed(r.teacherAccuracy),
    fixed(r.studentAccuracy),
    `tau ${t.tau}, conf ${t.confidence}, delta ${t.delta}, mr4 ${t.mr4Threshold}, ${t.bins} bins`,
  ];
}

function flipRows(comparison: VariantComparison): string[][] {
  return comparison.flips.map((f) => [
    f.predictor,
    f.kind,
    String(f.pairs),
    String(f.matchedStates),
    fixed(num(f.flipRate)),
    `[${fixed(num(f.flipCi.lower))}, ${fixed(num(f.flipCi.upper))}]`,
    fixed(num(f.accuracyOriginal)),
    fixed(num(f.accuracyVariant)),
  ]);
}

/** Stored fidelity runs, newest first; flips of the newest variants run, if any. */
export function fidelitySection(runs: readonly StoredFidelityRun[]): ReportSection {
  const rows = runs.map(runRow);
  const latestVariants = runs.find((r) => r.mode === "variants");
  const flips = latestVariants === undefined ? [] : flipRows(latestVariants.details as VariantComparison);
  const note =
    "Violation rates: MR1 top-1 disagreement (states with a unique teacher top label), " +
    "MR2 KL(teacher||student) > tau, MR3 student not within delta of a confident teacher, " +
    "MR4 sample-weighted share of calibration bins whose accuracies differ by more than the threshold. In " +
    "variants mode the rates are on the variants' states.";
  const flipNote =
    latestVariants === undefined
      ? ""
      : `Prediction flips on originals against variants (fidelity run ${latestVariants.id}, states matched by ${latestVariants.abstraction} key).`;
  return {
    id: "fidelity",
    title: "Teacher/student fidelity",
    html: () =>
      `<p class="note">${escapeXml(note)}</p>\n<div class="scroll">${htmlTable({ headers: RUN_HEADERS, rows, numeric: RUN_NUMERIC })}</div>` +
      (flips.length === 0
        ? ""
        : `\n<p>${escapeXml(flipNote)}</p>\n<div class="scroll">${htmlTable({ headers: FLIP_HEADERS, rows: flips, numeric: FLIP_NUMERIC })}</div>`),
    markdown: () =>
      `${note}\n\n${markdownTable(RUN_HEADERS, rows, RUN_NUMERIC)}` +
      (flips.length === 0 ? "" : `\n\n${flipNote}\n\n${markdownTable(FLIP_HEADERS, flips, FLIP_NUMERIC)}`),
    json: () =>
      runs.map((r) => ({ ...r, rates: { MR1: r.rates[0], MR2: r.rates[1], MR3: r.rates[2], MR4: r.rates[3] } })),
  };
}
