// Benchmark: the cost of lock recording in a leak hunt. The same tree is hunted twice in
// one run, `collect --budget` with lock recording (the default) and with
// `--no-lock-recording` (the reference: a hunt as it was before lock recording), each
// into a database of its own, then ingested and analysed by `schedlab leaks --json`, each
// step in a process of its own under /usr/bin/time. Prints wall time, peak RSS, runs
// executed and programs with a finding for both, and the ratios recording / reference:
// hunt wall time (target ≤ 1.0 within noise: "no slower than before"), runs per second of
// hunting, and `leaks` time and memory; and where each hunt's time went (builds, runs, the
// runs' checks, from `collect --json`) and its CPU seconds per run (the process tree's,
// less sensitive to a shared machine's load than wall time). A hunt stops a program at its first confirmed leak,
// so programs with a leak measure the time to find it, clean ones spend their whole budget.
// Usage: npm run build && [BENCH_PARALLEL=1] node bench/hunt.mjs [DIR] [BUDGET]   (defaults go-programs 20s)

import { execa } from "execa";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const tree = resolve(process.argv[2] ?? fileURLToPath(new URL("../go-programs", import.meta.url)));
const budget = process.argv[3] ?? "20s";
const bin = fileURLToPath(new URL("../bin/schedlab.js", import.meta.url));
const dir = process.env.BENCH_DIR ?? mkdtempSync(join(tmpdir(), "schedlab-bench-hunt-"));
const keep = process.env.BENCH_DIR !== undefined;

/** Runs `schedlab ARGS` under /usr/bin/time: wall seconds, CPU seconds (its process tree's user + system), peak RSS in MiB, stdout. */
async function timed(args) {
  const result = await execa("/usr/bin/time", ["-f", "%e %M %U %S", process.execPath, bin, ...args], {
    reject: false,
    all: false,
  });
  const last = result.stderr.trim().split("\n").pop() ?? "";
  const [wall, kb, user, system] = last.split(" ").map(Number);
  if (!Number.isFinite(wall))
    throw new Error(`no timing for schedlab ${args.join(" ")}:\n${result.stderr.slice(-2000)}`);
  if (result.exitCode !== 0 && result.exitCode !== 3)
    throw new Error(`schedlab ${args.join(" ")} exited ${result.exitCode}:\n${result.stderr.slice(-2000)}`);
  return { wall, cpu: user + system, rssMiB: kb / 1024, stdout: result.stdout };
}

async function hunt(label, extra) {
  const db = join(dir, `${label}.db`);
  const collect = await timed([
    "collect",
    tree,
    "--budget",
    budget,
    "--db",
    db,
    "--traces",
    join(dir, `${label}-traces`),
    "--json",
    ...extra,
  ]);
  const parts = huntParts(JSON.parse(collect.stdout).programs);
  const ingest = await timed(["ingest", "--db", db]);
  const leaks = await timed(["leaks", "--db", db, "--json"]);
  const analysis = JSON.parse(leaks.stdout);
  const runs = analysis.programs.reduce((n, p) => n + p.runs, 0);
  const withBug = analysis.programs.filter((p) => p.blockedForever > 0).length;
  return {
    collect,
    ingest,
    leaks,
    runs,
    withBug,
    bugs: analysis.counts.leak,
    potential: analysis.counts.potential,
    programs: analysis.programs.length,
    parts,
  };
}

/**
 * Where a hunt's time went, from `collect --json`: builds (not part of a budget), the runs'
 * own wall time, and the rest of the budget spent (each run's check: decoding and judging its
 * trace, and the bookkeeping), all summed over programs; and each strategy's runs and run time.
 */
function huntParts(programs) {
  const parts = { buildS: 0, runS: 0, spentS: 0, byStrategy: {} };
  for (const p of programs) {
    parts.buildS += (p.exploration?.buildMs ?? 0) / 1000;
    parts.spentS += (p.exploration?.spentMs ?? 0) / 1000;
    for (const r of p.runs) {
      parts.runS += r.wallMs / 1000;
      const s = (parts.byStrategy[r.strategy ?? "plain"] ??= { runs: 0, runS: 0 });
      s.runs++;
      s.runS += r.wallMs / 1000;
    }
  }
  return parts;
}

const fmt = (x, digits = 1) => x.toFixed(digits);
try {
  // Sequential (the default): the reference first, then recording, each with every CPU; a warm
  // build cache favours the second, which is the one measured against. BENCH_PARALLEL=1: both at
  // once with one job each, so on a machine whose load changes during the bench both hunts see
  // the same load.
  const parallel = process.env.BENCH_PARALLEL === "1";
  const jobs = parallel ? ["--jobs", "1"] : [];
  const [reference, recording] = parallel
    ? await Promise.all([hunt("reference", ["--no-lock-recording", ...jobs]), hunt("recording", jobs)])
    : [await hunt("reference", ["--no-lock-recording"]), await hunt("recording", [])];
  for (const [label, h] of [
    ["reference (no lock recording)", reference],
    ["lock recording", recording],
  ]) {
    const { buildS, runS, spentS, byStrategy } = h.parts;
    const strategies = Object.entries(byStrategy)
      .map(([name, s]) => `${name} ${s.runs} runs ${fmt((1000 * s.runS) / s.runs, 0)} ms/run`)
      .join(", ");
    console.log(
      `${label}: builds ${fmt(buildS)} s summed, runs ${fmt(runS)} s, checks ${fmt(spentS - runS)} s (${strategies}); ` +
        `hunt CPU ${fmt(h.collect.cpu)} s, ${fmt((1000 * h.collect.cpu) / h.runs, 0)} ms per run`,
    );
    console.log(
      `${label}: hunt ${fmt(h.collect.wall)} s (${h.runs} runs, ${fmt(h.runs / h.collect.wall, 2)} runs/s), ingest ${fmt(h.ingest.wall)} s, ` +
        `leaks ${fmt(h.leaks.wall)} s peak ${fmt(h.leaks.rssMiB, 0)} MiB; ${h.bugs} bugs blocking forever ` +
        `in ${h.withBug} of ${h.programs} programs, ${h.potential} potential deadlocks`,
    );
  }
  console.log(
    `ratio recording / reference: hunt wall ${fmt(recording.collect.wall / reference.collect.wall, 2)}x (target ≤ 1.0 within noise), ` +
      `runs per second ${fmt(recording.runs / recording.collect.wall / (reference.runs / reference.collect.wall), 2)}x, ` +
      `leaks time ${fmt(recording.leaks.wall / reference.leaks.wall, 2)}x, leaks peak RSS ${fmt(recording.leaks.rssMiB / reference.leaks.rssMiB, 2)}x, ` +
      `build seconds ${fmt(recording.parts.buildS / reference.parts.buildS, 2)}x, ` +
      `seconds per run ${fmt(recording.parts.runS / recording.runs / (reference.parts.runS / reference.runs), 2)}x, ` +
      `hunt CPU per run ${fmt(recording.collect.cpu / recording.runs / (reference.collect.cpu / reference.runs), 2)}x`,
  );
  if (recording.withBug < reference.withBug)
    console.log(`WARNING: fewer programs with a bug under recording (${recording.withBug} < ${reference.withBug})`);
} finally {
  if (!keep) rmSync(dir, { recursive: true, force: true });
}
