// Command-line values: strict numeric parsing, and the CLI refusing bad values before touching
// anything (the database named below does not exist and is never created); the shared collect
// flag --no-leak-profile.

import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { collectCommonOptionsOf } from "../../src/cli/collect-options.js";
import { parseIntegerOption, parseNumberOption, parsePositiveInteger, parseRowLimit } from "../../src/cli/options.js";
import { UsageError } from "../../src/errors.js";
import { runCli } from "../helpers/cli.js";

describe("numeric options", () => {
  it("accepts plain decimal integers within bounds", () => {
    expect(parseIntegerOption("--seed", "-3")).toBe(-3);
    expect(parseIntegerOption("--run", "0", 0)).toBe(0);
    expect(parsePositiveInteger("--runs", " 12 ")).toBe(12);
    expect(parseRowLimit("--limit", "0")).toBe(Infinity);
    expect(parseRowLimit("--limit", "25")).toBe(25);
  });

  it.each(["", " ", "1.5", "1e3", "0x10", "5x", "ten", "9007199254740993"])("refuses %j as an integer", (text) => {
    expect(() => parseIntegerOption("--seed", text)).toThrow(UsageError);
  });

  it("names the option, the value and the bound", () => {
    expect(() => parsePositiveInteger("--jobs", "0")).toThrow('--jobs must be a positive integer, got "0"');
    expect(() => parseIntegerOption("--run", "-1", 0)).toThrow('--run must be a non-negative integer, got "-1"');
    expect(() => parseNumberOption("--delta", "1.5", 0, 1)).toThrow('--delta must be a number in [0, 1], got "1.5"');
    expect(() => parseNumberOption("--margin", "0.5", 1)).toThrow('--margin must be a number ≥ 1, got "0.5"');
    expect(parseNumberOption("--tau", "0.25", 0)).toBe(0.25);
  });

  it.each([
    [["ingest", "--jobs", "abc"], "--jobs must be a positive integer"],
    [["dist", "--abstraction", "depth", "--limit", "ten"], "--limit must be a non-negative integer"],
    [["leaks", "--cut-fraction", "2"], "--cut-fraction must be a number in [0, 1]"],
    [["events", "--program", "p", "--run", "1.5"], null],
    [
      ["train", "--objective", "kl", "--abstraction", "depth", "--out", "/tmp/never", "--hidden", "0"],
      "--hidden must be a positive integer",
    ],
    [["run", "--student", "kl-bogus"], "not a student recipe"],
  ])("schedlab %j fails with a usage error and leaves no database behind", async (args, message) => {
    const db = join(mkdtempSync(join(tmpdir(), "schedlab-numbers-")), "none.db");
    const result = await runCli([...args, "--db", db]);
    expect(result.code).toBe(2);
    if (message !== null) expect(result.stderr).toContain(message);
    expect(existsSync(db)).toBe(false);
  });

  it("exits 2 on commander's own usage errors too (unknown option, missing required option)", async () => {
    expect((await runCli(["dist", "--abstraction", "depth", "--limt", "3"])).code).toBe(2);
    const missing = await runCli(["dist"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--abstraction <name>' not specified");
  });
});

describe("collect and hunt's --no-leak-profile", () => {
  it("turns the run agent off; absent, the library's default (on) stands", () => {
    const flags = { db: "s.db", traces: "t", progressInterval: "10s" };
    expect(collectCommonOptionsOf(["."], flags).leakProfile).toBeUndefined();
    expect(collectCommonOptionsOf(["."], { ...flags, leakProfile: true }).leakProfile).toBeUndefined();
    expect(collectCommonOptionsOf(["."], { ...flags, leakProfile: false }).leakProfile).toBe(false);
  });
});
