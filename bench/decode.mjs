// Decode + ingest throughput against Go's own `go tool trace -d=parsed`, on one trace of
// at least a million events made in this run. Usage: npm run build && node bench/decode.mjs [ROUNDS] [PAIRS]
// Prints events/s, peak memory of each side and the ratio (ours / Go's, > 1 = faster).

import { execa } from "execa";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { openDatabase } from "../dist/store/index.js";
import { ingestRuns } from "../dist/trace/index.js";
import { goHelperPath } from "../dist/gohelper/index.js";

const rounds = Number(process.argv[2] ?? 100_000);
const pairs = Number(process.argv[3] ?? 2);
const program = fileURLToPath(new URL("../test/fixtures/traces/pingpong/", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "schedlab-bench-decode-"));

/** Runs a command under /usr/bin/time; returns wall seconds and peak RSS in MiB. */
async function measured(command, args) {
  const { stderr } = await execa("/usr/bin/time", ["-f", "TIME %e %M", command, ...args], { stdout: "ignore" });
  const [, seconds, kb] = /TIME (\S+) (\d+)/.exec(stderr);
  return { seconds: Number(seconds), mib: Number(kb) / 1024 };
}

try {
  const binary = join(dir, "pingpong");
  const tracePath = join(dir, "pingpong.trace");
  await execa("go", ["build", "-o", binary, "."], { cwd: program });
  await execa(binary, [tracePath, String(rounds), String(pairs)]);
  const helper = await goHelperPath(); // built (or cached) before timing
  const { stdout: goTrace } = await execa("go", ["tool", "-n", "trace"]);

  // Go's own dump, the reference.
  const go = await measured(goTrace.trim(), ["-d=parsed", tracePath]);

  // Ours, end to end: helper decode, stream parse, SQLite ingest.
  const db = openDatabase(join(dir, "bench.db"));
  const programId = db
    .prepare("INSERT INTO programs (name, root, dir, kind, source_hash) VALUES ('pingpong', ?, ?, 'main', 'x')")
    .run(dir, dir).lastInsertRowid;
  db.prepare(
    "INSERT INTO runs (program_id, config, procs, run_index, outcome, trace_path, created_at) VALUES (?, 'bench', 2, 0, 'ok', ?, ?)",
  ).run(programId, tracePath, new Date().toISOString());
  const start = process.hrtime.bigint();
  const summary = await ingestRuns(db, { maxStoredRecords: Number.MAX_SAFE_INTEGER }); // every record stored: no excerpt
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  db.close();
  const nodeMiB = process.resourceUsage().maxRSS / 1024;
  const helperAlone = await measured(helper, ["decode", "-mode=main", tracePath]);

  const events = summary.events;
  if (summary.ok !== 1) throw new Error(`ingest failed: ${JSON.stringify(summary.runs)}`);
  console.log(
    `trace: ${(statSync(tracePath).size / 1e6).toFixed(1)} MB, ${events} user-goroutine events (${rounds} rounds × ${pairs} pairs)`,
  );
  console.log(
    `go tool trace -d=parsed > /dev/null: ${go.seconds.toFixed(2)} s, ${(events / go.seconds).toFixed(0)} events/s, peak ${go.mib.toFixed(0)} MiB`,
  );
  console.log(
    `schedlab decode+ingest (SQLite):    ${seconds.toFixed(2)} s, ${(events / seconds).toFixed(0)} events/s, ` +
      `peak ${nodeMiB.toFixed(0)} MiB node + ${helperAlone.mib.toFixed(0)} MiB helper`,
  );
  console.log(`  (helper decode alone: ${helperAlone.seconds.toFixed(2)} s)`);
  console.log(
    `ratio (Go dump time / schedlab time): ${(go.seconds / seconds).toFixed(2)}x ` +
      `${go.seconds >= seconds ? "— not slower than Go's dump" : "— SLOWER than Go's dump"}`,
  );
  if (events < 1_000_000) console.log(`warning: only ${events} events; pass more ROUNDS for the ≥1M-event benchmark`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
