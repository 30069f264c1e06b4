// The CI results of bugs the collected fixtures cannot show without lock recording, built by
// the real leaks stage (analyseProgram) from hand-built runs whose records and lock
// operations spell them out: an AB-BA hang (a cycle, each lock's holder and where it took
// it) and an inversion that never hung (a potential deadlock). Checks where each result
// points in a small module written to a scratch directory, that SARIF and `leaks --json`
// of them validate against their schemas, and how sites are placed in a repository.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  END_STATES,
  FINDING_KINDS,
  LEAK_REASONS,
  OUTLIVING_REASONS,
  PRECISE_WAITS,
  type AnalysedRun,
} from "../../src/model/index.js";
import { analyseProgram, analysisJson, type BugReport, type LeakAnalysis } from "../../src/leaks/index.js";
import type { CiContext } from "../../src/leaks/ci-context.js";
import { ciResults, type CiResult } from "../../src/leaks/ci-results.js";
import { COUNTED_KINDS } from "../../src/leaks/fingerprints.js";
import { sarifLog } from "../../src/leaks/sarif.js";
import { sourceResolver, type ProgramSource } from "../../src/leaks/source-paths.js";
import type { GoroutineInfo } from "../../src/core/index.js";
import { leaksJsonSchema, leaksJsonValidator, sarifValidator } from "./schemas.js";
import { foldedRun as run, type Step } from "../helpers/folded-run.js";
import { programAnalysis } from "../report/sections/leak-analysis.js";

const PKG = "example.com/m/bank";
const site = (func: string, line: number): string => `${PKG}.${func} bank_test.go:${line}`;

function goroutine(gid: number, root: string, func: string, line: number): GoroutineInfo {
  return {
    goroutine: gid,
    canonicalId: `${root}/${PKG}.${func}@bank_test.go:${line}#0`,
    parent: 1,
    entry: `${PKG}.${func}`,
    creationSite: site(root, line),
    isRoot: false,
  };
}

function testRoot(gid: number, name: string): GoroutineInfo {
  return { goroutine: gid, canonicalId: name, parent: null, entry: `${PKG}.${name}`, creationSite: null, isRoot: true };
}

const lockStack = (func: string, line: number): string =>
  `sync.(*Mutex).Lock;${site(func, line)};${PKG}.TestTransfer bank_test.go:40`;

/** TestTransfer: func1 takes A (line 13) then wants B (15); func2 takes B (23) then wants A (25); the test waits (40). */
function abbaHang(): AnalysedRun {
  const root = testRoot(1, "TestTransfer");
  const a = goroutine(2, "TestTransfer", "TestTransfer.func1", 12);
  const b = goroutine(3, "TestTransfer", "TestTransfer.func2", 22);
  return run(
    1,
    [root, a, b],
    [
      { kind: "GoStart", g: 1 },
      { kind: "GoCreate", g: 2 },
      { kind: "GoCreate", g: 3 },
      { kind: "GoStart", g: 2 },
      { op: "want", g: 2, lock: "a1", site: site("TestTransfer.func1", 13) },
      { op: "got", g: 2, lock: "a1", site: site("TestTransfer.func1", 13) },
      { kind: "GoStart", g: 3 },
      { op: "want", g: 3, lock: "b2", site: site("TestTransfer.func2", 23) },
      { op: "got", g: 3, lock: "b2", site: site("TestTransfer.func2", 23) },
      { op: "want", g: 2, lock: "b2", site: site("TestTransfer.func1", 15) },
      {
        kind: "GoBlock",
        g: 2,
        reason: "sync",
        site: site("TestTransfer.func1", 15),
        stack: lockStack("TestTransfer.func1", 15),
      },
      { op: "want", g: 3, lock: "a1", site: site("TestTransfer.func2", 25) },
      {
        kind: "GoBlock",
        g: 3,
        reason: "sync",
        site: site("TestTransfer.func2", 25),
        stack: lockStack("TestTransfer.func2", 25),
      },
      {
        kind: "GoBlock",
        g: 1,
        reason: "sync",
        site: `${PKG}.TestTransfer bank_test.go:40`,
        stack: `sync.(*WaitGroup).Wait;${PKG}.TestTransfer bank_test.go:40`,
      },
    ],
    "timeout",
  );
}

/** TestOrder: func1 takes A (31) then B (32); later func2 takes B (33) then A (34); nothing hangs. */
function inversion(runId: number): AnalysedRun {
  const root = testRoot(1, "TestOrder");
  const g1 = goroutine(2, "TestOrder", "TestOrder.func1", 30);
  const g2 = goroutine(3, "TestOrder", "TestOrder.func2", 30);
  const take = (g: number, lock: string, line: number): Step[] => {
    const s = site(g === 2 ? "TestOrder.func1" : "TestOrder.func2", line);
    return [
      { op: "want", g, lock, site: s },
      { op: "got", g, lock, site: s },
    ];
  };
  const drop = (g: number, lock: string): Step => ({ op: "drop", g, lock, site: site("TestOrder", 35) });
  return run(
    runId,
    [root, g1, g2],
    [
      { kind: "GoStart", g: 1 },
      { kind: "GoCreate", g: 2 },
      { kind: "GoCreate", g: 3 },
      ...take(2, "A", 31),
      ...take(2, "B", 32),
      drop(2, "B"),
      drop(2, "A"),
      ...take(3, "B", 33),
      ...take(3, "A", 34),
      drop(3, "A"),
      drop(3, "B"),
      { kind: "GoEnd", g: 2 },
      { kind: "GoEnd", g: 3 },
      { kind: "GoEnd", g: 1 },
    ],
  );
}

let repo: string;
let analysis: LeakAnalysis;
let context: CiContext;
let results: CiResult[];

beforeAll(() => {
  repo = mkdtempSync(join(tmpdir(), "schedlab-ci-results-"));
  mkdirSync(join(repo, "bank"));
  writeFileSync(join(repo, "go.mod"), "module example.com/m\n\ngo 1.22\n");
  writeFileSync(
    join(repo, "bank", "bank_test.go"),
    `${Array.from({ length: 44 }, (_, i) => `// line ${i + 1}`).join("\n")}\n`,
  );
  const programs = [
    { name: "bank", runs: [abbaHang()] },
    { name: "order", runs: [inversion(2), inversion(3)] },
  ].map(({ name, runs }) => {
    const { findings, bugs, potential } = analyseProgram({ program: name, runs });
    const reports: BugReport[] = bugs.map((b) => ({
      ...b,
      test: b.owner,
      replay: `schedlab collect --replay ${b.runIds[0]} --db schedlab.db`,
      trace: null,
    }));
    return programAnalysis(name, runs.length, {
      recordedLocks: runs.some((r) => r.states.locks.ops > 0),
      findings,
      bugs: reports,
      potential,
    });
  });
  analysis = {
    programs,
    findings: programs.flatMap((p) => p.findings),
    bugs: programs.flatMap((p) => p.bugs),
    potentialDeadlocks: programs.flatMap((p) => p.potential),
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
  const sources: ProgramSource[] = ["bank", "order"].map((name) => ({
    name,
    kind: "test",
    dir: join(repo, "bank"),
    root: repo,
    testName: null,
  }));
  context = {
    programs: new Map(sources.map((s) => [s.name, s])),
    sources: sourceResolver(sources, repo),
    testsRun: (program) => (program === "bank" ? ["TestTransfer"] : ["TestOrder"]),
    creationSite: () => null,
    baseline: null,
  };
  results = ciResults(analysis, context);
});

afterAll(() => {
  if (repo !== undefined) rmSync(repo, { recursive: true, force: true });
});

const at = (line: number): { path: string; line: number } => ({ path: "bank/bank_test.go", line });

describe("results of lock bugs", () => {
  test(
    "an AB-BA hang: one proven deadlock at the explained goroutine's block, related to its creation, its " +
      "partner's block, and where the partner took the lock",
    () => {
      const [deadlock] = results.filter((r) => r.rule === "deadlock");
      expect(deadlock).toMatchObject({
        verdict: "proven",
        severity: "error",
        program: "bank",
        test: "TestTransfer",
        fingerprint: analysis.bugs[0].fingerprint,
        baselined: null,
      });
      expect(deadlock.message).toContain("a cycle of blocked goroutines, so none of them can ever be woken");
      const explained = analysis.bugs[0].explained;
      const [mine, theirs] =
        explained?.goroutine.includes("func1") === true
          ? [
              [15, 13, 12],
              [25, 23, 22],
            ]
          : [
              [25, 23, 22],
              [15, 13, 12],
            ];
      expect(deadlock.primary.location).toMatchObject(at(mine[0]));
      const related = deadlock.related.map((p) => [p.location?.line, p.message]);
      expect(related).toContainEqual([mine[2], expect.stringMatching(/was created here$/)]);
      expect(related).toContainEqual([
        theirs[0],
        expect.stringMatching(/holds the lock it wants: itself blocked here in Mutex\.Lock$/),
      ]);
      expect(related).toContainEqual([theirs[1], expect.stringMatching(/took the lock here and still holds it$/)]);
      expect(deadlock.related.every((p) => p.location?.path === "bank/bank_test.go" && p.location.inRepository)).toBe(
        true,
      );
    },
  );

  test("an inversion that never hung: a potential deadlock, a warning, at the second acquisition, related to each order's locks", () => {
    const [potential] = results.filter((r) => r.rule === "potential-deadlock");
    expect(potential).toMatchObject({
      verdict: "potential",
      severity: "warning",
      program: "order",
      test: "TestOrder",
      fingerprint: analysis.potentialDeadlocks[0].fingerprint,
    });
    expect([32, 34]).toContain(potential.primary.location?.line);
    const lines = [potential.primary.location?.line, ...potential.related.map((p) => p.location?.line)].sort();
    expect(lines).toEqual([31, 32, 33, 34]);
    expect(potential.message).toContain("Seen in 2 run(s), none of which hung on it.");
  });

  test("SARIF of them is valid against the SARIF 2.1.0 schema and `leaks --json` of them against docs/leaks.schema.json", () => {
    const log = sarifLog(results, analysis, { repoRoot: repo, withBaseline: false });
    const sarif = sarifValidator();
    expect(sarif(log), sarif.problems().join("\n")).toBe(true);
    const related = log.runs[0].results?.[0].relatedLocations ?? [];
    expect(related.map((l) => l.id)).toEqual(related.map((_, i) => i + 1));
    expect(related.every((l) => l.physicalLocation?.artifactLocation?.uri === "bank/bank_test.go")).toBe(true);
    const json = JSON.parse(JSON.stringify(analysisJson(analysis))) as Record<string, unknown>;
    const schema = leaksJsonValidator();
    expect(schema(json), schema.problems().join("\n")).toBe(true);
    expect(
      (json.bugs as { explained: { explanation: { cycle: unknown[] } } }[])[0].explained.explanation.cycle,
    ).toHaveLength(2);
  });

  test("the schema's enumerations are the code's: kinds, verdicts' waits, reasons, end states, counted kinds", () => {
    const defs = leaksJsonSchema().$defs;
    expect(defs.kind.enum).toEqual([...FINDING_KINDS]);
    expect(defs.preciseWait.enum).toEqual([...PRECISE_WAITS]);
    expect(defs.leakReason.enum).toEqual([...LEAK_REASONS, ...OUTLIVING_REASONS]);
    expect(defs.endState.enum).toEqual([...END_STATES]);
    expect(defs.countedKind.enum).toEqual([...COUNTED_KINDS]);
  });
});

describe("placing sites in the repository", () => {
  test("by module path, by collect's root for packages outside a module, main in the program's directory; a file nowhere is null", () => {
    const loose = mkdtempSync(join(tmpdir(), "schedlab-loose-root-"));
    try {
      mkdirSync(join(loose, "kernels", "pool"), { recursive: true });
      writeFileSync(join(loose, "kernels", "pool", "pool.go"), "package pool\n\nfunc Get() {}\n");
      writeFileSync(join(loose, "kernels", "main.go"), "package main\n\nfunc main() {}\n");
      const programs: ProgramSource[] = [
        { name: "bank", kind: "test", dir: join(repo, "bank"), root: repo, testName: null },
        { name: "kernels", kind: "main", dir: join(loose, "kernels"), root: loose, testName: null },
      ];
      const resolve = sourceResolver(programs, repo);
      expect(resolve.site("bank", `${PKG}.TestTransfer.func1 bank_test.go:15`)).toEqual({
        path: "bank/bank_test.go",
        inRepository: true,
        line: 15,
        function: `${PKG}.TestTransfer.func1`,
      });
      expect(resolve.site("bank", `${PKG}.TestTransfer.func1 other.go:15`)).toBeNull();
      // Outside the repository root: an absolute path, and SARIF makes it a file URI.
      const pool = resolve.site("kernels", "kernels/pool.Get pool.go:3");
      expect(pool).toMatchObject({ inRepository: false, line: 3, function: "kernels/pool.Get" });
      expect(pool?.path.endsWith("/kernels/pool/pool.go")).toBe(true);
      expect(resolve.site("kernels", "main.main main.go:3")?.path.endsWith("/kernels/main.go")).toBe(true);
      expect(resolve.declaration("kernels", "main")?.line).toBe(3);
      expect(resolve.declaration("kernels", "TestNothing")).toBeNull();
    } finally {
      rmSync(loose, { recursive: true, force: true });
    }
  });
});
