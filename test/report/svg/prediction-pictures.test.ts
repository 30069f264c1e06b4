// The per-family prediction pictures: the dot plot (accuracy with its interval beside a
// ceiling), the reliability small multiples, and the entropy scatter coloured by family.

import { describe, expect, it } from "vitest";
import { dotPlot } from "../../../src/report/svg/dotPlot.js";
import { reliabilityGrid } from "../../../src/report/svg/reliabilityGrid.js";
import { scatterPlot } from "../../../src/report/svg/scatterPlot.js";

const count = (text: string, pattern: RegExp): number => (text.match(pattern) ?? []).length;

describe("dotPlot", () => {
  const svg = dotPlot({
    title: "per family",
    series: ["student:kl", "ngram-ctx:4"],
    referenceLabel: "leave-one-run-out ceiling",
    xLabel: "accuracy",
    rows: [
      {
        label: "kernels/abba",
        reference: 0.8,
        note: "3 programs",
        marks: [
          { series: 0, estimate: 0.7, lower: 0.6, upper: 0.75 },
          { series: 1, estimate: 0.5 },
        ],
      },
      { label: "patterns/<fan>", reference: 0.6, marks: [{ series: 0, estimate: NaN }] },
    ],
  });

  it("draws one row per category, a dot per finite mark with its whisker, and the row's reference tick", () => {
    expect(svg).toContain('data-rows="2"');
    expect(count(svg, /<g data-row=/g)).toBe(2);
    expect(count(svg, /data-value="/g)).toBe(2);
    expect(svg).toContain('data-series="student:kl" data-value="0.7"');
    expect(count(svg, /data-reference="/g)).toBe(2);
    expect(svg).toContain("student:kl: 70.0% [60.0%, 75.0%]");
    expect(svg).toContain("leave-one-run-out ceiling: 80.0%");
  });

  it("escapes labels", () => {
    expect(svg).not.toContain("<fan>");
    expect(svg).toContain("patterns/&lt;fan&gt;");
  });
});

describe("reliabilityGrid", () => {
  it("draws a panel per category and a curve per series that has bins there", () => {
    const bin = (confidence: number, accuracy: number) => ({
      lower: 0,
      upper: 1,
      count: 3,
      confidence,
      accuracy,
    });
    const svg = reliabilityGrid({
      title: "reliability",
      series: ["a", "b"],
      panels: [
        { label: "f1", curves: [[bin(0.5, 0.4), bin(0.9, 0.95)], null], note: "a: ECE 0.050" },
        { label: "f2", curves: [[], [bin(0.6, 0.6)]] },
      ],
    });
    expect(svg).toContain('data-panels="2"');
    expect(count(svg, /<polyline /g)).toBe(2);
    expect(svg).toMatch(/<g data-panel="f1"><title>f1\na: ECE 0\.050<\/title>/);
    expect(count(svg, /data-series="b"/g)).toBe(1);
  });
});

describe("scatterPlot with groups", () => {
  it("colours points by group, keeps coincident points of different groups apart, and lists the groups", () => {
    const svg = scatterPlot({
      title: "entropy",
      points: [
        { x: 0.5, y: 0.5, group: 0 },
        { x: 0.5, y: 0.5, group: 1 },
        { x: 0.5, y: 0.5, group: 1 },
      ],
      xLabel: "x",
      yLabel: "y",
      groups: ["kernels", "patterns"],
    });
    expect(svg).toContain('data-markers="2"');
    expect(svg).toContain("patterns: (0.500, 0.500) × 2");
    expect(svg).toContain('fill="#E69F00"');
    expect(count(svg, /<text [^>]*>kernels<\/text>/g)).toBe(1);
  });
});
