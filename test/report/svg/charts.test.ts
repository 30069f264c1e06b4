import { describe, expect, it } from "vitest";
import { barChart } from "../../../src/report/svg/barChart.js";
import { heatColor, heatmap } from "../../../src/report/svg/heatmap.js";
import { reliabilityDiagram } from "../../../src/report/svg/reliabilityDiagram.js";
import { scatterPlot } from "../../../src/report/svg/scatterPlot.js";

const count = (text: string, pattern: RegExp): number => (text.match(pattern) ?? []).length;

describe("barChart", () => {
  it("draws one bar per finite value plus one legend swatch per series", () => {
    const svg = barChart({
      title: "t",
      categories: ["a", "b", "c"],
      series: [
        { name: "x", values: [0.5, NaN, 1] },
        { name: "y", values: [0.2, 0.4, 0.6] },
      ],
    });
    expect(svg.startsWith("<svg ")).toBe(true);
    expect(count(svg, /<rect /g)).toBe(5 + 2);
    expect(svg).toContain("x · c: 1.000");
  });
  it("escapes names and titles", () => {
    const svg = barChart({ title: 'a "b" <c>', categories: ["<x>"], series: [{ name: "s&p", values: [1] }] });
    expect(svg).not.toContain("<x>");
    expect(svg).toContain("&lt;x&gt;");
    expect(svg).toContain("s&amp;p");
    expect(svg).toContain('aria-label="a &quot;b&quot; &lt;c&gt;"');
  });
});

describe("heatmap", () => {
  it("draws every cell with its value and shades by row share", () => {
    const svg = heatmap({
      title: "m",
      rowLabels: ["r1", "r2"],
      columnLabels: ["c1", "c2"],
      values: [
        [3, 1],
        [0, 0],
      ],
    });
    expect(svg).toContain('data-cells="4"');
    expect(count(svg, /<rect /g)).toBe(4);
    expect(svg).toContain("r1 → c1: 3 (75.0 % of row)");
    expect(svg).toContain(`fill="${heatColor(0.75)}"`);
  });
  it("maps intensity 0 to white and 1 to the darkest blue", () => {
    expect(heatColor(0)).toBe("rgb(255,255,255)");
    expect(heatColor(1)).toBe("rgb(8,81,156)");
    expect(heatColor(NaN)).toBe("rgb(255,255,255)");
  });
});

describe("scatterPlot", () => {
  it("draws finite points only, with the diagonal", () => {
    const svg = scatterPlot({
      title: "s",
      points: [
        { x: 0.5, y: 1 },
        { x: NaN, y: 1 },
        { x: 2, y: 0 },
      ],
      xLabel: "x",
      yLabel: "y",
    });
    expect(svg).toContain('data-points="2"');
    expect(count(svg, /<circle /g)).toBe(2);
    expect(svg).toContain('stroke-dasharray="4 3"');
  });
  it("thins very large point sets", () => {
    const points = Array.from({ length: 5000 }, (_, i) => ({ x: i / 5000, y: i / 5000 }));
    const svg = scatterPlot({ title: "s", points, xLabel: "x", yLabel: "y" });
    expect(svg).toContain('data-points="1667"');
    // 1667 points along the diagonal of a ~200-pixel plot share pixels
    expect(count(svg, /<circle /g)).toBeLessThan(250);
  });
  it("merges coincident points into one marker with their count", () => {
    const svg = scatterPlot({
      title: "s",
      points: [
        { x: 1, y: 1 },
        { x: 1, y: 1 },
        { x: 1, y: 1 },
        { x: 0, y: 0.5 },
      ],
      xLabel: "x",
      yLabel: "y",
    });
    expect(count(svg, /<circle /g)).toBe(2);
    expect(svg).toContain("(1.000, 1.000) × 3");
    expect(svg).toContain('data-markers="2"');
  });
});

describe("reliabilityDiagram", () => {
  it("draws a bar and a gap outline per non-empty bin", () => {
    const svg = reliabilityDiagram({
      title: "r",
      bins: [
        { lower: 0, upper: 0.5, count: 0, confidence: NaN, accuracy: NaN },
        { lower: 0.5, upper: 1, count: 4, confidence: 0.75, accuracy: 0.5 },
      ],
    });
    expect(count(svg, /<rect /g)).toBe(2);
    expect(svg).toContain("n = 4, mean confidence 0.750, accuracy 0.500");
  });
});

describe("niceTicks", () => {
  it("picks round steps", async () => {
    const { niceTicks } = await import("../../../src/report/svg/elements.js");
    expect(niceTicks(Math.log2(6))).toEqual([0, 0.5, 1, 1.5, 2, 2.5]);
    expect(niceTicks(1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(120)).toEqual([0, 25, 50, 75, 100]);
    expect(niceTicks(0)).toEqual([0]);
  });
});
