// How the `split` ceilings depend on the runs per program (issue 20, item 2). A split state is
// (program, 25/50/75 % of the run's events) and has one sample per run, so with R runs the
// in-sample ceiling (each state's mode share) is at least ⌈R/6⌉/R even where the next event is
// a fair die, and the leave-one-run-out ceiling (each run predicted by the mode of the other
// R − 1) is the honest one. For every R in RUNS (the first R plain runs of each program that has
// as many), prints both ceilings over all programs and over those whose name starts with each
// PREFIX (only those programs when prefixes are given), from the events of a collection. Ties
// earn 1/m of m tied labels, as everywhere in eval.
// Usage: node scripts/split-ceiling.mjs DB [PREFIX…]   (e.g. DB from `collect … --runs 20`)

import Database from "better-sqlite3";

const [file, ...prefixes] = process.argv.slice(2);
if (file === undefined) {
  process.stderr.write("usage: node scripts/split-ceiling.mjs DB [PREFIX…]\n");
  process.exit(2);
}
const RUNS = [2, 3, 5, 10, 20];
const POINTS = [25, 50, 75];
const EVENTS = 6; // event_records kinds 0..5 are the six scheduling events

const db = new Database(file, { readonly: true, fileMustExist: true });
const programs = db.prepare("SELECT id, name FROM programs ORDER BY name").all();
const runsOf = db.prepare(
  "SELECT id FROM runs WHERE program_id = ? AND strategy = 'plain' AND ingest_status IN ('ok', 'truncated') ORDER BY run_index",
);
const kindsOf = db.prepare(`SELECT kind FROM event_records WHERE run_id = ? AND kind < ${EVENTS} ORDER BY seq`).pluck();

/** Each program's split samples per run: [run][point] → event kind. */
const samples = new Map();
for (const p of programs) {
  if (prefixes.length > 0 && !prefixes.some((x) => p.name.startsWith(x))) continue;
  const perRun = [];
  for (const { id } of runsOf.all(p.id)) {
    const kinds = kindsOf.all(id);
    if (kinds.length === 0) continue;
    perRun.push(POINTS.map((pct) => kinds[Math.min(kinds.length - 1, Math.floor((kinds.length * pct) / 100))]));
  }
  samples.set(p.name, perRun);
}

/** Credit of predicting the mode of `counts` for label y (ties share 1/m). */
function modeCredit(counts, y) {
  const best = Math.max(...counts);
  if (best === 0) return 0;
  const tied = counts.filter((c) => c === best).length;
  return counts[y] === best ? 1 / tied : 0;
}

/** The groups a program counts in: "all", and each PREFIX argument it starts with. */
const groupsOf = (name) => ["all", ...prefixes.filter((x) => name.startsWith(x))];
const rows = [];
for (const r of RUNS) {
  const acc = new Map();
  for (const [name, perRun] of samples) {
    if (perRun.length < r) continue;
    const runs = perRun.slice(0, r);
    for (const group of groupsOf(name)) {
      const a = acc.get(group) ?? { programs: 0, n: 0, inSample: 0, loo: 0 };
      a.programs++;
      for (let point = 0; point < POINTS.length; point++) {
        const counts = new Array(EVENTS).fill(0);
        for (const run of runs) counts[run[point]]++;
        for (const run of runs) {
          const y = run[point];
          a.n++;
          a.inSample += modeCredit(counts, y);
          counts[y]--;
          a.loo += modeCredit(counts, y);
          counts[y]++;
        }
      }
      acc.set(group, a);
    }
  }
  for (const [group, a] of acc) rows.push({ runs: r, group, ...a });
}
rows.sort((x, y) => x.group.localeCompare(y.group) || x.runs - y.runs);
console.log(
  "| programs | runs per program | programs with as many | samples | in-sample ceiling | leave-one-run-out ceiling | gap (points) |",
);
console.log("|---|---|---|---|---|---|---|");
for (const row of rows) {
  const pct = (x) => `${((100 * x) / row.n).toFixed(1)} %`;
  const gap = ((100 * (row.inSample - row.loo)) / row.n).toFixed(1);
  console.log(
    `| ${row.group} | ${row.runs} | ${row.programs} | ${row.n} | ${pct(row.inSample)} | ${pct(row.loo)} | ${gap} |`,
  );
}
