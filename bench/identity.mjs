// Benchmark: storage and `schedlab leaks` memory for a spawn chain (10 000 workers, each
// starting its successor, so canonical ids are 10 000 segments deep before elision:
// docs/identity.md) against a reference measured in the same run, the same number of
// workers doing the same work but all started from one loop in main (ids one segment
// deep). Both programs are written here, collected once under the tracer and ingested
// for real, each into its own database; then `schedlab leaks --json` runs on each under
// /usr/bin/time. Prints bytes per stored event, the longest canonical id and the peak RSS
// of leaks for both, and the ratios chain / flat (targets: chain ≤ 60 bytes/event, ratio ≈ 1).
// Usage: npm run build && node bench/identity.mjs [WORKERS] [ROUNDS]   (defaults 10000 4)

import { execa } from "execa";
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { collect } from "../dist/collect/index.js";
import { openDatabase } from "../dist/store/index.js";
import { ingestRuns } from "../dist/trace/index.js";

const workers = Number(process.argv[2] ?? 10_000);
/** Round trips each worker makes to a server goroutine: the work that gives it events of its own. */
const rounds = Number(process.argv[3] ?? 4);
const bin = fileURLToPath(new URL("../bin/schedlab.js", import.meta.url));
const dir = process.env.BENCH_DIR ?? mkdtempSync(join(tmpdir(), "schedlab-bench-identity-"));
const keep = process.env.BENCH_DIR !== undefined;

const COMMON = `const workers = ${workers}
const rounds = ${rounds}

// serve answers every request; it ends when main closes the channel.
func serve(requests <-chan chan int) {
	for reply := range requests {
		reply <- 1
	}
}
`;

const CHAIN = `// Written by bench/identity.mjs: each worker starts its successor, then exits.
package main

${COMMON}
func worker(i int, requests chan<- chan int, last chan<- struct{}) {
	reply := make(chan int)
	for range rounds {
		requests <- reply
		<-reply
	}
	if i+1 == workers {
		close(last)
		return
	}
	go worker(i+1, requests, last)
}

func main() {
	requests := make(chan chan int)
	go serve(requests)
	last := make(chan struct{})
	go worker(0, requests, last)
	<-last
	close(requests)
}
`;

const FLAT = `// Written by bench/identity.mjs: main starts every worker from one loop, one after another.
package main

${COMMON}
func worker(requests chan<- chan int, done chan<- struct{}) {
	reply := make(chan int)
	for range rounds {
		requests <- reply
		<-reply
	}
	done <- struct{}{}
}

func main() {
	requests := make(chan chan int)
	go serve(requests)
	done := make(chan struct{})
	for range workers {
		go worker(requests, done)
		<-done
	}
	close(requests)
}
`;

/** Runs a command under /usr/bin/time; returns its stdout, wall seconds and peak RSS in MiB. */
async function measured(command, args) {
  const { stdout, stderr } = await execa("/usr/bin/time", ["-f", "TIME %e %M", command, ...args], {
    maxBuffer: 1 << 30,
  });
  const [, seconds, kb] = /TIME (\S+) (\d+)/.exec(stderr);
  return { stdout, seconds: Number(seconds), mib: Number(kb) / 1024 };
}

/** Collects and ingests one program into its own database; measures the database and leaks on it. */
async function measureProgram(name, source) {
  const root = join(dir, name);
  const program = join(root, "programs", name);
  mkdirSync(program, { recursive: true });
  writeFileSync(join(program, "main.go"), source);
  const dbFile = join(root, "schedlab.db");
  await collect({
    paths: [join(root, "programs")],
    runs: 1,
    timeoutMs: 600_000,
    procs: [2],
    jobs: 1,
    db: dbFile,
    traces: join(root, "traces"),
  });
  const db = openDatabase(dbFile);
  const since = process.hrtime.bigint();
  const ingest = await ingestRuns(db, { concurrency: 1, maxStoredRecords: Number.MAX_SAFE_INTEGER }); // every record stored: no excerpt
  const ingestSeconds = Number(process.hrtime.bigint() - since) / 1e9;
  const ids = db
    .prepare(
      "SELECT count(*) AS n, max(length(canonical_id)) AS longest, sum(length(canonical_id)) AS total FROM goroutines",
    )
    .get();
  const deepest = db
    .prepare("SELECT canonical_id FROM goroutines WHERE entry = 'main.worker' ORDER BY gid DESC LIMIT 1")
    .get();
  db.close();
  if (ingest.ok !== 1) throw new Error(`${name}: expected 1 ingested run, got ${JSON.stringify(ingest.runs)}`);
  // the database file as a reader sees it: checkpointed, without free pages
  const compact = openDatabase(dbFile);
  compact.exec("VACUUM");
  compact.close();
  const bytes = statSync(dbFile).size;
  const leaks = await measured(process.execPath, [bin, "leaks", "--db", dbFile, "--json"]);
  return {
    name,
    events: ingest.events,
    goroutines: ids.n,
    longest: ids.longest,
    meanId: ids.total / ids.n,
    deepest: deepest.canonical_id,
    bytes,
    ingestSeconds,
    leaks,
  };
}

try {
  const chain = await measureProgram("chain", CHAIN);
  const flat = await measureProgram("flat", FLAT);
  for (const m of [chain, flat]) {
    console.log(
      `${m.name.padEnd(5)}: ${m.events} events, ${m.goroutines} goroutines; ` +
        `database ${(m.bytes / 2 ** 20).toFixed(1)} MiB, ${(m.bytes / m.events).toFixed(1)} bytes/event; ` +
        `canonical id longest ${m.longest} chars, mean ${m.meanId.toFixed(0)}; ` +
        `ingest ${m.ingestSeconds.toFixed(1)} s; leaks ${m.leaks.seconds.toFixed(1)} s, ` +
        `peak ${m.leaks.mib.toFixed(0)} MiB`,
    );
  }
  console.log(`last worker of the chain: ${chain.deepest}`);
  const perEvent = (m) => m.bytes / m.events;
  console.log(
    `ratio chain / flat: bytes/event ${(perEvent(chain) / perEvent(flat)).toFixed(2)}x, leaks peak RSS ${(chain.leaks.mib / flat.leaks.mib).toFixed(2)}x; ` +
      `chain ${perEvent(chain) <= 60 ? "within" : "OVER"} 60 bytes/event`,
  );
  if (perEvent(chain) > 60) process.exitCode = 1;
} finally {
  if (!keep) rmSync(dir, { recursive: true, force: true });
}
