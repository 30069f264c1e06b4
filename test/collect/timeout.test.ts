// The deadline rule of src/collect/timeout.ts without --timeout: go test's own 10 minutes for a
// test binary (10 s for a main program) until one of its plain runs has ended by itself, then
// 5× that run (per -test.count iteration × the run's count), at least 2 s and at most go
// test's 10 minutes; a given --timeout always wins; a manifest only shortens. In a hunt
// (budgetedRun): a test binary's first plain run is never cut for the budget, a main program
// runs for its budget, a run that cannot fit what is left is not started, and a deadline never
// exceeds what is left or twice the plain run, whichever is longer.

import { describe, expect, it } from "vitest";
import {
  budgetedRun,
  configuredTimeoutMs,
  DERIVED_TIMEOUT,
  EXPECTED_COST_FACTORS,
  GO_TEST_DEFAULT_TIMEOUT_MS,
  longestCompleteMsPerIteration,
  MAIN_FIRST_RUN_TIMEOUT_MS,
  normalizeCollectOptions,
  type BudgetedRunInput,
} from "../../src/collect/index.js";

const derive = { givenMs: null, manifestMs: undefined, testCount: null, kind: "test" } as const;

describe("configuredTimeoutMs", () => {
  it("documents its constants: go test's 10 minutes, 10 s for a main, then 5× between 2 s and 10 minutes", () => {
    expect(GO_TEST_DEFAULT_TIMEOUT_MS).toBe(600_000);
    expect(MAIN_FIRST_RUN_TIMEOUT_MS).toBe(10_000);
    expect(DERIVED_TIMEOUT).toEqual({ factor: 5, floorMs: 2_000, ceilingMs: 600_000 });
  });

  it("gives go test's deadline to a test binary before it has a plain run that ended by itself, 10 s to a main", () => {
    expect(configuredTimeoutMs({ ...derive, plainMsPerIteration: null })).toBe(600_000);
    expect(configuredTimeoutMs({ ...derive, kind: "main", plainMsPerIteration: null })).toBe(10_000);
  });

  it("derives 5× the plain run, rounded up to the millisecond, for tests and mains alike", () => {
    expect(configuredTimeoutMs({ ...derive, plainMsPerIteration: 545.5 })).toBe(2_728);
    expect(configuredTimeoutMs({ ...derive, kind: "main", plainMsPerIteration: 3_000 })).toBe(15_000);
  });

  it("keeps the derived deadline between the floor and go test's own deadline: a 45 s suite gets 225 s", () => {
    expect(configuredTimeoutMs({ ...derive, plainMsPerIteration: 12 })).toBe(2_000);
    expect(configuredTimeoutMs({ ...derive, plainMsPerIteration: 45_000 })).toBe(225_000);
    expect(configuredTimeoutMs({ ...derive, plainMsPerIteration: 200_000 })).toBe(600_000);
  });

  it("scales by the run's -test.count", () => {
    expect(configuredTimeoutMs({ ...derive, plainMsPerIteration: 300, testCount: 4 })).toBe(6_000);
    expect(configuredTimeoutMs({ ...derive, plainMsPerIteration: 300, testCount: 1000 })).toBe(600_000);
  });

  it("lets an explicit --timeout win, longer or shorter than the derived one", () => {
    expect(configuredTimeoutMs({ ...derive, givenMs: 7_000, plainMsPerIteration: 300 })).toBe(7_000);
    expect(configuredTimeoutMs({ ...derive, givenMs: 500, plainMsPerIteration: 9_000 })).toBe(500);
    expect(configuredTimeoutMs({ ...derive, givenMs: 900_000, plainMsPerIteration: null })).toBe(900_000);
  });

  it("lets a manifest shorten the deadline, given or derived", () => {
    expect(configuredTimeoutMs({ ...derive, manifestMs: 1_000, plainMsPerIteration: 3_000 })).toBe(1_000);
    expect(configuredTimeoutMs({ ...derive, manifestMs: 30_000, plainMsPerIteration: 300 })).toBe(2_000);
    expect(configuredTimeoutMs({ ...derive, givenMs: 7_000, manifestMs: 2_000, plainMsPerIteration: null })).toBe(
      2_000,
    );
    expect(configuredTimeoutMs({ ...derive, manifestMs: 2_000, plainMsPerIteration: null })).toBe(2_000);
  });
});

describe("budgetedRun", () => {
  const hunt: BudgetedRunInput = {
    kind: "test",
    strategy: "plain",
    testCount: null,
    givenMs: null,
    manifestMs: undefined,
    plainMsPerIteration: null,
    strategyMsPerIteration: null,
    remainingBudgetMs: 20_000,
  };

  it("gives a test binary's first plain run go test's deadline whatever the budget: one complete plain run", () => {
    expect(budgetedRun(hunt)).toEqual({ deadlineMs: 600_000, cause: "deadline" });
    expect(budgetedRun({ ...hunt, remainingBudgetMs: 1_000 })).toEqual({ deadlineMs: 600_000, cause: "deadline" });
    expect(budgetedRun({ ...hunt, givenMs: 5_000, remainingBudgetMs: 1_000 })).toEqual({
      deadlineMs: 5_000,
      cause: "deadline",
    });
  });

  it("runs a main program that has never exited for what is left of its budget (a daemon), at least 2 s", () => {
    const main = { ...hunt, kind: "main" } as const;
    expect(budgetedRun(main)).toEqual({ deadlineMs: 20_000, cause: "budget" });
    expect(budgetedRun({ ...main, givenMs: 600_000 })).toEqual({ deadlineMs: 20_000, cause: "budget" });
    expect(budgetedRun({ ...main, givenMs: 5_000 })).toEqual({ deadlineMs: 5_000, cause: "deadline" });
    expect(budgetedRun({ ...main, givenMs: 600_000, remainingBudgetMs: 500 })).toEqual({
      deadlineMs: 2_000,
      cause: "budget",
    });
    expect(budgetedRun({ ...main, manifestMs: 1_500 })).toEqual({ deadlineMs: 1_500, cause: "deadline" });
  });

  it("does not start a run whose expected time does not fit what is left of the budget", () => {
    const measured = { ...hunt, plainMsPerIteration: 4_000 };
    expect(EXPECTED_COST_FACTORS).toEqual({ plain: 1, perturb: 1.5, race: 3 });
    expect(budgetedRun({ ...measured, strategy: "race", remainingBudgetMs: 11_999 })).toBeNull();
    expect(budgetedRun({ ...measured, strategy: "race", remainingBudgetMs: 12_000 })).not.toBeNull();
    expect(
      budgetedRun({ ...measured, strategy: "race", strategyMsPerIteration: 5_000, remainingBudgetMs: 6_000 }),
    ).not.toBeNull();
    expect(budgetedRun({ ...measured, testCount: 20, remainingBudgetMs: 60_000 })).toBeNull();
    expect(budgetedRun({ ...measured, remainingBudgetMs: -5 })).toBeNull();
  });

  it("derives 5× the expected time, capped by what is left or twice the plain run, whichever is longer", () => {
    const measured = { ...hunt, plainMsPerIteration: 1_000 };
    expect(budgetedRun({ ...measured, remainingBudgetMs: 60_000 })).toEqual({ deadlineMs: 5_000, cause: "deadline" });
    expect(budgetedRun({ ...measured, strategy: "perturb", remainingBudgetMs: 60_000 })).toEqual({
      deadlineMs: 7_500,
      cause: "deadline",
    });
    expect(budgetedRun({ ...measured, remainingBudgetMs: 3_000 })).toEqual({ deadlineMs: 3_000, cause: "deadline" });
    expect(budgetedRun({ ...measured, remainingBudgetMs: 1_200 })).toEqual({ deadlineMs: 2_000, cause: "deadline" });
    expect(budgetedRun({ ...hunt, plainMsPerIteration: 100, remainingBudgetMs: 60_000 })).toEqual({
      deadlineMs: 2_000,
      cause: "deadline",
    });
  });

  it("keeps a given --timeout and lets a manifest shorten the derived deadline", () => {
    const measured = { ...hunt, plainMsPerIteration: 1_000 };
    expect(budgetedRun({ ...measured, givenMs: 30_000, remainingBudgetMs: 3_000 })).toEqual({
      deadlineMs: 30_000,
      cause: "deadline",
    });
    expect(budgetedRun({ ...measured, manifestMs: 1_500 })).toEqual({ deadlineMs: 1_500, cause: "deadline" });
  });

  it("bounds a program's cost by its budget plus two plain runs, whatever its runs do", () => {
    // Every run hangs to its deadline: the total stays under budget + 2T.
    for (const plainMs of [300, 4_000, 25_000])
      for (const strategy of ["plain", "perturb", "race"] as const) {
        const budgetMs = 20_000;
        let spent = plainMs; // the first plain run ended by itself
        for (;;) {
          const plan = budgetedRun({
            ...hunt,
            strategy,
            plainMsPerIteration: plainMs,
            remainingBudgetMs: budgetMs - spent,
          });
          if (plan === null || spent >= budgetMs) break;
          spent += plan.deadlineMs;
        }
        expect(spent).toBeLessThanOrEqual(budgetMs + 2 * plainMs + DERIVED_TIMEOUT.floorMs);
      }
  });
});

describe("longestCompleteMsPerIteration", () => {
  it("takes the longest run that ended by itself (ok or failing tests) per -test.count iteration", () => {
    expect(longestCompleteMsPerIteration([])).toBeNull();
    expect(
      longestCompleteMsPerIteration([
        { outcome: "timeout", wallMs: 10_000, testCount: null },
        { outcome: "panic", wallMs: 50, testCount: null },
      ]),
    ).toBeNull();
    expect(
      longestCompleteMsPerIteration([
        { outcome: "ok", wallMs: 300, testCount: null },
        { outcome: "exit-error", wallMs: 2_000, testCount: 5 },
        { outcome: "killed", wallMs: 10_000, testCount: null },
        { outcome: "ok", wallMs: null, testCount: null },
      ]),
    ).toBe(400);
  });
});

describe("normalizeCollectOptions", () => {
  it("records whether --timeout was given; without it the first run's deadline is go test's", () => {
    expect(normalizeCollectOptions({ paths: ["."] })).toMatchObject({ timeoutMs: 600_000, timeoutGiven: false });
    expect(normalizeCollectOptions({ paths: ["."], timeoutMs: 10_000 })).toMatchObject({
      timeoutMs: 10_000,
      timeoutGiven: true,
    });
  });
});
