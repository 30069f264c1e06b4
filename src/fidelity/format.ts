// Plain-text rendering of a fidelity result: thresholds first, then one line per
// relation with its interval, then both predictors' plain scores.

import { fixed, MISSING, pct } from "../core/index.js";
import type { FidelityResult, RelationResult } from "./types.js";
import type { VariantComparison } from "./variants.js";

const ci = (r: RelationResult["ci"]): string =>
  Number.isFinite(r.lower) ? `[${pct(r.lower)}, ${pct(r.upper)}]` : `[${MISSING}]`;

/** The text `schedlab fidelity` prints. */
export function fidelityText(
  result: FidelityResult,
  context: { readonly abstraction: string; readonly holdout: string },
): string {
  const t = result.thresholds;
  const { MR1, MR2, MR3, MR4 } = result.relations;
  const level = `${Math.round(MR1.ci.confidence * 100)}% CI, ${MR1.ci.resamples} program resamples`;
  const line = (name: string, what: string, r: RelationResult, unit: string): string =>
    `  ${name}  ${what.padEnd(44)} ${pct(r.violationRate).padStart(6)}  ${ci(r.ci).padEnd(18)} ` +
    `${r.violations}/${r.units} ${unit}${r.excluded > 0 ? ` (${r.excluded} not applicable)` : ""}\n`;
  let out = `fidelity: teacher ${result.teacher.name} vs student ${result.student.name}\n`;
  out += `abstraction ${context.abstraction}, holdout ${context.holdout}: ${result.states} states, ${result.samples} samples, ${result.programs} programs\n`;
  out += `thresholds: tau=${t.tau} nats, confidence=${t.confidence}, delta=${t.delta}, mr4-threshold=${t.mr4Threshold}, bins=${t.bins}\n\n`;
  out += `  relation                                              violated  ${level}\n`;
  out += line("MR1", "top-1 disagreement", MR1, "states");
  out += line("MR2", `KL(teacher||student) > ${t.tau}`, MR2, "states");
  out += line(
    "MR3",
    `teacher >= ${t.confidence}, student not >= ${+(t.confidence - t.delta).toFixed(6)} same label`,
    MR3,
    "states",
  );
  out += line("MR4", `calibration bins with |acc_T - acc_S| > ${t.mr4Threshold}`, MR4, "binned samples");
  const eceGapCi =
    MR4.eceGapCi.lower !== undefined && Number.isFinite(MR4.eceGapCi.lower)
      ? `[${fixed(MR4.eceGapCi.lower)}, ${fixed(MR4.eceGapCi.upper)}]`
      : "";
  out +=
    `       (${MR4.binsCompared} bins populated by both, ${pct(MR4.binViolationShare)} of them violated; ` +
    `|ECE_T - ECE_S| = ${fixed(MR4.eceGap)} ${eceGapCi})\n\n`;
  const width = Math.max(9, result.teacher.name.length, result.student.name.length);
  out += `  ${"predictor".padEnd(width)} accuracy (CI)               mode acc  ECE    mean conf  confident states\n`;
  for (const p of [result.teacher, result.student]) {
    out +=
      `  ${p.name.padEnd(width)} ${pct(p.accuracy).padStart(6)} ${ci(p.accuracyCi).padEnd(20)} ` +
      `${pct(p.modeAccuracy).padStart(8)}  ${fixed(p.ece)}  ${fixed(p.meanConfidence).padStart(9)}  ${p.confidentStates}\n`;
  }
  return out;
}

/** The text `schedlab fidelity --variants` prints: flips per predictor and kind, then relations on both sides. */
export function variantsText(comparison: VariantComparison): string {
  let out = `metamorphic variants (${comparison.abstraction} states matched by key): ${comparison.pairs.length} original/variant pairs\n\n`;
  const width = Math.max(9, ...comparison.flips.map((f) => f.predictor.length));
  out += `  ${"predictor".padEnd(width)} ${"kind".padEnd(9)} pairs  matched  unmatched  flips   ${"CI".padEnd(18)} acc original  acc variant\n`;
  for (const f of comparison.flips) {
    out +=
      `  ${f.predictor.padEnd(width)} ${f.kind.padEnd(9)} ${String(f.pairs).padStart(5)}  ` +
      `${String(f.matchedStates).padStart(7)}  ${String(f.unmatchedStates).padStart(9)}  ` +
      `${pct(f.flipRate).padStart(6)}  ${ci(f.flipCi).padEnd(18)} ` +
      `${pct(f.accuracyOriginal).padStart(12)}  ${pct(f.accuracyVariant).padStart(11)}\n`;
  }
  if (comparison.relations !== undefined) {
    const { originals, variants } = comparison.relations;
    out += `\n  relation  violated on originals        violated on variants\n`;
    for (const name of ["MR1", "MR2", "MR3", "MR4"] as const) {
      const a = originals.relations[name];
      const b = variants.relations[name];
      out += `  ${name}       ${pct(a.violationRate).padStart(6)} ${ci(a.ci).padEnd(20)} ${pct(b.violationRate).padStart(6)} ${ci(b.ci)}\n`;
    }
    const t = originals.thresholds;
    out += `  thresholds: tau=${t.tau} nats, confidence=${t.confidence}, delta=${t.delta}, mr4-threshold=${t.mr4Threshold}, bins=${t.bins}\n`;
  }
  for (const w of comparison.warnings) out += `warning: ${w}\n`;
  return out;
}
