// Reliability diagram: per confidence bin, the observed accuracy as a bar against the
// diagonal of perfect calibration, with the gap to the bin's mean confidence outlined.

import { line, rect, svgRoot, text } from "./elements.js";

/** One confidence bin, as src/eval's reliabilityBins produces it. */
export interface ReliabilityBinData {
  readonly lower: number;
  readonly upper: number;
  readonly count: number;
  /** Mean confidence; NaN for an empty bin. */
  readonly confidence: number;
  /** Accuracy; NaN for an empty bin. */
  readonly accuracy: number;
}

export interface ReliabilityInput {
  readonly title: string;
  readonly bins: readonly ReliabilityBinData[];
  readonly size?: number;
}

/** An SVG reliability diagram; empty bins are left blank, bar tooltips give n, confidence and accuracy. */
export function reliabilityDiagram(input: ReliabilityInput): string {
  const size = input.size ?? 260;
  const left = 44;
  const top = 12;
  const plot = size - left - 14;
  const sx = (x: number): number => left + plot * x;
  const sy = (y: number): number => top + plot - plot * y;
  const parts: string[] = [];
  for (let i = 0; i <= 4; i++) {
    const v = i / 4;
    parts.push(line(sx(v), top, sx(v), top + plot, "#eaeef2"), line(left, sy(v), left + plot, sy(v), "#eaeef2"));
    parts.push(text(sx(v), top + plot + 14, v.toFixed(2), { anchor: "middle", size: 10, fill: "#59636e" }));
    parts.push(text(left - 6, sy(v) + 4, v.toFixed(2), { anchor: "end", size: 10, fill: "#59636e" }));
  }
  for (const bin of input.bins) {
    if (bin.count === 0 || !Number.isFinite(bin.accuracy)) continue;
    const x = sx(bin.lower);
    const w = sx(bin.upper) - x - 1;
    const tip =
      `confidence ${bin.lower.toFixed(2)}–${bin.upper.toFixed(2)}: n = ${bin.count}, ` +
      `mean confidence ${bin.confidence.toFixed(3)}, accuracy ${bin.accuracy.toFixed(3)}`;
    parts.push(rect(x, sy(bin.accuracy), w, sy(0) - sy(bin.accuracy), "#0072B2", tip, ' fill-opacity="0.8"'));
    const gapTop = Math.max(bin.accuracy, bin.confidence);
    const gapBottom = Math.min(bin.accuracy, bin.confidence);
    parts.push(
      rect(x, sy(gapTop), w, sy(gapBottom) - sy(gapTop), "none", undefined, ' stroke="#D55E00" stroke-width="1.2"'),
    );
  }
  parts.push(line(sx(0), sy(0), sx(1), sy(1), "#8c959f", ' stroke-dasharray="4 3"'));
  parts.push(
    text(left + plot / 2, size - 2, "top-label confidence", { anchor: "middle", size: 10.5, fill: "#59636e" }),
  );
  parts.push(text(11, top + plot / 2, "accuracy", { anchor: "middle", size: 10.5, rotate: -90, fill: "#59636e" }));
  return svgRoot(size, size + 6, input.title, parts.join(""));
}
