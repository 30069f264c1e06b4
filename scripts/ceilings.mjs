// How the ceilings depend on the runs per program (issue 20). A `split` state is (program,
// 25/50/75 % of the run's events) and a `depth` state (program, i-th event); each has one sample
// per run that reaches it, so with R runs the in-sample ceiling (each state's mode share) is
// biased upwards — at least ⌈R/6⌉/R even where the next event is a fair die, 1 where only one
// run reached the state — and the leave-one-run-out ceiling (each run predicted by the mode of
// the other R − 1; a state no other run reached is predicted by the majority event, as eval
// does) downwards. Both close in on the true ceiling as R grows. For every R in RUNS (the first R
// plain runs of each program that has as many), prints both over all programs and over those
// whose name starts with each PREFIX (only those programs when prefixes are given), from the
// events of a collection. Ties earn 1/m of m tied labels, as everywhere in eval. Reads one
// program at a time: memory is one program's runs.
// Usage: node scripts/ceilings.mjs DB [--abstraction split|depth] [PREFIX…]   (DB from `collect … --runs 20`)

import Database from "better-sqlite3";

const args = process.argv.slice(2);
const at = args.indexOf("--abstraction");
const abstraction = at === -1 ? "split" : args[at + 1];
const [file, ...prefixes] = at === -1 ? args : [...args.slice(0, at), ...args.slice(at + 2)];
if (file === undefined || (abstraction !== "split" && abstraction !== "depth")) {
  process.stderr.write("usage: node scripts/ceilings.mjs DB [--abstraction split|depth] [PREFIX…]\n");
  process.exit(2);
}
const RUNS = [2, 3, 5, 10, 20];
const POINTS = [25, 50, 75];
const EVENTS = 6; // event_records kinds 0..5 are the six scheduling events, in EVENT_TYPES order
const MAJORITY = 1; // GoStart: the corpus's majority event, eval's fallback where no other run reached a state

const db = new Database(file, { readonly: true, fileMustExist: true });
const programs = db.prepare("SELECT id, name FROM programs ORDER BY name").all();
const runsOf = db.prepare(
  "SELECT id FROM runs WHERE program_id = ? AND strategy = 'plain' AND ingest_status IN ('ok', 'truncated') ORDER BY run_index",
);
const kindsOf = db.prepare(`SELECT kind FROM event_records WHERE run_id = ? AND kind < ${EVENTS} ORDER BY seq`).pluck();

/** A run's samples: its event at each split point, or every event (depth). */
function samplesOf(kinds) {
  if (abstraction === "depth") return Uint8Array.from(kinds);
  return Uint8Array.from(POINTS, (pct) => kinds[Math.min(kinds.length - 1, Math.floor((kinds.length * pct) / 100))]);
}

/** Credit of predicting the mode of `counts` for label y (ties share 1/m; no counts: the majority event). */
function modeCredit(counts, y) {
  const best = Math.max(...counts);
  if (best === 0) return y === MAJORITY ? 1 : 0;
  const tied = counts.filter((c) => c === best).length;
  return counts[y] === best ? 1 / tied : 0;
}

/** The groups a program counts in: "all", and each PREFIX argument it starts with. */
const groupsOf = (name) => ["all", ...prefixes.filter((x) => name.startsWith(x))];
const acc = new Map(); // `${group}\t${runs}` → totals
const counts = new Array(EVENTS).fill(0);
for (const p of programs) {
  if (prefixes.length > 0 && !prefixes.some((x) => p.name.startsWith(x))) continue;
  const perRun = [];
  for (const { id } of runsOf.all(p.id)) {
    const kinds = kindsOf.all(id);
    if (kinds.length > 0) perRun.push(samplesOf(kinds));
  }
  for (const r of RUNS) {
    if (perRun.length < r) continue;
    const runs = perRun.slice(0, r);
    const states = Math.max(...runs.map((run) => run.length));
    let n = 0;
    let inSample = 0;
    let loo = 0;
    for (let s = 0; s < states; s++) {
      counts.fill(0);
      for (const run of runs) if (s < run.length) counts[run[s]]++;
      for (const run of runs) {
        if (s >= run.length) continue;
        const y = run[s];
        n++;
        inSample += modeCredit(counts, y);
        counts[y]--;
        loo += modeCredit(counts, y);
        counts[y]++;
      }
    }
    for (const group of groupsOf(p.name)) {
      const key = `${group}\t${r}`;
      const a = acc.get(key) ?? { group, runs: r, programs: 0, n: 0, inSample: 0, loo: 0 };
      a.programs++;
      a.n += n;
      a.inSample += inSample;
      a.loo += loo;
      acc.set(key, a);
    }
  }
}
const rows = [...acc.values()].sort((x, y) => x.group.localeCompare(y.group) || x.runs - y.runs);
console.log(`${abstraction} ceilings of ${file}`);
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
