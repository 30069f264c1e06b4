// Lock recording end to end with the real toolchain: a go 1.12 main program built by
// buildProgram with recordLocks (plain, perturbed on top of the harness, -race) and run by
// tracedRun logs want/got/drop for each mutex, with the mutex's own address as its id, an
// RWMutex read lock, an embedded mutex and a deferred unlock; a package with internal and
// external test files builds and runs as a test binary; collect --budget records locks in
// every strategy's runs and a plain collect does not. The trace's user logs are read by a
// small Go program on golang.org/x/exp/trace (the Go helper's own dependency).

import { execa } from "execa";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildProgram, collect, runFiles, tracedRun, type RunConfig, type Strategy } from "../../src/collect/index.js";
import { discoverPrograms } from "../../src/corpus/index.js";
import { goToolchain, type GoToolchain } from "../../src/go/index.js";
import { GOHELPER_SOURCE_DIR, goHelperPath } from "../../src/gohelper/index.js";
import { scratch } from "./helpers.js";

const GO_MOD = "module example.com/locked\n\ngo 1.12\n";

/** Two accounts (embedded mutexes) moved under a gate another goroutine waits on, and a registry read under RLock with a deferred RUnlock. */
const MAIN_GO = `package main

import (
	"fmt"
	"os"
	"reflect"
	"sync"
)

type account struct {
	sync.Mutex
	balance int
}

type registry struct {
	mu    sync.RWMutex
	names map[string]int
}

func label(name string, p interface{}) {
	fmt.Fprintf(os.Stderr, "mutex %s %x\\n", name, reflect.ValueOf(p).Pointer())
}

func (r *registry) lookup(name string) int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.names[name]
}

func transfer(from, to *account, n int) {
	from.Lock()
	to.Lock()
	from.balance -= n
	to.balance += n
	to.Unlock()
	from.Unlock()
}

func main() {
	a, b := &account{balance: 10}, &account{}
	r := &registry{names: map[string]int{"x": 1}}
	var gate sync.Mutex
	label("a", &a.Mutex)
	label("b", &b.Mutex)
	label("registry", &r.mu)
	label("gate", &gate)
	gate.Lock()
	done := make(chan struct{})
	go func() {
		gate.Lock()
		transfer(b, a, 1)
		gate.Unlock()
		close(done)
	}()
	transfer(a, b, 3)
	gate.Unlock()
	<-done
	fmt.Println(r.lookup("x"), a.balance, b.balance)
}
`;

/** A library with its own lock, an internal test and an external (_test package) test. */
const LIB_GO = `package lib

import "sync"

// Counter counts under its mutex.
type Counter struct {
	mu sync.Mutex
	n  int
}

// Add adds one.
func (c *Counter) Add() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
}
`;

const LIB_TEST_GO = `package lib

import "testing"

func TestAddInside(t *testing.T) {
	var c Counter
	c.Add()
	c.mu.Lock()
	n := c.n
	c.mu.Unlock()
	if n != 1 {
		t.Fatal(n)
	}
}
`;

const EXT_TEST_GO = `package lib_test

import (
	"sync"
	"testing"

	"example.com/locked/lib"
)

func TestAddOutside(t *testing.T) {
	var c lib.Counter
	var wg sync.WaitGroup
	var mu sync.RWMutex
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.RLock()
			c.Add()
			mu.RUnlock()
		}()
	}
	wg.Wait()
}
`;

/** Reads a trace and prints each schedlab.lock user log: goroutine, message and stack. */
const READER_GO = `package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/exp/trace"
)

func main() {
	f, err := os.Open(os.Args[1])
	if err != nil {
		panic(err)
	}
	reader, err := trace.NewReader(bufio.NewReader(f))
	if err != nil {
		panic(err)
	}
	out := json.NewEncoder(os.Stdout)
	for {
		ev, err := reader.ReadEvent()
		if err != nil {
			break
		}
		if ev.Kind() != trace.EventLog || ev.Log().Category != "schedlab.lock" {
			continue
		}
		stack := []string{}
		for frame := range ev.Stack().Frames() {
			stack = append(stack, fmt.Sprintf("%s %s:%d", frame.Func, filepath.Base(frame.File), frame.Line))
		}
		out.Encode(map[string]interface{}{"g": uint64(ev.Goroutine()), "message": ev.Log().Message, "stack": stack})
	}
}
`;

/** One lock log of a trace; `site` is its first frame outside the injected files and runtime/trace. */
interface LockLog {
  readonly g: number;
  readonly phase: string;
  readonly mode: string;
  readonly lock: string;
  readonly site: string;
}

let go: GoToolchain;
let work: string;
let reader: string;

beforeAll(async () => {
  go = await goToolchain();
  work = scratch("locks");
  // The helper's build has x/exp in the module cache; the reader uses its go.mod and go.sum.
  await goHelperPath();
  const readerDir = join(work, "reader");
  mkdirSync(readerDir, { recursive: true });
  writeFileSync(
    join(readerDir, "go.mod"),
    readFileSync(join(GOHELPER_SOURCE_DIR, "go.mod"), "utf8").replace(/^module .*$/m, "module lockreader"),
  );
  writeFileSync(join(readerDir, "go.sum"), readFileSync(join(GOHELPER_SOURCE_DIR, "go.sum")));
  writeFileSync(join(readerDir, "main.go"), READER_GO);
  reader = join(readerDir, "reader");
  await execa("go", ["build", "-mod=mod", "-o", reader, "."], { cwd: readerDir });
});

async function lockLogs(tracePath: string): Promise<LockLog[]> {
  const { stdout } = await execa(reader, [tracePath], { maxBuffer: 64 * 1024 * 1024 });
  return stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const event = JSON.parse(line) as { g: number; message: string; stack: string[] };
      const [phase, mode, lock] = event.message.split(" ");
      const site =
        event.stack.find((frame) => !/ zz_schedlab_\w+\.go:/.test(frame) && !frame.startsWith("runtime/trace.")) ?? "";
      return { g: event.g, phase: phase!, mode: mode!, lock: lock!, site };
    });
}

function writeModule(files: Record<string, string>): string {
  const dir = join(work, `module-${readdirSync(work).length}`);
  for (const [name, text] of Object.entries({ "go.mod": GO_MOD, ...files })) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

/** The 1-based number of the line of `source` that is exactly `text` (indentation included). */
function lineOf(source: string, text: string): number {
  const index = source.split("\n").findIndex((line) => line === text);
  expect(index, text).toBeGreaterThanOrEqual(0);
  return index + 1;
}

/** Each mutex's ops as "phase mode site" lines, per goroutine in order; and every got of a goroutine follows its want. */
function checkedOrder(logs: readonly LockLog[]): void {
  const waiting = new Map<string, number>();
  for (const log of logs) {
    const key = `${log.g} ${log.mode} ${log.lock}`;
    if (log.phase === "want") waiting.set(key, (waiting.get(key) ?? 0) + 1);
    if (log.phase === "got") {
      expect(waiting.get(key) ?? 0, `got without want: ${key}`).toBeGreaterThan(0);
      waiting.set(key, waiting.get(key)! - 1);
    }
  }
  expect([...waiting.values()].every((n) => n === 0)).toBe(true);
}

describe("lock recording in a main program", () => {
  const site = (fn: string, text: string) => `${fn} main.go:${lineOf(MAIN_GO, text)}`;
  const mainFn = "main.schedlabUserMain"; // the harness renames main on its own line

  const strategies: readonly Strategy[] = ["plain", "perturb", "race"];
  for (const strategy of strategies) {
    it(`logs want/got/drop with each mutex's address (${strategy} build, harness, go 1.12)`, async () => {
      const dir = writeModule({ "main.go": MAIN_GO });
      const [program] = (await discoverPrograms([dir])).programs;
      const build = await buildProgram(
        { dir, kind: "main", goFiles: program!.goFiles, strategy, recordLocks: true },
        go,
        join(work, `build-${strategy}`),
      );
      expect(build.status, build.output).toBe("ok");
      expect(build.output).not.toContain("without lock recording");
      const config: RunConfig = {
        key: strategy === "plain" ? "procs-2" : `procs-2-${strategy}`,
        strategy,
        procs: 2,
        testCount: null,
      };
      const run = (await tracedRun({
        kind: "main",
        dir,
        binary: build.binary!,
        testName: null,
        config,
        files: runFiles(join(work, "traces"), `main-${strategy}`, config.key, 0),
        timeoutMs: 60_000,
        graceMs: 1_000,
        go,
        seed: strategy === "perturb" ? 7 : null,
      }))!;
      expect(run.outcome, run.stderrTail).toBe("ok");
      const address = new Map([...run.stderrTail.matchAll(/^mutex (\w+) ([0-9a-f]+)$/gm)].map((m) => [m[2]!, m[1]!]));
      expect(new Set(address.values())).toEqual(new Set(["a", "b", "registry", "gate"]));
      const logs = await lockLogs(run.tracePath!);
      // Every log names a mutex of the program, by the address the program printed.
      expect(logs.filter((l) => !address.has(l.lock))).toEqual([]);
      checkedOrder(logs);
      const mainG = logs[0]!.g;
      const opsOf = (name: string, g: number) =>
        logs.filter((l) => address.get(l.lock) === name && l.g === g).map((l) => `${l.phase} ${l.mode} ${l.site}`);
      // The gate: main locks and drops it; the goroutine gets it only after main's drop.
      expect(opsOf("gate", mainG)).toEqual([
        `want w ${site(mainFn, "\tgate.Lock()")}`,
        `got w ${site(mainFn, "\tgate.Lock()")}`,
        `drop w ${site(mainFn, "\tgate.Unlock()")}`,
      ]);
      const other = logs.find((l) => l.g !== mainG)!.g;
      const closure = `${mainFn}.func1`;
      expect(opsOf("gate", other)).toEqual([
        `want w ${site(closure, "\t\tgate.Lock()")}`,
        `got w ${site(closure, "\t\tgate.Lock()")}`,
        `drop w ${site(closure, "\t\tgate.Unlock()")}`,
      ]);
      const mainDrop = logs.findIndex((l) => l.g === mainG && address.get(l.lock) === "gate" && l.phase === "drop");
      const otherGot = logs.findIndex((l) => l.g === other && address.get(l.lock) === "gate" && l.phase === "got");
      expect(otherGot).toBeGreaterThan(mainDrop);
      // The embedded mutexes of the accounts: two distinct ids, locked in transfer's order.
      const transfer = (fromLock: string, toLock: string) => [
        `${fromLock} want w ${site("main.transfer", "\tfrom.Lock()")}`,
        `${fromLock} got w ${site("main.transfer", "\tfrom.Lock()")}`,
        `${toLock} want w ${site("main.transfer", "\tto.Lock()")}`,
        `${toLock} got w ${site("main.transfer", "\tto.Lock()")}`,
        `${toLock} drop w ${site("main.transfer", "\tto.Unlock()")}`,
        `${fromLock} drop w ${site("main.transfer", "\tfrom.Unlock()")}`,
      ];
      const accounts = (g: number) =>
        logs
          .filter((l) => l.g === g && /^[ab]$/.test(address.get(l.lock) ?? ""))
          .map((l) => `${address.get(l.lock)} ${l.phase} ${l.mode} ${l.site}`);
      expect(accounts(mainG)).toEqual(transfer("a", "b"));
      expect(accounts(other)).toEqual(transfer("b", "a"));
      // The read lock, and its deferred RUnlock logged when lookup returns: Go puts a
      // deferred call on the return statement's line, or (-race) on the closing brace's.
      const lookup = "main.(*registry).lookup";
      const registry = opsOf("registry", mainG);
      expect(registry.slice(0, 2)).toEqual([
        `want r ${site(lookup, "\tr.mu.RLock()")}`,
        `got r ${site(lookup, "\tr.mu.RLock()")}`,
      ]);
      const returned = lineOf(MAIN_GO, "\treturn r.names[name]");
      expect(registry.length).toBe(3);
      expect([`drop r ${lookup} main.go:${returned}`, `drop r ${lookup} main.go:${returned + 1}`]).toContain(
        registry[2],
      );
    });
  }
});

describe("a program lock recording cannot compile", () => {
  it("is built without it and says why; a program broken anyway reports only its own error", async () => {
    // A constant of another package with a Lock method: syntactically a selector chain, but
    // it has no address, which only the compiler knows.
    const dir = writeModule({
      "k/k.go":
        "package k\n\n// T locks nothing.\ntype T int\n\n// Lock does nothing.\nfunc (T) Lock() {}\n\n// C is a T.\nconst C T = 1\n",
      "main.go":
        'package main\n\nimport (\n\t"sync"\n\n\t"example.com/locked/k"\n)\n\nfunc main() {\n\tk.C.Lock()\n' +
        "\tvar mu sync.Mutex\n\tmu.Lock()\n\tmu.Unlock()\n}\n",
    });
    const built = await buildProgram(
      { dir, kind: "main", goFiles: [join(dir, "main.go")], recordLocks: true },
      go,
      join(work, "build-fallback"),
    );
    expect(built.status, built.output).toBe("ok");
    expect(built.output).toContain("schedlab: built without lock recording, which did not compile:");
    expect(built.output).toContain(`${join(dir, "main.go")}:10:`);
    const broken = writeModule({
      "main.go":
        'package main\n\nimport "sync"\n\nfunc main() {\n\tvar mu sync.Mutex\n\tmu.Lock()\n\tnotDeclared()\n}\n',
    });
    const failed = await buildProgram(
      { dir: broken, kind: "main", goFiles: [join(broken, "main.go")], recordLocks: true },
      go,
      join(work, "build-broken"),
    );
    expect(failed.status).toBe("error");
    expect(failed.output).toContain(`${join(broken, "main.go")}:8:2: undefined: notDeclared`);
    expect(failed.output).not.toContain("lock recording");
  });
});

describe("lock recording in a test binary", () => {
  it("builds and runs a package with internal and external test files, plain and perturbed", async () => {
    const dir = writeModule({ "lib/lib.go": LIB_GO, "lib/lib_test.go": LIB_TEST_GO, "lib/ext_test.go": EXT_TEST_GO });
    const [program] = (await discoverPrograms([join(dir, "lib")])).programs;
    expect(program!.kind).toBe("test");
    for (const strategy of ["plain", "perturb"] as const) {
      const build = await buildProgram(
        {
          dir: program!.dir,
          kind: "test",
          goFiles: program!.goFiles,
          testFiles: program!.testFiles,
          strategy,
          recordLocks: true,
        },
        go,
        join(work, `test-${strategy}`),
      );
      expect(build.status, build.output).toBe("ok");
      const config: RunConfig = {
        key: strategy === "plain" ? "procs-2" : "procs-2-perturb",
        strategy,
        procs: 2,
        testCount: null,
      };
      const run = (await tracedRun({
        kind: "test",
        dir: program!.dir,
        binary: build.binary!,
        testName: null,
        config,
        files: runFiles(join(work, "traces"), `lib-${strategy}`, config.key, 0),
        timeoutMs: 60_000,
        graceMs: 1_000,
        go,
        seed: strategy === "perturb" ? 3 : null,
      }))!;
      expect(run.outcome, run.stderrTail).toBe("ok");
      expect(run.stderrTail).toContain("--- PASS: TestAddInside");
      expect(run.stderrTail).toContain("--- PASS: TestAddOutside");
      const logs = await lockLogs(run.tracePath!);
      checkedOrder(logs);
      const sites = new Set(logs.map((l) => `${l.phase} ${l.mode} ${l.site.split(" ")[1]}`));
      const add = lineOf(LIB_GO, "\tc.mu.Lock()");
      // lib.go (Add, with its deferred Unlock logged at the closing brace), lib_test.go, ext_test.go.
      for (const expected of [
        `want w lib.go:${add}`,
        `got w lib.go:${add}`,
        `drop w lib.go:${lineOf(LIB_GO, "\tc.n++") + 1}`,
        `want w lib_test.go:${lineOf(LIB_TEST_GO, "\tc.mu.Lock()")}`,
        `drop w lib_test.go:${lineOf(LIB_TEST_GO, "\tc.mu.Unlock()")}`,
        `want r ext_test.go:${lineOf(EXT_TEST_GO, "\t\t\tmu.RLock()")}`,
        `got r ext_test.go:${lineOf(EXT_TEST_GO, "\t\t\tmu.RLock()")}`,
        `drop r ext_test.go:${lineOf(EXT_TEST_GO, "\t\t\tmu.RUnlock()")}`,
      ])
        expect(sites, expected).toContain(expected);
      // Counter.Add ran three times: once inside, twice outside, on two distinct counters.
      expect(logs.filter((l) => l.phase === "want" && l.site.endsWith(`lib.go:${add}`)).length).toBe(3);
      expect(new Set(logs.filter((l) => l.site.endsWith(`lib.go:${add}`)).map((l) => l.lock)).size).toBe(2);
    }
  });
});

describe("a hunt's builds of one package", () => {
  it("share one lock rewrite between plain and race, and make a perturbed build's two rewrites in one helper call", async () => {
    const dir = writeModule({ "lib/lib.go": LIB_GO, "lib/lib_test.go": LIB_TEST_GO, "lib/ext_test.go": EXT_TEST_GO });
    const [program] = (await discoverPrograms([join(dir, "lib")])).programs;
    const overlays = new Map();
    const scratchOf = (strategy: Strategy) => join(work, `shared-${strategy}`);
    const overlayOf = (strategy: Strategy) =>
      (JSON.parse(readFileSync(join(scratchOf(strategy), "overlay.json"), "utf8")) as { Replace: object }).Replace;
    for (const strategy of ["plain", "race", "perturb"] as const) {
      const target = {
        dir: program!.dir,
        kind: "test" as const,
        goFiles: program!.goFiles,
        testFiles: program!.testFiles,
      };
      const build = await buildProgram(
        { ...target, strategy, recordLocks: true },
        go,
        scratchOf(strategy),
        undefined,
        overlays,
      );
      expect(build.status, build.output).toBe("ok");
      expect(build.output).not.toContain("without lock recording");
    }
    // The race build compiles the plain build's copies: it made none of its own.
    expect(readdirSync(scratchOf("race")).sort()).toEqual(["bin", "overlay.json"]);
    expect(overlayOf("race")).toEqual(overlayOf("plain"));
    expect(Object.values(overlayOf("plain")).every((copy) => String(copy).startsWith(scratchOf("plain")))).toBe(true);
    // The perturbed build: one helper call wrote the perturbed copies and the lock-recording copies on top.
    expect(
      readdirSync(scratchOf("perturb"))
        .filter((f) => f !== "bin")
        .sort(),
    ).toEqual(["overlay.json", "perturb", "perturb-input.json"]);
    const perturbed = Object.entries(overlayOf("perturb"));
    expect(
      perturbed.some(([original, copy]) => original.endsWith("lib.go") && /\/l\d+_lib\.go$/.test(String(copy))),
    ).toBe(true);
    expect(perturbed.map(([original]) => original.split("/").pop()).sort()).toEqual(
      [
        "ext_test.go",
        "lib.go",
        "lib_test.go",
        // The runtime files of each package: lib, and the external test package lib_test.
        "zz_schedlab_locks.go",
        "zz_schedlab_locks_budget.go",
        "zz_schedlab_locks_budget_race.go",
        "zz_schedlab_perturb.go",
        "zz_schedlab_locks_lib_test_test.go",
        "zz_schedlab_locks_budget_lib_test_test.go",
        "zz_schedlab_locks_budget_race_lib_test_test.go",
        "zz_schedlab_perturb_lib_test_test.go",
      ].sort(),
    );
  });
});

describe("collect", () => {
  it("records locks in every strategy's runs of a --budget hunt, and in no run of a plain collect", async () => {
    const dir = writeModule({ "main.go": MAIN_GO });
    const hunt = await collect({
      paths: [dir],
      budgetMs: 1_500,
      exhaustBudget: true,
      procs: [1],
      jobs: 1,
      timeoutMs: 60_000,
      db: join(work, "hunt.db"),
      traces: join(work, "hunt"),
    });
    const strategies = new Set<string>();
    for (const run of hunt.programs[0]!.runs) {
      expect(run.outcome).toBe("ok");
      expect((await lockLogs(run.trace!)).length, `${run.config} run ${run.index}`).toBeGreaterThan(0);
      strategies.add(run.strategy ?? "plain");
    }
    expect(strategies).toEqual(new Set(["plain", "perturb", "race"]));
    const plain = await collect({
      paths: [dir],
      runs: 1,
      procs: [1],
      timeoutMs: 60_000,
      db: join(work, "plain.db"),
      traces: join(work, "plain"),
    });
    expect(plain.programs[0]!.runs.map((r) => r.outcome)).toEqual(["ok"]);
    expect(await lockLogs(plain.programs[0]!.runs[0]!.trace!)).toEqual([]);
  });
});
