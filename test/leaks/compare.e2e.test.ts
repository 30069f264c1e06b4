// `schedlab leaks --compare goleak,leakprofile` on unlabelled programs: copies of four leak
// fixtures without their schedlab.json, collected with both peers (Go on PATH: 1.26 builds
// the leak profile with its GOEXPERIMENT; the profile is the run agent's, taken in every run),
// compared per goroutine in text and JSON; and the message when a peer named was not collected.

import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { DetectorComparison } from "../../src/leaks/index.js";
import { runCli } from "../helpers/cli.js";
import { collectFixtures, LEAK_PROGRAMS, type Collected } from "./collected.js";

const PROGRAMS = ["select-leak", "leaky-test", "hang-test", "pool-clean"];
let copies: string;
let collected: Collected;

beforeAll(async () => {
  copies = mkdtempSync(join(tmpdir(), "schedlab-compare-"));
  cpSync(join(LEAK_PROGRAMS, "go.mod"), join(copies, "go.mod"));
  for (const program of PROGRAMS) {
    cpSync(join(LEAK_PROGRAMS, program), join(copies, program), {
      recursive: true,
      filter: (source) => !source.endsWith("schedlab.json"),
    });
  }
  collected = await collectFixtures(
    PROGRAMS.map((p) => join(copies, p)),
    { peers: ["goleak", "leakprofile"] },
  );
}, 600_000);

afterAll(() => {
  collected?.db.close();
  if (collected !== undefined) rmSync(collected.dir, { recursive: true, force: true });
  if (copies !== undefined) rmSync(copies, { recursive: true, force: true });
});

describe("leaks --compare on programs without manifests", () => {
  test("the programs carry no labels", () => {
    for (const program of PROGRAMS) expect(existsSync(join(copies, program, "schedlab.json"))).toBe(false);
    const labelled = collected.db.prepare("SELECT COUNT(*) AS n FROM programs WHERE manifest IS NOT NULL").get() as {
      n: number;
    };
    expect(labelled.n).toBe(0);
  });

  test("JSON: one row per goroutine with each detector's verdict, and agreement per pair", async () => {
    const result = await runCli(["leaks", "--db", collected.dbFile, "--compare", "goleak,leakprofile", "--json"]);
    expect(result.code, result.stderr).toBe(0);
    const c = JSON.parse(result.stdout) as DetectorComparison;
    expect(c.version).toBe(1);
    expect(c.detectors.map((d) => [d.detector, d.programsWithOutput, d.reported, d.missing])).toEqual([
      ["schedlab", 4, 4, null],
      // A test that hangs never returns from m.Run, so its TestMain never runs goleak; the run
      // agent's profile before the deadline is there, but this hang is not one the GC can prove.
      ["goleak", 3, 2, null],
      ["leakprofile", 4, 2, null],
    ]);
    const rows = c.rows.map((r) => [
      r.program,
      r.siteKey ?? `root ${r.root}`,
      r.reason,
      r.detectors.schedlab?.status,
      r.detectors.goleak?.status,
      r.detectors.leakprofile?.status,
    ]);
    expect(rows).toEqual([
      ["hang-test", "root TestDrainWithoutConsumer", "sync", "reported", "no-output", "silent"],
      ["hang-test", "queue.go:17", "chan send", "reported", "no-output", "silent"],
      ["leaky-test", "lookup.go:10", "chan send", "reported", "reported", "reported"],
      ["select-leak", "main.go:23", "select", "reported", "reported", "reported"],
    ]);
    expect(c.rows.find((r) => r.program === "leaky-test")?.detectors.schedlab).toEqual({
      status: "reported",
      kind: "leak",
    });
    expect(c.pairs.map((p) => [`${p.a}/${p.b}`, p.both, p.onlyA, p.onlyB, p.notComparable, p.agreement])).toEqual([
      ["schedlab/goleak", 2, 0, 0, 2, 1],
      ["schedlab/leakprofile", 2, 2, 0, 0, 0.5],
      ["goleak/leakprofile", 2, 0, 0, 0, 1],
    ]);
  });

  test("text: a table a reader can scan, the pairs after it", async () => {
    const result = await runCli(["leaks", "--db", collected.dbFile, "--compare", "goleak,leakprofile"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      "Detectors on the same runs of 4 program(s), no manifest needed: schedlab, goleak, leakprofile.",
    );
    expect(result.stdout).toMatch(/select-leak\s+main\.go:23 \(main\.watch\)\s+select\s+leak\s+yes\s+yes/);
    expect(result.stdout).toMatch(/hang-test\s+root TestDrainWithoutConsumer\s+sync\s+deadlock\s+no output\s+-/);
    expect(result.stdout).toMatch(/goleak \/ leakprofile\s+2\s+0\s+0\s+0\s+1\.00/);
  });

  test("a peer that was not collected is named with how to collect it; --compare takes text or JSON only", async () => {
    const dir = mkdtempSync(join(tmpdir(), "schedlab-compare-nopeer-"));
    try {
      const db = join(dir, "s.db");
      const plain = await runCli([
        "collect",
        join(copies, "pool-clean"),
        "--runs",
        "1",
        "--procs",
        "1",
        "--timeout",
        "5s",
        "--no-leak-profile",
        "--db",
        db,
        "--traces",
        join(dir, "t"),
        "--quiet",
      ]);
      expect(plain.code, plain.stderr).toBe(0);
      const result = await runCli(["leaks", "--db", db, "--compare", "leakprofile"]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(
        "the goroutine leak profile produced no output in any run of the 1 program(s) compared: the runs were collected with --no-leak-profile",
      );
      expect(result.stdout).toContain("No detector reported a goroutine left blocked.");
      const sarif = await runCli(["leaks", "--db", db, "--compare", "goleak", "--format", "sarif"]);
      expect(sarif.code).toBe(2);
      expect(sarif.stderr).toContain("--compare prints text or JSON, not sarif");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
