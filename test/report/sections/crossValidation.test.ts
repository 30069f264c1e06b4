// The CV scoreboard section of the report: a CV run turned into its JSON-safe board, rendered as
// HTML, Markdown and JSON with every predictor's accuracy, interval, ceiling gaps, calibration
// and conformal coverage; and `run`'s summary line.

import { describe, expect, it } from "vitest";
import type { CrossValidationRun } from "../../../src/cv/index.js";
import { crossValidationScores, foldColumns, poolFolds, type FoldPredictions } from "../../../src/eval/cv.js";
import {
  crossValidationBoard,
  crossValidationLine,
  crossValidationSection,
  crossValidationTitle,
} from "../../../src/report/sections/crossValidation.js";
import { trainingSetsMarkdown, trainingSetsRows } from "../../../src/report/sections/trainingSets.js";
import { makeState, samplesOf } from "../../eval/fixtures/states.js";

// Two folds of three one-program families; every state is seen twice as GoStart.
const fold = (programs: readonly string[]) =>
  programs.map((p, i) => ({ ...makeState(`s${i + 1}`, p, { GoStart: 2 }), abstraction: "depth" as const }));
const states1 = fold(["p1", "p2", "p3"]);
const states2 = fold(["p4", "p5", "p6"]);
const soft = { probabilities: [0, 0.8, 0.2, 0, 0, 0] };
const right = { probabilities: [0, 1, 0, 0, 0, 0] };
const wrong = { probabilities: [0, 0, 1, 0, 0, 0] };
const folds: FoldPredictions[] = [
  {
    fold: 1,
    states: states1,
    samples: samplesOf(states1),
    outputs: [
      { name: "student:kl", configHash: "k1", predictions: states1.map(() => soft) },
      { name: "ngram-ctx:4", configHash: "r1", predictions: states1.map(() => right) },
    ],
    thresholds: { "student:kl": 0.1, "ngram-ctx:4": Infinity },
  },
  {
    fold: 2,
    states: states2,
    samples: samplesOf(states2),
    outputs: [
      { name: "student:kl", configHash: "k2", predictions: states2.map(() => soft) },
      { name: "ngram-ctx:4", configHash: "r2", predictions: states2.map(() => wrong) },
    ],
    thresholds: { "student:kl": 0.85, "ngram-ctx:4": 0 },
  },
];
const scores = crossValidationScores(poolFolds(folds.map(foldColumns)), {
  abstraction: "depth",
  familyOf: (p) => `family-${p}`,
  majorityClass: "GoStart",
  folds: 2,
  bootstrap: { resamples: 200, seed: 5 },
});
const run: CrossValidationRun = {
  folds: 2,
  foldSeed: 1,
  reference: "ngram-ctx:4",
  abstractions: [
    {
      abstraction: "depth",
      assignment: {
        k: 2,
        seed: 1,
        folds: [
          ["family-p1", "family-p2", "family-p3"],
          ["family-p4", "family-p5", "family-p6"],
        ],
        samples: [6, 6],
      },
      cacheDir: "/tmp/adapters/cv/abc",
      sampleCap: { maxSamplesPerProgram: 100_000, capped: [] },
      folds: [1, 2].map((f) => ({
        fold: f,
        families: [],
        testPrograms: 3,
        testSamples: 6,
        trainPrograms: 2,
        validationPrograms: 1,
        majorityClass: "GoStart" as const,
        students: [{ recipe: "kl", path: `/tmp/adapters/cv/abc/fold-${f}/kl`, reused: f === 2 }],
      })),
      scores,
      failures: [{ predictor: "ngram:3", message: "fold 2: boom", hint: "report it" }],
      seconds: 12.4,
    },
  ],
};
const board = crossValidationBoard(run);

describe("the CV board", () => {
  it("keeps every predictor's accuracy, ceiling gaps, calibration and conformal coverage", () => {
    const [depth] = board.abstractions;
    expect(board).toMatchObject({ folds: 2, seed: 1, reference: "ngram-ctx:4", conformalTarget: 0.9 });
    expect(depth).toMatchObject({
      abstraction: "depth",
      families: 6,
      programs: 6,
      states: 6,
      samples: 12,
      clusterUnit: "family",
      clusters: 6,
      ceiling: 1,
      ceilingLoo: 1,
      studentsTrained: 1,
      studentsReused: 1,
    });
    const [student, reference] = depth!.predictors;
    expect(student!.name).toBe("student:kl");
    expect(student!.accuracy.estimate).toBe(1);
    expect(student!.gapToCeiling).toBe(0);
    expect(student!.ece.estimate).toBeCloseTo(0.2, 12);
    expect(student!.coverage!.estimate).toBe(0.5);
    expect(student!.setSize!.estimate).toBe(1);
    expect(student!.againstReference!.difference.estimate).toBeCloseTo(0.5, 12);
    expect(reference!.accuracy.estimate).toBe(0.5);
    expect(reference!.gapToCeiling).toBe(0.5);
    expect(reference!.gapToCeilingLoo).toBe(0.5);
    expect(reference!.againstReference).toBeNull();
    expect(reference!.setSize!.estimate).toBe(3.5);
    expect(depth!.failures).toEqual([{ predictor: "ngram:3", message: "fold 2: boom" }]);
  });

  it("survives a JSON round trip unchanged (run stores it in pipeline_stages)", () => {
    expect(JSON.parse(JSON.stringify(board))).toEqual(board);
  });
});

describe("crossValidationSection", () => {
  const section = crossValidationSection(board);

  it("renders one HTML table per abstraction with the numbers, escaped", () => {
    const html = section.html();
    expect(section.id).toBe("cross-validation");
    expect(section.title).toBe("Leave-family-out cross-validation (2 folds)");
    expect(html).toContain("<h3>depth</h3>");
    expect(html).toContain('<th class="num">− ngram-ctx:4 (points)</th>');
    expect(html).toContain('<th class="num">coverage of 90% sets</th>');
    // student:kl: 100.0 %, +50.0 points over the reference, ceiling gap 0.0, ECE 0.200, NLL −ln 0.8, coverage 50.0 %, 1.00 events.
    const studentRow = html.split("\n").find((l) => l.includes("<td>student:kl</td>"))!;
    expect(studentRow).toContain('<td class="num">100.0%</td>');
    expect(studentRow).toContain('<td class="num">+50.0</td>');
    expect(studentRow).toContain('<td class="num">0.200</td>');
    expect(studentRow).toContain(`<td class="num">${(-Math.log(0.8)).toFixed(3)}</td>`);
    expect(studentRow).toContain('<td class="num">50.0%</td>');
    expect(studentRow).toContain('<td class="num">1.00</td>');
    const referenceRow = html.split("\n").find((l) => l.includes("<td>ngram-ctx:4</td>"))!;
    expect(referenceRow).toContain('<td class="num">50.0</td>');
    expect(referenceRow).toContain('<td class="num">3.50</td>');
    expect(html).toContain(
      "ceiling 100.0%, leave-one-run-out ceiling 100.0%, majority (GoStart) 100.0%; intervals resample 6 families; 2 fold students (1 reused), 12 s.",
    );
    expect(html).toContain("ngram:3 failed: fold 2: boom");
    expect(html).not.toMatch(/NaN|undefined|Infinity/);
  });

  it("renders the same rows as Markdown", () => {
    const md = section.markdown();
    expect(md).toContain("### depth");
    expect(md).toMatch(/\| predictor \| accuracy \| 95% CI \| other runs \| 95% CI \| − ngram-ctx:4 \(points\) \|/);
    // Each state's prefix is run 1's; the other runs are the second sample of every state.
    expect(md).toMatch(/\| student:kl \| 100\.0% \| \[100\.0, 100\.0\] \| 100\.0% \| \[100\.0, 100\.0\] \| \+50\.0 \|/);
    expect(md).toMatch(
      /\| ngram-ctx:4 \| 50\.0% \| \[\d+\.\d, \d+\.\d\] \| 50\.0% \| \[\d+\.\d, \d+\.\d\] \| – \| – \| 50\.0% \| \[\d+\.\d, \d+\.\d\] \| – \| – \| – \| 50\.0 \| 50\.0 \|/,
    );
    // Programs behind / ahead of the reference: the student is ahead on every program the reference got wrong.
    expect(md).toMatch(/\| student:kl \| 100\.0% \|.*\| \+50\.0 \| \[[^\]]+\] \| 0 \/ 3 \| 0\.0 \|/);
    // The family means: the student right in every family, +50 points over the reference's mean.
    expect(md).toMatch(
      /\| student:kl \| 100\.0% \| \[100\.0, 100\.0\] \| 100\.0% \| \[100\.0, 100\.0\] \| \+50\.0 \| \[[^\]]+\] \| 100\.0% \| \[100\.0, 100\.0\] \| \+50\.0 \|/,
    );
    expect(md).not.toMatch(/NaN|undefined|Infinity/);
  });

  it("gives the board as its JSON", () => {
    expect(section.json()).toBe(board);
  });

  it("says when nothing was cross-validated", () => {
    const empty = crossValidationSection({ ...board, abstractions: [] });
    expect(empty.html()).toContain("No abstraction was cross-validated.");
    expect(empty.markdown()).toContain("No abstraction was cross-validated.");
  });
});

describe("a training set: CV within it, or carried to a holdout as one fold", () => {
  const trainOn = { spec: "corpus:go-programs", description: "corpus go-programs" };
  const within = crossValidationBoard({ ...run, trainOn });
  const carried = crossValidationBoard({
    ...run,
    folds: 1,
    trainOn,
    holdout: { spec: "dir:kernels", description: "programs under kernels/" },
  });

  it("names the training set and the holdout in the title, the context line and the notes", () => {
    expect(within.trainOn).toEqual(trainOn);
    expect(JSON.parse(JSON.stringify(carried))).toEqual(carried);
    expect(crossValidationTitle(board)).toBe("Leave-family-out cross-validation (2 folds)");
    expect(crossValidationTitle(within)).toBe("Leave-family-out cross-validation (2 folds) within corpus:go-programs");
    expect(crossValidationTitle(carried)).toBe("Trained on corpus:go-programs, tested on dir:kernels");
    expect(crossValidationSection(within).markdown()).toContain(
      "depth: 2 folds of 6 families (seed 1), all from corpus go-programs, 6 programs, 6 states, 12 samples;",
    );
    const md = crossValidationSection(carried).markdown();
    expect(md).toContain(
      "depth: tested on programs under kernels/ (6 families), trained on corpus go-programs only, 6 programs,",
    );
    expect(md).toContain("- One fold, the holdout:");
    expect(md).not.toContain("Every program is tested once");
  });

  it("sets training sets side by side: the student's accuracy and family mean beside the reference's", () => {
    const scores = [
      { training: "bundled", tested: "CV (2 folds)", board: within },
      { training: "bundled", tested: "dir:kernels", board: carried },
    ];
    const rows = trainingSetsRows(scores);
    expect(rows).toHaveLength(2);
    // student:kl right everywhere, the reference in half the families; the LOO ceiling is 100 %.
    expect(rows[1]).toEqual([
      "bundled",
      "dir:kernels",
      "depth",
      "6",
      "student:kl",
      "100.0%",
      "[100.0, 100.0]",
      "100.0%",
      "[100.0, 100.0]",
      "50.0%",
      "50.0%",
      "100.0%",
      "100.0%",
    ]);
    // Asked for a predictor by name: the reference's own row.
    const reference = trainingSetsRows(scores, "ngram-ctx:4")[0]!;
    expect([reference[4], reference[5], reference[7]]).toEqual(["ngram-ctx:4", "50.0%", "50.0%"]);
    const md = trainingSetsMarkdown(scores);
    expect(md).toContain("Reference: ngram-ctx:4.");
    expect(md).toContain("| bundled | CV (2 folds) | depth | 6 | student:kl | 100.0% |");
    expect(md).not.toMatch(/NaN|undefined|Infinity/);
  });
});

describe("crossValidationLine", () => {
  it("headlines the student run chose, beside the reference and the LOO ceiling", () => {
    expect(crossValidationLine(board, "student:kl")).toBe(
      "cross-validation (2 folds of families): depth student:kl 100.0% [100.0, 100.0] pooled " +
        "(half its samples from 3 of 6 programs) vs ngram-ctx:4 50.0%, " +
        "family mean 100.0% [100.0, 100.0] vs ngram-ctx:4 50.0%, program mean 100.0% [100.0, 100.0] vs ngram-ctx:4 50.0%, " +
        "behind it on 0 of 6 programs by > 2 points; on the runs it did not read 100.0%, LOO ceiling 100.0% (gap 0.0 points); " +
        "ECE 0.200 pooled, 0.200 [0.200, 0.200] family mean vs ngram-ctx:4 0.500, 90% sets cover 50.0%",
    );
    // No headline student: the first student listed.
    expect(crossValidationLine(board, null)).toContain("depth student:kl 100.0%");
  });
});
