// Which runs ended by a crash, from collect's outcome and the stderr tail: panics and fatal
// errors are; the runtime's deadlock report and the testing package's timeout are not.

import { describe, expect, test } from "vitest";
import { runEndedByCrash } from "../../src/leaks/index.js";

describe("runEndedByCrash", () => {
  test("a panic or fatal error ends a run by a crash, even when the tail lost the first line", () => {
    expect(
      runEndedByCrash(
        "panic",
        "panic: runtime error: index out of range [3] with length 3\n\ngoroutine 21 [running]:\nmain.worker(...)",
      ),
    ).toBe(true);
    expect(runEndedByCrash("panic", "fatal error: concurrent map writes\n")).toBe(true);
    expect(runEndedByCrash("panic", "…goroutine 1 [semacquire]:\nsync.runtime_Semacquire(...)")).toBe(true);
    expect(runEndedByCrash("exit-error", "--- FAIL: TestX\npanic: boom [recovered]\n\tpanic: boom\n")).toBe(true);
    expect(runEndedByCrash("exit-error", "fatal error: sync: unlock of unlocked mutex\n")).toBe(true);
  });

  test("a deadlock report, a test timeout, a plain failure and runs that did not fail are not crashes", () => {
    expect(
      runEndedByCrash("panic", "fatal error: all goroutines are asleep - deadlock!\n\ngoroutine 1 [semacquire]:"),
    ).toBe(false);
    expect(runEndedByCrash("panic", "panic: test timed out after 3s\n\trunning tests:\n\t\tTestHang (3s)\n")).toBe(
      false,
    );
    expect(runEndedByCrash("exit-error", "--- FAIL: TestX (0.00s)\n    x_test.go:9: want 2, got 3\nFAIL\n")).toBe(
      false,
    );
    expect(runEndedByCrash("exit-error", null)).toBe(false);
    expect(runEndedByCrash("ok", "panic: printed by the program itself, which then exited 0\n")).toBe(false);
    expect(runEndedByCrash("timeout", "panic: test timed out after 1s\n")).toBe(false);
    expect(runEndedByCrash("killed", "fatal error: out of memory\n")).toBe(false);
  });
});
