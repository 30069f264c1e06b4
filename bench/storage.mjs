// Benchmark: bytes per stored event on a ~10 M-event collection with deep spawn chains,
// against the trace file's own bytes per event measured in the same run. A program written
// here runs CHAINS chains of workers side by side; each worker makes ROUNDS round trips to a
// server goroutine, then starts its successor and exits, so every chain is tens of
// thousands of goroutines deep (canonical ids bounded: docs/identity.md). It is collected
// once under the tracer, then ingested for real twice from copies of the same database:
//   --store events   every record (event_records, lock_ops) plus goroutines;
//   --store summary  goroutines plus each run's folded end state (run_end_states);
// each database is checkpointed and VACUUMed, and its size is divided by the run's records.
// Prints bytes per event of the trace, of both databases, the ratios database / trace, and
// where the bytes of the events database go (per table and index, from dbstat).
// Target: the events database ≤ 60 bytes per stored event.
// Usage: npm run build && node bench/storage.mjs [EVENTS] [CHAINS] [ROUNDS]   (defaults 10000000 4 4)

import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { collect } from "../dist/collect/index.js";
import { openDatabase } from "../dist/store/index.js";
import { ingestRuns } from "../dist/trace/index.js";

const events = Number(process.argv[2] ?? 10_000_000);
const chains = Number(process.argv[3] ?? 4);
const rounds = Number(process.argv[4] ?? 4);
/** Measured: a worker with 4 round trips gives ~27 user records (its own and the server's); scaled by rounds. */
const recordsPerWorker = 3 + 6 * rounds;
const workersPerChain = Math.ceil(events / chains / recordsPerWorker);
const dir = process.env.BENCH_DIR ?? mkdtempSync(join(tmpdir(), "schedlab-bench-storage-"));
const keep = process.env.BENCH_DIR !== undefined;

const CHAINS = `// Written by bench/storage.mjs: chains of workers, each starting its successor, then exiting.
package main

const workers = ${workersPerChain}
const chains = ${chains}
const rounds = ${rounds}

// serve answers every request; it ends when main closes the channel.
func serve(requests <-chan chan int) {
	for reply := range requests {
		reply <- 1
	}
}

func worker(i int, requests chan<- chan int, done chan<- struct{}) {
	reply := make(chan int)
	for range rounds {
		requests <- reply
		<-reply
	}
	if i+1 == workers {
		done <- struct{}{}
		return
	}
	go worker(i+1, requests, done)
}

func main() {
	requests := make(chan chan int)
	go serve(requests)
	done := make(chan struct{})
	for range chains {
		go worker(0, requests, done)
	}
	for range chains {
		<-done
	}
	close(requests)
}
`;

const MiB = 2 ** 20;
const seconds = (since) => Number(process.hrtime.bigint() - since) / 1e9;

/** Checkpoints and VACUUMs the database (the file as a reader sees it, without free pages); returns its size and its pages per table. */
function compacted(file) {
  const db = openDatabase(file);
  db.exec("VACUUM");
  const tables = db.prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC").all();
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  return { bytes: statSync(file).size, tables };
}

/** Ingests the collected database `file` with `store`; returns records ingested, time and the compacted size. */
async function ingest(file, store) {
  const db = openDatabase(file);
  const since = process.hrtime.bigint();
  const result = await ingestRuns(db, { concurrency: 1, store, maxStoredRecords: Number.MAX_SAFE_INTEGER }); // every record stored: no excerpt
  const took = seconds(since);
  db.close();
  if (result.ok !== 1) throw new Error(`${store}: expected 1 ingested run, got ${JSON.stringify(result.runs)}`);
  return { store, records: result.events, seconds: took, ...compacted(file) };
}

try {
  const program = join(dir, "programs", "chains");
  mkdirSync(program, { recursive: true });
  writeFileSync(join(program, "main.go"), CHAINS);
  const collected = join(dir, "collected.db");
  const since = process.hrtime.bigint();
  await collect({
    paths: [join(dir, "programs")],
    runs: 1,
    timeoutMs: 1_200_000,
    procs: [2],
    jobs: 1,
    db: collected,
    traces: join(dir, "traces"),
  });
  const collectSeconds = seconds(since);
  const probe = openDatabase(collected);
  const run = probe.prepare("SELECT outcome, trace_path AS tracePath, trace_bytes AS traceBytes FROM runs").get();
  probe.close();
  if (run.outcome !== "ok") throw new Error(`the chain program's run ended ${run.outcome}`);
  copyFileSync(collected, join(dir, "events.db"));
  copyFileSync(collected, join(dir, "summary.db"));
  const full = await ingest(join(dir, "events.db"), "events");
  const summary = await ingest(join(dir, "summary.db"), "summary");
  const goroutines = (() => {
    const db = openDatabase(join(dir, "events.db"));
    const row = db.prepare("SELECT count(*) AS n, max(length(canonical_id)) AS longest FROM goroutines").get();
    db.close();
    return row;
  })();
  const perEvent = (bytes) => bytes / full.records;
  const trace = perEvent(run.traceBytes);
  console.log(
    `collection: 1 run of ${chains} chains × ${workersPerChain} workers × ${rounds} rounds: ${full.records} ` +
      `records, ${goroutines.n} goroutines (longest id ${goroutines.longest} chars); ` +
      `collect ${collectSeconds.toFixed(1)} s`,
  );
  console.log(`trace file (reference):  ${(run.traceBytes / MiB).toFixed(1)} MiB, ${trace.toFixed(1)} bytes/event`);
  for (const m of [full, summary]) {
    console.log(
      `--store ${m.store.padEnd(8)} ${(m.bytes / MiB).toFixed(1).padStart(7)} MiB, ` +
        `${perEvent(m.bytes).toFixed(1)} bytes/event (${(perEvent(m.bytes) / trace).toFixed(2)}x the trace); ` +
        `ingest ${m.seconds.toFixed(1)} s (${(m.records / m.seconds / 1e6).toFixed(2)} M events/s)`,
    );
  }
  console.log("where the bytes of --store events go (after VACUUM):");
  for (const t of full.tables.filter((t) => t.bytes >= full.bytes / 1000))
    console.log(
      `  ${t.name.padEnd(28)} ${(t.bytes / MiB).toFixed(1).padStart(7)} MiB  ${perEvent(t.bytes).toFixed(1).padStart(5)} bytes/event`,
    );
  const within = perEvent(full.bytes) <= 60;
  console.log(
    `ratio events database / trace: ${(perEvent(full.bytes) / trace).toFixed(2)}x; ` +
      `summary / events: ${(summary.bytes / full.bytes).toFixed(4)}x; ` +
      `events ${within ? "within" : "OVER"} 60 bytes/event`,
  );
  if (!within) process.exitCode = 1;
} finally {
  if (!keep) rmSync(dir, { recursive: true, force: true });
}
