// leaks --compare on its own: rows per goroutine any detector reports, matched by the
// scoring's rule (site or root function, reason where both give one), schedlab's
// unreported judgements shown but not counted, "no output" apart from "did not report",
// agreement per pair, and the message for a peer that was not collected.

import { describe, expect, test } from "vitest";
import {
  compareDetectors,
  formatComparison,
  parseCompareDetectors,
  sameGoroutine,
  type OwnFinding,
  type PeerOutput,
} from "../../src/leaks/index.js";

function finding(
  program: string,
  site: string | null,
  reason: string,
  kind: OwnFinding["kind"],
  extra: Partial<OwnFinding> = {},
): OwnFinding {
  return {
    program,
    goroutine: site === null ? "TestDrain" : `TestDrain/pkg.worker@${site}#0`,
    isRoot: site === null,
    creationSiteKey: site,
    reason: reason as OwnFinding["reason"],
    kind,
    entry: site === null ? null : "example.com/pkg.worker",
    test: "TestDrain",
    bug: `${program}-bug`,
    ...extra,
  };
}

const PROGRAMS = ["hang", "leaky", "main", "clean"];

describe("sameGoroutine", () => {
  const at = (siteKey: string | null, root: string | null, reason: string | null) => ({
    program: "p",
    siteKey,
    root,
    reason,
  });
  test("a site matches the same site; a reason only rules out when both detectors give one", () => {
    expect(sameGoroutine(at("a.go:3", null, "chan send"), at("a.go:3", null, "chan send"))).toBe(true);
    expect(sameGoroutine(at("a.go:3", null, "chan send"), at("a.go:3", null, null))).toBe(true);
    expect(sameGoroutine(at("a.go:3", null, "chan send"), at("a.go:3", null, "select"))).toBe(false);
    expect(sameGoroutine(at("a.go:3", null, "select"), at("a.go:4", null, "select"))).toBe(false);
    expect(sameGoroutine(at("a.go:3", null, "select"), { ...at("a.go:3", null, "select"), program: "q" })).toBe(false);
  });

  test("a root matches by function or its base name, a -test.count repetition aside, never a site", () => {
    expect(sameGoroutine(at(null, "TestDrain", "sync"), at(null, "example.com/pkg.TestDrain", "sync"))).toBe(true);
    expect(sameGoroutine(at(null, "TestDrain#2", "sync"), at(null, "pkg.TestDrain", "sync"))).toBe(true);
    expect(sameGoroutine(at(null, "TestDrain", "sync"), at(null, "TestFill", "sync"))).toBe(false);
    expect(sameGoroutine(at(null, "main.main", "select"), at("main.go:9", null, "select"))).toBe(false);
  });
});

describe("compareDetectors", () => {
  const own = {
    findings: [
      finding("hang", "queue.go:17", "chan send", "deadlock"),
      finding("hang", null, "sync", "deadlock"),
      finding("leaky", "lookup.go:10", "chan send", "leak", { goroutine: "TestLookup#1/pkg.f@lookup.go:10#0" }),
      finding("leaky", "lookup.go:10", "chan send", "leak", {
        goroutine: "TestLookup#2/pkg.f@lookup.go:10#0",
        bug: "leaky-bug-2",
      }),
      finding("main", "main.go:30", "chan receive", "inconclusive"),
      finding("main", "main.go:40", "select", "background"),
    ],
    programsWithOutput: new Set(PROGRAMS),
  };
  const goleak: PeerOutput = {
    detector: "goleak",
    programsWithOutput: new Set(["leaky", "main", "clean"]),
    signatures: [
      { program: "leaky", siteKey: "lookup.go:10", root: null, reason: "chan send" },
      { program: "main", siteKey: "main.go:30", root: null, reason: "chan receive" },
      { program: "main", siteKey: "main.go:50", root: null, reason: "select" },
    ],
    skipped: [],
  };
  const leakprofile: PeerOutput = {
    detector: "leakprofile",
    programsWithOutput: new Set(),
    signatures: [],
    skipped: [],
  };
  const c = compareDetectors(PROGRAMS, own, [goleak, leakprofile]);

  test("one row per goroutine some detector reports, in program order; repetitions of one go statement are one row", () => {
    expect(c.rows.map((r) => [r.program, r.siteKey ?? `root ${r.root}`, r.reason])).toEqual([
      ["hang", "queue.go:17", "chan send"],
      ["hang", "root TestDrain", "sync"],
      ["leaky", "lookup.go:10", "chan send"],
      ["main", "main.go:30", "chan receive"],
      ["main", "main.go:50", "select"],
    ]);
    expect(c.rows[2].bugs).toEqual(["leaky-bug", "leaky-bug-2"]);
  });

  test("each detector's verdict: the kind schedlab found, its unreported judgements in brackets, silent apart from no output", () => {
    const verdicts = c.rows.map((r) => [r.detectors.schedlab, r.detectors.goleak, r.detectors.leakprofile]);
    expect(verdicts).toEqual([
      [{ status: "reported", kind: "deadlock" }, { status: "no-output" }, { status: "no-output" }],
      [{ status: "reported", kind: "deadlock" }, { status: "no-output" }, { status: "no-output" }],
      [{ status: "reported", kind: "leak" }, { status: "reported" }, { status: "no-output" }],
      [{ status: "seen", kind: "inconclusive" }, { status: "reported" }, { status: "no-output" }],
      [{ status: "silent" }, { status: "reported" }, { status: "no-output" }],
    ]);
  });

  test("agreement per pair counts only goroutines where both had output", () => {
    expect(c.pairs).toEqual([
      { a: "schedlab", b: "goleak", both: 1, onlyA: 0, onlyB: 2, notComparable: 2, agreement: 1 / 3 },
      { a: "schedlab", b: "leakprofile", both: 0, onlyA: 0, onlyB: 0, notComparable: 3, agreement: null },
      { a: "goleak", b: "leakprofile", both: 0, onlyA: 0, onlyB: 0, notComparable: 3, agreement: null },
    ]);
  });

  test("a peer with no output anywhere says it was not collected and how to collect it", () => {
    expect(c.detectors.map((d) => [d.detector, d.programsWithOutput, d.reported])).toEqual([
      ["schedlab", 4, 3],
      ["goleak", 3, 3],
      ["leakprofile", 0, 0],
    ]);
    expect(c.detectors[1].missing).toBeNull();
    expect(c.detectors[2].missing).toBe(
      "the goroutine leak profile produced no output in any run of the 4 program(s) compared: the runs were " +
        "collected with --no-leak-profile, or by a toolchain without one (Go 1.26 or newer takes it at the end " +
        "of every run). Collect again without --no-leak-profile (add --force to redo runs already recorded) and " +
        "compare again.",
    );
    const skipped = compareDetectors(["p"], { findings: [], programsWithOutput: new Set(["p"]) }, [
      { ...leakprofile, skipped: ["p: the package defines its own TestMain"] },
    ]);
    expect(skipped.detectors[1].missing).toContain("Its builds say: p: the package defines its own TestMain.");
  });

  test("the text names every detector's verdict per row and the pairs", () => {
    const text = formatComparison(c);
    expect(text).toContain(
      "Detectors on the same runs of 4 program(s), no manifest needed: schedlab, goleak, leakprofile.",
    );
    expect(text).toContain("Output for: schedlab 4/4 programs, goleak 3/4 programs, leakprofile 0/4 programs.");
    expect(text).toMatch(/leaky\s+lookup\.go:10 \(pkg\.worker\)\s+chan send\s+leak\s+yes\s+no output/);
    expect(text).toMatch(/main\s+main\.go:30 \(pkg\.worker\)\s+chan receive\s+\(inconclusive\)\s+yes\s+no output/);
    expect(text).toMatch(/hang\s+root TestDrain\s+sync\s+deadlock\s+no output\s+no output/);
    expect(text).toMatch(/schedlab \/ goleak\s+1\s+0\s+2\s+2\s+0\.33/);
  });
});

describe("parseCompareDetectors", () => {
  test("takes peers comma-separated, schedlab allowed and implied, and refuses unknown names and an empty list", () => {
    expect(parseCompareDetectors("goleak, leakprofile,goleak")).toEqual(["goleak", "leakprofile"]);
    expect(parseCompareDetectors("schedlab,dump")).toEqual(["dump"]);
    expect(() => parseCompareDetectors("valgrind")).toThrow('unknown detector "valgrind" for --compare');
    expect(() => parseCompareDetectors("schedlab")).toThrow("--compare needs a detector");
  });
});
