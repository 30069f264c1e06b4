// The output digest on real outputs of the fixture packages (test/fixtures/output-digest,
// made by its capture.sh from runs as collect makes them), streamed in chunks that split
// lines anywhere: what a long suite printed first and a crash's header survive where the
// tails collect keeps lose them, and the digest stays small.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { digestOutput, outputDigest, type OutputDigestLimits } from "../../src/collect/output-digest.js";
import { parseFailures } from "../../src/collect/failures.js";
import { raceReports } from "../../src/collect/races.js";
import { outputTail } from "../../src/collect/tail.js";

const DIR = fileURLToPath(new URL("../fixtures/output-digest/", import.meta.url));
const fixture = (name: string): string => readFileSync(`${DIR}${name}`, "utf8");

/** `text` through a digest in chunks of `size` bytes (lines, and UTF-8 characters, split anywhere). */
function streamed(text: string, size: number, limits: Partial<OutputDigestLimits> = {}): string {
  const digest = outputDigest(limits);
  const bytes = Buffer.from(text, "utf8");
  for (let i = 0; i < bytes.length; i += size) digest.write(bytes.subarray(i, i + size));
  return digest.text();
}

/** What collect's 64 KiB stdout tail keeps of `text`. */
function tailOf(text: string, capacity: number): string {
  const tail = outputTail(capacity);
  const bytes = Buffer.from(text, "utf8");
  for (let i = 0; i < bytes.length; i += 4096) tail.write(bytes.subarray(i, i + 4096));
  return tail.bytes().toString("utf8");
}

/**
 * earlyfail's whole stdout (1.3 MiB): the fixture keeps its first 40 and last 4 lines; the
 * lines cut out are TestVerbose's log, one line with a counter, rebuilt here.
 */
function earlyfailStdout(): string {
  const lines = fixture("earlyfail.stdout.txt").split("\n");
  const template = lines.find((l) => l.includes("step 23 "))!;
  const head = lines.slice(0, 40);
  const middle: string[] = [];
  for (let step = 24; step < 11998; step++) middle.push(template.replace("step 23 ", `step ${step} `));
  return [...head, ...middle, ...lines.slice(40)].join("\n");
}

/** fatalmany's whole stderr: the fixture's first blocks, then the parked goroutine's block for each of the 20 000. */
function fatalmanyStderr(): string {
  const head = fixture("fatalmany.stderr.head.txt");
  const blocks = head.split("\n\n");
  const parked = blocks.at(-2)!; // the last complete block, a parked goroutine
  const id = Number(/^goroutine (\d+)/.exec(parked)![1]);
  const more: string[] = [];
  for (let g = id + 1; g < id + 20_000; g++) more.push(parked.replace(/^goroutine \d+/, `goroutine ${g}`));
  return `${head}${more.join("\n\n")}\n\nexit status 2\n`;
}

describe("outputDigest", () => {
  it("keeps an early failure amid more than 1 MiB of later verbose output, where the 64 KiB tail loses it", () => {
    const stdout = earlyfailStdout();
    expect(stdout.length).toBeGreaterThan(1024 * 1024);
    const digest = streamed(stdout, 4093);
    expect(digest.length).toBeLessThan(2048);
    expect(parseFailures(digest)).toEqual([
      {
        test: "TestChecksum",
        kind: "fail",
        message: "suite_test.go:11: loading fixtures\nsuite_test.go:12: checksum = 0xbeef, want 0xcafe",
        tracerInduced: false,
      },
      { test: "TestSubtests/bad", kind: "fail", message: "suite_test.go:17: bad subtest", tracerInduced: false },
    ]);
    // The digest says what the whole output says; the tail does not.
    expect(parseFailures(digest)).toEqual(parseFailures(stdout));
    expect(parseFailures(tailOf(stdout, 64 * 1024))).toEqual([]);
    expect(digest).toContain("--- FAIL: TestChecksum");
    expect(digest).not.toContain("TestVerbose"); // it passed: its log is dropped
    expect(digest.trimEnd().split("\n").at(-1)).toBe("FAIL");
  });

  it("gives the same digest whatever the chunks, lines and UTF-8 characters split anywhere", () => {
    const text = `${fixture("earlyfail.stdout.txt").replace("loading fixtures", "chargement des données ✓")}`;
    const whole = digestOutput(text);
    expect(whole).toContain("chargement des données ✓");
    for (const size of [1, 2, 3, 7, 64, 1000]) expect(streamed(text, size)).toBe(whole);
  });

  it("keeps a failed Example's got/want, unindented, after its result line", () => {
    const digest = streamed(fixture("examplefail.stdout.txt"), 5);
    expect(digest).toBe(fixture("examplefail.stdout.txt"));
    expect(parseFailures(digest)).toEqual([
      {
        test: "Example_greeting",
        kind: "fail",
        message: "got:\nhello\nworld\nwant:\nhello\nthere",
        tracerInduced: false,
      },
    ]);
  });

  it("digests a multi-megabyte traceback to its header, the crashing goroutine and the running test's", () => {
    const stderr = fatalmanyStderr();
    expect(stderr.length).toBeGreaterThan(3_000_000);
    expect(stderr.match(/^goroutine \d+ /gm)).toHaveLength(20_002);
    const digest = streamed(stderr, 65_536);
    expect(digest.length).toBeLessThan(4096);
    expect(digest).toMatch(/^fatal error: sync: unlock of unlocked mutex\n\ngoroutine \d+ \[running\]:\n/);
    expect(digest).toContain("schedlab: output digest: 20001 of the traceback's 20002 goroutine blocks left out");
    expect(digest).toContain("exit status 2");
    const stdout = digestOutput(fixture("fatalmany.stdout.txt"));
    expect(stdout).toBe("=== RUN   TestUnlockTwice\n");
    expect(parseFailures(`${digest}${stdout}`)).toEqual([
      {
        test: "TestUnlockTwice",
        kind: "fatal",
        message: "fatal error: sync: unlock of unlocked mutex\n    fatalmany.TestUnlockTwice unlock_test.go:18",
        tracerInduced: false,
      },
    ]);
    // collect's 1 MiB stderr tail has lost the header: it holds parked goroutines only.
    const tail = tailOf(stderr, 1024 * 1024);
    expect(tail).not.toContain("fatal error:");
    expect(parseFailures(tail)).toEqual([]);
  });

  it("keeps a fatal signal's header and its crash-form traceback (gp=, m=, fp= …)", () => {
    const digest = streamed(fixture("tracercrash.stderr.txt"), 100);
    expect(digest.split("\n").slice(0, 3)).toEqual([
      "SIGABRT: abort",
      expect.stringMatching(/^PC=0x[0-9a-f]+ m=\d+ sigcode=0$/),
      "",
    ]);
    expect(digest).toMatch(/^goroutine \d+ gp=0x[0-9a-f]+ m=\d+ mp=0x[0-9a-f]+ \[running\]:$/m);
    expect(digest).toContain("tracercrash.TestCrashUnderTracer(");
    // The trace reader and the runtime's own goroutines are left out; the registers too.
    expect(digest).not.toContain("trace reader");
    expect(digest).not.toMatch(/^rip /m);
    expect(parseFailures(`${digest}${digestOutput(fixture("tracercrash.stdout.txt"))}`)).toEqual([
      {
        test: "TestCrashUnderTracer",
        kind: "fatal",
        message: "SIGABRT: abort\n    tracercrash.TestCrashUnderTracer crash_test.go:18",
        tracerInduced: false,
      },
    ]);
  });

  it("keeps the test timeout with its running tests, their goroutines and those they started, which parseFailures leaves to the leak rule", () => {
    const stderr = fixture("hang.stderr.txt");
    const digest = streamed(stderr, 33);
    expect(digest).toContain("panic: test timed out after 1s\n\trunning tests:\n\t\tTestDrainWithoutConsumer (1s)\n");
    expect(digest).toContain("hang-test.TestDrainWithoutConsumer(");
    expect(digest).toContain("hang-test.(*Queue).Push.func1(");
    expect(parseFailures(`${digest}${digestOutput(fixture("hang.stdout.txt"))}`)).toEqual([]);
  });

  it("charges a panic in a pool goroutine to the test its creator runs", () => {
    const digest = `${streamed(fixture("poolpanic.stderr.txt"), 10)}${streamed(fixture("poolpanic.stdout.txt"), 10)}`;
    expect(digest).not.toContain("goroutine 1 [");
    expect(parseFailures(digest)).toEqual([
      {
        test: "TestSubmit",
        kind: "panic",
        message: "panic: assignment to entry in nil map\n    poolpanic.(*Pool).run pool_test.go:23",
        tracerInduced: false,
      },
    ]);
  });

  it("names every running test when no goroutine of the crash names one, and charges the first", () => {
    const digest = `${digestOutput(fixture("parallelpanic.stderr.txt"))}${digestOutput(fixture("parallelpanic.stdout.txt"))}`;
    expect(parseFailures(digest)).toEqual([
      {
        test: "TestAlpha",
        kind: "panic",
        message:
          "panic: alarm raised by alpha\n    parallelpanic.watch watch_test.go:17\n    running tests: TestAlpha, TestBeta",
        tracerInduced: false,
      },
    ]);
  });

  it("keeps race reports whole, bounded in number", () => {
    const stderr = fixture("racy.stderr.txt");
    expect(raceReports(streamed(stderr, 17))).toEqual(raceReports(stderr));
    const many = stderr.repeat(40);
    const digest = streamed(many, 4096);
    expect(raceReports(digest)).toHaveLength(16);
    expect(digest).toContain("schedlab: output digest: 24 more race report(s) left out (16 kept)");
  });

  it("stays within its bound, keeps the results and crash headers past it, and says what it left out", () => {
    const lines: string[] = [];
    for (let t = 0; t < 250; t++) {
      lines.push(`=== RUN   TestCase${t}`);
      for (let l = 0; l < 40; l++) lines.push(`    case_test.go:${l}: case ${t} line ${l} ${"y".repeat(60)}`);
      lines.push(`--- FAIL: TestCase${t} (0.00s)`);
    }
    lines.push("FAIL");
    const digest = streamed(lines.join("\n"), 8192, { maxChars: 64 * 1024, essentialChars: 16 * 1024 });
    expect(digest.length).toBeLessThan(64 * 1024 + 16 * 1024 + 200);
    expect(digest).toContain("--- FAIL: TestCase249 (0.00s)");
    expect(digest.trimEnd().split("\n").at(-2)).toBe("FAIL");
    expect(digest).toMatch(/schedlab: output digest: bound of 65536 characters reached, \d+ line\(s\) left out\n$/);
    expect(parseFailures(digest).map((f) => f.test)).toHaveLength(250);
  });

  it("keeps the first and the last lines of a long test log and says how many it left out", () => {
    const lines = ["=== RUN   TestLong"];
    for (let l = 0; l < 1000; l++) lines.push(`    long_test.go:9: line ${l}`);
    lines.push("--- FAIL: TestLong (0.00s)");
    const [failure] = parseFailures(streamed(lines.join("\n"), 512));
    const message = failure!.message.split("\n");
    expect(message.slice(0, 2)).toEqual(["long_test.go:9: line 0", "long_test.go:9: line 1"]);
    expect(message).toContain("schedlab: output digest: 936 line(s) of TestLong's log left out");
    expect(message.at(-1)).toBe("long_test.go:9: line 999");
    expect(message).toHaveLength(8 + 1 + 56);
  });

  it("cuts a line that never ends and goes on with the next", () => {
    const digest = streamed(`panic: ${"z".repeat(3_000_000)}\nexit status 2\n`, 65_536);
    expect(digest.length).toBeLessThan(5000);
    expect(digest).toMatch(/^panic: z+ … \(\d+ more characters\)\n/);
    expect(digest).toContain("exit status 2");
  });
});
