// Baseline files and workflow-command escaping, on their own: what a malformed file is told,
// which entries a --program run holds against the analysis, that a re-save keeps the reasons
// and the entries of programs it did not look at, and the escaping GitHub's runner undoes.

import { describe, expect, test } from "vitest";
import { baselineOf, baselineText, matchBaseline, parseBaseline, type Baseline } from "../../src/leaks/baseline.js";
import { escapeData, escapeProperty, workflowCommand } from "../../src/leaks/annotations.js";
import type { BugReport, LeakAnalysis } from "../../src/leaks/from-database.js";
import { gateCounts } from "../../src/leaks/gates.js";

function bug(program: string, fingerprint: string, test: string | null): BugReport {
  return {
    fingerprint,
    program,
    owner: test ?? "main.main",
    kind: "leak",
    verdict: "likely",
    gating: true,
    goroutines: [`${test ?? "main.main"}/x.f@x.go:1#0`],
    runIds: [1],
    explained: null,
    why: "never woken from this wait in any run",
    evidence: { runtime: null, trace: "never-woken", source: null },
    differing: [],
    test,
    replay: null,
    trace: null,
  };
}

function analysisOf(bugs: BugReport[]): LeakAnalysis {
  return {
    programs: [],
    findings: [],
    bugs,
    potentialDeadlocks: [],
    blockedAtCrash: [],
    races: [],
    raceRunsChecked: 0,
    failing: [],
    flaky: [],
    crashed: [],
    tracerInduced: [],
    withoutRuns: [],
    buildErrors: [],
    notes: [],
  };
}

const A = bug("pool", "aaaaaaaaaaaaaaaa", "TestPool");
const B = bug("cache", "bbbbbbbbbbbbbbbb", null);

describe("baseline files", () => {
  test.each([
    ["not json", "{", /not JSON/],
    ["no version", JSON.stringify({ entries: [] }), /expected an object with "schedlabBaseline" and "entries"/],
    [
      "another version",
      JSON.stringify({ schedlabBaseline: 2, entries: [] }),
      /"schedlabBaseline" is 2, this schedlab reads version 1/,
    ],
    ["entries not a list", JSON.stringify({ schedlabBaseline: 1, entries: {} }), /"entries" must be an array/],
    [
      "an unknown kind",
      JSON.stringify({
        schedlabBaseline: 1,
        entries: [{ fingerprint: "aaaaaaaaaaaaaaaa", kind: "bug", program: "p", reason: "r" }],
      }),
      /entry 1: "kind" must be one of deadlock, leak/,
    ],
    [
      "no reason",
      JSON.stringify({
        schedlabBaseline: 1,
        entries: [{ fingerprint: "aaaaaaaaaaaaaaaa", kind: "leak", program: "p" }],
      }),
      /entry 1 has no "reason"/,
    ],
    [
      "an empty reason",
      JSON.stringify({
        schedlabBaseline: 1,
        entries: [{ fingerprint: "aaaaaaaaaaaaaaaa", kind: "leak", program: "p", reason: " " }],
      }),
      /empty "reason": say why it is accepted/,
    ],
  ])("a file with %s is refused with what is wrong and what to do", (_what, text, message) => {
    expect(() => parseBaseline(text, "b.json")).toThrow(message);
    try {
      parseBaseline(text, "b.json");
    } catch (error) {
      expect((error as { hint: string }).hint).toContain("--save-baseline b.json");
    }
  });

  test("what is saved reads back the same, sorted by program, with the default reason", () => {
    const saved = baselineOf(analysisOf([A, B]));
    expect(saved.entries.map((e) => e.reason)).toEqual(["accepted as known", "accepted as known"]);
    const read = parseBaseline(baselineText(saved), "b.json");
    expect(read.entries.map((e) => e.program)).toEqual(["cache", "pool"]);
    expect(read.entries.find((e) => e.program === "pool")).toEqual({
      fingerprint: A.fingerprint,
      kind: "leak",
      program: "pool",
      test: "TestPool",
      summary: "likely leak: never woken from this wait in any run",
      reason: "accepted as known",
    });
  });

  test("a --program run matches only that program's entries: the others are neither used nor stale, and a re-save keeps them", () => {
    const baseline: Baseline = {
      entries: [
        { ...baselineOf(analysisOf([A])).entries[0], reason: "upstream bug #4" },
        { fingerprint: "cccccccccccccccc", kind: "race", program: "cache", test: null, summary: "", reason: "known" },
      ],
    };
    const poolOnly = analysisOf([A]);
    const match = matchBaseline(poolOnly, baseline, "b.json", { program: "pool" });
    expect(match.stale).toEqual([]);
    expect(match.baselined.map((b) => b.entry.reason)).toEqual(["upstream bug #4"]);
    expect(gateCounts(poolOnly, match.accepted).leak).toBe(0);
    expect(matchBaseline(poolOnly, baseline, "b.json").stale.map((e) => e.fingerprint)).toEqual(["cccccccccccccccc"]);
    const resaved = baselineOf(poolOnly, baseline, { program: "pool" });
    expect(resaved.entries.map((e) => [e.fingerprint, e.reason])).toEqual([
      [A.fingerprint, "upstream bug #4"],
      ["cccccccccccccccc", "known"],
    ]);
  });
});

describe("workflow command escaping", () => {
  test("data escapes %, CR and LF; properties also ':' and ','", () => {
    expect(escapeData("100% done\r\nnext: a, b")).toBe("100%25 done%0D%0Anext: a, b");
    expect(escapeProperty("100% done\r\nnext: a, b")).toBe("100%25 done%0D%0Anext%3A a%2C b");
    expect(workflowCommand("warning", { file: "a,b.go", line: 3, title: "x: y" }, "one\ntwo")).toBe(
      "::warning file=a%2Cb.go,line=3,title=x%3A y::one%0Atwo",
    );
    expect(workflowCommand("error", { file: undefined }, "m")).toBe("::error::m");
  });
});
