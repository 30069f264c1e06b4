// parseFailures on the raw outputs the fixture packages print (test/fixtures/output-digest,
// captured by its capture.sh), and on the cases the traceback alone cannot settle: which
// test a crash is charged to, what kind it is, and what an Example's failure says.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseFailures } from "../../src/collect/failures.js";

const DIR = fileURLToPath(new URL("../fixtures/output-digest/", import.meta.url));
const fixture = (name: string): string => readFileSync(`${DIR}${name}`, "utf8");
/** collect's order: stderr, then stdout. */
const run = (name: string): string => `${fixture(`${name}.stderr.txt`)}\n${fixture(`${name}.stdout.txt`)}`;

describe("parseFailures", () => {
  it("reads an Example's got/want as its message", () => {
    expect(parseFailures(fixture("examplefail.stdout.txt"))).toEqual([
      {
        test: "Example_greeting",
        kind: "fail",
        message: "got:\nhello\nworld\nwant:\nhello\nthere",
        tracerInduced: false,
      },
    ]);
  });

  it("classes a fatal runtime error and a fatal signal as fatal, a panic as panic", () => {
    expect(parseFailures(`${fixture("fatalmany.stderr.head.txt")}\n${fixture("fatalmany.stdout.txt")}`)).toEqual([
      {
        test: "TestUnlockTwice",
        kind: "fatal",
        message: "fatal error: sync: unlock of unlocked mutex\n    fatalmany.TestUnlockTwice unlock_test.go:18",
        tracerInduced: false,
      },
    ]);
    expect(parseFailures(run("tracercrash"))).toMatchObject([
      { test: "TestCrashUnderTracer", kind: "fatal", message: expect.stringMatching(/^SIGABRT: abort\n/) },
    ]);
    expect(parseFailures(run("poolpanic"))).toMatchObject([{ test: "TestSubmit", kind: "panic" }]);
  });

  it("takes a signal's user frames from the charged test's goroutine when the signal landed on an idle thread", () => {
    const output = [
      "=== RUN   TestUnderTracer",
      "SIGSEGV: segmentation violation",
      "PC=0x47a1c1 m=3 sigcode=0 addr=0x0",
      "",
      "goroutine 0 gp=0xc000102380 m=3 mp=0xc000080808 [idle]:",
      "runtime.futex(0x6c8d10, 0x80, 0x0, 0x0, 0x0, 0x0)",
      "\t/usr/local/go/src/runtime/sys_linux_amd64.s:557 +0x21 fp=0xc000073e98 sp=0xc000073e90 pc=0x47a1c1",
      "",
      "goroutine 18 gp=0xc000003c00 m=nil [running]:",
      "syscall.Syscall(0x3e, 0x1a2b, 0xb, 0x0)",
      "\t/usr/local/go/src/syscall/syscall_linux.go:73 +0x25 fp=0xc0000a7e78 sp=0xc0000a7e18 pc=0x4a6b25",
      "example.com/realsuites/tracercrash.TestUnderTracer(0xc000003a40)",
      "\t/src/tracercrash/crash_test.go:22 +0x9c fp=0xc0000a7f70 sp=0xc0000a7e78 pc=0x5191dc",
      "testing.tRunner(0xc000003a40, 0x556f08)",
      "\t/usr/local/go/src/testing/testing.go:2036 +0xea fp=0xc0000a7fc0 sp=0xc0000a7f70 pc=0x4ff6aa",
      "created by testing.(*T).Run in goroutine 1",
      "\t/usr/local/go/src/testing/testing.go:2101 +0x4c5 fp=0xc0000a7fe0 sp=0xc0000a7fc0 pc=0x4ff4c5",
    ].join("\n");
    expect(parseFailures(output)).toEqual([
      {
        test: "TestUnderTracer",
        kind: "fatal",
        message: "SIGSEGV: segmentation violation\n    tracercrash.TestUnderTracer crash_test.go:22",
        tracerInduced: false,
      },
    ]);
  });

  it("leaves hangs to the leak rule: the test timeout and the runtime's deadlock report", () => {
    expect(parseFailures(run("hang"))).toEqual([]);
    expect(
      parseFailures(
        "fatal error: all goroutines are asleep - deadlock!\n\ngoroutine 1 [chan receive]:\nmain.main()\n\t/src/app/main.go:9 +0x2d\nexit status 2\n",
      ),
    ).toEqual([]);
  });

  it("charges a crash to the creator's test when its own goroutine names none", () => {
    const [failure] = parseFailures(run("poolpanic"));
    expect(failure!.message).toBe("panic: assignment to entry in nil map\n    poolpanic.(*Pool).run pool_test.go:23");
  });

  it("names every running test and charges the first when the traceback names none", () => {
    expect(parseFailures(run("parallelpanic"))).toEqual([
      {
        test: "TestAlpha",
        kind: "panic",
        message:
          "panic: alarm raised by alpha\n    parallelpanic.watch watch_test.go:17\n    running tests: TestAlpha, TestBeta",
        tracerInduced: false,
      },
    ]);
  });

  it("falls back on the === RUN headers without a result when the traceback has no test goroutine", () => {
    // GOTRACEBACK=single: only the crashing goroutine is printed.
    const output =
      "panic: boom\n\ngoroutine 7 [running]:\nexample.com/app/cache.(*Store).evict()\n\t/src/app/cache/store.go:40 +0x2d\n" +
      "created by example.com/app/cache.New in goroutine 1\n\t/src/app/cache/store.go:12 +0x5a\n\n" +
      "=== RUN   TestCache\n=== RUN   TestCache/evict\n    store_test.go:20: filling\n";
    expect(parseFailures(output)).toEqual([
      {
        test: "TestCache/evict",
        kind: "panic",
        message: "panic: boom\n    cache.(*Store).evict store.go:40",
        tracerInduced: false,
      },
    ]);
  });

  it("charges a main program's crash to no test, its message the signal and the user frames", () => {
    expect(parseFailures(fixture("cgocrash.stderr.txt"))).toEqual([
      {
        test: null,
        kind: "fatal",
        message: "SIGSEGV: segmentation violation\n    main._Cfunc_crash _cgo_gotypes.go:46\n    main.main main.go:12",
        tracerInduced: false,
      },
    ]);
  });
});
