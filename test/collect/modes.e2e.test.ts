// Collect's modes: a collect of a fixed number of runs, a budgeted hunt, a replay. A flag that
// means nothing in the mode asked for is refused with a usage error naming it and what to do,
// never ignored: by the option parser (collectModeOf, the one home of the rule), and by the
// real command (bin/schedlab.js runs dist/: `npm run build` first), with usage's exit code 2.

import { execa } from "execa";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { collectModeOf, normalizeCollectOptions, type CollectModeFields } from "../../src/collect/index.js";
import { UsageError } from "../../src/errors.js";

const BIN = fileURLToPath(new URL("../../bin/schedlab.js", import.meta.url));

function refusal(fields: CollectModeFields): UsageError | null {
  try {
    collectModeOf(fields);
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  return null;
}

describe("collectModeOf", () => {
  it("is a collect of 5 runs without a budget, a hunt with one, each with its defaults", () => {
    expect(collectModeOf({})).toEqual({ kind: "runs", runs: 5, race: false });
    expect(collectModeOf({ runs: 2, race: true })).toEqual({ kind: "runs", runs: 2, race: true });
    expect(collectModeOf({ budgetMs: 1_000 })).toEqual({
      kind: "budget",
      budgetMs: 1_000,
      exhaustBudget: false,
      recordLocks: true,
      stopOn: ["leak"],
    });
    expect(
      collectModeOf({
        budgetMs: 1_000,
        exhaustBudget: true,
        recordLocks: false,
        stopOn: ["race", "race"],
      }),
    ).toEqual({
      kind: "budget",
      budgetMs: 1_000,
      exhaustBudget: true,
      recordLocks: false,
      stopOn: ["race"],
    });
    expect(normalizeCollectOptions({ paths: ["."], budgetMs: 2_000 }).mode.kind).toBe("budget");
  });

  it("refuses each field of a collect of runs given with a budget, naming its flag", () => {
    expect(refusal({ budgetMs: 1_000, runs: 3 })).toMatchObject({
      message: "--runs goes without --budget",
      hint: expect.stringMatching(/drop --runs, or drop --budget/),
    });
    expect(refusal({ budgetMs: 1_000, race: true })).toMatchObject({
      message: "--race goes without --budget",
      hint: expect.stringMatching(/drop --race/),
    });
    // Given at all is given: a false or default value means nothing either.
    expect(refusal({ budgetMs: 1_000, race: false })?.message).toBe("--race goes without --budget");
  });

  it("refuses each field of a hunt given without a budget, naming its flag", () => {
    expect(refusal({ exhaustBudget: true })).toMatchObject({
      message: "--exhaust-budget goes with --budget",
      hint: expect.stringMatching(/add --budget DURATION/),
    });
    expect(refusal({ recordLocks: false })).toMatchObject({
      message: "--no-lock-recording goes with --budget",
      hint: expect.stringMatching(/Only a hunt/),
    });
    expect(refusal({ stopOn: ["race"] })).toMatchObject({
      message: "--stop-on goes with --budget",
      hint: expect.stringMatching(/--budget 30s --stop-on/),
    });
  });

  it("still checks the values of its own mode", () => {
    expect(refusal({ runs: 0 })?.message).toMatch(/--runs must be a positive integer/);
    expect(refusal({ budgetMs: 1_000, stopOn: [] })?.message).toBe("--stop-on needs a class");
  });
});

describe("schedlab collect and hunt refuse a flag their mode does not read (real process)", () => {
  const cli = (...args: string[]) => execa("node", [BIN, ...args], { reject: false, all: false });
  const refused = async (args: string[], message: string, hint: RegExp) => {
    const result = await cli(...args);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe("");
    const [first, second] = result.stderr.split("\n");
    expect(first).toBe(`schedlab: ${message}`);
    expect(second).toMatch(hint);
  };

  it("refuses --runs with --budget", async () => {
    await refused(
      ["collect", "nowhere", "--budget", "5s", "--runs", "3"],
      "--runs goes without --budget",
      /drop --runs, or drop --budget/,
    );
  });

  it("refuses --race with --budget", async () => {
    await refused(
      ["collect", "nowhere", "--budget", "5s", "--race"],
      "--race goes without --budget",
      /already explores -race/,
    );
  });

  it("refuses --exhaust-budget, --stop-on and --no-lock-recording without --budget", async () => {
    await refused(
      ["collect", "nowhere", "--exhaust-budget"],
      "--exhaust-budget goes with --budget",
      /add --budget DURATION/,
    );
    await refused(
      ["collect", "nowhere", "--stop-on", "race"],
      "--stop-on goes with --budget",
      /--budget 30s --stop-on/,
    );
    await refused(
      ["collect", "nowhere", "--no-lock-recording"],
      "--no-lock-recording goes with --budget",
      /Only a hunt/,
    );
  });

  it("refuses a collect flag with --replay, and --attempts without it", async () => {
    await refused(
      ["collect", "--replay", "1", "--runs", "2"],
      "--runs goes without --replay",
      /A replay reruns one recorded run .*: drop --runs/,
    );
    await refused(["collect", "--replay", "1", "--budget", "5s"], "--budget goes without --replay", /drop --budget/);
    await refused(["collect", "--replay", "1", "--procs", "2"], "--procs goes without --replay", /drop --procs/);
    await refused(
      ["collect", "nowhere", "--attempts", "2"],
      "--attempts goes with --replay",
      /--replay RUN_ID --attempts N/,
    );
  });

  it("refuses --store with --no-ingest, which skips the ingest --store is for", async () => {
    await refused(
      ["collect", "nowhere", "--no-ingest", "--store", "summary"],
      "--store says what the ingest keeps, and --no-ingest skips the ingest",
      /schedlab ingest --store summary/,
    );
  });

  it("lets hunt's budget flags through (its default budget makes it a hunt)", async () => {
    // The refusal would come before discovery; a hunt of a path without Go code fails on the path.
    const result = await cli("hunt", "nowhere", "--exhaust-budget", "--stop-on", "race");
    expect(result.stderr).not.toMatch(/goes with --budget/);
    expect(result.stderr).toMatch(/nowhere/);
  });
});
