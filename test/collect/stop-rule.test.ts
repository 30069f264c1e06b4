// The pure parts of the stop rule per class and of the scaled deadlines: which classes a
// run confirms (failure needs the plain runs' history), whether it ends the hunt under
// --stop-on, and the --stop-on option itself (deadlines: timeout.test.ts).

import { describe, expect, it } from "vitest";
import {
  collectModeOf,
  DEFAULT_STOP_ON,
  normalizeCollectOptions,
  parseStopOn,
  runCheckOf,
  stopsHunt,
  storedCheck,
  withFailureClass,
  type TestFailure,
} from "../../src/collect/index.js";
import { UsageError } from "../../src/errors.js";

const fail = (test: string | null, tracerInduced = false): TestFailure => ({
  test,
  kind: "fail",
  message: "x_test.go:3: boom",
  tracerInduced,
});

describe("withFailureClass", () => {
  const check = runCheckOf("exit-error", [], 0, undefined, [fail("TestPool/sub")]);

  it("confirms a failure under race or perturb of a test no plain run has failed", () => {
    expect(withFailureClass(check, "perturb", new Set()).classes).toEqual(["failure"]);
    expect(withFailureClass(check, "race", new Set(["TestOther"])).classes).toEqual(["failure"]);
    // The column of run_checks knows only blocked and race.
    expect(withFailureClass(check, "race", new Set()).finding).toBeNull();
  });

  it("never in a plain run, for a test that fails in plain runs, or for a tracer-induced failure", () => {
    expect(withFailureClass(check, "plain", new Set()).classes).toEqual([]);
    expect(withFailureClass(check, "perturb", new Set(["TestPool/sub"])).classes).toEqual([]);
    const tracer = runCheckOf("exit-error", [], 0, undefined, [fail("TestNoLeaks", true)]);
    expect(withFailureClass(tracer, "race", new Set()).classes).toEqual([]);
  });

  it("keys a main program's panic by the program (no test)", () => {
    const main = runCheckOf("panic", [], 0, undefined, [
      { test: null, kind: "panic", message: "panic: boom", tracerInduced: false },
    ]);
    expect(withFailureClass(main, "perturb", new Set()).classes).toEqual(["failure"]);
    expect(withFailureClass(main, "perturb", new Set([""])).classes).toEqual([]);
  });

  it("adds failure after the classes the run already confirms", () => {
    const both = runCheckOf("exit-error", [{ goroutine: "g", reason: "sync", site: "f a.go:1" }], 1, undefined, [
      fail("TestX"),
    ]);
    expect(withFailureClass(both, "race", new Set()).classes).toEqual(["race", "leak", "failure"]);
  });
});

describe("stopsHunt", () => {
  it("stops only on a class of the stop set: by default a race goes on", () => {
    expect(DEFAULT_STOP_ON).toEqual(["leak"]);
    expect(stopsHunt(["race"], DEFAULT_STOP_ON)).toBe(false);
    expect(stopsHunt(["failure"], DEFAULT_STOP_ON)).toBe(false);
    expect(stopsHunt(["race", "leak"], DEFAULT_STOP_ON)).toBe(true);
    expect(stopsHunt(["race"], ["leak", "race"])).toBe(true);
    expect(stopsHunt([], ["leak", "race", "failure"])).toBe(false);
  });
});

describe("storedCheck", () => {
  it("reads checks recorded before classes existed", () => {
    expect(
      storedCheck(
        JSON.stringify({ finding: "blocked", blocked: [{ goroutine: "g", reason: "sync", site: null }], races: 0 }),
      ),
    ).toMatchObject({ classes: ["leak"], failures: [] });
    expect(storedCheck(JSON.stringify({ finding: "race", blocked: [], races: 2 })).classes).toEqual(["race"]);
    expect(storedCheck(JSON.stringify({ finding: null, blocked: [], races: 0 })).classes).toEqual([]);
    expect(
      storedCheck(
        JSON.stringify({ finding: null, classes: ["failure"], blocked: [], races: 0, failures: [fail("TestX")] }),
      ).classes,
    ).toEqual(["failure"]);
  });
});

describe("--stop-on", () => {
  it("parses classes, comma lists, repeats and any", () => {
    expect(parseStopOn(["leak"])).toEqual(["leak"]);
    expect(parseStopOn(["leak,race", "race", " failure "])).toEqual(["leak", "race", "failure"]);
    expect(parseStopOn(["any"])).toEqual(["leak", "race", "failure"]);
    expect(() => parseStopOn(["deadlock"])).toThrow(UsageError);
    expect(() => parseStopOn([","])).toThrow(UsageError);
  });

  it("defaults to leak with a budget, and is a usage error without one", () => {
    expect(normalizeCollectOptions({ paths: ["."], budgetMs: 1_000 }).mode).toMatchObject({
      kind: "budget",
      stopOn: ["leak"],
    });
    expect(normalizeCollectOptions({ paths: ["."], budgetMs: 1_000, stopOn: ["race", "leak"] }).mode).toMatchObject({
      kind: "budget",
      stopOn: ["race", "leak"],
    });
    const error = (() => {
      try {
        collectModeOf({ stopOn: ["race"] });
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe("--stop-on goes with --budget");
  });
});
