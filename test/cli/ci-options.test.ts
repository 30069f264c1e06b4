// The CI options hunt parses: --fail-on's gates (comma lists, repeats, `all`, unknown names
// as usage errors) and the exit code of the first failed gate, which is leaks'.

import { describe, expect, test } from "vitest";
import { gateExitCode, parseFailOn } from "../../src/cli/ci-options.js";
import { FLAKY_FOUND_EXIT_CODE, LEAK_FOUND_EXIT_CODE, RACE_FOUND_EXIT_CODE } from "../../src/cli/leaks.js";
import { UsageError } from "../../src/errors.js";
import { GATES } from "../../src/leaks/index.js";

describe("parseFailOn", () => {
  test("reads comma lists and repeats into gates in GATES order, without repeats", () => {
    expect(parseFailOn(["race,leak", "leak", " flaky "])).toEqual(["leak", "race", "flaky"]);
    expect(parseFailOn(["potential"])).toEqual(["potential"]);
    expect(parseFailOn(undefined)).toEqual([]);
    expect(parseFailOn(undefined, ["leak"])).toEqual(["leak"]);
    expect(parseFailOn(["none"], ["leak"])).toEqual([]);
    expect(() => parseFailOn(["none,race"])).toThrow(/stands alone/);
  });

  test("all is every gate", () => {
    expect(parseFailOn(["all"])).toEqual([...GATES]);
    expect(parseFailOn(["race,all"])).toEqual([...GATES]);
  });

  test("an unknown gate or an empty list is a usage error naming it", () => {
    expect(() => parseFailOn(["leak,leaks"])).toThrow(UsageError);
    expect(() => parseFailOn(["leak,leaks"])).toThrow(/unknown gate "leaks"/);
    expect(() => parseFailOn([","])).toThrow(/needs a gate/);
  });
});

describe("gateExitCode", () => {
  test("is the code of the first failed gate: 3 for the leak family, 4 for races, 5 for flaky tests", () => {
    expect(gateExitCode([])).toBeUndefined();
    expect(gateExitCode(["leak", "race"])).toBe(LEAK_FOUND_EXIT_CODE);
    expect(gateExitCode(["potential"])).toBe(3);
    expect(gateExitCode(["race", "flaky"])).toBe(RACE_FOUND_EXIT_CODE);
    expect(gateExitCode(["flaky"])).toBe(FLAKY_FOUND_EXIT_CODE);
    expect([LEAK_FOUND_EXIT_CODE, RACE_FOUND_EXIT_CODE, FLAKY_FOUND_EXIT_CODE]).toEqual([3, 4, 5]);
  });
});
