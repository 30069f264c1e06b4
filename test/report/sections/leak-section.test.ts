// The report's leak tables from an analysis: findings under their test, data races of
// -race runs, and goroutines blocked at a crash in tables of their own.

import { describe, expect, test } from "vitest";
import type { LeakAnalysis } from "../../../src/leaks/index.js";
import { MISSING } from "../../../src/core/index.js";
import { crashRows, leakRows, leakSection, raceRows } from "../../../src/report/sections/leakTables.js";
import { ANALYSIS } from "./leak-analysis.js";

describe("leakSection", () => {
  test("rows name the test of each finding, the races' two accesses, and the goroutines blocked at a crash", () => {
    expect(leakRows(ANALYSIS.findings)).toEqual([
      [
        "pool",
        "TestPool/go_without_wait",
        "pool.(*Pool).Go.func1",
        "1",
        "leak",
        "proven",
        "chan receive",
        "pool.go:12",
        "pool.go:13",
        "3 / 3",
        "0.632",
        "TestPool/go_without_wait, which woke it there before, had ended",
      ],
    ]);
    expect(raceRows(ANALYSIS.races)).toEqual([
      [
        "racy",
        "read main.record main.go:14",
        "write main.record main.go:14",
        "main.main main.go:20, main.main main.go:21",
        "3 / 3",
      ],
    ]);
    expect(crashRows(ANALYSIS.blockedAtCrash)).toEqual([
      ["wgpanic", MISSING, "main.main", "sync", "main.main main.go:20", "3"],
    ]);
  });

  test("HTML and Markdown carry the three tables; the JSON counts them", () => {
    const section = leakSection(ANALYSIS, null);
    const html = section.html();
    expect(html).toContain("<th>test</th>");
    expect(html).toContain("TestPool/go_without_wait");
    expect(html).toContain("Data races: 1 race reported by 3 -race runs searched");
    expect(html).toContain("write main.record main.go:14");
    expect(html).toContain("Blocked when a run crashed");
    const markdown = section.markdown();
    expect(markdown).toMatch(/\| racy \| read main\.record main\.go:14 \| write main\.record main\.go:14 \|/);
    expect(markdown).toMatch(/\| wgpanic \| .+ \| main\.main \| sync \| main\.main main\.go:20 \| 3 \|/);
    // the bugs are the bug section's (bugs.test.ts)
    expect(html).not.toContain("0123456789abcdef");
    expect(section.json()).toEqual({
      score: null,
      bugs: 1,
      potentialDeadlocks: 1,
      findings: 1,
      blockedForever: 1,
      rows: 1,
      races: 1,
      blockedAtCrash: 1,
    });
  });

  test("without races searched or crashes, only the leak table is shown", () => {
    const quiet: LeakAnalysis = { ...ANALYSIS, blockedAtCrash: [], races: [], raceRunsChecked: 0 };
    expect(leakSection(quiet, null).markdown()).not.toMatch(/Data races|crashed/);
  });
});
