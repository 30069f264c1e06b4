// Benchmark: `schedlab leaks` on a collection of ~27 M events, against a plain scan of the
// events table measured in the same run. A ping-pong flood program written here (main and
// a partner trade a token over unbuffered channels, then one goroutine is left blocked in a
// select for ever) is collected 3 times under the tracer and ingested for real; then
//   reference: one node process reading every row of event_records (raw cursor, no work),
//   leaks:     `schedlab leaks --json` on the same database,
// each under /usr/bin/time. Prints wall time and peak RSS of both and their ratios, and
// checks that the one goroutine left in select is the finding.
// Usage: npm run build && node bench/leaks.mjs [EVENTS] [RUNS]   (defaults 27000000 3)

import { execa } from "execa";
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { collect } from "../dist/collect/index.js";
import { openDatabase } from "../dist/store/index.js";
import { ingestRuns } from "../dist/trace/index.js";

const events = Number(process.argv[2] ?? 27_000_000);
const runs = Number(process.argv[3] ?? 3);
/** Measured: one iteration of the flood (a ping and a pong) is 6 user-goroutine records. */
const RECORDS_PER_HOP = 6;
const hops = Math.ceil(events / runs / RECORDS_PER_HOP);
const bin = fileURLToPath(new URL("../bin/schedlab.js", import.meta.url));
const dir = process.env.BENCH_DIR ?? mkdtempSync(join(tmpdir(), "schedlab-bench-leaks-"));
const keep = process.env.BENCH_DIR !== undefined;

const FLOOD = `// Written by bench/leaks.mjs: a ping-pong flood, then one goroutine blocked in select for ever.
package main

const hops = ${hops}

func partner(ping <-chan int, pong chan<- int) {
	for v := range ping {
		pong <- v + 1
	}
	close(pong)
}

func stuck(ready chan<- struct{}, never <-chan int, nor <-chan string) {
	close(ready)
	select {
	case <-never:
	case <-nor:
	}
}

func main() {
	ping, pong := make(chan int), make(chan int)
	go partner(ping, pong)
	for i := 0; i < hops; i++ {
		ping <- i
		<-pong
	}
	close(ping)
	<-pong
	ready := make(chan struct{})
	go stuck(ready, make(chan int), make(chan string))
	<-ready
}
`;

/** The reference: every row of the events table through a raw better-sqlite3 cursor. */
const SCAN = `
const Database = require(${JSON.stringify(fileURLToPath(new URL("../node_modules/better-sqlite3/lib/index.js", import.meta.url)))});
const db = new Database(process.argv[1], { readonly: true });
let n = 0;
for (const row of db.prepare("SELECT run_id, seq, time_ns, kind, gid, actor_gid, reason, site FROM event_records ORDER BY run_id, seq").raw().iterate()) n++;
console.log(n);
`;

/** Runs a command under /usr/bin/time; returns its stdout, wall seconds and peak RSS in MiB. */
async function measured(command, args) {
  const { stdout, stderr } = await execa("/usr/bin/time", ["-f", "TIME %e %M", command, ...args], {
    maxBuffer: 1 << 30,
  });
  const [, seconds, kb] = /TIME (\S+) (\d+)/.exec(stderr);
  return { stdout, seconds: Number(seconds), mib: Number(kb) / 1024 };
}

function seconds(since) {
  return Number(process.hrtime.bigint() - since) / 1e9;
}

try {
  const program = join(dir, "programs", "flood");
  mkdirSync(program, { recursive: true });
  writeFileSync(join(program, "main.go"), FLOOD);
  const dbFile = join(dir, "schedlab.db");

  let since = process.hrtime.bigint();
  await collect({
    paths: [join(dir, "programs")],
    runs,
    timeoutMs: 600_000,
    procs: [2],
    jobs: 1,
    db: dbFile,
    traces: join(dir, "traces"),
  });
  const collectSeconds = seconds(since);
  const db = openDatabase(dbFile);
  since = process.hrtime.bigint();
  const ingest = await ingestRuns(db, { concurrency: 1, maxStoredRecords: Number.MAX_SAFE_INTEGER }); // every record stored: no excerpt
  const ingestSeconds = seconds(since);
  const outcomes = db.prepare("SELECT outcome, count(*) AS n FROM runs GROUP BY outcome").all();
  db.close();
  if (ingest.ok !== runs)
    throw new Error(
      `expected ${runs} ingested runs, got ${JSON.stringify(ingest.runs)} (outcomes ${JSON.stringify(outcomes)})`,
    );

  const scan = await measured(process.execPath, ["-e", SCAN, dbFile]);
  const leaks = await measured(process.execPath, [bin, "leaks", "--db", dbFile, "--json"]);
  const scanned = Number(scan.stdout.trim());
  const findings = JSON.parse(leaks.stdout).findings;

  const found =
    findings.length === 1 &&
    findings[0].reason === "select" &&
    findings[0].goroutine.startsWith("main.main/main.stuck@") &&
    findings[0].runsBlocked === runs;
  console.log(
    `collection: ${runs} runs of a ${hops}-hop ping-pong flood, ${ingest.events} events (${scanned} rows scanned); ` +
      `database ${(statSync(dbFile).size / 2 ** 20).toFixed(0)} MiB, ` +
      `${(statSync(dbFile).size / ingest.events).toFixed(1)} bytes/event`,
  );
  console.log(
    `  collect ${collectSeconds.toFixed(1)} s, ingest ${ingestSeconds.toFixed(1)} s (${(ingest.events / ingestSeconds / 1e6).toFixed(2)} M events/s)`,
  );
  console.log(`plain scan of event_records: ${scan.seconds.toFixed(1)} s, peak ${scan.mib.toFixed(0)} MiB`);
  console.log(`schedlab leaks --json:       ${leaks.seconds.toFixed(1)} s, peak ${leaks.mib.toFixed(0)} MiB`);
  console.log(
    `ratio leaks / plain scan: time ${(leaks.seconds / scan.seconds).toFixed(2)}x (target ≤ 2), ` +
      `peak RSS ${(leaks.mib / scan.mib).toFixed(2)}x; peak ${leaks.mib <= 1024 ? "within" : "OVER"} 1 GiB`,
  );
  console.log(
    `finding: ${found ? "the goroutine left in select, blocked in every run" : "MISSING"} ` +
      `— ${JSON.stringify(findings.map((f) => [f.goroutine, f.reason, `${f.runsBlocked}/${f.runsSeen}`]))}`,
  );
  if (!found || leaks.mib > 1024) process.exitCode = 1;
} finally {
  if (!keep) rmSync(dir, { recursive: true, force: true });
}
