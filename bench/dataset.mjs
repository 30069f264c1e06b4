// Benchmark: building the four dataset abstractions over a corpus-sized synthetic database
// (130 programs × 5 runs × ~1000 events) — streamed and stored (refreshDataset), in memory
// (loadSide), and loaded back — reported as ratios to a reference measured in the same run:
// one raw scan of the whole events table. Usage (from the repository root):
//   npx tsc -p . --outDir /tmp/schedlab-dist && SCHEDLAB_DIST=/tmp/schedlab-dist node bench/dataset.mjs
// (without SCHEDLAB_DIST it imports ../dist, i.e. after `npm run build`).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const distRoot = process.env.SCHEDLAB_DIST
  ? pathToFileURL(`${process.env.SCHEDLAB_DIST}/`)
  : new URL("../dist/", import.meta.url);
const { openDatabase, inTransaction } = await import(new URL("store/index.js", distRoot).href);
const { ingestedPrograms, loadDataset, loadSide, refreshDataset } = await import(
  new URL("dataset/index.js", distRoot).href
);
const { seed } = await import(new URL("./synthetic.mjs", import.meta.url).href);

const PROGRAMS = Number(process.env.BENCH_PROGRAMS ?? 130);
const RUNS = 5;
const EVENTS = 1000;

function time(work) {
  const start = process.hrtime.bigint();
  const result = work();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, result };
}

const dir = mkdtempSync(join(tmpdir(), "schedlab-bench-dataset-"));
try {
  const db = openDatabase(join(dir, "bench.db"));
  seed(db, inTransaction, { programs: PROGRAMS, runs: RUNS, events: EVENTS });
  // The reference is re-measured before each abstraction and the fastest scan used, so a
  // busy machine inflates numerator and denominator alike.
  const scanEvents = () =>
    time(
      () =>
        db
          .prepare("SELECT run_id, seq, time_ns, kind, gid, actor_gid, reason, site FROM events ORDER BY run_id, seq")
          .raw()
          .all().length,
    );
  const scans = [scanEvents()];
  const rows = [];
  for (const abstraction of ["split", "depth", "goroutine", "context"]) {
    scans.push(scanEvents());
    // The streaming build (dist, export, run's distributions stage) from scratch, then the
    // in-memory build train and eval make (states already stored: nothing is written).
    db.prepare("DELETE FROM dataset_inputs WHERE abstraction = ?").run(abstraction);
    const streamed = time(() => refreshDataset(db, { abstraction }));
    const first = time(() =>
      loadSide(
        db,
        abstraction,
        ingestedPrograms(db).map((p) => p.name),
      ),
    );
    const again = time(() => loadDataset(db, { abstraction }));
    rows.push({ abstraction, streamed, first, again });
  }
  const reference = Math.min(...scans.map((s) => s.ms));
  console.log(
    `corpus: ${PROGRAMS} programs × ${RUNS} runs, ${scans[0].result} records; ` +
      `reference (fastest raw scan of events of ${scans.length}): ${reference.toFixed(0)} ms`,
  );
  for (const { abstraction, streamed, first, again } of rows) {
    console.log(
      `${abstraction.padEnd(9)} streamed build and store ${(streamed.ms / reference).toFixed(1)}× reference; ` +
        `in-memory build ${(first.ms / reference).toFixed(1)}× (${first.result.states.length} ` +
        `states, ${first.result.samples.length} samples); ` +
        `cached load ${(again.ms / reference).toFixed(1)}× reference`,
    );
  }
  const sum = (pick) => rows.reduce((n, r) => n + pick(r).ms, 0) / reference;
  console.log(
    `all four: streamed builds ${sum((r) => r.streamed).toFixed(1)}×, ` +
      `in-memory builds ${sum((r) => r.first).toFixed(1)}×, ` +
      `cached loads ${sum((r) => r.again).toFixed(1)}× reference`,
  );
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
