import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { evaluate } from "../../src/eval/evaluate.js";
import type { StoredEvaluation } from "../../src/eval/store.js";
import { evaluationSections } from "../../src/report/sections/evaluation.js";
import { evaluationText } from "../../src/report/terminal.js";
import type { ReportSection } from "../../src/report/types.js";
import { writeReport } from "../../src/report/write.js";
import { ORACLE, STATES, UNIFORM, samplesOf } from "../eval/fixtures/states.js";

const dir = mkdtempSync(join(tmpdir(), "schedlab-report-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const count = (text: string, pattern: RegExp): number => (text.match(pattern) ?? []).length;

function stored(): StoredEvaluation {
  const result = evaluate(STATES, samplesOf(STATES), [ORACLE, { ...UNIFORM, name: "uni<form>" }], {
    abstraction: "split",
    holdout: "list:A,B",
    majorityClass: "GoStart",
  });
  return { ...result, id: 7, createdAt: "2026-01-01T00:00:00.000Z", states: 3, samples: 8, programs: 2, options: {} };
}

const meta = { title: "schedlab report", generatedAt: "2026-01-01T00:00:00Z", source: "test" };

describe("writeReport with the evaluation sections", () => {
  const out = join(dir, "r1");
  const written = writeReport(evaluationSections(stored()), out, meta);
  const html = readFileSync(written.html, "utf8");
  const md = readFileSync(written.markdown, "utf8");
  const json = JSON.parse(readFileSync(written.json, "utf8")) as {
    sections: {
      evaluation: {
        predictors: { name: string; accuracy: number; entropySpearman: number | null }[];
        comparisons: unknown[];
      };
    };
  };

  it("writes the three files", () => {
    expect(existsSync(join(out, "index.html"))).toBe(true);
    expect(existsSync(join(out, "report.md"))).toBe(true);
    expect(existsSync(join(out, "metrics.json"))).toBe(true);
  });

  it("renders tables and inline SVG charts in the HTML", () => {
    // summary: headline + family and program means + entropy; comparisons: 1; each of 2 predictors: per-event table
    expect(count(html, /<table>/g)).toBe(6);
    // summary: 3 bar charts; each predictor: confusion heatmap, reliability, entropy scatter
    expect(count(html, /<svg /g)).toBe(9);
    expect(count(html, /<\/svg>/g)).toBe(9);
    expect(count(html, /data-cells="36"/g)).toBe(2);
    expect(html).toContain('<th class="num">ceiling</th>');
    expect(html).toContain('<td class="num">0.750</td>');
  });

  it("is self-contained and escapes predictor names", () => {
    expect(html).not.toMatch(/<script|<link|src=|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    expect(html).not.toContain("uni<form>");
    expect(html).toContain("uni&lt;form&gt;");
    expect(html).toContain('id="predictor-2-uni-form"');
  });

  it("writes Markdown tables with the same numbers", () => {
    expect(md).toContain("## Next-event prediction");
    expect(md).toContain("| predictor | accuracy | 95% CI |");
    expect(md).toMatch(/\| oracle \| 0\.750 \|/);
    expect(md).toContain("## Paired comparisons");
    expect(md).toContain("| oracle | uni<form> | 0.750 | 0.167 | +0.583 |");
    expect(md).toContain("McNemar's p");
    expect(md).toContain("p (McNemar, assumes independent samples)");
  });

  it("shows each predictor's ECE with its cluster-bootstrap interval", () => {
    // uniform: a tie of six labels scores 1/6 at confidence 1/6 on every resample: ECE 0 (see test/eval/evaluate.test.ts)
    expect(html).toContain('<th class="num">ECE 95% CI</th>');
    expect(html).toContain('<td class="num">[0.000, 0.000]</td>');
    expect(html).toContain("ECE 0.000 [0.000, 0.000], config h-uniform");
    // The oracle on the runs it did not read: 3.5 of 5 samples (test/eval/evaluate.test.ts).
    expect(html).toContain(
      "accuracy 0.750 (ceiling 0.750, leave-one-run-out 0.625), on the runs it did not read 0.700, ECE",
    );
    expect(html).toContain('<th class="num">LOO ceiling</th>');
    expect(md).toMatch(/\| uni<form> \| 0\.167 \| \[0\.167, 0\.167\] \|.*\| 0\.000 \| \[0\.000, 0\.000\] \|/);
    const evaluation = json.sections.evaluation as unknown as {
      predictors: { eceInterval: { lower: number; upper: number; resamples: number } }[];
    };
    expect(evaluation.predictors[1]!.eceInterval.upper).toBeCloseTo(0, 12);
    expect(evaluation.predictors[1]!.eceInterval.resamples).toBe(2000);
  });

  it("writes metrics.json in the eval --json shape with undefined values as null", () => {
    const evaluation = json.sections.evaluation;
    expect(evaluation.predictors.map((p) => p.name)).toEqual(["oracle", "uni<form>"]);
    expect(evaluation.predictors[0]!.accuracy).toBe(0.75);
    expect(evaluation.predictors[1]!.entropySpearman).toBeNull();
    expect(evaluation.comparisons).toHaveLength(1);
  });
});

describe("writeReport", () => {
  it("accepts any section module and rejects duplicate ids", () => {
    const section: ReportSection = {
      id: "leaks",
      title: "Leaks",
      html: () => "<p>none</p>",
      markdown: () => "none",
      json: () => ({ leaks: [] }),
    };
    const written = writeReport([section], join(dir, "r2"), meta);
    expect(readFileSync(written.html, "utf8")).toContain('<section id="leaks">');
    expect(JSON.parse(readFileSync(written.json, "utf8")).sections).toEqual({ leaks: { leaks: [] } });
    expect(() => writeReport([section, section], join(dir, "r3"), meta)).toThrow(/duplicate section id leaks/);
  });
});

describe("evaluationText", () => {
  it("prints the headline table and the comparisons for the terminal", () => {
    const text = evaluationText(stored());
    expect(text).toContain("abstraction split · holdout list:A,B · 3 states, 8 samples, 2 programs");
    expect(text).toMatch(/oracle\s+0\.750\s+\[/);
    expect(text).toMatch(/R GoEnd/);
    expect(text).toMatch(/0\.500\s+2 programs\s+2 \/ 0\s+0\.063/);
    // Program by program, with the largest leads under the table.
    expect(text).toContain(
      "oracle ahead of uni<form> by more than 2 points on 2 of 2 programs: A 83.3 % against 16.7 % (6 samples), B 50.0 % against 16.7 % (2 samples)",
    );
    expect(text).toMatch(/ECE\s+ECE 95% CI\s+ECE other runs\s+conf − acc\s+Brier/);
    // The uniform predictor is as sure as it is right (1/6 each): no gap.
    expect(text).toMatch(/^uni<form>\s.*\s0\.000\s+\[0\.000, 0\.000\]\s+0\.000\s+\+0\.000\s+0\.833/m);
    expect(text).toMatch(/^uni<form>\s.*\s0\.000\s+\[0\.000, 0\.000\]\s/m);
  });

  it("states the number of resamples the intervals were computed with", () => {
    const e = stored();
    expect(evaluationSections(e)[0]!.markdown()).toContain("(2000 resamples, seeded)");
    const fewer = evaluate(STATES, samplesOf(STATES), [UNIFORM], {
      abstraction: "split",
      holdout: "list:A,B",
      bootstrapResamples: 300,
    });
    const md = evaluationSections({ ...e, ...fewer })[0]!.markdown();
    expect(md).toContain("(300 resamples, seeded)");
    expect(md).not.toContain("2000");
  });

  it("shows a dash, not a made-up interval, where no interval was computed", () => {
    const e = stored();
    const older = {
      ...e,
      predictors: e.predictors.map((p) => ({
        ...p,
        eceInterval: { ...p.eceInterval, lower: NaN, upper: NaN, resamples: 0 },
      })),
    };
    expect(evaluationText(older)).toMatch(/^uni<form>\s.*\s0\.000\s+–\s+0\.000\s+\+0\.000\s+0\.833/m);
    const md = evaluationSections(older)
      .map((s) => s.markdown())
      .join("\n");
    expect(md).toContain("ECE 0.000, config h-uniform");
  });
});
