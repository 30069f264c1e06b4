// Benchmark: what lock recording costs one Lock/Unlock pair while tracing. A Go benchmark of
// three loops (Lock/Unlock, Lock with a deferred Unlock, RLock/RUnlock) is run with `go test
// -bench` as written, and with the lock-recording rewrite a hunt builds (`gohelper
// collect-locks`: the budget of 64 wants/gots per statement and run, so a loop logs its first
// iterations only) and built with `-race` (the same rewrite: the budget, every drop logged), each
// while runtime/trace writes a trace. Prints ns per pair and the ratios to the plain loop,
// measured in the same run.
// Usage: node bench/lock-ops.mjs [COUNT]   (benchmark repetitions, default 5; needs the Go toolchain)

import { execa } from "execa";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { goHelperPath } from "../dist/gohelper/index.js";

const count = process.argv[2] ?? "5";
const dir = mkdtempSync(join(tmpdir(), "schedlab-bench-lock-ops-"));

const LOOPS_TEST_GO = `package loops

import (
	"io"
	"runtime/trace"
	"sync"
	"testing"
)

var (
	mu      sync.Mutex
	rw      sync.RWMutex
	counter int
)

func lockUnlock() {
	mu.Lock()
	counter++
	mu.Unlock()
}

func deferUnlock() {
	mu.Lock()
	defer mu.Unlock()
	counter++
}

func readLock() {
	rw.RLock()
	counter++
	rw.RUnlock()
}

// traced runs f b.N times while a trace is written (to io.Discard): lock logs cost only then.
func traced(b *testing.B, f func()) {
	if err := trace.Start(io.Discard); err != nil {
		b.Fatal(err)
	}
	defer trace.Stop()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f()
	}
}

func BenchmarkLockUnlock(b *testing.B)  { traced(b, lockUnlock) }
func BenchmarkDeferUnlock(b *testing.B) { traced(b, deferUnlock) }
func BenchmarkRLock(b *testing.B)       { traced(b, readLock) }
`;

/** `go test -bench` in the module, with `overlay` (or none): the median ns/op of each benchmark. */
async function bench(overlay, extra = []) {
  const args = ["test", "-run", "^$", "-bench", ".", "-benchtime", "200000x", "-count", count, ...extra];
  if (overlay !== null) args.push("-overlay", overlay);
  const { stdout } = await execa("go", args, { cwd: dir });
  const samples = new Map();
  for (const m of stdout.matchAll(/^Benchmark(\w+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns\/op/gm))
    samples.set(m[1], [...(samples.get(m[1]) ?? []), Number(m[2])]);
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return new Map([...samples].map(([name, xs]) => [name, median(xs)]));
}

/** The lock-recording rewrite of the module's file, as collect-locks writes it, and its overlay file. */
async function rewrite(name) {
  const helper = await goHelperPath();
  const { stdout } = await execa(helper, ["collect-locks", "-out", join(dir, name), join(dir, "loops_test.go")]);
  const overlay = join(dir, `${name}.json`);
  writeFileSync(overlay, JSON.stringify({ Replace: JSON.parse(stdout).replace }));
  return overlay;
}

try {
  writeFileSync(join(dir, "go.mod"), "module example.com/loops\n\ngo 1.12\n");
  writeFileSync(join(dir, "loops_test.go"), LOOPS_TEST_GO);
  const overlay = await rewrite("locks");
  const rows = [
    ["plain", await bench(null)],
    ["lock recording (budget)", await bench(overlay)],
    ["plain -race", await bench(null, ["-race"])],
    ["lock recording -race (budget, every drop)", await bench(overlay, ["-race"])],
  ];
  for (const [label, ns] of rows)
    console.log(`${label}: ${[...ns].map(([name, v]) => `${name} ${v.toFixed(1)} ns`).join(", ")}`);
  const ratio = (a, b) => [...a].map(([name, v]) => `${name} ${(v / b.get(name)).toFixed(2)}x`).join(", ");
  console.log(`ratio recording / plain: ${ratio(rows[1][1], rows[0][1])}`);
  console.log(`ratio recording / plain, -race: ${ratio(rows[3][1], rows[2][1])}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
