// Benchmark: what storing a leak hunt's runs costs, against the same hunt without storage,
// measured in one run. A Go test package written here stands for a real-size test suite
// (TESTS tests in files of ten: worker pools, pipelines, context cancellation, RWMutex
// caches with subtests, tickers, condition-variable queues, and every 40th test a goroutine
// leaked by an early return), so each run of it is a whole-package `go test` under the tracer.
//   reference: `schedlab collect SUITE --budget B --exhaust-budget --no-ingest`: the hunt's
//              runs and their checks, traces kept, nothing decoded into the database;
//   events:    the reference's runs then `schedlab ingest --store events` (today's default);
//   summary:   the reference's runs then `schedlab ingest --store summary`.
// The two ingests read copies of the reference's database, so all three are the same runs
// (a hunt with storage is exactly its collect plus that ingest: `collect --budget` ingests
// when it ends). Every step runs in a process of its own under /usr/bin/time; then `schedlab
// leaks --json` runs on both databases, which must report the same bugs. Prints wall times,
// sizes and the ratios (hunt + ingest) / hunt (target ≤ 2) for both stores.
// Usage: npm run build && node bench/hunt-storage.mjs [BUDGET] [TESTS] [WORK]   (defaults 60s 200 400)

import { execa } from "execa";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openDatabase } from "../dist/store/index.js";

const budget = process.argv[2] ?? "60s";
const tests = Number(process.argv[3] ?? 200);
/** Items each test moves through its goroutines: what sets the events per test. */
const work = Number(process.argv[4] ?? 400);
const bin = fileURLToPath(new URL("../bin/schedlab.js", import.meta.url));
const dir = process.env.BENCH_DIR ?? mkdtempSync(join(tmpdir(), "schedlab-bench-hunt-storage-"));
const keep = process.env.BENCH_DIR !== undefined;

/** One test of each kind, `i` its number; every 40th test leaks. */
const TEMPLATES = [
  (i) => `func TestPool${i}(t *testing.T) {
	jobs := make(chan int)
	var mu sync.Mutex
	sum := 0
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				mu.Lock()
				sum += j
				mu.Unlock()
			}
		}()
	}
	for j := 0; j < work; j++ {
		jobs <- j
	}
	close(jobs)
	wg.Wait()
	if sum != work*(work-1)/2 {
		t.Fatalf("sum %d", sum)
	}
}`,
  (i) => `func TestPipeline${i}(t *testing.T) {
	src := make(chan int)
	squares := make(chan int)
	go func() {
		defer close(src)
		for v := 0; v < work; v++ {
			src <- v
		}
	}()
	go func() {
		defer close(squares)
		for v := range src {
			squares <- v * v
		}
	}()
	total := 0
	for v := range squares {
		total += v
	}
	if total < 0 {
		t.Fatal("overflow")
	}
}`,
  (i) => `func TestCancel${i}(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan int)
	var wg sync.WaitGroup
	for p := 0; p < 3; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := 0; ; v++ {
				select {
				case out <- v:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	for got := 0; got < work; got++ {
		<-out
	}
	cancel()
	wg.Wait()
}`,
  (i) => `type cache${i} struct {
	mu sync.RWMutex
	m  map[int]int
}

func TestCache${i}(t *testing.T) {
	c := &cache${i}{m: map[int]int{}}
	for _, name := range []string{"writers", "readers"} {
		t.Run(name, func(t *testing.T) {
			var wg sync.WaitGroup
			for g := 0; g < 4; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for k := 0; k < work/4; k++ {
						if name == "writers" {
							c.mu.Lock()
							c.m[k%64] = g
							c.mu.Unlock()
						} else {
							c.mu.RLock()
							_ = c.m[k%64]
							c.mu.RUnlock()
						}
						if k%16 == 0 {
							runtime.Gosched()
						}
					}
				}()
			}
			wg.Wait()
		})
	}
}`,
  (i) => `func TestTicker${i}(t *testing.T) {
	tick := time.NewTicker(100 * time.Microsecond)
	defer tick.Stop()
	done := make(chan struct{})
	count := make(chan int)
	go func() {
		n := 0
		for {
			select {
			case <-tick.C:
				n++
			case <-done:
				count <- n
				return
			}
		}
	}()
	time.Sleep(2 * time.Millisecond)
	close(done)
	<-count
}`,
  (i) => `func TestQueue${i}(t *testing.T) {
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	var queue []int
	done := make(chan int)
	go func() {
		got := 0
		for got < work {
			mu.Lock()
			for len(queue) == 0 {
				cond.Wait()
			}
			got += len(queue)
			queue = queue[:0]
			mu.Unlock()
		}
		done <- got
	}()
	for v := 0; v < work; v++ {
		mu.Lock()
		queue = append(queue, v)
		mu.Unlock()
		cond.Signal()
	}
	if got := <-done; got != work {
		t.Fatalf("got %d", got)
	}
}`,
];

const LEAK = (i) => `func TestFirstResult${i}(t *testing.T) {
	results := make(chan int)
	for r := 0; r < 3; r++ {
		go func() { results <- r }() // two of them are never received: they leak
	}
	if v := <-results; v < 0 {
		t.Fatal("negative")
	}
}`;

/** Writes the suite: go.mod and one _test.go file per ten tests. */
function writeSuite(root) {
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, "go.mod"), "module bench.local/suite\n\ngo 1.22\n");
  writeFileSync(
    join(root, "suite.go"),
    `// Package suite is written by bench/hunt-storage.mjs: a test suite of ${tests} tests.\npackage suite\n\n` +
      `// work is what each test moves through its goroutines.\nconst work = ${work}\n`,
  );
  for (let file = 0; file * 10 < tests; file++) {
    const bodies = [];
    for (let i = file * 10; i < Math.min(tests, file * 10 + 10); i++)
      bodies.push(i % 40 === 39 ? LEAK(i) : TEMPLATES[i % TEMPLATES.length](i));
    const source =
      `package suite\n\nimport (\n\t"context"\n\t"runtime"\n\t"sync"\n\t"testing"\n\t"time"\n)\n\n` +
      `var (\n\t_ = context.Background\n\t_ = runtime.Gosched\n\t_ = time.Now\n)\n\n${bodies.join("\n\n")}\n`;
    writeFileSync(join(root, `suite${String(file).padStart(3, "0")}_test.go`), source);
  }
}

/** Runs `schedlab ARGS` under /usr/bin/time: wall seconds, peak RSS in MiB, stdout. */
async function timed(args) {
  const result = await execa("/usr/bin/time", ["-f", "%e %M", process.execPath, bin, ...args], {
    reject: false,
    maxBuffer: 1 << 30,
  });
  const last = result.stderr.trim().split("\n").pop() ?? "";
  const [wall, kb] = last.split(" ").map(Number);
  if (!Number.isFinite(wall))
    throw new Error(`no timing for schedlab ${args.join(" ")}:\n${result.stderr.slice(-2000)}`);
  if (result.exitCode !== 0 && result.exitCode !== 3)
    throw new Error(`schedlab ${args.join(" ")} exited ${result.exitCode}:\n${result.stderr.slice(-2000)}`);
  return { wall, rssMiB: kb / 1024, stdout: result.stdout };
}

/** The database as a copy sees it: checkpointed into the main file. */
function checkpointed(file) {
  const db = openDatabase(file);
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  return file;
}

/** Size of a database after VACUUM, in MiB. */
function compactMiB(file) {
  const db = openDatabase(file);
  db.exec("VACUUM");
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  return statSync(file).size / 2 ** 20;
}

/** What `leaks --json` reports, without the database path its replay commands name. */
function bugsOf(leaks, dbFile) {
  const analysis = JSON.parse(leaks.stdout.replaceAll(dbFile, "DB"));
  return {
    bugs: analysis.bugs,
    findings: analysis.findings,
    potential: analysis.potentialDeadlocks,
    counts: analysis.counts,
  };
}

const fmt = (x, digits = 1) => x.toFixed(digits);
try {
  const suite = join(dir, "suite");
  writeSuite(suite);
  const reference = join(dir, "reference.db");
  const hunt = await timed([
    "collect",
    suite,
    "--budget",
    budget,
    "--exhaust-budget",
    "--no-ingest",
    "--db",
    reference,
    "--traces",
    join(dir, "traces"),
    "--quiet",
    "--json",
  ]);
  checkpointed(reference);
  const probe = openDatabase(reference);
  const runs = probe
    .prepare(
      "SELECT count(*) AS n, sum(trace_bytes) AS bytes, sum(wall_ms) AS wallMs FROM runs WHERE trace_path IS NOT NULL",
    )
    .get();
  const strategies = probe
    .prepare("SELECT strategy, count(*) AS n FROM runs GROUP BY strategy ORDER BY strategy")
    .all();
  probe.close();
  const stores = {};
  for (const store of ["events", "summary"]) {
    const file = join(dir, `${store}.db`);
    copyFileSync(reference, file);
    const ingest = await timed(["ingest", "--store", store, "--db", file, "--json"]);
    const events = JSON.parse(ingest.stdout).events;
    const leaks = await timed(["leaks", "--db", file, "--json"]);
    stores[store] = { ingest, events, leaks, found: bugsOf(leaks, file), mib: compactMiB(file) };
  }
  const { events, summary } = stores;
  console.log(
    `suite: ${tests} tests (work ${work}); hunt --budget ${budget} --exhaust-budget: ${runs.n} runs ` +
      `(${strategies.map((s) => `${s.strategy} ${s.n}`).join(", ")}), ` +
      `${events.events} records, traces ${fmt(runs.bytes / 2 ** 20)} MiB, run wall time ${fmt(runs.wallMs / 1000)} s`,
  );
  console.log(`reference (no storage): hunt ${fmt(hunt.wall)} s, peak ${fmt(hunt.rssMiB, 0)} MiB`);
  for (const [store, m] of Object.entries(stores)) {
    console.log(
      `--store ${store.padEnd(8)} ingest ${fmt(m.ingest.wall)} s (${fmt(m.events / m.ingest.wall / 1e6, 2)} ` +
        `M records/s, peak ${fmt(m.ingest.rssMiB, 0)} MiB), database ${fmt(m.mib)} MiB; ` +
        `leaks ${fmt(m.leaks.wall)} s (peak ${fmt(m.leaks.rssMiB, 0)} MiB): ${m.found.bugs.length} bugs, ${m.found.findings.length} findings`,
    );
  }
  const ratio = (m) => (hunt.wall + m.ingest.wall) / hunt.wall;
  console.log(
    `ratio (hunt + ingest) / hunt: events ${fmt(ratio(events), 2)}x, summary ${fmt(ratio(summary), 2)}x (target ≤ 2); ` +
      `leaks summary / events: time ${fmt(summary.leaks.wall / events.leaks.wall, 2)}x; database summary / events ${fmt(summary.mib / events.mib, 4)}x`,
  );
  const same = JSON.stringify(events.found) === JSON.stringify(summary.found);
  console.log(
    same
      ? "leaks: the same bugs and findings from both databases"
      : "WARNING: leaks reports differ between the events and the summary database",
  );
  if (!same || ratio(summary) > 2) process.exitCode = 1;
} finally {
  if (!keep) rmSync(dir, { recursive: true, force: true });
}
