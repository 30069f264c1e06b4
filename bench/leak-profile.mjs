// Benchmark: the cost of the run agent (src/collect/agent.ts) in a hunt. The same programs of
// the bundled corpus are hunted with the agent (the default: the goroutine leak profile at the
// end of every run, a watchdog probing runtime/metrics and taking the profile while the process
// is idle) and with `--no-leak-profile` (the reference: no agent, no GOEXPERIMENT), each hunt
// into a fresh database, in the same run. Both build configurations are warmed first (the
// experiment changes every build ID, so each mode has its own build cache entries), then the
// two modes alternate for --rounds rounds, each `schedlab hunt` in a process of its own under
// /usr/bin/time. Prints per mode the hunt's wall time, its runs, runs per second, the mean wall
// time of its plain runs that ended by themselves (the agent's per-run cost: its end profile and
// idle probes) and the runs the agent stopped as proven hung; then the ratios agent / reference:
// hunt wall time (target ≤ 1.15) and ms per plain run. A hunt stops a program at its first
// confirmed finding, so a program with a provable deadlock is found sooner with the agent (a
// proven hang ends its run early), and clean programs spend their whole budget either way.
// Then the agent's cost per run, without a hunt's noise: a few quick programs (tests and mains)
// built both ways and run alternately --overhead-runs times each through tracedRun, with and
// without the agent's environment; prints the mean process wall time per run of each and the
// extra milliseconds and ratio (the end profile's GC and stack dump, the settle, the probes).
// Usage: npm run build && node bench/leak-profile.mjs [--budget 5s] [--rounds 2] [--overhead-runs 20] [--program NAME]…

import Database from "better-sqlite3";
import { execa } from "execa";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildProgram, runFiles, tracedRun } from "../dist/collect/index.js";
import { discoverPrograms } from "../dist/corpus/index.js";
import { goToolchain } from "../dist/go/index.js";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at < 0 ? fallback : args[at + 1];
};
const chosen = args.flatMap((a, i) => (args[i - 1] === "--program" ? [a] : []));
const budget = option("--budget", "5s");
const rounds = Number(option("--rounds", "2"));
const overheadRuns = Number(option("--overhead-runs", "20"));
/** Quick programs for the per-run cost: test binaries and main programs that end in milliseconds. */
const QUICK = [
  "realcode/afterwait",
  "realcode/flakywait",
  "kernels/condmiss/gateopen",
  "realcode/testmain",
  "patterns/server/pipe-kv-server",
  "patterns/sched/gosched-spin-handoff",
];
/** Deadlocking kernels (the agent proves most of them hung), schedule-dependent ones and realistic test suites. */
const PROGRAMS =
  chosen.length > 0
    ? chosen
    : [
        "kernels/abba/transfer",
        "kernels/chanwg/resultcollect",
        "kernels/condmiss/gateopen",
        "kernels/selectnone/startupwait",
        "kernels/wgmisuse/addcount",
        "realcode/slowtest",
        "realcode/testmain",
        "realcode/defaultpool",
        "realcode/afterwait",
        "realcode/flakywait",
      ];
const corpus = fileURLToPath(new URL("../go-programs", import.meta.url));
const bin = fileURLToPath(new URL("../bin/schedlab.js", import.meta.url));
const dir = process.env.BENCH_DIR ?? mkdtempSync(join(tmpdir(), "schedlab-bench-leak-profile-"));
const keep = process.env.BENCH_DIR !== undefined;

/** Runs `schedlab ARGS` under /usr/bin/time: wall seconds and CPU seconds of its process tree. */
async function timed(argv) {
  const result = await execa("/usr/bin/time", ["-f", "%e %U %S", process.execPath, bin, ...argv], {
    cwd: corpus,
    reject: false,
  });
  const [wall, user, system] = (result.stderr.trim().split("\n").pop() ?? "").split(" ").map(Number);
  if (!Number.isFinite(wall) || (result.exitCode !== 0 && result.exitCode !== 3))
    throw new Error(`schedlab ${argv.join(" ")} exited ${result.exitCode}:\n${result.stderr.slice(-2000)}`);
  return { wall, cpu: user + system };
}

/** One hunt of the programs into a fresh database; what its runs were. */
async function hunt(label, extra) {
  const db = join(dir, `${label}.db`);
  const time = await timed([
    "hunt",
    ".",
    ...PROGRAMS.flatMap((p) => ["--program", p]),
    "--budget",
    budget,
    "--db",
    db,
    "--traces",
    join(dir, `${label}-traces`),
    "--format",
    "json",
    "--quiet",
    ...extra,
  ]);
  const store = new Database(db, { readonly: true });
  try {
    const runs = store.prepare("SELECT count(*) AS n FROM runs WHERE outcome <> 'build-error'").get().n;
    const hung = store.prepare("SELECT count(*) AS n FROM runs WHERE stop_reason = 'hang'").get().n;
    // The agent's per-run cost: plain runs that ended by themselves, per program (mean of program means).
    const perProgram = store
      .prepare(
        `SELECT p.name, avg(r.wall_ms) AS ms, count(*) AS n FROM runs r JOIN programs p ON p.id = r.program_id
         WHERE r.strategy = 'plain' AND r.outcome IN ('ok', 'exit-error') GROUP BY p.name`,
      )
      .all();
    return { ...time, runs, hung, perProgram: new Map(perProgram.map((r) => [r.name, r.ms])) };
  } finally {
    store.close();
  }
}

/** Mean process wall ms per run of each quick program, built and run with and without the agent, runs alternating. */
async function perRunCost() {
  const go = await goToolchain(corpus);
  const { programs } = await discoverPrograms([corpus]);
  const rows = [];
  for (const name of QUICK) {
    const program = programs.find((p) => p.name === name);
    if (program === undefined) throw new Error(`no program ${name} in ${corpus}`);
    const work = join(dir, "overhead", name.replaceAll("/", "_"));
    const builds = {};
    for (const leakProfile of [false, true]) {
      const build = await buildProgram({ ...program, leakProfile }, go, join(work, `build-${leakProfile}`));
      if (build.status !== "ok") throw new Error(`${name} does not build:\n${build.output}`);
      builds[leakProfile] = build.binary;
    }
    const ms = { false: 0, true: 0 };
    for (let i = 0; i < overheadRuns; i++) {
      for (const leakProfile of i % 2 === 0 ? [false, true] : [true, false]) {
        const run = await tracedRun({
          kind: program.kind,
          dir: program.dir,
          binary: builds[leakProfile],
          testName: null,
          config: { key: "procs-2", strategy: "plain", procs: 2, testCount: null },
          files: runFiles(join(work, `runs-${leakProfile}`), "p", "procs-2", i),
          timeoutMs: 60_000,
          graceMs: 1000,
          go,
          leakProfile,
        });
        ms[leakProfile] += run.wallMs / overheadRuns;
      }
    }
    rows.push({ name, kind: program.kind, without: ms.false, with: ms.true });
  }
  return rows;
}

const fmt = (x, digits = 2) => x.toFixed(digits);
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
try {
  console.log(`programs (${PROGRAMS.length}): ${PROGRAMS.join(", ")}; budget ${budget}; ${rounds} round(s)`);
  // Warm both build configurations (plain, race and perturb builds; with and without the experiment).
  await hunt("warm-agent", []);
  await hunt("warm-reference", ["--no-leak-profile"]);
  const results = { agent: [], reference: [] };
  for (let r = 0; r < rounds; r++) {
    // Alternate which mode goes first, so a load change during the bench favours neither.
    const order = r % 2 === 0 ? ["reference", "agent"] : ["agent", "reference"];
    for (const mode of order)
      results[mode].push(await hunt(`${mode}-${r}`, mode === "reference" ? ["--no-leak-profile"] : []));
  }
  const summary = {};
  for (const [mode, hunts] of Object.entries(results)) {
    const wall = mean(hunts.map((h) => h.wall));
    const runs = mean(hunts.map((h) => h.runs));
    summary[mode] = { wall, runs, hunts };
    console.log(
      `${mode}: hunt ${fmt(wall, 1)} s (rounds ${hunts.map((h) => fmt(h.wall, 1)).join(", ")}), ${fmt(runs, 1)} runs, ` +
        `${fmt(runs / wall)} runs/s, CPU ${fmt(mean(hunts.map((h) => h.cpu)), 1)} s, proven hung ${hunts.map((h) => h.hung).join(", ")}`,
    );
  }
  // ms per plain run that ended by itself, per program present in both modes.
  const names = PROGRAMS.filter((p) =>
    [...summary.agent.hunts, ...summary.reference.hunts].every((h) => h.perProgram.has(p)),
  );
  const perRun = (mode, name) => mean(summary[mode].hunts.map((h) => h.perProgram.get(name)));
  for (const name of names)
    console.log(
      `  ${name}: plain run ${fmt(perRun("reference", name), 1)} ms → ${fmt(perRun("agent", name), 1)} ms with the agent ` +
        `(${fmt(perRun("agent", name) / perRun("reference", name))}x)`,
    );
  const runRatio = mean(names.map((n) => perRun("agent", n) / perRun("reference", n)));
  console.log(
    `ratio agent / reference: hunt wall ${fmt(summary.agent.wall / summary.reference.wall)}x (target ≤ 1.15); ` +
      `ms per plain run that ended by itself ${fmt(runRatio)}x (mean over ${names.length} programs); ` +
      `runs per second ${fmt(summary.agent.runs / summary.agent.wall / (summary.reference.runs / summary.reference.wall))}x`,
  );
  const rows = await perRunCost();
  for (const r of rows)
    console.log(
      `  ${r.name} (${r.kind}): ${fmt(r.without, 1)} ms → ${fmt(r.with, 1)} ms per run with the agent ` +
        `(+${fmt(r.with - r.without, 1)} ms, ${fmt(r.with / r.without)}x)`,
    );
  console.log(
    `per-run cost over ${rows.length} quick programs, ${overheadRuns} runs each: ` +
      `+${fmt(mean(rows.map((r) => r.with - r.without)), 1)} ms, ${fmt(mean(rows.map((r) => r.with / r.without)))}x mean`,
  );
} finally {
  if (!keep) rmSync(dir, { recursive: true, force: true });
}
