// Heatmap of a matrix (e.g. a confusion matrix): cell shade from a per-row share, cell text the raw value.

import { count } from "../../core/index.js";
import { line, rect, svgRoot, text } from "./elements.js";

export interface HeatmapInput {
  readonly title: string;
  readonly rowLabels: readonly string[];
  readonly columnLabels: readonly string[];
  /** values[row][column]; non-negative. */
  readonly values: readonly (readonly number[])[];
  readonly rowAxis?: string;
  readonly columnAxis?: string;
  /** "row": shade by the cell's share of its row (recall-like, for confusion matrices); "max": by value / max. */
  readonly normalize?: "row" | "max";
  readonly cell?: number;
}

/** White → blue, for an intensity in [0, 1]. */
export function heatColor(intensity: number): string {
  const t = Math.max(0, Math.min(1, Number.isFinite(intensity) ? intensity : 0));
  const mix = (from: number, to: number): number => Math.round(from + (to - from) * t);
  return `rgb(${mix(255, 8)},${mix(255, 81)},${mix(255, 156)})`;
}

/** An SVG heatmap; each cell has a tooltip with row, column, value and share. */
export function heatmap(input: HeatmapInput): string {
  const cell = input.cell ?? 40;
  const left = 96;
  const top = 64;
  const rows = input.rowLabels.length;
  const columns = input.columnLabels.length;
  // Room on the right for the last rotated column label.
  const width = left + cell * columns + 48;
  const height = top + cell * rows + 12;
  const max = Math.max(0, ...input.values.flat());
  const parts: string[] = [];
  input.columnLabels.forEach((c, j) =>
    parts.push(text(left + cell * (j + 0.5), top - 8, c, { anchor: "start", size: 10, rotate: -40 })),
  );
  if (input.columnAxis !== undefined) parts.push(text(left, 12, input.columnAxis, { size: 10.5, fill: "#59636e" }));
  if (input.rowAxis !== undefined) parts.push(text(8, 12, input.rowAxis, { size: 10.5, fill: "#59636e" }));
  input.rowLabels.forEach((r, i) => {
    const row = input.values[i] ?? [];
    const rowTotal = row.reduce((s, v) => s + v, 0);
    parts.push(text(left - 6, top + cell * (i + 0.5) + 4, r, { anchor: "end", size: 10.5 }));
    input.columnLabels.forEach((c, j) => {
      const v = row[j] ?? 0;
      const share = rowTotal === 0 ? 0 : v / rowTotal;
      const intensity = input.normalize === "max" ? (max === 0 ? 0 : v / max) : share;
      const x = left + cell * j;
      const y = top + cell * i;
      parts.push(
        rect(
          x,
          y,
          cell - 1,
          cell - 1,
          heatColor(intensity),
          `${r} → ${c}: ${v} (${(share * 100).toFixed(1)} % of row)`,
        ),
      );
      parts.push(
        text(x + cell / 2, y + cell / 2 + 4, count(v), {
          anchor: "middle",
          size: 10.5,
          fill: intensity > 0.55 ? "#ffffff" : "#1f2328",
        }),
      );
    });
  });
  parts.push(line(left, top + cell * rows, left + cell * columns, top + cell * rows, "#8c959f"));
  return svgRoot(width, height, input.title, parts.join(""), { cells: rows * columns });
}
