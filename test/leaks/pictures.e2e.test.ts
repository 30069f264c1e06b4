// The pictures of every labelled bug in go-programs/kernels and go-programs/realcode, read
// back from their SVG: the wait-for graph's nodes and edges are the explanations' waits-for
// relation and cycle, and the timeline marks the explained goroutine's last block at the
// finding's blocking site.

import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runTimeExpected } from "../../src/corpus/index.js";
import {
  analyseLeaks,
  bugTimeline,
  storedPrograms,
  waitForGraph,
  type BugReport,
  type LeakAnalysis,
} from "../../src/leaks/index.js";
import { timelineSvg, waitForGraphSvg } from "../../src/report/svg/index.js";
import { collectFixtures, type Collected } from "./collected.js";
import { svgEdges, svgNodes, svgAttributes } from "../report/svg/read-svg.js";

const KERNELS = fileURLToPath(new URL("../../go-programs/kernels/", import.meta.url));
const REALCODE = fileURLToPath(new URL("../../go-programs/realcode/", import.meta.url));

let collected: Collected;
let analysis: LeakAnalysis;
/** Bugs of the programs whose manifest expects goroutines a run shows. */
let labelled: BugReport[];
let labelledPrograms: string[];

beforeAll(async () => {
  collected = await collectFixtures([KERNELS, REALCODE]);
  analysis = await analyseLeaks(collected.db, { save: false });
  labelledPrograms = storedPrograms(collected.db)
    .filter((p) => p.manifest !== null && runTimeExpected(p.manifest).length > 0)
    .map((p) => p.name);
  labelled = analysis.bugs.filter((b) => labelledPrograms.includes(b.program));
}, 600_000);

afterAll(() => {
  collected?.db.close();
  if (collected !== undefined) rmSync(collected.dir, { recursive: true, force: true });
});

/** The findings of a bug's goroutines that have an explanation. */
function explainedMembers(bug: BugReport) {
  return analysis.findings.filter(
    (f) => f.program === bug.program && bug.goroutines.includes(f.goroutine) && f.explanation !== null,
  );
}

describe("pictures of the labelled bugs of the kernels and realcode", () => {
  test("every labelled program with a run-time label has a bug drawn", () => {
    const drawn = new Set(labelled.map((b) => b.program));
    // A kernel that shows its bug on some schedules only may show it in none of 3 runs.
    expect(drawn.size).toBeGreaterThanOrEqual(labelledPrograms.length - 6);
    expect(labelled.length).toBeGreaterThanOrEqual(30);
  });

  test("the graph's nodes and edges, read from the SVG, are the explanations' waits-for relation and cycle", () => {
    let cycles = 0;
    let edges = 0;
    for (const bug of labelled) {
      const svg = waitForGraphSvg(waitForGraph(bug, analysis));
      const members = explainedMembers(bug);
      const expectedEdges = new Set<string>();
      const expectedNodes = new Set<string>(bug.goroutines);
      for (const f of members) {
        const e = f.explanation!;
        for (const w of e.waitsFor) {
          expectedEdges.add(`waits-for ${f.goroutine} ${w.goroutine}`);
          expectedNodes.add(w.goroutine);
          if (w.basis === "holds-lock" && w.tookLockAt !== null) {
            expectedEdges.add(`holds ${w.goroutine} lock@${w.tookLockAt}@${w.goroutine}`);
            expectedNodes.add(`lock@${w.tookLockAt}@${w.goroutine}`);
          }
        }
        (e.cycle ?? []).forEach((step, i, steps) => {
          expectedEdges.add(`waits-for ${step.goroutine} ${steps[(i + 1) % steps.length].goroutine}`);
          expectedNodes.add(step.goroutine);
        });
      }
      const drawnEdges = svgEdges(svg).map((e) => `${e.kind} ${e.from} ${e.to}`);
      expect(new Set(drawnEdges).size, bug.program).toBe(drawnEdges.length);
      expect(new Set(drawnEdges), bug.program).toEqual(expectedEdges);
      const nodes = svgNodes(svg);
      expect(new Set(nodes.map((n) => n.id)), bug.program).toEqual(expectedNodes);
      edges += drawnEdges.length;
      // The cycle drawn is the bug's explained cycle (else the first member's), in order.
      const cycle =
        bug.explained?.explanation.cycle ?? members.find((f) => f.explanation!.cycle !== null)?.explanation!.cycle;
      const drawnCycle = nodes
        .filter((n) => n.cycleIndex !== null)
        .sort((a, b) => a.cycleIndex! - b.cycleIndex!)
        .map((n) => n.id);
      expect(drawnCycle, bug.program).toEqual((cycle ?? []).map((s) => s.goroutine));
      if (cycle != null) cycles++;
      // Goroutines the explanation saw ended are drawn as ended; a bug with no waiter known says so.
      for (const f of members)
        for (const w of f.explanation!.waitsFor)
          if (w.state === "ended" && !bug.goroutines.includes(w.goroutine))
            expect(nodes.find((n) => n.id === w.goroutine)?.state).toBe("ended");
      if (expectedEdges.size === 0) expect(svg).toContain("no waiter is known");
      expect(svg).toContain(`Evidence: runtime: `);
    }
    // The corpus has wait-for cycles (chancycle, abba, missingreply …) and waits that were explained.
    expect(cycles).toBeGreaterThanOrEqual(3);
    expect(edges).toBeGreaterThanOrEqual(30);
  });

  test("the timeline marks the explained goroutine's last block at the finding's blocking site, in the run explained", () => {
    let marked = 0;
    for (const bug of labelled) {
      const timeline = bugTimeline(collected.db, bug, analysis);
      const svg = timelineSvg(timeline);
      expect(timeline.lanes.length, bug.program).toBeGreaterThan(0);
      expect(svgAttributes(svg, "data-lane").length).toBe(timeline.lanes.length);
      if (bug.explained === null) continue;
      expect(timeline.runId).toBe(bug.explained.explanation.runId);
      const finding = analysis.findings.find(
        (f) => f.program === bug.program && f.goroutine === bug.explained!.goroutine,
      )!;
      const lastBlocks = svgAttributes(svg, "data-last-block", "data-goroutine");
      const mark = lastBlocks.find((m) => m["data-goroutine"] === bug.explained!.goroutine);
      expect(mark?.["data-last-block"], `${bug.program} ${bug.explained.goroutine}`).toBe(finding.blockingSite);
      marked++;
    }
    expect(marked).toBeGreaterThanOrEqual(30);
  });

  test("the pictures of every bug stay small: 100 bugs' would fit a 5 MB report many times over", () => {
    let bytes = 0;
    for (const bug of analysis.bugs)
      bytes +=
        waitForGraphSvg(waitForGraph(bug, analysis)).length +
        timelineSvg(bugTimeline(collected.db, bug, analysis)).length;
    expect(bytes / analysis.bugs.length).toBeLessThan(25_000);
  });
});
