// Dot plot: one row per category (a family, say), each series a dot with its interval as a
// whisker, and an optional reference tick per row (a ceiling no predictor can pass).

import { escapeXml } from "../escape.js";
import { line, px, seriesColor, svgRoot, text } from "./elements.js";

/** One series' value on a row; lower and upper draw its interval when both are finite. */
export interface DotMark {
  readonly series: number;
  readonly estimate: number;
  readonly lower?: number;
  readonly upper?: number;
}

export interface DotPlotRow {
  readonly label: string;
  readonly marks: readonly DotMark[];
  /** A reference value drawn as a tick across the row (e.g. the leave-one-run-out ceiling). */
  readonly reference?: number;
  /** Extra words for the row's tooltip (e.g. "3 programs, 1 204 samples"). */
  readonly note?: string;
}

export interface DotPlotInput {
  readonly title: string;
  readonly series: readonly string[];
  readonly rows: readonly DotPlotRow[];
  /** What the reference tick is, for the legend (default: none drawn in the legend). */
  readonly referenceLabel?: string;
  /** The axis runs from 0 to max (default 1). */
  readonly max?: number;
  readonly xLabel: string;
  /** Values are shares shown as percentages (default true). */
  readonly percent?: boolean;
}

const ROW = 18;
const LABEL = 190;
const PLOT = 440;

/** An SVG dot plot; every row and mark carries data-* attributes naming what it shows. */
export function dotPlot(input: DotPlotInput): string {
  const max = input.max ?? 1;
  const percent = input.percent ?? true;
  const format = (x: number): string => (percent ? `${(100 * x).toFixed(1)}%` : x.toFixed(3));
  const top = 34;
  const left = LABEL;
  const sx = (x: number): number => left + (PLOT * Math.max(0, Math.min(x, max))) / max;
  const height = top + ROW * input.rows.length + 30;
  const parts: string[] = [];
  // Legend.
  let lx = left;
  input.series.forEach((name, i) => {
    parts.push(`<circle cx="${px(lx + 5)}" cy="12" r="4.5" fill="${seriesColor(i)}"/>`);
    parts.push(text(lx + 14, 16, name, { size: 10.5 }));
    lx += 24 + 6.2 * name.length;
  });
  if (input.referenceLabel !== undefined) {
    parts.push(line(lx + 5, 5, lx + 5, 19, "#1f2328", ' stroke-width="2"'));
    parts.push(text(lx + 12, 16, input.referenceLabel, { size: 10.5 }));
  }
  // Grid.
  for (let i = 0; i <= 4; i++) {
    const v = (max * i) / 4;
    parts.push(line(sx(v), top - 6, sx(v), top + ROW * input.rows.length, "#eaeef2"));
    parts.push(
      text(sx(v), top + ROW * input.rows.length + 13, format(v), { anchor: "middle", size: 10, fill: "#59636e" }),
    );
  }
  input.rows.forEach((row, r) => {
    const y = top + ROW * r + ROW / 2;
    const tip = [
      row.label,
      ...(row.note === undefined ? [] : [row.note]),
      ...row.marks.map(
        (m) =>
          `${input.series[m.series] ?? m.series}: ${format(m.estimate)}` +
          (Number.isFinite(m.lower) && Number.isFinite(m.upper) ? ` [${format(m.lower!)}, ${format(m.upper!)}]` : ""),
      ),
      ...(row.reference === undefined || input.referenceLabel === undefined
        ? []
        : [`${input.referenceLabel}: ${format(row.reference)}`]),
    ].join("\n");
    parts.push(`<g data-row="${escapeXml(row.label)}"><title>${escapeXml(tip)}</title>`);
    if (r % 2 === 0)
      parts.push(`<rect x="0" y="${px(y - ROW / 2)}" width="${left + PLOT + 10}" height="${ROW}" fill="#f6f8fa"/>`);
    parts.push(text(left - 8, y + 4, row.label, { anchor: "end", size: 10.5 }));
    if (row.reference !== undefined && Number.isFinite(row.reference)) {
      parts.push(
        line(
          sx(row.reference),
          y - 7,
          sx(row.reference),
          y + 7,
          "#1f2328",
          ` stroke-width="2" data-reference="${row.reference}"`,
        ),
      );
    }
    const offset = (series: number): number =>
      input.series.length <= 1 ? 0 : (series - (input.series.length - 1) / 2) * 3.5;
    for (const m of row.marks) {
      if (!Number.isFinite(m.estimate)) continue;
      const my = y + offset(m.series);
      const colour = seriesColor(m.series);
      if (Number.isFinite(m.lower) && Number.isFinite(m.upper)) {
        parts.push(line(sx(m.lower!), my, sx(m.upper!), my, colour, ' stroke-width="1.5"'));
      }
      parts.push(
        `<circle cx="${px(sx(m.estimate))}" cy="${px(my)}" r="3.5" fill="${colour}" ` +
          `data-series="${escapeXml(input.series[m.series] ?? "")}" data-value="${m.estimate}"/>`,
      );
    }
    parts.push("</g>");
  });
  parts.push(text(left + PLOT / 2, height - 3, input.xLabel, { anchor: "middle", size: 10.5, fill: "#59636e" }));
  return svgRoot(left + PLOT + 20, height, input.title, parts.join(""), { rows: input.rows.length });
}
