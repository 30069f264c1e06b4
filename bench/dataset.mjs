// Benchmark: building the four dataset abstractions over a corpus-sized synthetic database
// (130 programs × 5 runs × ~1000 events), reported as ratios to a reference measured in the
// same run: one raw scan of the whole events table. Usage (from the repository root):
//   npx tsc -p . --outDir /tmp/schedlab-dist && SCHEDLAB_DIST=/tmp/schedlab-dist node bench/dataset.mjs
// (without SCHEDLAB_DIST it imports ../dist, i.e. after `npm run build`).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const distRoot = process.env.SCHEDLAB_DIST ? pathToFileURL(`${process.env.SCHEDLAB_DIST}/`) : new URL("../dist/", import.meta.url);
const { openDatabase, inTransaction } = await import(new URL("store/index.js", distRoot).href);
const { buildDataset, loadDataset } = await import(new URL("dataset/index.js", distRoot).href);

const PROGRAMS = Number(process.env.BENCH_PROGRAMS ?? 130);
const RUNS = 5;
const EVENTS = 1000;

/** Deterministic PRNG (mulberry32). */
function prng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random but state-machine-valid record stream: main creates workers that block, wake and end. */
function simulate(program, run) {
  const rand = prng(program * 7919 + run * 104729 + 1);
  const workers = 2 + (program % 9);
  const reasons = ["chan receive", "chan send", "select", "sync", "sleep"];
  const state = new Map([[1, "running"]]);
  const records = [{ kind: "Initial", g: 1, reason: "Running", site: null }];
  let next = 2;
  let events = 0;
  const pick = (status) => [...state].filter(([, s]) => s === status).map(([g]) => g);
  while (events < EVENTS) {
    const running = pick("running");
    const runnable = pick("runnable");
    const waiting = pick("waiting");
    const r = rand();
    let rec;
    if (running.includes(1) && next <= workers + 1 && r < 0.3) {
      rec = { kind: "GoCreate", g: next, reason: "", site: `main.main main.go:${10 + next}` };
      state.set(next++, "runnable");
    } else if (runnable.length > 0 && r < 0.55) {
      const g = runnable[Math.floor(rand() * runnable.length)];
      rec = { kind: "GoStart", g, reason: "", site: null };
      state.set(g, "running");
    } else if (running.length > 0 && r < 0.8) {
      const g = running[Math.floor(rand() * running.length)];
      const end = g !== 1 && rand() < 0.05;
      rec = end ? { kind: "GoEnd", g, reason: "", site: null } : { kind: "GoBlock", g, reason: reasons[Math.floor(rand() * reasons.length)], site: `main.worker main.go:${30 + (g % 5)}` };
      state.set(g, end ? "ended" : "waiting");
    } else if (waiting.length > 0 && r < 0.95) {
      const g = waiting[Math.floor(rand() * waiting.length)];
      rec = { kind: "GoUnblock", g, reason: "", site: null };
      state.set(g, "runnable");
    } else if (running.length > 0) {
      const g = running[Math.floor(rand() * running.length)];
      rec = { kind: "GoSched", g, reason: rand() < 0.5 ? "preempted" : "runtime.Gosched", site: null };
      state.set(g, "runnable");
    } else if (runnable.length > 0) {
      const g = runnable[0];
      rec = { kind: "GoStart", g, reason: "", site: null };
      state.set(g, "running");
    } else if (waiting.length > 0) {
      const g = waiting[0];
      rec = { kind: "GoUnblock", g, reason: "", site: null };
      state.set(g, "runnable");
    } else {
      break;
    }
    records.push(rec);
    events++;
  }
  return { records, goroutines: next - 1 };
}

function seed(db) {
  const insertProgram = db.prepare("INSERT INTO programs (name, root, dir, kind, source_hash) VALUES (?, '/bench', ?, 'main', 'x')");
  const insertRun = db.prepare("INSERT INTO runs (program_id, config, procs, run_index, outcome, ingest_status, created_at) VALUES (?, 'procs-2', 2, ?, 'ok', 'ok', 'now')");
  const insertEvent = db.prepare("INSERT INTO events (run_id, seq, time_ns, kind, gid, actor_gid, reason, site) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)");
  const insertGoroutine = db.prepare("INSERT INTO goroutines (run_id, gid, canonical_id, is_root) VALUES (?, ?, ?, ?)");
  for (let p = 0; p < PROGRAMS; p++) {
    inTransaction(db, () => {
      const programId = Number(insertProgram.run(`bench/p${String(p).padStart(3, "0")}`, `/bench/p${p}`).lastInsertRowid);
      for (let r = 0; r < RUNS; r++) {
        const runId = Number(insertRun.run(programId, r).lastInsertRowid);
        const { records, goroutines } = simulate(p, r);
        records.forEach((rec, seq) => insertEvent.run(runId, seq, seq * 100, rec.kind, rec.g, rec.reason, rec.site));
        for (let g = 1; g <= goroutines; g++) insertGoroutine.run(runId, g, g === 1 ? "main.main" : `main.main/main.worker@main.go:${10 + g}#0`, g === 1 ? 1 : 0);
      }
    });
  }
}

function time(work) {
  const start = process.hrtime.bigint();
  const result = work();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, result };
}

const dir = mkdtempSync(join(tmpdir(), "schedlab-bench-dataset-"));
try {
  const db = openDatabase(join(dir, "bench.db"));
  seed(db);
  // The reference is re-measured before each abstraction and the fastest scan used, so a
  // busy machine inflates numerator and denominator alike.
  const scanEvents = () => time(() => db.prepare("SELECT run_id, seq, time_ns, kind, gid, actor_gid, reason, site FROM events ORDER BY run_id, seq").raw().all().length);
  const scans = [scanEvents()];
  const rows = [];
  for (const abstraction of ["split", "depth", "goroutine", "context"]) {
    scans.push(scanEvents());
    const first = time(() => buildDataset(db, { abstraction }));
    const again = time(() => loadDataset(db, { abstraction }));
    rows.push({ abstraction, first, again });
  }
  const reference = Math.min(...scans.map((s) => s.ms));
  console.log(`corpus: ${PROGRAMS} programs × ${RUNS} runs, ${scans[0].result} records; reference (fastest raw scan of events of ${scans.length}): ${reference.toFixed(0)} ms`);
  for (const { abstraction, first, again } of rows) {
    console.log(
      `${abstraction.padEnd(9)} first build ${(first.ms / reference).toFixed(1)}× reference (${first.result.states.length} states, ${first.result.samples.length} samples); ` +
        `cached load ${(again.ms / reference).toFixed(1)}× reference`,
    );
  }
  const total = rows.reduce((n, r) => n + r.first.ms, 0);
  console.log(`all four first builds: ${(total / reference).toFixed(1)}× reference; all four cached loads: ${(rows.reduce((n, r) => n + r.again.ms, 0) / reference).toFixed(1)}× reference`);
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
