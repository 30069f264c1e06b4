// Scatter plot with an optional y = x diagonal (e.g. predicted against empirical entropy).

import { circle } from "./circle.js";
import { line, niceTicks, svgRoot, text } from "./elements.js";

export interface ScatterPoint {
  readonly x: number;
  readonly y: number;
}

export interface ScatterInput {
  readonly title: string;
  readonly points: readonly ScatterPoint[];
  readonly xLabel: string;
  readonly yLabel: string;
  /** Axis ranges start at 0 and end here (default: the largest coordinate, at least 1). */
  readonly xMax?: number;
  readonly yMax?: number;
  /** Draw the y = x line (default true). */
  readonly diagonal?: boolean;
  readonly size?: number;
  /** Draw at most this many points (evenly thinned, default 2000) so pages stay small. */
  readonly maxPoints?: number;
}

/** An SVG scatter plot; non-finite points are skipped. */
export function scatterPlot(input: ScatterInput): string {
  const size = input.size ?? 260;
  const left = 44;
  const top = 12;
  const plot = size - left - 14;
  const finite = input.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
  const limit = input.maxPoints ?? 2000;
  const step = Math.max(1, Math.ceil(finite.length / limit));
  const shown = finite.filter((_, i) => i % step === 0);
  const xMax = input.xMax ?? Math.max(1, ...finite.map((p) => p.x));
  const yMax = input.yMax ?? Math.max(1, ...finite.map((p) => p.y));
  const sx = (x: number): number => left + (plot * x) / xMax;
  const sy = (y: number): number => top + plot - (plot * y) / yMax;
  const parts: string[] = [];
  for (const v of niceTicks(xMax)) {
    parts.push(line(sx(v), top, sx(v), top + plot, "#eaeef2"));
    parts.push(text(sx(v), top + plot + 14, String(v), { anchor: "middle", size: 10, fill: "#59636e" }));
  }
  for (const v of niceTicks(yMax)) {
    parts.push(line(left, sy(v), left + plot, sy(v), "#eaeef2"));
    parts.push(text(left - 6, sy(v) + 4, String(v), { anchor: "end", size: 10, fill: "#59636e" }));
  }
  if (input.diagonal ?? true) {
    const end = Math.min(xMax, yMax);
    parts.push(line(sx(0), sy(0), sx(end), sy(end), "#8c959f", ' stroke-dasharray="4 3"'));
  }
  for (const p of shown) parts.push(circle(sx(Math.min(p.x, xMax)), sy(Math.min(p.y, yMax)), 3, `(${p.x.toFixed(3)}, ${p.y.toFixed(3)})`));
  parts.push(text(left + plot / 2, size - 2, input.xLabel, { anchor: "middle", size: 10.5, fill: "#59636e" }));
  parts.push(text(11, top + plot / 2, input.yLabel, { anchor: "middle", size: 10.5, rotate: -90, fill: "#59636e" }));
  return svgRoot(size, size + 6, input.title, parts.join(""), { points: shown.length });
}
