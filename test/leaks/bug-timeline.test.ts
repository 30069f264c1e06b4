// The timeline of a bug: the fold of hand-made records into lanes and marks, the compressed
// time axis, the timeline read from a scratch database, and its SVG read back.

import { rmSync } from "node:fs";
import { afterAll, describe, expect, test } from "vitest";
import type { GoroutineRecord, RecordKind } from "../../src/core/index.js";
import {
  bugTimeline,
  compressTime,
  timelineFold,
  type PicturedBug,
  type PicturedFinding,
} from "../../src/leaks/index.js";
import type { Explanation } from "../../src/model/index.js";
import { formatNs, timelineSvg } from "../../src/report/svg/index.js";
import { insertProgram, insertRun, scratchDatabase } from "../dataset/db-fixture.js";
import { svgAttributes } from "../report/svg/read-svg.js";

let seq = 0;
function record(
  goroutine: number,
  timeNs: number,
  kind: RecordKind,
  reason = "",
  site: string | null = null,
  actor: number | null = null,
): GoroutineRecord {
  return { seq: seq++, timeNs, kind, goroutine, actor, reason, site, stack: undefined };
}

const SITE = "main.main main.go:9";
// main (gid 1) starts a worker (gid 2) and blocks receiving from it; the worker is suspended
// once by the GC, takes a lock and ends. Goroutine 3 is not involved and runs until 1 s.
const RECORDS = [
  record(1, 0, "Initial", "Running"),
  record(2, 10, "GoCreate", "", null, 1),
  record(1, 20, "GoBlock", "chan receive", SITE),
  record(2, 30, "GoStart"),
  record(2, 35, "GoBlock", "preempted"),
  record(2, 36, "GoUnblock"),
  record(2, 40, "GoStart"),
  record(2, 50, "GoEnd"),
  record(3, 60, "GoCreate", "", null, 1),
  record(3, 1_000_000_000, "GoStart"),
];

describe("timelineFold", () => {
  const fold = timelineFold(
    new Map([
      [1, "main.main"],
      [2, "main.main/w#1"],
    ]),
    new Set(["main.main"]),
  );
  for (const r of RECORDS) fold.add(r);
  fold.addLockOp({
    seq: 7,
    timeNs: 45,
    goroutine: 2,
    phase: "got",
    mode: "w",
    lock: "0x1",
    site: "main.w main.go:4",
    stack: null,
  });
  fold.addLockOp({ seq: 7, timeNs: 46, goroutine: 3, phase: "got", mode: "w", lock: "0x1", site: null, stack: null });
  const { lanes, marks, startNs } = fold.finish(100);

  test("each lane is its goroutine's state changes; a GC preemption and a wake-up before running are no change", () => {
    expect(startNs).toBe(0);
    expect(lanes.map((l) => [l.goroutine, l.gid, l.member])).toEqual([
      ["main.main", 1, true],
      ["main.main/w#1", 2, false],
    ]);
    expect(lanes[0].segments).toEqual([
      { state: "running", startNs: 0, endNs: 20, reason: "" },
      { state: "blocked", startNs: 20, endNs: 100, reason: "chan receive" },
    ]);
    expect(lanes[1].segments.map((s) => `${s.state} ${s.startNs}-${s.endNs}`)).toEqual([
      "runnable 10-30",
      "running 30-35",
      "runnable 35-40",
      "running 40-50",
    ]);
  });

  test("the last block of a goroutine still blocked, the end of one that ended, its lock operations: in time order", () => {
    expect(lanes[0].lastBlock).toEqual({ timeNs: 20, reason: "chan receive", site: SITE });
    expect(lanes[1]).toMatchObject({ lastBlock: null, endedNs: 50 });
    expect(marks.map((m) => `${m.kind} ${m.goroutine} ${m.timeNs}`)).toEqual([
      "last-block main.main 20",
      "lock main.main/w#1 45",
      "go-end main.main/w#1 50",
    ]);
  });
});

describe("compressTime", () => {
  test("keeps windows around clusters of moments and the ends, and collapses the stretch between into a gap", () => {
    expect(compressTime([10, 12, 990], 0, 1000)).toEqual([
      { startNs: 0, endNs: 16, gap: false },
      { startNs: 16, endNs: 986, gap: true },
      { startNs: 986, endNs: 1000, gap: false },
    ]);
  });
  test("moments spread over the run leave it whole", () => {
    expect(compressTime([40, 80, 130, 170, 210, 240], 0, 260)).toEqual([{ startNs: 0, endNs: 260, gap: false }]);
  });
  test("an empty span is one window", () => {
    expect(compressTime([], 5, 5)).toEqual([{ startNs: 5, endNs: 5, gap: false }]);
  });
});

describe("formatNs", () => {
  test("says a duration in the unit that reads best", () => {
    expect([850, 12_500, 3_210_000, 1.5e9].map(formatNs)).toEqual(["850 ns", "12.5 µs", "3.21 ms", "1.5 s"]);
  });
});

describe("bugTimeline over a database", () => {
  const { db, dir } = scratchDatabase();
  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const runId = insertRun(db, insertProgram(db, "p"), 0, RECORDS);
  const explanation: Explanation = {
    runId,
    wait: "chan receive",
    inside: null,
    timerWakes: 0,
    places: [],
    stack: [SITE],
    waitsFor: [
      {
        goroutine: "main.main/w#1",
        basis: "woke-before",
        state: "ended",
        blockedAt: null,
        wait: null,
        tookLockAt: null,
        lockStack: null,
      },
    ],
    cycle: null,
    partnerGone: true,
    text: "main waits.",
  };
  const bug: PicturedBug = {
    program: "p",
    test: null,
    kind: "leak",
    verdict: "likely",
    why: "w",
    evidence: { runtime: null, trace: "wakers-gone", source: null },
    goroutines: ["main.main"],
    explained: { goroutine: "main.main", explanation },
    runIds: [runId],
  };
  const findings: PicturedFinding[] = [
    { program: "p", goroutine: "main.main", blockingSite: SITE, wait: "chan receive", explanation },
  ];
  const timeline = bugTimeline(db, bug, { findings });

  test("lanes of the bug's goroutine and the one it waits for only, in the run explained, until the trace stopped", () => {
    expect(timeline).toMatchObject({ runId, startNs: 0, endNs: 1_000_000_000, note: null });
    expect(timeline.lanes.map((l) => l.gid)).toEqual([1, 2]);
    expect(timeline.lanes[0].segments.at(-1)).toEqual({
      state: "blocked",
      startNs: 20,
      endNs: 1_000_000_000,
      reason: "chan receive",
    });
    // The second of quiet until the trace stopped is one gap.
    expect(timeline.windows.filter((w) => w.gap)).toHaveLength(1);
  });

  test("the SVG marks the last block with its site, the waker's end, the gap with its duration", () => {
    const svg = timelineSvg(timeline);
    expect(svgAttributes(svg, "data-last-block", "data-goroutine")).toEqual([
      { "data-last-block": SITE, "data-goroutine": "main.main" },
    ]);
    expect(svgAttributes(svg, "data-go-end")).toEqual([{ "data-go-end": "main.main/w#1" }]);
    expect(svgAttributes(svg, "data-lane", "data-gid")).toEqual([
      { "data-lane": "main.main", "data-gid": "1" },
      { "data-lane": "main.main/w#1", "data-gid": "2" },
    ]);
    const [gap] = svgAttributes(svg, "data-gap-ns");
    expect(Number(gap["data-gap-ns"])).toBeGreaterThan(990_000_000);
    expect(svg).toContain(">+");
    expect(svg).toContain("main.main: last block chan receive at main.go:9");
    expect(timelineSvg(timeline)).toBe(svg);
  });

  test("a bug whose goroutines the run does not have says so instead of lanes", () => {
    const absent = bugTimeline(db, { ...bug, goroutines: ["other"], explained: null }, { findings: [] });
    expect(absent.lanes).toEqual([]);
    expect(absent.note).toBe(`Not in run ${runId}: other.`);
    expect(timelineSvg(absent)).toContain(`Not in run ${runId}: other.`);
  });
});

describe("timelineSvg", () => {
  test("a goroutine that switched ten thousand times draws a few rectangles, in the state it spent most time in", () => {
    const segments = Array.from({ length: 10_000 }, (_, i) => ({
      state: i % 2 === 0 ? ("running" as const) : ("runnable" as const),
      startNs: i * 10,
      endNs: i * 10 + (i % 2 === 0 ? 7 : 3),
      reason: "",
    })).map((s, i, all) => ({ ...s, endNs: i + 1 < all.length ? all[i + 1].startNs : s.endNs }));
    const svg = timelineSvg({
      title: "busy",
      program: "p",
      runId: 1,
      startNs: 0,
      endNs: 100_000,
      lanes: [{ goroutine: "g", gid: 1, label: "g", member: true, segments, lastBlock: null, endedNs: null }],
      marks: [],
      windows: [{ startNs: 0, endNs: 100_000, gap: false }],
      note: null,
    });
    const lane = /<g data-lane="g"[\s\S]*?<\/g>/.exec(svg)?.[0] ?? "";
    const rects = lane.match(/<rect /g) ?? [];
    expect(rects.length).toBe(1);
    expect(lane).toContain("mostly running (10000 segments)");
    expect(svg.length).toBeLessThan(6_000);
  });
});
