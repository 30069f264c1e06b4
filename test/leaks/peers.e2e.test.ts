// The peer detectors in the same runs (collect --peers goleak,leakprofile): a leaking
// main program, a leaking test that passes, a test that hangs and a clean program, so
// the table shows what each detector sees and misses. The leakprofile peer is the run
// agent's profile (taken at the end of every run, or just before a test binary's deadline).

import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parsePeers, peerSource } from "../../src/collect/index.js";
import { scoreLeaks, type DetectorName, type LeakScoreReport } from "../../src/leaks/index.js";
import { collectFixtures, LEAK_PROGRAMS, type Collected } from "./collected.js";

const PROGRAMS = ["select-leak", "leaky-test", "hang-test", "pool-clean"];
let collected: Collected;
let report: LeakScoreReport;

beforeAll(async () => {
  collected = await collectFixtures(
    PROGRAMS.map((p) => join(LEAK_PROGRAMS, p)),
    { peers: ["goleak", "leakprofile"] },
  );
  report = await scoreLeaks(collected.db);
}, 600_000);

afterAll(() => {
  collected?.db.close();
  if (collected !== undefined) rmSync(collected.dir, { recursive: true, force: true });
});

function found(detector: DetectorName, program: string): string[] {
  const score = report.detectors
    .find((d) => d.detector === detector)
    ?.score.programs.find((p) => p.program === program);
  return (score?.matched ?? []).map((e) => `${e.site ?? "root"} ${e.reason}`).sort();
}

function reports(program: string, suffix: string): string[] {
  const dir = join(collected.dir, "traces", program, "procs-2");
  return readdirSync(dir).filter((f) => f.endsWith(suffix));
}

describe("peer detectors beside schedlab", () => {
  test("every peer writes its report beside each trace of a main program, and the user's tree is untouched", () => {
    expect(reports("select-leak", ".goleak.txt")).toHaveLength(3);
    expect(reports("select-leak", ".goroutineleak.txt")).toHaveLength(3);
    const goleak = readFileSync(join(collected.dir, "traces/select-leak/procs-2/run-0.trace.goleak.txt"), "utf8");
    expect(goleak).toContain("found unexpected goroutines");
    expect(goleak).toContain("main.watch");
    expect(
      readFileSync(join(collected.dir, "traces/select-leak/procs-2/run-0.trace.goroutineleak.txt"), "utf8"),
    ).toMatch(/\[select \(leaked\)\]/);
    for (const program of PROGRAMS)
      expect(readdirSync(join(LEAK_PROGRAMS, program)).filter((f) => f.startsWith("zz_"))).toEqual([]);
  });

  test("a leak in a passing test: goleak and the leak profile see it through TestMain; the dump is not kept for passing tests", () => {
    expect(found("schedlab", "leaky-test")).toEqual(["lookup.go:10 chan send"]);
    expect(found("goleak", "leaky-test")).toEqual(["lookup.go:10 chan send"]);
    expect(found("leakprofile", "leaky-test")).toEqual(["lookup.go:10 chan send"]);
    expect(found("dump", "leaky-test")).toEqual([]);
  });

  test("a hang the GC cannot prove: goleak says nothing, the profile before the deadline marks nothing; the trace and the traceback see it", () => {
    // The sender blocks sending a value its closure holds, and the runtime follows the send's
    // value pointer (not made untraceable like the channel): the closure keeps the queue reachable.
    expect(reports("hang-test", ".goleak.txt")).toEqual([]);
    expect(reports("hang-test", ".goroutineleak.txt")).toHaveLength(3);
    const profile = readFileSync(join(collected.dir, "traces/hang-test/procs-2/run-0.trace.goroutineleak.txt"), "utf8");
    expect(profile.split("\n")[0]).toBe("# schedlab-agent taken=deadline");
    expect(profile).not.toContain("(leaked)");
    expect(found("leakprofile", "hang-test")).toEqual([]);
    expect(found("schedlab", "hang-test")).toEqual(["queue.go:17 chan send", "root sync"]);
    expect(found("dump", "hang-test")).toEqual(["queue.go:17 chan send", "root sync"]);
    expect(found("goleak", "hang-test")).toEqual([]);
  });

  test("the select leak of a main program is seen by all four, and nobody flags the clean pool", () => {
    for (const detector of ["schedlab", "dump", "goleak", "leakprofile"] as const)
      expect(found(detector, "select-leak")).toEqual(["main.go:23 select"]);
    for (const d of report.detectors) expect(d.score.falsePositivesOnClean).toBe(0);
    const own = report.detectors.find((d) => d.detector === "schedlab")?.score.overall;
    expect(own).toMatchObject({ truePositives: 4, falsePositives: 0, missed: 0 });
  });

  test("--peers parsing and the generated check sources", () => {
    expect(parsePeers("dump, goleak,leakprofile,goleak")).toEqual(["goleak", "leakprofile"]);
    expect(() => parsePeers("valgrind")).toThrow(/unknown peer detector "valgrind"/);
    const main = peerSource("main", "main", ["goleak"]);
    expect(main).toContain("schedlabHarnessAtFinish = append(schedlabHarnessAtFinish, schedlabPeersCheck)");
    expect(main).toContain("schedlabPeerGoleak.Find(ignore...)");
    // In a test binary the check is an end-of-run hook of the run agent's TestMain, not a TestMain of its own.
    const test = peerSource("test", "pkg", ["goleak"]);
    expect(test).toContain("\tschedlabAgentOnEnd(schedlabPeersCheck)\n");
    expect(test).not.toContain("TestMain");
    expect(peerSource("main", "main", ["leakprofile"])).not.toContain("goleak");
    expect(existsSync(join(collected.dir, "traces"))).toBe(true);
  });
});
