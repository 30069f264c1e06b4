// The pure parts of budgeted exploration: configuration keys, the exploration cycle, the
// per-run check's rule, race report parsing, seeds, shards, and the progress lines.

import { describe, expect, it } from "vitest";
import {
  configKey,
  explorationCycle,
  explorationLine,
  parseConfigKey,
  parseShard,
  perturbSeed,
  progressLine,
  raceReports,
  runCheckOf,
  sameFinding,
  selectShard,
  shardOf,
} from "../../src/collect/index.js";
import { UsageError } from "../../src/errors.js";

describe("configKey", () => {
  it("names strategy, GOMAXPROCS and count, and keeps an ordinary collect's plain keys", () => {
    expect(configKey("plain", 2, null)).toBe("procs-2");
    expect(configKey("plain", 2, 3)).toBe("procs-2-count-3");
    expect(configKey("race", 1, 20)).toBe("procs-1-race-count-20");
    expect(configKey("perturb", 4, null)).toBe("procs-4-perturb");
    for (const key of ["procs-2", "procs-1-race-count-20", "procs-4-perturb", "procs-3-count-7"]) {
      const parsed = parseConfigKey(key)!;
      expect(configKey(parsed.strategy, parsed.procs, parsed.testCount)).toBe(key);
    }
    expect(parseConfigKey("procs-2-fast")).toBeNull();
  });
});

describe("explorationCycle", () => {
  it("opens with the plain run at the CPU count, then perturbation and -race, and repeats tests last", () => {
    expect(explorationCycle({ kind: "test", cores: 2, procs: null, testCount: null }).map((c) => c.key)).toEqual([
      "procs-2",
      "procs-2-perturb",
      "procs-2-race",
      "procs-1-perturb",
      "procs-1",
      "procs-1-race",
      "procs-4-perturb",
      "procs-4",
      "procs-4-race",
      "procs-2-perturb-count-20",
      "procs-2-race-count-20",
      "procs-2-count-20",
    ]);
  });

  it("has no -test.count for main programs, and explores only the GOMAXPROCS values given", () => {
    expect(explorationCycle({ kind: "main", cores: 8, procs: [3], testCount: 5 }).map((c) => c.key)).toEqual([
      "procs-3",
      "procs-3-perturb",
      "procs-3-race",
    ]);
    expect(
      explorationCycle({ kind: "test", cores: 8, procs: [1], testCount: 5 })
        .map((c) => c.key)
        .slice(-1),
    ).toEqual(["procs-1-count-5"]);
  });
});

describe("the per-run check", () => {
  it("confirms nothing from goroutines blocked when a run crashed, but always confirms a race", () => {
    const blocked = [{ goroutine: "main.main/main.worker@a.go:3#0", reason: "sync", site: "main.worker a.go:9" }];
    expect(runCheckOf("panic", blocked, 0)).toEqual({
      finding: null,
      classes: [],
      blocked: [],
      races: 0,
      failures: [],
    });
    expect(runCheckOf("ok", blocked, 0)).toMatchObject({ finding: "blocked", classes: ["leak"] });
    expect(runCheckOf("panic", [], 2)).toMatchObject({ finding: "race", classes: ["race"] });
    expect(runCheckOf("ok", blocked, 1)).toMatchObject({ finding: "race", classes: ["race", "leak"] });
    expect(runCheckOf("timeout", [], 0).finding).toBeNull();
  });

  it("calls a replay reproduced when it shows a blocked goroutine with the same reason and site", () => {
    const original = runCheckOf("ok", [{ goroutine: "a", reason: "sync", site: "f x.go:1" }], 0);
    expect(sameFinding(original, runCheckOf("ok", [{ goroutine: "b#3", reason: "sync", site: "f x.go:1" }], 0))).toBe(
      true,
    );
    expect(sameFinding(original, runCheckOf("ok", [{ goroutine: "a", reason: "sync", site: "f x.go:2" }], 0))).toBe(
      false,
    );
    expect(sameFinding(original, runCheckOf("ok", [], 0))).toBe(false);
  });

  it("calls a replay of a failing run reproduced when the same test fails again, not the tracer's failures", () => {
    const fails = {
      test: "TestWait",
      kind: "fail" as const,
      message: "x_test.go:9: 1 still active",
      tracerInduced: false,
    };
    const original = runCheckOf("exit-error", [], 0, undefined, [fails]);
    expect(
      sameFinding(
        original,
        runCheckOf("exit-error", [], 0, undefined, [{ ...fails, message: "x_test.go:9: 2 still active" }]),
      ),
    ).toBe(true);
    expect(sameFinding(original, runCheckOf("exit-error", [], 0, undefined, [{ ...fails, test: "TestOther" }]))).toBe(
      false,
    );
    expect(sameFinding(original, runCheckOf("ok", [], 0))).toBe(false);
    const tracer = runCheckOf("exit-error", [], 0, undefined, [{ ...fails, tracerInduced: true }]);
    expect(sameFinding(tracer, tracer)).toBe(false);
  });
});

describe("raceReports", () => {
  it("cuts each report from its WARNING line to the closing separator", () => {
    const stderr = [
      "=== RUN TestX",
      "==================",
      "WARNING: DATA RACE",
      "Write at 0x1 by goroutine 7:",
      "  x.f()",
      "==================",
      "==================",
      "WARNING: DATA RACE",
      "Read at 0x2 by goroutine 8:",
      "==================",
      "--- FAIL: TestX",
    ].join("\n");
    expect(raceReports(stderr)).toEqual([
      "WARNING: DATA RACE\nWrite at 0x1 by goroutine 7:\n  x.f()",
      "WARNING: DATA RACE\nRead at 0x2 by goroutine 8:",
    ]);
    expect(raceReports("panic: boom")).toEqual([]);
  });
});

describe("perturbSeed", () => {
  it("is the same for the same configuration and index, and differs across configurations", () => {
    expect(perturbSeed("procs-1-perturb", 0)).toBe(perturbSeed("procs-1-perturb", 0));
    const seeds = new Set(
      ["procs-1-perturb", "procs-2-perturb"].flatMap((c) => [0, 1, 2].map((i) => perturbSeed(c, i))),
    );
    expect(seeds.size).toBe(6);
    for (const seed of seeds) expect(Number.isSafeInteger(seed) && seed > 0).toBe(true);
  });
});

describe("shards", () => {
  const programs = Array.from({ length: 40 }, (_, i) => ({ name: `kernels/k${i}` }));

  it("puts every program in exactly one shard, by its name only", () => {
    const shards = [0, 1, 2].map((index) => selectShard(programs, { index, count: 3 }));
    expect(
      shards
        .flat()
        .map((p) => p.name)
        .sort(),
    ).toEqual(programs.map((p) => p.name).sort());
    expect(shards.every((s) => s.length > 0)).toBe(true);
    expect(selectShard(programs.slice(5, 9), { index: 1, count: 3 })).toEqual(
      shards[1]!.filter((p) => programs.slice(5, 9).includes(p)),
    );
    expect(shardOf("kernels/abba/transfer", 4)).toBe(shardOf("kernels/abba/transfer", 4));
  });

  it("parses I/N and refuses anything else with a hint", () => {
    expect(parseShard("2/4")).toEqual({ index: 2, count: 4 });
    for (const bad of ["4/4", "1", "a/b", "0/0"]) expect(() => parseShard(bad)).toThrow(UsageError);
  });
});

describe("progress with a budget", () => {
  it("shows budget spent, findings and the program being explored", () => {
    const line = progressLine({
      programsDone: 3,
      programsTotal: 10,
      runsDone: 57,
      runsTotal: 57,
      failures: 2,
      elapsedMs: 0,
      etaMs: null,
      budget: {
        totalMs: 300_000,
        spentMs: 72_000,
        findings: 2,
        current: { program: "kernels/abba/transfer", spentMs: 12_400, budgetMs: 30_000, config: "procs-2-perturb" },
      },
    });
    expect(line).toBe(
      "[#####---------------] programs 3/10  budget 1:12/5:00  findings 2  runs 57 | kernels/abba/transfer 12s/30s procs-2-perturb",
    );
  });

  it("prints one line per explored program, with the finding and its replay command", () => {
    expect(
      explorationLine({
        program: "abba-tight",
        budgetMs: 30_000,
        spentMs: 900,
        buildMs: 2_000,
        runs: 3,
        cutRuns: 0,
        budgetStops: 0,
        hungRuns: 0,
        plainRunMs: null,
        status: "confirmed",
        unavailable: [],
        findings: [],
        stopOn: ["leak"],
        finding: {
          class: "leak",
          runId: 12,
          config: "procs-1-perturb",
          strategy: "perturb",
          seed: 77,
          atMs: 900,
          atRun: 3,
          replay: "schedlab collect --replay 12 --db s.db",
          check: {
            finding: "blocked",
            classes: ["leak"],
            failures: [],
            races: 0,
            blocked: [
              { goroutine: "g1", reason: "sync", site: "p.pay abba_test.go:19" },
              { goroutine: "g2", reason: "sync", site: "p.audit abba_test.go:28" },
            ],
          },
        },
      }),
    ).toBe(
      "abba-tight: finding after 0.9s, 3 runs (procs-1-perturb seed 77): 2 goroutine(s) blocked in sync at " +
        "abba_test.go:19, abba_test.go:28 — replay: schedlab collect --replay 12 --db s.db",
    );
    expect(
      explorationLine({
        program: "clean",
        budgetMs: 30_000,
        spentMs: 30_100,
        buildMs: 0,
        runs: 400,
        cutRuns: 0,
        budgetStops: 0,
        hungRuns: 0,
        plainRunMs: null,
        status: "exhausted",
        unavailable: ["race: -race requires cgo"],
        finding: null,
        findings: [],
        stopOn: ["leak"],
      }),
    ).toBe("clean: no finding in 30s, 400 runs, of a 30s budget (not built: race)");
  });
});
