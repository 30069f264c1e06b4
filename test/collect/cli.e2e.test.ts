// The collect command's edges: bad options and paths without Go code give one clear
// error with a hint and the right exit code; the human summary names each outcome.

import Database from "better-sqlite3";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ProgramSummary } from "../../src/collect/index.js";
import { runCli } from "../helpers/cli.js";
import { PROGRAMS, scratch, SPECIAL } from "./helpers.js";

describe("schedlab collect (CLI)", () => {
  it("rejects a bad duration with exit code 2 and a hint", async () => {
    const result = await runCli(["collect", join(PROGRAMS, "clean"), "--timeout", "soon"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'schedlab: invalid duration "soon"\n  Write a duration such as "500ms", "10s" or "2m".\n',
    );
  });

  it("rejects a directory without Go code, saying what to do", async () => {
    const dir = scratch("cli-nogo");
    const result = await runCli([
      "collect",
      join(SPECIAL, "nogo"),
      "--db",
      join(dir, "s.db"),
      "--traces",
      join(dir, "t"),
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`schedlab: no Go program under ${join(SPECIAL, "nogo")}`);
    expect(result.stderr).toContain("Point collect at a directory that contains .go files");
  });

  it("records a directory whose only file has no valid package clause as a build error with the compiler's message", async () => {
    const dir = scratch("cli-unparsable");
    const result = await runCli([
      "collect",
      join(SPECIAL, "unparsable"),
      "--db",
      join(dir, "s.db"),
      "--traces",
      join(dir, "t"),
    ]);
    expect(result.code).toBe(6); // nothing built: collect fails (EVERY_BUILD_FAILED_EXIT_CODE)
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe("unparsable (main): build error");
    expect(lines[1]).toMatch(/main\.go:2:1: expected 'package', found packge/);
  });

  it("prints one line per program with its outcomes, then resumes without running anything", async () => {
    const dir = scratch("cli-human");
    const args = [
      "collect",
      join(PROGRAMS, "os-exit"),
      join(PROGRAMS, "compile-error"),
      "--runs",
      "2",
      "--timeout",
      "3s",
      "--db",
      join(dir, "s.db"),
      "--traces",
      join(dir, "t"),
    ];
    const first = await runCli(args);
    expect(first.code).toBe(0);
    const lines = first.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe("compile-error (main): build error");
    expect(lines).toContain("os-exit (main): exit-error 2");
    expect(lines.at(-2)).toBe("2 program(s); 2 run(s) executed, 0 already recorded.");
    // collect decodes the new traces into the database unless --no-ingest.
    expect(lines.at(-1)).toMatch(/^ingested 2 run\(s\): 2 ok, 0 truncated, 0 error\(s\); \d+ events\.$/);
    const second = await runCli(args);
    // The failed build is retried; the two recorded runs are skipped, and nothing is left to ingest.
    expect(second.stdout.trimEnd().split("\n").at(-1)).toBe("2 program(s); 0 run(s) executed, 2 already recorded.");
  });

  it("collects only the programs named with --program, keeping their names relative to the tree", async () => {
    const dir = scratch("cli-select");
    const result = await runCli([
      "collect",
      PROGRAMS,
      "--program",
      "modtree/cmd/hello",
      "--program",
      "modtree/tools/hello",
      "--program",
      "clean",
      "--runs",
      "1",
      "--timeout",
      "3s",
      "--procs",
      "1",
      "--db",
      join(dir, "s.db"),
      "--traces",
      join(dir, "t"),
      "--json",
      "--no-ingest",
    ]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const { programs } = JSON.parse(result.stdout) as { programs: ProgramSummary[] };
    expect(programs.map((p) => [p.name, p.runs.map((r) => r.outcome)])).toEqual([
      ["clean", ["ok"]],
      ["modtree/cmd/hello", ["ok"]],
      ["modtree/tools/hello", ["ok"]],
    ]);
    expect(programs[1].runs[0].trace).toBe(join(dir, "t", "modtree", "cmd", "hello", "procs-1", "run-0.trace"));
    // Nothing else was built or run: the database holds the three programs and their three runs.
    const db = new Database(join(dir, "s.db"), { readonly: true });
    try {
      expect(db.prepare("SELECT name FROM programs ORDER BY name").pluck().all()).toEqual([
        "clean",
        "modtree/cmd/hello",
        "modtree/tools/hello",
      ]);
      expect(db.prepare("SELECT COUNT(*) FROM runs").pluck().get()).toBe(3);
      expect(db.prepare("SELECT COUNT(*) FROM builds").pluck().get()).toBe(3);
    } finally {
      db.close();
    }
  });

  it("refuses an unknown --program before running anything, with exit code 2 and the names it may mean", async () => {
    const dir = scratch("cli-select-unknown");
    const result = await runCli([
      "collect",
      PROGRAMS,
      "--program",
      "hello",
      "--db",
      join(dir, "s.db"),
      "--traces",
      join(dir, "t"),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `schedlab: no program named hello under ${PROGRAMS}\n  Name programs by their path relative to the ` +
        `root given, e.g. modtree/cmd/hello, modtree/tools/hello.\n`,
    );
    expect(existsSync(join(dir, "s.db"))).toBe(false);
  });
});
