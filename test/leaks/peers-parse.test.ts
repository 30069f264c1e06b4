// Parsing the peer detectors' outputs (goroutine dump, goroutineleak profile, goleak
// report) into signatures, and scoring signatures against manifest labels.

import { describe, expect, test } from "vitest";
import type { Manifest } from "../../src/corpus/manifest.js";
import {
  parseGoleakReport,
  parseGoroutineDump,
  parsePeerArtifact,
  scoreSignatures,
  traceReasonOfDumpStatus,
  type BlockedSignature,
} from "../../src/leaks/index.js";

// Shapes copied from real Go 1.26 output (harness dump at the deadline; profile with debug=2).
const HARNESS_DUMP = `# schedlab-harness stop=deadline code=124
goroutine 6 [running]:
main.schedlabHarnessFinish.func1()
	/p/zz_schedlab_harness.go:62 +0xe5
main.schedlabHarnessWatchdog(0x1ae7e41f00e0)
	/p/zz_schedlab_harness.go:90 +0x114
created by main.main in goroutine 1
	/p/zz_schedlab_harness.go:26 +0x6d

goroutine 1 [sync.WaitGroup.Wait]:
sync.(*WaitGroup).Wait(0x0?)
	/usr/local/go/src/sync/waitgroup.go:118 +0x48
main.schedlabUserMain()
	/p/main.go:19 +0xdb
main.main()
	/p/zz_schedlab_harness.go:44 +0x13c

goroutine 8 [syscall]:
os/signal.signal_recv()
	/usr/local/go/src/runtime/sigqueue.go:152 +0x98
created by os/signal.Notify.func1.1 in goroutine 6
	/usr/local/go/src/os/signal/signal.go:152 +0x1f

goroutine 7 [chan receive (nil chan), 2 minutes]:
main.main.func1()
	/p/main.go:12 +0x1e
created by main.main in goroutine 1
	/p/main.go:11 +0x66

goroutine 9 [sleep]:
time.Sleep(0xf4240)
	/usr/local/go/src/runtime/time.go:363 +0x165
created by main.main in goroutine 1
	/p/main.go:30 +0x66
`;

const TEST_TIMEOUT = `panic: test timed out after 1.5s
	running tests:
		TestHang (1s)

goroutine 21 [chan send]:
example.com/m/pkg.TestHang(0xc000102000)
	/m/pkg/hang_test.go:9 +0x2b
testing.tRunner(0xc000102000, 0x5a1c38)
	/usr/local/go/src/testing/testing.go:1934 +0xea
created by testing.(*T).Run in goroutine 1
	/usr/local/go/src/testing/testing.go:1997 +0x465
`;

// A test binary's driver: goroutine 1 runs the generated main.main, waiting for the test.
const TEST_DRIVER = `goroutine 1 [chan receive]:
testing.(*T).Run(0xc000102000, {0x5a1c38, 0x8}, 0x5b2d40)
	/usr/local/go/src/testing/testing.go:2005 +0x485
testing.(*M).Run(0xc000120000)
	/usr/local/go/src/testing/testing.go:2477 +0x6b3
main.main()
	_testmain.go:45 +0x9b
`;

const LEAK_PROFILE = `goroutine 1 [running]:
runtime/pprof.writeGoroutineStacks({0x514978, 0x2fdf75fd8040})
	/usr/local/go/src/runtime/pprof/pprof.go:819 +0x6b
main.main()
	/tmp/lp/main.go:16 +0xaa

goroutine 5 [chan send (leaked)]:
main.main.func1()
	/tmp/lp/main.go:11 +0x1e
created by main.main in goroutine 1
	/tmp/lp/main.go:11 +0x66

goroutine 6 [select (no cases) (leaked)]:
main.main.func2()
	/tmp/lp/main.go:12 +0xf
created by main.main in goroutine 1
	/tmp/lp/main.go:12 +0x72

goroutine 7 [chan receive]:
main.main.func3()
	/tmp/lp/main.go:13 +0xf
created by main.main in goroutine 1
	/tmp/lp/main.go:13 +0x72
`;

const GOLEAK = `found unexpected goroutines:
[Goroutine 6 in state chan send, with main.main.func1 on top of the stack:
main.main.func1()
	/tmp/gl/main.go:11 +0x1e
created by main.main in goroutine 1
	/tmp/gl/main.go:11 +0x66
 Goroutine 7 in state select, 1 minutes, with main.watch on top of the stack:
main.watch(0xc000020000)
	/tmp/gl/main.go:20 +0x8d
created by main.main in goroutine 1
	/tmp/gl/main.go:30 +0x66
]`;

describe("peer outputs as signatures", () => {
  test("dump statuses map onto trace block reasons", () => {
    expect(traceReasonOfDumpStatus("sync.WaitGroup.Wait")).toBe("sync");
    expect(traceReasonOfDumpStatus("sync.Cond.Wait, 3 minutes")).toBe("sync.(*Cond).Wait");
    expect(traceReasonOfDumpStatus("select (no cases)")).toBe("forever");
    expect(traceReasonOfDumpStatus("sleep")).toBeNull();
    // A server left running waits on the network: peers report it, and it outlived its test.
    expect(traceReasonOfDumpStatus("IO wait")).toBe("network");
    expect(traceReasonOfDumpStatus("syscall, 2 minutes")).toBe("syscall");
  });

  test("a goroutine a standard-library function started for the program is kept; the runtime's own are not", () => {
    const dump = [
      "goroutine 9 [IO wait]:",
      "internal/poll.runtime_pollWait(0x7f, 0x72)",
      "\t/usr/local/go/src/runtime/netpoll.go:351 +0x85",
      "net/http.(*Server).Serve(0xc000, {0x8, 0xc0})",
      "\t/usr/local/go/src/net/http/server.go:3454 +0x485",
      "net/http/httptest.(*Server).goServe.func1()",
      "\t/usr/local/go/src/net/http/httptest/server.go:310 +0x65",
      "created by net/http/httptest.(*Server).goServe in goroutine 7",
      "\t/usr/local/go/src/net/http/httptest/server.go:308 +0x6a",
      "",
      "goroutine 5 [select]:",
      "os/signal.loop()",
      "\t/usr/local/go/src/os/signal/signal_unix.go:22 +0x1d",
      "created by os/signal.Notify.func1.1 in goroutine 1",
      "\t/usr/local/go/src/os/signal/signal.go:152 +0x1f",
    ].join("\n");
    expect(parseGoroutineDump(dump, "p")).toEqual([
      { program: "p", siteKey: "server.go:308", root: null, reason: "network" },
    ]);
  });

  test("a harness dump yields the blocked root and user goroutines, not the harness, runtime or sleepers", () => {
    expect(parseGoroutineDump(HARNESS_DUMP, "p")).toEqual([
      { program: "p", siteKey: null, root: "main.main", reason: "sync" },
      { program: "p", siteKey: "main.go:11", root: null, reason: "forever" },
    ]);
  });

  test("a test-timeout traceback names the blocked test as a root", () => {
    expect(parseGoroutineDump(TEST_TIMEOUT, "m/pkg")).toEqual([
      { program: "m/pkg", siteKey: null, root: "example.com/m/pkg.TestHang", reason: "chan send" },
    ]);
    expect(parseGoroutineDump(`${TEST_TIMEOUT}\n${TEST_DRIVER}`, "m/pkg")).toHaveLength(1);
  });

  test("the goroutineleak profile counts only the goroutines it marks leaked", () => {
    expect(parsePeerArtifact("leakprofile", LEAK_PROFILE, "p")).toEqual([
      { program: "p", siteKey: "main.go:11", root: null, reason: "chan send" },
      { program: "p", siteKey: "main.go:12", root: null, reason: "forever" },
    ]);
  });

  test("a goleak report is read goroutine by goroutine", () => {
    expect(parseGoleakReport(GOLEAK, "p")).toEqual([
      { program: "p", siteKey: "main.go:11", root: null, reason: "chan send" },
      { program: "p", siteKey: "main.go:30", root: null, reason: "select" },
    ]);
    expect(parseGoleakReport("", "p")).toEqual([]);
  });
});

function manifest(outcome: Manifest["outcome"], expected: Manifest["expected"], bugClass: string | null): Manifest {
  return {
    kind: "main",
    pattern: "x",
    outcome,
    bugClass,
    expected,
    showsOn: outcome === "clean" ? "never" : "every",
    tags: [],
    description: "d",
  };
}

describe("scoreSignatures", () => {
  const labelled = [
    {
      program: "a",
      manifest: manifest(
        "leak",
        [
          { creator: "main.main", site: "main.go:11", reason: "chan send" },
          { creator: "main.main", site: "main.go:12", reason: "select" },
        ],
        "send",
      ),
    },
    {
      program: "b",
      manifest: manifest("deadlock", [{ creator: "example.com/m/pkg.TestHang", site: null, reason: "sync" }], "wg"),
    },
    { program: "c", manifest: manifest("clean", [], null) },
  ];

  test("counts matches by site and reason (roots by function), misses and false positives, overall and by group", () => {
    const signatures: BlockedSignature[] = [
      { program: "a", siteKey: "main.go:11", root: null, reason: "chan send" },
      { program: "a", siteKey: "main.go:11", root: null, reason: "chan send" }, // a second goroutine of the same site: one signature
      { program: "a", siteKey: "main.go:12", root: null, reason: "chan receive" }, // right site, wrong reason
      { program: "b", siteKey: null, root: "TestHang", reason: "sync" },
      { program: "c", siteKey: null, root: "main.main", reason: "select" },
    ];
    const score = scoreSignatures(labelled, signatures);
    expect(score.overall).toMatchObject({ truePositives: 2, falsePositives: 2, missed: 1, precision: 0.5 });
    expect(score.overall.recall).toBeCloseTo(2 / 3, 12);
    expect(score.byReason["select"]).toMatchObject({ truePositives: 0, falsePositives: 1, missed: 1 });
    expect(score.byReason["chan receive"]).toMatchObject({ truePositives: 0, falsePositives: 1, missed: 0 });
    expect(score.byBugClass["wg"]).toMatchObject({ truePositives: 1, falsePositives: 0, missed: 0, f1: 1 });
    expect(score).toMatchObject({ cleanPrograms: 1, cleanProgramsFlagged: 1, falsePositivesOnClean: 1 });
  });

  test("a detector that says nothing has no precision and zero recall", () => {
    const score = scoreSignatures(labelled, []);
    expect(score.overall).toEqual({
      truePositives: 0,
      falsePositives: 0,
      missed: 3,
      precision: null,
      recall: 0,
      f1: null,
    });
  });
});
