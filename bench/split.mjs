// Benchmark: what loading the split once saves `schedlab run`. eval, rollout and fidelity are
// run on one synthetic collection twice — each loading the split itself from a --holdout spec
// (how they ran before the one split loader), then all three given the SplitData loaded once —
// and the time of each way is printed as a ratio, with the load alone beside it. The prediction
// cache is emptied before each way, so both ask the predictors the same questions. Usage:
//   npm run build && node bench/split.mjs            (BENCH_PROGRAMS, BENCH_EVENTS to resize)

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dist = new URL("../dist/", import.meta.url);
const { openDatabase, inTransaction } = await import(new URL("store/index.js", dist).href);
const { loadSplitData, refreshDataset } = await import(new URL("dataset/index.js", dist).href);
const { runEvaluation } = await import(new URL("eval/from-database.js", dist).href);
const { runRollouts } = await import(new URL("rollout/index.js", dist).href);
const { runFidelity } = await import(new URL("fidelity/index.js", dist).href);
const { seed } = await import(new URL("./synthetic.mjs", import.meta.url).href);

const PROGRAMS = Number(process.env.BENCH_PROGRAMS ?? 60);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1000);
const ABSTRACTION = "depth";

const seconds = async (work) => {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e9;
};

const dir = mkdtempSync(join(tmpdir(), "schedlab-bench-split-"));
try {
  const db = openDatabase(join(dir, "bench.db"));
  seed(db, inTransaction, { programs: PROGRAMS, runs: 5, events: EVENTS });
  // Families: ten folders of programs, so the default holdout takes whole families.
  db.prepare("UPDATE programs SET name = 'bench/f' || (id % 10) || '/' || name").run();
  refreshDataset(db, { abstraction: ABSTRACTION });
  const stages = (source) => [
    () =>
      runEvaluation(db, {
        predictors: ["majority", "ngram:3"],
        abstraction: ABSTRACTION,
        ...source,
        bootstrapResamples: 200,
        store: false,
      }),
    () =>
      runRollouts(db, {
        predictor: "ngram:3",
        abstraction: ABSTRACTION,
        ...source,
        steps: 10,
        samples: 5,
        prefixes: 10,
      }),
    () =>
      runFidelity(db, { teacher: "ngram:3", student: "majority", abstraction: ABSTRACTION, ...source, resamples: 200 }),
  ];
  const clearCache = () => db.prepare("DELETE FROM predictions").run();
  clearCache();
  const separate = await seconds(async () => {
    for (const stage of stages({ holdout: "default" })) await stage();
  });
  clearCache();
  let data;
  const load = await seconds(async () => {
    data = loadSplitData(db, { abstraction: ABSTRACTION, holdout: "default" });
  });
  const shared = await seconds(async () => {
    for (const stage of stages({ data })) await stage();
  });
  const events = db.prepare("SELECT COUNT(*) AS n FROM events").get().n;
  console.log(
    `collection: ${PROGRAMS} programs × 5 runs, ${events} records; ${ABSTRACTION} states; ` +
      `split ${data.fit.programs.length} fit / ${data.validation.programs.length} validation ` +
      `/ ${data.test.programs.length} test programs`,
  );
  console.log(`eval + rollout + fidelity, each loading the split: ${separate.toFixed(2)} s`);
  console.log(
    `the split loaded once (${load.toFixed(2)} s), then the three stages on it: ${(load + shared).toFixed(2)} s`,
  );
  console.log(
    `ratio separate / shared: ${(separate / (load + shared)).toFixed(2)}×; one load is ${((100 * load) / separate).toFixed(0)} % of the separate time`,
  );
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
