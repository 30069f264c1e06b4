// Grouped bar chart: categories along x, one bar per series in each group.

import { rect, seriesColor, svgRoot, text, valueAxis } from "./elements.js";

export interface BarSeries {
  readonly name: string;
  /** One value per category; NaN draws no bar (the value is undefined). */
  readonly values: readonly number[];
}

export interface BarChartInput {
  readonly title: string;
  readonly categories: readonly string[];
  readonly series: readonly BarSeries[];
  /** Top of the value axis (default: 1, or the largest value when above 1). */
  readonly max?: number;
  readonly yLabel?: string;
  readonly width?: number;
  readonly height?: number;
}

/** An SVG grouped bar chart with a legend; each bar has a tooltip with its exact value. */
export function barChart(input: BarChartInput): string {
  const width = input.width ?? 520;
  const height = input.height ?? 260;
  const legendHeight = 18 * Math.ceil(input.series.length / 3);
  const left = 44;
  const top = 14 + legendHeight;
  const plotWidth = width - left - 10;
  const plotHeight = height - top - 40;
  const finite = input.series.flatMap((s) => s.values.filter(Number.isFinite));
  const max = input.max ?? Math.max(1, ...finite);
  const group = plotWidth / Math.max(1, input.categories.length);
  const barWidth = (group * 0.8) / Math.max(1, input.series.length);
  const parts = [valueAxis(left, top, plotWidth, plotHeight, max)];
  input.series.forEach((s, j) => {
    const lx = 8 + (j % 3) * ((width - 16) / 3);
    const ly = 12 + 18 * Math.floor(j / 3);
    parts.push(rect(lx, ly - 9, 10, 10, seriesColor(j)));
    parts.push(text(lx + 14, ly, s.name, { size: 11 }));
    s.values.forEach((v, i) => {
      if (!Number.isFinite(v)) return;
      const h = (plotHeight * Math.min(v, max)) / max;
      const x = left + group * i + group * 0.1 + barWidth * j;
      parts.push(
        rect(
          x,
          top + plotHeight - h,
          barWidth - 1,
          h,
          seriesColor(j),
          `${s.name} · ${input.categories[i]}: ${v.toFixed(3)}`,
        ),
      );
    });
  });
  input.categories.forEach((c, i) =>
    parts.push(text(left + group * (i + 0.5), top + plotHeight + 16, c, { anchor: "middle", size: 10.5 })),
  );
  if (input.yLabel !== undefined)
    parts.push(
      text(12, top + plotHeight / 2, input.yLabel, { anchor: "middle", size: 10.5, rotate: -90, fill: "#59636e" }),
    );
  return svgRoot(width, height, input.title, parts.join(""));
}
