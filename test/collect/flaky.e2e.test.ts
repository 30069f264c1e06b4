// Failures are findings: a budgeted collect of a test that passes in plain runs and fails
// under -race (test/fixtures/failures/raceonly) confirms a finding of class failure, stops
// on it with --stop-on failure, and prints the test, its message and the replay command.

import Database from "better-sqlite3";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { scratch } from "./helpers.js";

const RACEONLY = fileURLToPath(new URL("../fixtures/failures/raceonly", import.meta.url));

describe("collect --budget --stop-on failure", () => {
  it("confirms the failure the race build shows and plain runs do not, and prints it", async () => {
    const dir = scratch("flaky");
    const db = join(dir, "s.db");
    const out = await runCli([
      "collect",
      RACEONLY,
      "--budget",
      "20s",
      "--procs",
      "1",
      "--timeout",
      "10s",
      "--stop-on",
      "failure",
      "--jobs",
      "1",
      "--db",
      db,
      "--traces",
      join(dir, "traces"),
      "--no-ingest",
    ]);
    expect(out.code, out.stderr).toBe(0);
    const sqlite = new Database(db, { readonly: true });
    try {
      const runs = sqlite
        .prepare(
          "SELECT r.id, r.config, r.strategy, c.finding, c.timeout_ms AS timeoutMs, c.detail FROM runs r JOIN run_checks c ON c.run_id = r.id ORDER BY r.id",
        )
        .all() as {
        id: number;
        config: string;
        strategy: string;
        finding: string | null;
        timeoutMs: number;
        detail: string;
      }[];
      // The cycle at GOMAXPROCS 1, one run at a time: plain, perturb, then -race, which fails and ends the hunt.
      expect(runs.map((r) => r.config)).toEqual(["procs-1", "procs-1-perturb", "procs-1-race"]);
      const race = runs[2]!;
      const check = JSON.parse(race.detail) as {
        classes: string[];
        failures: { test: string; kind: string; message: string; tracerInduced: boolean }[];
      };
      expect(check.classes).toEqual(["failure"]);
      expect(check.failures).toEqual([
        {
          test: "TestFlushDeadline",
          kind: "fail",
          message: "deadline_test.go:10: flush took too long: missed the 5ms deadline",
          tracerInduced: false,
        },
      ]);
      expect(race.finding).toBeNull(); // run_checks.finding knows only blocked and race
      expect(race.timeoutMs).toBeGreaterThanOrEqual(10_000);
      for (const r of runs.slice(0, 2)) expect((JSON.parse(r.detail) as { classes: string[] }).classes).toEqual([]);
      expect(out.stdout).toContain(`raceonly: failure after`);
      expect(out.stdout).toContain("  confirmed: failure (stops on: failure)");
      expect(out.stdout).toContain(
        `  failure: TestFlushDeadline failed: deadline_test.go:10: flush took too long: missed the 5ms ` +
          `deadline (procs-1-race, run ${race.id}) — replay: schedlab collect --replay ${race.id} --db ${db}`,
      );
    } finally {
      sqlite.close();
    }
  }, 180_000);

  it("--stop-on without --budget is a usage error with a hint", async () => {
    const dir = scratch("flaky-usage");
    const out = await runCli(["collect", RACEONLY, "--stop-on", "race", "--db", join(dir, "s.db")]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("--stop-on goes with --budget");
    expect(out.stderr).toContain("--budget 30s --stop-on");
  });
});
