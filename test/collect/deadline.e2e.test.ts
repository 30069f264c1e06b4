// Deadlines without --timeout, end to end through the CLI: a test binary's first run gets go
// test's own 10 minutes and a main program's 10 s (in a hunt, its budget), their later runs 5×
// the first plain run that ended by itself (floor 2 s), in a plain collect and in a hunt; test
// binaries get the value as -test.timeout (the fixture prints it) and main programs through
// the harness (SCHEDLAB_DEADLINE_MS); an explicit --timeout wins.

import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configuredTimeoutMs } from "../../src/collect/index.js";
import { openDatabase } from "../../src/store/index.js";
import { runCli } from "../helpers/cli.js";
import { FIXTURES, scratch } from "./helpers.js";

const DEADLINE = join(FIXTURES, "deadline");

interface RunRow {
  readonly name: string;
  readonly runIndex: number;
  readonly strategy: string;
  readonly outcome: string;
  readonly wallMs: number;
  readonly stderrTail: string;
  readonly env: string;
  readonly checkMs: number | null;
}

function runsOf(db: string): RunRow[] {
  const store = openDatabase(db);
  try {
    return store
      .prepare(
        `SELECT p.name, r.run_index AS runIndex, r.strategy, r.outcome, r.wall_ms AS wallMs, r.stderr_tail AS stderrTail, r.env, c.timeout_ms AS checkMs
        FROM runs r JOIN programs p ON p.id = r.program_id LEFT JOIN run_checks c ON c.run_id = r.id ORDER BY p.name, r.id`,
      )
      .all() as RunRow[];
  } finally {
    store.close();
  }
}

/** The deadline a run was given: the test binary's -test.timeout as it printed it, or the harness's SCHEDLAB_DEADLINE_MS. */
function deadlineOf(run: RunRow): number {
  const printed = /schedlab-test-timeout=(\S+)/.exec(run.stderrTail);
  if (printed !== null) return goDurationMs(printed[1]);
  const env = JSON.parse(run.env) as Record<string, string>;
  return Number(env.SCHEDLAB_DEADLINE_MS);
}

/** A Go duration as time.Duration prints it ("10m0s", "2.728s", "500ms") in milliseconds. */
function goDurationMs(text: string): number {
  const unit: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1 };
  let ms = 0;
  for (const [, value, u] of text.matchAll(/([\d.]+)(h|ms|m|s)/g)) ms += Number(value) * unit[u];
  return Math.round(ms);
}

/** Every deadline a later run may have got: derived from the longest ok run among some prefix of the earlier ones. */
function derivedChoices(earlier: readonly RunRow[]): number[] {
  const choices: number[] = [];
  let longest: number | null = null;
  for (const run of earlier) {
    if (run.outcome === "ok") longest = Math.max(longest ?? 0, run.wallMs);
    if (longest !== null)
      choices.push(
        configuredTimeoutMs({
          givenMs: null,
          manifestMs: undefined,
          kind: "test",
          plainMsPerIteration: longest,
          testCount: null,
        }),
      );
  }
  return choices;
}

describe("deadlines without --timeout", () => {
  it("a plain collect: a test binary's first run gets 10 min, a main's 10 s, the others 5× it; --timeout wins", async () => {
    const dir = scratch("deadline");
    const db = join(dir, "s.db");
    const collected = await runCli([
      "collect",
      DEADLINE,
      "--runs",
      "3",
      "--procs",
      "1",
      "--jobs",
      "2",
      "--db",
      db,
      "--traces",
      join(dir, "t"),
      "--no-ingest",
      "--quiet",
    ]);
    expect(collected.code, collected.stderr).toBe(0);
    const runs = runsOf(db);
    // Rows are in the order the runs were recorded; with two jobs, runs 1 and 2 may finish either way round.
    const byIndex = [...runs].sort((a, b) => a.name.localeCompare(b.name) || a.runIndex - b.runIndex);
    expect(byIndex.map((r) => [r.name, r.runIndex, r.outcome])).toEqual([
      ["cmd/tick", 0, "ok"],
      ["cmd/tick", 1, "ok"],
      ["cmd/tick", 2, "ok"],
      ["deadline", 0, "ok"],
      ["deadline", 1, "ok"],
      ["deadline", 2, "ok"],
    ]);
    for (const [name, first] of [
      ["cmd/tick", 10_000],
      ["deadline", 600_000],
    ] as const) {
      const own = runs.filter((r) => r.name === name);
      expect(deadlineOf(own[0]), name).toBe(first);
      for (const [k, run] of own.entries())
        if (k > 0) expect(derivedChoices(own.slice(0, k)), `${name} run ${k}`).toContain(deadlineOf(run));
      // The fixture's runs take well under 400 ms: their later deadlines sit at the 2 s floor, far below 10 s.
      expect(
        own
          .slice(1)
          .map(deadlineOf)
          .every((ms) => ms >= 2_000 && ms < 10_000),
        name,
      ).toBe(true);
    }
    const again = await runCli([
      "collect",
      DEADLINE,
      "--runs",
      "3",
      "--procs",
      "1",
      "--timeout",
      "7s",
      "--force",
      "--db",
      db,
      "--traces",
      join(dir, "t"),
      "--no-ingest",
      "--quiet",
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(runsOf(db).map(deadlineOf)).toEqual([7_000, 7_000, 7_000, 7_000, 7_000, 7_000]);
  });

  it("a hunt: a main program's first plain run gets its budget and goes alone; the later ones 5× it, within the budget", async () => {
    const dir = scratch("deadline-hunt");
    const db = join(dir, "s.db");
    const hunted = await runCli([
      "collect",
      join(DEADLINE, "cmd/tick"),
      "--budget",
      "4s",
      "--procs",
      "1,2",
      "--db",
      db,
      "--traces",
      join(dir, "t"),
      "--no-ingest",
      "--quiet",
    ]);
    expect(hunted.code, hunted.stderr).toBe(0);
    const runs = runsOf(db);
    // A main program that has never exited runs for its budget (a daemon would), not go run's nothing or 10 s.
    expect(runs[0]).toMatchObject({ strategy: "plain", checkMs: 4_000 });
    // The harness got the deadline the hunt recorded, whatever the strategy.
    for (const run of runs) expect(deadlineOf(run)).toBe(run.checkMs);
    const plain = runs.filter((r) => r.strategy === "plain");
    expect(plain.length, JSON.stringify(runs.map((r) => r.strategy))).toBeGreaterThan(1);
    // The fixture ends in well under 400 ms: 5× it is under the 2 s floor, and what is left of the budget may cut that.
    for (const run of plain.slice(1)) {
      expect(run.checkMs).toBeLessThanOrEqual(2_000);
      expect(run.checkMs).toBeGreaterThan(run.wallMs);
    }
  });
});
