// Scatter plot with an optional y = x diagonal (e.g. predicted against empirical entropy).

import { circle } from "./circle.js";
import { line, niceTicks, seriesColor, svgRoot, text } from "./elements.js";

export interface ScatterPoint {
  readonly x: number;
  readonly y: number;
  /** Index into ScatterInput.groups: the point's colour (default 0). */
  readonly group?: number;
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
  /** Names of the point groups (e.g. families), coloured apart and listed under the plot. */
  readonly groups?: readonly string[];
}

/** An SVG scatter plot; non-finite points are skipped, coincident points merged into one marker. */
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
  // Points that land on the same pixel are drawn once, larger, with their count: state
  // entropies repeat a lot, and one marker per state would bloat the page.
  const merged = new Map<string, { x: number; y: number; n: number; group: number }>();
  for (const p of shown) {
    const cx = Math.round(sx(Math.min(p.x, xMax)));
    const cy = Math.round(sy(Math.min(p.y, yMax)));
    const group = p.group ?? 0;
    const key = `${cx},${cy},${group}`;
    const hit = merged.get(key);
    if (hit === undefined) merged.set(key, { x: p.x, y: p.y, n: 1, group });
    else hit.n += 1;
  }
  const groups = input.groups ?? [];
  for (const m of merged.values()) {
    const label =
      `${groups.length > 0 ? `${groups[m.group] ?? ""}: ` : ""}` +
      `(${m.x.toFixed(3)}, ${m.y.toFixed(3)})${m.n > 1 ? ` × ${m.n}` : ""}`;
    const r = Math.min(8, 2.5 + Math.log2(m.n));
    parts.push(circle(sx(Math.min(m.x, xMax)), sy(Math.min(m.y, yMax)), r, label, seriesColor(m.group)));
  }
  parts.push(text(left + plot / 2, size - 2, input.xLabel, { anchor: "middle", size: 10.5, fill: "#59636e" }));
  parts.push(text(11, top + plot / 2, input.yLabel, { anchor: "middle", size: 10.5, rotate: -90, fill: "#59636e" }));
  // The groups' legend under the plot, two to a line.
  groups.forEach((name, g) => {
    const x = 8 + (g % 2) * (size / 2);
    const y = size + 20 + Math.floor(g / 2) * 14;
    parts.push(circle(x + 4, y - 4, 4, name, seriesColor(g)));
    parts.push(text(x + 12, y, name.length > 26 ? `${name.slice(0, 25)}…` : name, { size: 10 }));
  });
  const legend = groups.length === 0 ? 0 : 12 + Math.ceil(groups.length / 2) * 14;
  return svgRoot(size, size + 6 + legend, input.title, parts.join(""), {
    points: shown.length,
    markers: merged.size,
  });
}
