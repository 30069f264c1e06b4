// parseLeakProfile on profiles the run agent wrote in real runs of test/fixtures/agent (Go
// 1.26.8, GOEXPERIMENT=goroutineleakprofile; test/fixtures/leak-profiles): a test binary the
// watchdog stopped as hung, a package with its own TestMain at its end, a main program at its
// end and hung, a daemon at its deadline; and files that are not what the agent writes.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { goroutinesOfDump, LeakProfileFormatError, parseLeakProfile } from "../../src/collect/index.js";

const GOROOT = "/usr/local/go";

function fixture(name: string): string {
  return readFileSync(fileURLToPath(new URL(`../fixtures/leak-profiles/${name}`, import.meta.url)), "utf8");
}

describe("parseLeakProfile", () => {
  it("a hung test binary: goroutine 1 (the testing driver) and both deadlocked goroutines leaked, the tracer not", () => {
    expect(parseLeakProfile(fixture("test-hang.txt"), { goroot: GOROOT })).toEqual({
      taken: "hang",
      goroutines: [
        { gid: 1, wait: "chan receive", leaked: true, top: null },
        { gid: 20, wait: "trace reader (blocked)", leaked: false, top: null },
        {
          gid: 21,
          wait: "chan receive",
          leaked: true,
          top: "schedlab.dev/fixtures/agent/hang.(*Ledger).Transfer ledger.go:28",
        },
        {
          gid: 22,
          wait: "sync.Mutex.Lock",
          leaked: true,
          top: "schedlab.dev/fixtures/agent/hang.(*Ledger).Transfer.func1 ledger.go:22",
        },
      ],
    });
  });

  it("the end of a package with its own TestMain: the running goroutine 1 (in the renamed TestMain) is left out", () => {
    expect(parseLeakProfile(fixture("test-own-testmain-end.txt"), { goroot: GOROOT })).toEqual({
      taken: "end",
      goroutines: [
        {
          gid: 10,
          wait: "chan send",
          leaked: true,
          top: "schedlab.dev/fixtures/agent/ownmain.Lookup.func1 cache.go:7",
        },
      ],
    });
  });

  it("a main program's end and hang: the harness's renamed main is main.main", () => {
    expect(parseLeakProfile(fixture("main-end.txt"), { goroot: GOROOT })).toEqual({
      taken: "end",
      goroutines: [{ gid: 9, wait: "chan send", leaked: true, top: "main.start.func1 main.go:13" }],
    });
    const hang = parseLeakProfile(fixture("main-hang.txt"), { goroot: GOROOT });
    expect(hang.taken).toBe("hang");
    expect(hang.goroutines.filter((g) => g.leaked)).toEqual([
      { gid: 1, wait: "chan receive", leaked: true, top: "main.main main.go:24" },
      { gid: 9, wait: "sync.Mutex.Lock", leaked: true, top: "main.main.func1 main.go:19" },
    ]);
  });

  it("a daemon at its deadline: main leaked in select {}, its ticker goroutine alive, the harness's goroutines left out", () => {
    expect(parseLeakProfile(fixture("daemon-deadline.txt"), { goroot: GOROOT })).toEqual({
      taken: "deadline",
      goroutines: [
        { gid: 1, wait: "select (no cases)", leaked: true, top: "main.main main.go:16" },
        { gid: 21, wait: "chan receive", leaked: false, top: "main.main.func1 main.go:12" },
        { gid: 25, wait: "syscall", leaked: false, top: null },
      ],
    });
  });

  it("without GOROOT, standard-library frames are told by their package path", () => {
    const profile = parseLeakProfile(fixture("test-hang.txt"));
    expect(profile.goroutines.map((g) => g.top)).toEqual([
      null,
      null,
      "schedlab.dev/fixtures/agent/hang.(*Ledger).Transfer ledger.go:28",
      "schedlab.dev/fixtures/agent/hang.(*Ledger).Transfer.func1 ledger.go:22",
    ]);
  });

  it("drops the minutes and thread notes from the wait, and keeps only what is waiting", () => {
    const text = [
      "# schedlab-agent taken=end",
      "goroutine 7 gp=0xc000007c00 m=nil [chan receive (leaked), 12 minutes, locked to thread]:",
      "example.com/m.worker()",
      "\t/src/m/w.go:9 +0x1d",
      "",
      "goroutine 8 [runnable]:",
      "example.com/m.busy()",
      "\t/src/m/w.go:20 +0x1d",
      "",
    ].join("\n");
    expect(parseLeakProfile(text, { goroot: GOROOT }).goroutines).toEqual([
      { gid: 7, wait: "chan receive", leaked: true, top: "example.com/m.worker w.go:9" },
    ]);
  });

  it("refuses what the agent does not write, with the reason", () => {
    expect(() => parseLeakProfile("")).toThrow(LeakProfileFormatError);
    expect(() => parseLeakProfile("goroutine 1 [running]:\nmain.main()\n\t/x/main.go:3\n")).toThrow(
      /first line is not "# schedlab-agent taken=…"/,
    );
    expect(() => parseLeakProfile("# schedlab-agent taken=later\n")).toThrow(/unknown taken="later"/);
    expect(() => parseLeakProfile("# schedlab-agent taken=end\ngoroutine 1 [runn")).toThrow(/shows no goroutine/);
  });
});

describe("goroutinesOfDump", () => {
  it("reads a test binary's timeout traceback: goroutine 1 running an example in an IO wait, nothing leaked", () => {
    const dump = [
      "panic: test timed out after 4s",
      "\trunning tests:",
      "\t\tExampleFetch (4s)",
      "",
      "goroutine 17 [running]:",
      "testing.(*M).startAlarm.func1()",
      "\t/usr/local/go/src/testing/testing.go:2484 +0x394",
      "created by time.goFunc",
      "\t/usr/local/go/src/time/sleep.go:215 +0x2d",
      "",
      "goroutine 1 [IO wait]:",
      "internal/poll.runtime_pollWait(0x7f, 0x72)",
      "\t/usr/local/go/src/runtime/netpoll.go:351 +0x85",
      "net.(*conn).Read(0xc000, {0xc0, 0x200, 0x200})",
      "\t/usr/local/go/src/net/net.go:196 +0x45",
      "example.com/realsuites/hangexample.ExampleFetch()",
      "\t/src/hangexample/fetch_test.go:22 +0x1a5",
      "testing.runExample({{0x58, 0xc}, 0x59, {0x58, 0x5}, 0x0})",
      "\t/usr/local/go/src/testing/run_example.go:63 +0x2b4",
      "main.main()",
      "\t_testmain.go:51 +0xa5",
      "",
      "goroutine 8 [select]:",
      "example.com/realsuites/hangexample.StartHeartbeat.func1()",
      "\t/src/hangexample/fetch.go:35 +0x9c",
      "created by example.com/realsuites/hangexample.StartHeartbeat in goroutine 7",
      "\t/src/hangexample/fetch.go:32 +0x87",
    ].join("\n");
    expect(goroutinesOfDump(dump, { goroot: "/usr/local/go" })).toEqual([
      {
        gid: 1,
        wait: "IO wait",
        leaked: false,
        top: "example.com/realsuites/hangexample.ExampleFetch fetch_test.go:22",
      },
      {
        gid: 8,
        wait: "select",
        leaked: false,
        top: "example.com/realsuites/hangexample.StartHeartbeat.func1 fetch.go:35",
      },
    ]);
    expect(goroutinesOfDump("panic: boom\n")).toEqual([]);
  });
});
