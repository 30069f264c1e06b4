// The wait-for graph of a bug from hand-built explanations, and its SVG read back.

import { describe, expect, test } from "vitest";
import { potentialDeadlockGraph, waitForGraph, type PicturedBug, type PicturedFinding } from "../../src/leaks/index.js";
import type { Explanation, PotentialDeadlock, WaitFor } from "../../src/model/index.js";
import { waitForGraphSvg } from "../../src/report/svg/index.js";
import { svgEdges, svgNodes } from "../report/svg/read-svg.js";

const A = "TestBank/bank.transfer@bank_test.go:20#0";
const B = "TestBank/bank.transfer@bank_test.go:20#1";
const C = "TestBank/bank.audit@bank_test.go:24#0";
const ROOT = "TestBank";

function waitFor(goroutine: string, overrides: Partial<WaitFor> = {}): WaitFor {
  return {
    goroutine,
    basis: "woke-before",
    state: "blocked",
    blockedAt: "bank.(*Account).move bank.go:31",
    wait: "Mutex.Lock",
    tookLockAt: null,
    lockStack: null,
    ...overrides,
  };
}

function explanation(waitsFor: WaitFor[], cycle: Explanation["cycle"] = null): Explanation {
  return {
    runId: 7,
    wait: "Mutex.Lock",
    inside: null,
    stack: [],
    waitsFor,
    cycle,
    partnerGone: false,
    timerWakes: 0,
    places: [],
    text: "Why it is stuck.",
  };
}

function finding(goroutine: string, e: Explanation | null, site = "bank.(*Account).move bank.go:31"): PicturedFinding {
  return { program: "bank", goroutine, blockingSite: site, wait: "Mutex.Lock", explanation: e };
}

function bug(goroutines: string[], explained: PicturedBug["explained"]): PicturedBug {
  return {
    program: "bank",
    test: "TestBank",
    kind: "deadlock",
    verdict: "proven",
    why: "the run hung",
    evidence: { runtime: null, trace: "cycle", source: null },
    goroutines,
    explained,
    runIds: [7],
  };
}

describe("waitForGraph", () => {
  // AB-BA: A holds the lock B wants and B the one A wants; the test root waited for C, which ended.
  const aWaits = explanation(
    [waitFor(B, { basis: "holds-lock", tookLockAt: "bank.(*Account).move bank.go:30" })],
    [
      { goroutine: A, site: "bank.(*Account).move bank.go:31", calledFrom: null, wait: "Mutex.Lock" },
      { goroutine: B, site: "bank.(*Account).move bank.go:31", calledFrom: null, wait: "Mutex.Lock" },
    ],
  );
  const bWaits = explanation([waitFor(A, { basis: "holds-lock", tookLockAt: "bank.(*Account).move bank.go:30" })]);
  const rootWaits = explanation([waitFor(C, { state: "ended", blockedAt: null, wait: null })]);
  const findings = [finding(A, aWaits), finding(B, bWaits), finding(ROOT, rootWaits, "bank.TestBank bank_test.go:40")];
  const graph = waitForGraph(bug([A, B, ROOT], { goroutine: A, explanation: aWaits }), { findings });

  test("every WaitFor is a waits-for edge, a lock holder that says where it took the lock also holds that lock", () => {
    expect(graph.edges.map((e) => `${e.kind} ${e.from} ${e.to} ${e.basis}`)).toEqual([
      `waits-for ${A} ${B} holds-lock`,
      `holds ${B} lock@bank.(*Account).move bank.go:30@${B} holds-lock`,
      `waits-for ${B} ${A} holds-lock`,
      `holds ${A} lock@bank.(*Account).move bank.go:30@${A} holds-lock`,
      `waits-for ${ROOT} ${C} woke-before`,
    ]);
    expect(graph.cycle).toEqual([A, B]);
  });

  test("nodes: the bug's goroutines blocked, the waited-for one in its end state, the lock named by its acquisition", () => {
    const byId = new Map(graph.nodes.map((n) => [n.id, n]));
    expect(byId.get(A)).toMatchObject({ kind: "goroutine", state: "blocked", member: true, label: "bank.transfer" });
    expect(byId.get(B)).toMatchObject({ label: "bank.transfer#1", site: "bank.(*Account).move bank.go:31" });
    expect(byId.get(C)).toMatchObject({ state: "ended", member: false, wait: null });
    expect(byId.get(`lock@bank.(*Account).move bank.go:30@${B}`)).toMatchObject({
      kind: "lock",
      label: "lock taken at bank.go:30",
    });
    // Both transfers took their first lock at one line: two locks all the same, one per holder.
    expect(graph.nodes).toHaveLength(6);
    expect(graph.note).toBeNull();
    expect(graph.evidence).toEqual([
      "proven: the run hung",
      "Evidence: runtime: no proof from a leak profile; trace: cycle; source: no timer, context or signal case.",
      "Why it is stuck.",
    ]);
  });

  test("a step of a cycle that no member's waitsFor names is an edge of its own", () => {
    const cycleOnly = explanation(
      [],
      [
        { goroutine: A, site: null, calledFrom: null, wait: "chan receive" },
        { goroutine: C, site: null, calledFrom: null, wait: "chan receive" },
      ],
    );
    const g = waitForGraph(bug([A], { goroutine: A, explanation: cycleOnly }), { findings: [finding(A, cycleOnly)] });
    expect(g.edges.map((e) => `${e.from}>${e.to} ${e.basis}`)).toEqual([`${A}>${C} cycle`, `${C}>${A} cycle`]);
    expect(g.nodes.find((n) => n.id === C)).toMatchObject({ state: "blocked", member: false });
  });

  test("a bug without an explanation keeps its goroutines as nodes and says no waiter is known", () => {
    const g = waitForGraph(bug([A, B], null), { findings: [finding(A, null), finding(B, null)] });
    expect(g.nodes.map((n) => [n.id, n.kind === "goroutine" && n.state])).toEqual([
      [A, "unknown"],
      [B, "unknown"],
    ]);
    expect(g.edges).toEqual([]);
    expect(g.note).toContain("no waiter is known");
    expect(waitForGraphSvg(g)).toContain("no waiter is known.");
  });

  test("the SVG carries the same nodes, edges and cycle order as data attributes, ended goroutines dashed", () => {
    const svg = waitForGraphSvg(graph);
    expect(svgEdges(svg).map((e) => `${e.kind} ${e.from} ${e.to}`)).toEqual(
      graph.edges.map((e) => `${e.kind} ${e.from} ${e.to}`),
    );
    expect(svgNodes(svg)).toEqual([
      { id: A, kind: "goroutine", state: "blocked", cycleIndex: 0 },
      { id: B, kind: "goroutine", state: "blocked", cycleIndex: 1 },
      { id: ROOT, kind: "goroutine", state: "blocked", cycleIndex: null },
      { id: `lock@bank.(*Account).move bank.go:30@${B}`, kind: "lock", state: null, cycleIndex: null },
      { id: `lock@bank.(*Account).move bank.go:30@${A}`, kind: "lock", state: null, cycleIndex: null },
      { id: C, kind: "goroutine", state: "ended", cycleIndex: null },
    ]);
    const ended = /<g data-node="TestBank\/bank.audit[^>]*>[\s\S]*?<\/g>/.exec(svg)?.[0] ?? "";
    expect(ended).toContain('stroke-dasharray="4 3"');
    expect(ended).toContain(">ended</text>");
    expect(svg).toContain(`data-nodes="6" data-edges="5"`);
    expect(svg).toContain("Why it is stuck.");
    expect(waitForGraphSvg(graph)).toBe(svg);
  });

  test("a goroutine that waits for a lock it holds itself is a loop on its own node, and its own cycle", () => {
    const self = explanation(
      [waitFor(ROOT, { basis: "holds-lock", tookLockAt: "cache.Get c.go:39" })],
      [{ goroutine: ROOT, site: "cache.refresh c.go:50", calledFrom: null, wait: "Mutex.Lock" }],
    );
    const g = waitForGraph(bug([ROOT], { goroutine: ROOT, explanation: self }), { findings: [finding(ROOT, self)] });
    expect(g.cycle).toEqual([ROOT]);
    const svg = waitForGraphSvg(g);
    expect(svgEdges(svg).map((e) => `${e.kind} ${e.from} ${e.to}`)).toEqual([
      `waits-for ${ROOT} ${ROOT}`,
      `holds ${ROOT} lock@cache.Get c.go:39@${ROOT}`,
    ]);
    const loop = /<g data-edge-from="TestBank" data-edge-to="TestBank"[\s\S]*?<\/g>/.exec(svg)?.[0] ?? "";
    expect(loop).toMatch(/<path d="M[\d.]+ [\d.]+C/);
  });

  test("names are escaped in attributes and text", () => {
    const odd = 'Test<"x">/main.f@a.go:1#0';
    const g = waitForGraph(bug([odd], null), { findings: [] });
    const svg = waitForGraphSvg(g);
    expect(svg).not.toContain('<"x">');
    expect(svgNodes(svg).map((n) => n.id)).toEqual([odd]);
  });
});

describe("potentialDeadlockGraph", () => {
  const step = (goroutine: string, heldAt: string, takenAt: string) => ({
    goroutine,
    heldAt,
    heldStack: null,
    takenAt,
    takenStack: null,
    modes: "ww",
  });

  test("a lock-order inversion: each goroutine holds its lock and waits for the next one's, a cycle through both", () => {
    const p: PotentialDeadlock = {
      fingerprint: "f",
      program: "shop",
      owner: "TestShop",
      pattern: "lock-order",
      steps: [
        step("TestShop/restock@a.go:1#0", "restock a.go:10", "restock a.go:11"),
        step("TestShop/reprice@a.go:2#0", "reprice a.go:20", "reprice a.go:21"),
      ],
      writerAt: null,
      runIds: [1, 2],
      why: "an inversion",
    };
    const g = potentialDeadlockGraph(p);
    expect(g.edges.map((e) => `${e.kind} ${e.from} ${e.to}`)).toEqual([
      "holds TestShop/restock@a.go:1#0 lock@restock a.go:10@TestShop/restock@a.go:1#0",
      "waits-for TestShop/restock@a.go:1#0 lock@reprice a.go:20@TestShop/reprice@a.go:2#0",
      "holds TestShop/reprice@a.go:2#0 lock@reprice a.go:20@TestShop/reprice@a.go:2#0",
      "waits-for TestShop/reprice@a.go:2#0 lock@restock a.go:10@TestShop/restock@a.go:1#0",
    ]);
    expect(g.cycle).toEqual([
      "TestShop/restock@a.go:1#0",
      "lock@reprice a.go:20@TestShop/reprice@a.go:2#0",
      "TestShop/reprice@a.go:2#0",
      "lock@restock a.go:10@TestShop/restock@a.go:1#0",
    ]);
    expect(g.evidence[1]).toBe("Seen in 2 runs, none of which hung on it.");
    expect(svgNodes(waitForGraphSvg(g)).filter((n) => n.cycleIndex !== null)).toHaveLength(4);
  });

  test("a recursive read lock: the reader holds it, a writer queues for it, the second read waits behind the writer", () => {
    const g = potentialDeadlockGraph({
      fingerprint: "f",
      program: "routes",
      owner: "TestRoutes",
      pattern: "recursive-read",
      steps: [{ ...step("TestRoutes", "routes.get a.go:5", "routes.all a.go:9"), modes: "rr" }],
      writerAt: "routes.set a.go:14",
      runIds: [1],
      why: "a recursive read",
    });
    expect(g.edges.map((e) => `${e.kind} ${e.from} ${e.to} ${e.basis}`)).toEqual([
      "holds TestRoutes lock@routes.get a.go:5@TestRoutes lock-order",
      "waits-for writer@routes.set a.go:14 lock@routes.get a.go:5@TestRoutes lock-order",
      "waits-for TestRoutes writer@routes.set a.go:14 queued-writer",
    ]);
    expect(g.cycle).toEqual(["TestRoutes", "writer@routes.set a.go:14", "lock@routes.get a.go:5@TestRoutes"]);
  });
});
