// Race reports parsed from text as a -race binary prints them, and pooled into findings.

import { describe, expect, test } from "vitest";
import { detectRaces, isStandardFrame, parseRaceReports } from "../../src/leaks/index.js";

/** A report in the layout Go 1.26's race runtime prints (paths made up). */
const REPORT = `==================
WARNING: DATA RACE
Read at 0x000000622518 by goroutine 8:
  main.record()
      /w/racy/main.go:14 +0x74
  main.main.gowrap2()
      /w/racy/main.go:21 +0x2e

Previous write at 0x000000622518 by goroutine 7:
  sync/atomic.AddInt32()
      /usr/local/go/src/sync/atomic/doc.go:95 +0x12
  main.(*counter).inc()
      /w/racy/main.go:9 +0x8c
  main.main.gowrap1()
      /w/racy/main.go:20 +0x2e

Goroutine 8 (running) created at:
  main.main()
      /w/racy/main.go:21 +0x124

Goroutine 7 (finished) created at:
  main.main()
      /w/racy/main.go:20 +0xbe
==================
`;

describe("parseRaceReports", () => {
  test("reads both accesses, their stacks and where their goroutines were created", () => {
    const [report, ...rest] = parseRaceReports(`2\n${REPORT}Found 1 data race(s)\n`);
    expect(rest).toEqual([]);
    expect(report.current).toMatchObject({
      access: "read",
      goroutine: "goroutine 8",
      stack: [
        { function: "main.record", file: "/w/racy/main.go", line: 14 },
        { function: "main.main.gowrap2", file: "/w/racy/main.go", line: 21 },
      ],
    });
    expect(report.previous.access).toBe("write");
    expect(report.previous.stack.map((f) => f.function)).toEqual([
      "sync/atomic.AddInt32",
      "main.(*counter).inc",
      "main.main.gowrap1",
    ]);
    expect(report.current.createdAt).toEqual([{ function: "main.main", file: "/w/racy/main.go", line: 21 }]);
  });

  test("a report cut off by a capped tail is skipped, not guessed", () => {
    const tail = REPORT.slice(REPORT.indexOf("Previous write"));
    expect(parseRaceReports(tail)).toEqual([]);
    expect(parseRaceReports(REPORT.slice(0, REPORT.indexOf("Previous write")))).toEqual([]);
    expect(parseRaceReports("panic: boom\n")).toEqual([]);
  });

  test("standard-library frames are told apart from the user's, also for modules without a dot and packages outside a module", () => {
    expect(
      isStandardFrame({ function: "sync/atomic.AddInt32", file: "/usr/local/go/src/sync/atomic/doc.go", line: 1 }),
    ).toBe(true);
    expect(isStandardFrame({ function: "testing.tRunner", file: "/opt/go/src/testing/testing.go", line: 1 })).toBe(
      true,
    );
    expect(isStandardFrame({ function: "kernels/foo.F", file: "/home/me/kernels/foo/f.go", line: 1 })).toBe(false);
    expect(isStandardFrame({ function: "_/home/me/foo.F", file: "/home/me/foo/f.go", line: 1 })).toBe(false);
    expect(isStandardFrame({ function: "main.main", file: "/usr/src/main/x.go", line: 1 })).toBe(false);
    expect(isStandardFrame({ function: "github.com/a/b.F", file: "/go/pkg/mod/github.com/a/b/f.go", line: 1 })).toBe(
      false,
    );
  });
});

describe("detectRaces", () => {
  test("one finding per pair of top user frames, whichever access came first, with the runs that showed it", () => {
    const swapped = REPORT.replace("Read at", "Previous read at").replace("Previous write at", "Write at");
    const runs = [
      { runId: 1, texts: [REPORT] },
      { runId: 2, texts: [swapped, REPORT] },
      { runId: 3, texts: ["ok\n"] },
    ];
    expect(detectRaces("racy", runs)).toEqual([
      {
        program: "racy",
        frames: ["main.(*counter).inc main.go:9", "main.record main.go:14"],
        accesses: ["write", "read"],
        createdAt: ["main.main main.go:20", "main.main main.go:21"],
        runs: 2,
        runsChecked: 3,
      },
    ]);
    expect(detectRaces("racy", runs, (fn) => fn.replace("main.", "m.")).map((r) => r.frames)).toEqual([
      ["m.(*counter).inc main.go:9", "m.record main.go:14"],
    ]);
  });
});
