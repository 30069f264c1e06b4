// Reliability as small multiples: one small panel per category (a family, say), each series a
// curve through its bins' (mean confidence, accuracy) against the diagonal of perfect
// calibration, in one SVG so a page with dozens of families stays small.

import { escapeXml } from "../escape.js";
import { line, px, seriesColor, svgRoot, text } from "./elements.js";
import type { ReliabilityBinData } from "./reliabilityDiagram.js";

export interface ReliabilityPanel {
  readonly label: string;
  /** One entry per series (ReliabilityGridInput.series order); null when the series has nothing here. */
  readonly curves: readonly (readonly ReliabilityBinData[] | null)[];
  /** Words for the panel's tooltip (e.g. each series' ECE). */
  readonly note?: string;
}

export interface ReliabilityGridInput {
  readonly title: string;
  readonly series: readonly string[];
  readonly panels: readonly ReliabilityPanel[];
  /** Panels per row (default 6). */
  readonly columns?: number;
}

const PANEL = 112;
const GAP = 14;

/** The grid; every panel is a <g data-panel="label"> holding one <polyline data-series="name"> per series. */
export function reliabilityGrid(input: ReliabilityGridInput): string {
  const columns = Math.max(1, input.columns ?? 6);
  const rows = Math.ceil(input.panels.length / columns);
  const top = 26;
  const width = columns * (PANEL + GAP) + GAP;
  const height = top + rows * (PANEL + GAP + 14) + 6;
  const parts: string[] = [];
  let lx = GAP;
  input.series.forEach((name, i) => {
    parts.push(line(lx, 12, lx + 16, 12, seriesColor(i), ' stroke-width="2"'));
    parts.push(text(lx + 20, 16, name, { size: 10.5 }));
    lx += 30 + 6.2 * name.length;
  });
  parts.push(line(lx, 12, lx + 16, 12, "#8c959f", ' stroke-dasharray="4 3"'));
  parts.push(text(lx + 20, 16, "perfect calibration (x: confidence, y: accuracy)", { size: 10.5 }));
  input.panels.forEach((panel, k) => {
    const x0 = GAP + (k % columns) * (PANEL + GAP);
    const y0 = top + Math.floor(k / columns) * (PANEL + GAP + 14) + 14;
    const sx = (v: number): number => x0 + PANEL * v;
    const sy = (v: number): number => y0 + PANEL - PANEL * v;
    const tip = panel.note === undefined ? panel.label : `${panel.label}\n${panel.note}`;
    parts.push(`<g data-panel="${escapeXml(panel.label)}"><title>${escapeXml(tip)}</title>`);
    parts.push(
      `<rect x="${px(x0)}" y="${px(y0)}" width="${PANEL}" height="${PANEL}" fill="#f6f8fa" stroke="#d1d9e0"/>`,
    );
    parts.push(line(sx(0), sy(0), sx(1), sy(1), "#8c959f", ' stroke-dasharray="4 3"'));
    const label = panel.label.length > 22 ? `${panel.label.slice(0, 21)}…` : panel.label;
    parts.push(text(x0, y0 - 3, label, { size: 9.5 }));
    panel.curves.forEach((bins, series) => {
      const shown = (bins ?? []).filter(
        (b) => b.count > 0 && Number.isFinite(b.accuracy) && Number.isFinite(b.confidence),
      );
      if (shown.length === 0) return;
      const points = shown.map((b) => `${px(sx(b.confidence))},${px(sy(b.accuracy))}`).join(" ");
      parts.push(
        `<polyline points="${points}" fill="none" stroke="${seriesColor(series)}" stroke-width="1.5" ` +
          `data-series="${escapeXml(input.series[series] ?? "")}"/>`,
      );
    });
    parts.push("</g>");
  });
  return svgRoot(width, height, input.title, parts.join(""), { panels: input.panels.length });
}
