// The deadline rule of src/collect/timeout.ts without --timeout: 10 s until the program has
// an ok plain run, then 5× that run (per -test.count iteration × the run's count) between
// 2 s and 60 s; a given --timeout always wins; a manifest only shortens; a hunt grants the
// part above 10 s only as far as its remaining budget goes.

import { describe, expect, it } from "vitest";
import {
  configuredTimeoutMs,
  DEFAULT_TIMEOUT_MS,
  DERIVED_TIMEOUT,
  longestOkMsPerIteration,
  normalizeCollectOptions,
  scaledTimeoutMs,
} from "../../src/collect/index.js";

const derive = { givenMs: null, manifestMs: undefined, testCount: null } as const;

describe("configuredTimeoutMs", () => {
  it("documents its constants: 10 s first, then 5× between 2 s and 60 s", () => {
    expect(DEFAULT_TIMEOUT_MS).toBe(10_000);
    expect(DERIVED_TIMEOUT).toEqual({ factor: 5, floorMs: 2_000, ceilingMs: 60_000 });
  });

  it("gives the default deadline before the program has an ok plain run", () => {
    expect(configuredTimeoutMs({ ...derive, plainOkMsPerIteration: null })).toBe(10_000);
  });

  it("derives 5× the plain run, rounded up to the millisecond", () => {
    expect(configuredTimeoutMs({ ...derive, plainOkMsPerIteration: 545.5 })).toBe(2_728);
    expect(configuredTimeoutMs({ ...derive, plainOkMsPerIteration: 3_000 })).toBe(15_000);
  });

  it("keeps the derived deadline between the floor and the ceiling", () => {
    expect(configuredTimeoutMs({ ...derive, plainOkMsPerIteration: 12 })).toBe(2_000);
    expect(configuredTimeoutMs({ ...derive, plainOkMsPerIteration: 9_000 })).toBe(45_000);
    expect(configuredTimeoutMs({ ...derive, plainOkMsPerIteration: 20_000 })).toBe(60_000);
  });

  it("scales by the run's -test.count", () => {
    expect(configuredTimeoutMs({ ...derive, plainOkMsPerIteration: 300, testCount: 4 })).toBe(6_000);
    expect(configuredTimeoutMs({ ...derive, plainOkMsPerIteration: 300, testCount: 1000 })).toBe(60_000);
  });

  it("lets an explicit --timeout win, longer or shorter than the derived one", () => {
    expect(configuredTimeoutMs({ ...derive, givenMs: 7_000, plainOkMsPerIteration: 300 })).toBe(7_000);
    expect(configuredTimeoutMs({ ...derive, givenMs: 500, plainOkMsPerIteration: 9_000 })).toBe(500);
    expect(configuredTimeoutMs({ ...derive, givenMs: 90_000, plainOkMsPerIteration: null })).toBe(90_000);
  });

  it("lets a manifest shorten the deadline, given or derived", () => {
    expect(configuredTimeoutMs({ ...derive, manifestMs: 1_000, plainOkMsPerIteration: 3_000 })).toBe(1_000);
    expect(configuredTimeoutMs({ ...derive, manifestMs: 30_000, plainOkMsPerIteration: 300 })).toBe(2_000);
    expect(configuredTimeoutMs({ ...derive, givenMs: 7_000, manifestMs: 2_000, plainOkMsPerIteration: null })).toBe(
      2_000,
    );
  });

  it("in a hunt, grants a derived deadline above 10 s only as far as the remaining budget goes", () => {
    expect(configuredTimeoutMs({ ...derive, plainOkMsPerIteration: 9_000, remainingBudgetMs: 20_000.6 })).toBe(20_000);
    expect(configuredTimeoutMs({ ...derive, plainOkMsPerIteration: 9_000, remainingBudgetMs: 3_000 })).toBe(10_000);
    expect(configuredTimeoutMs({ ...derive, plainOkMsPerIteration: 300, remainingBudgetMs: 500 })).toBe(2_000);
  });

  it("feeds scaledTimeoutMs, which still gives race runs 10× the plain run", () => {
    const configuredMs = configuredTimeoutMs({ ...derive, plainOkMsPerIteration: 400, remainingBudgetMs: 60_000 });
    expect(configuredMs).toBe(2_000);
    expect(
      scaledTimeoutMs({
        strategy: "plain",
        configuredMs,
        testCount: null,
        plainOkMsPerIteration: 400,
        remainingBudgetMs: 60_000,
      }),
    ).toBe(2_000);
    expect(
      scaledTimeoutMs({
        strategy: "race",
        configuredMs,
        testCount: null,
        plainOkMsPerIteration: 400,
        remainingBudgetMs: 60_000,
      }),
    ).toBe(4_000);
  });
});

describe("longestOkMsPerIteration", () => {
  it("takes the longest ok run per -test.count iteration, ignoring runs that did not end ok", () => {
    expect(longestOkMsPerIteration([])).toBeNull();
    expect(
      longestOkMsPerIteration([
        { outcome: "timeout", wallMs: 10_000, testCount: null },
        { outcome: "exit-error", wallMs: 50, testCount: null },
      ]),
    ).toBeNull();
    expect(
      longestOkMsPerIteration([
        { outcome: "ok", wallMs: 300, testCount: null },
        { outcome: "ok", wallMs: 2_000, testCount: 5 },
        { outcome: "timeout", wallMs: 10_000, testCount: null },
        { outcome: "ok", wallMs: null, testCount: null },
      ]),
    ).toBe(400);
  });
});

describe("normalizeCollectOptions", () => {
  it("records whether --timeout was given; without it the first run's deadline is the default", () => {
    expect(normalizeCollectOptions({ paths: ["."] })).toMatchObject({ timeoutMs: 10_000, timeoutGiven: false });
    expect(normalizeCollectOptions({ paths: ["."], timeoutMs: 10_000 })).toMatchObject({
      timeoutMs: 10_000,
      timeoutGiven: true,
    });
  });
});
