// Benchmark of `schedlab collect` (run after `npm run build`):
//   node bench/collect.mjs [corpusDir] [--limit N] [--runs N] [--timeout 2s]
// 1. collect --runs N over the corpus against a naive sequential loop (go build, then
//    N traced runs per program, one after the other, same trace count), both measured
//    in this run with a warm Go build cache; prints the speed-up (target ≥ 1.8× on 2 cores).
// 2. The harness overhead per run: the same main programs built bare (no harness, no
//    trace), hand-traced (a minimal main wrapper that only does runtime/trace Start/Stop
//    to a file: the cost of tracing itself) and with the harness (untraced, and traced
//    with its dump), run alternately by the same spawn; prints the extra wall time per
//    run (target ≤ 15 %) split into tracing and the harness's own cost, plus schedlab's
//    bookkeeping per run outside the process (tracedRun's temp dir, checks, hash, renames).

import { execa } from "execa";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  buildProgram,
  collect,
  HARNESS_ENV,
  HARNESS_FILE,
  parseDuration,
  runFiles,
  spawnWithDeadline,
  testArguments,
  tracedRun,
  writeHarnessOverlay,
} from "../dist/collect/index.js";
import { discoverPrograms } from "../dist/corpus/index.js";
import { goToolchain } from "../dist/go/index.js";

const repo = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const at = args.indexOf(name);
  if (at < 0) return fallback;
  const value = args[at + 1];
  args.splice(at, 2);
  return value;
};
const limit = Number(flag("--limit", "20"));
const runs = Number(flag("--runs", "5"));
const timeoutMs = parseDuration(flag("--timeout", "2s"));
const overheadPrograms = Number(flag("--overhead-programs", "8"));
const overheadRuns = Number(flag("--overhead-runs", "10"));

/** Picks `n` programs spread evenly over the sorted list, so every category is represented. */
function spread(list, n) {
  if (list.length <= n) return list;
  return Array.from({ length: n }, (_, i) => list[Math.floor((i * list.length) / n)]);
}

async function corpus() {
  const given = args[0] === undefined ? join(repo, "go-programs") : resolve(args[0]);
  let root = given;
  let { programs } = await discoverPrograms([root]).catch(() => ({ programs: [] }));
  if (programs.length < 5 && args[0] === undefined) {
    root = join(repo, "test", "fixtures", "collect", "programs");
    ({ programs } = await discoverPrograms([root]));
  }
  return { root, programs: spread(programs, limit) };
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** The naive reference: what a user would script by hand, strictly sequential. */
async function naive(programs, go, work, timed) {
  for (const [p, program] of programs.entries()) {
    const dir = join(work, `naive-${p}`);
    mkdirSync(dir, { recursive: true });
    const bin = join(dir, "bin");
    const inModule = existsSync(join(program.root, "go.mod")) || existsSync(join(program.dir, "go.mod"));
    const env = inModule ? {} : { GO111MODULE: "off" };
    const build =
      program.kind === "main"
        ? [
            "build",
            "-overlay",
            (await writeHarnessOverlay(program.dir, program.goFiles, dir)).overlayFile,
            "-o",
            bin,
            ".",
          ]
        : ["test", "-c", "-o", bin, "."];
    const built = await execa("go", build, { cwd: program.dir, env, reject: false });
    if (built.exitCode !== 0 || !timed) continue;
    for (let i = 0; i < runs; i++) {
      const trace = join(dir, `run-${i}.trace`);
      const runArgs =
        program.kind === "main"
          ? []
          : testArguments({ testName: program.testName, config: { testCount: null }, timeoutMs }, trace);
      const runEnv =
        program.kind === "main"
          ? {
              [HARNESS_ENV.trace]: trace,
              [HARNESS_ENV.dump]: join(dir, `run-${i}.dump`),
              [HARNESS_ENV.deadlineMs]: String(timeoutMs),
            }
          : {};
      await execa(bin, runArgs, {
        cwd: dir,
        env: { ...runEnv, GOMAXPROCS: String(availableParallelism()) },
        reject: false,
        timeout: timeoutMs * 3,
        forceKillAfterDelay: 1000,
      });
    }
  }
}

async function speedup(root, programs, go, work) {
  console.log(
    `corpus: ${root} — ${programs.length} programs (${programs.filter((p) => p.kind === "main").length} ` +
      `main, ${programs.filter((p) => p.kind === "test").length} test), --runs ${runs}, ` +
      `--timeout ${timeoutMs} ms, ${availableParallelism()} cores`,
  );
  process.stdout.write("warming the Go build cache … ");
  await naive(programs, go, join(work, "warm"), false);
  console.log("done");

  let started = performance.now();
  await naive(programs, go, join(work, "naive"), true);
  const naiveMs = performance.now() - started;
  console.log(`naive sequential loop:  ${seconds(naiveMs)}`);

  started = performance.now();
  const result = await collect({
    paths: programs.map((p) => p.dir),
    runs,
    timeoutMs,
    db: join(work, "bench.db"),
    traces: join(work, "traces"),
  });
  const collectMs = performance.now() - started;
  const traces = result.programs.reduce((n, p) => n + p.runs.length, 0);
  console.log(`schedlab collect:       ${seconds(collectMs)} (${traces} traces)`);
  console.log(`speed-up: ${(naiveMs / collectMs).toFixed(2)}x (target >= 1.8x)`);
  return result;
}

/**
 * The hand-traced reference: the user's main renamed by the harness overlay, but the
 * harness file swapped for this wrapper, which only starts runtime/trace on the file
 * SCHEDLAB_TRACE names and stops it when main returns or exits (no watchdog, no signal
 * handling, no dump). It defines the functions the overlay's rewrite of os.Exit and
 * log.Fatal* calls, so every program that builds with the harness builds with it.
 */
const HAND_TRACED_MAIN = `package main

import (
	handFmt "fmt"
	handLog "log"
	handOS "os"
	handTrace "runtime/trace"
)

func main() {
	f, err := handOS.Create(handOS.Getenv("${HARNESS_ENV.trace}"))
	if err == nil && handTrace.Start(f) == nil {
		defer handTrace.Stop()
	}
	schedlabUserMain()
}

func schedlabHarnessExit(code int) { handTrace.Stop(); handOS.Exit(code) }
func schedlabHarnessLogFatal(v ...any) { handLog.Output(2, handFmt.Sprint(v...)); schedlabHarnessExit(1) }
func schedlabHarnessLogFatalf(format string, v ...any) { handLog.Output(2, handFmt.Sprintf(format, v...)); schedlabHarnessExit(1) }
func schedlabHarnessLogFatalln(v ...any) { handLog.Output(2, handFmt.Sprintln(v...)); schedlabHarnessExit(1) }
`;

/** Builds `program` into `dir`/hand with the hand-traced wrapper in place of the harness. */
async function buildHandTraced(program, dir, env) {
  const { overlay } = await writeHarnessOverlay(program.dir, program.goFiles, join(dir, "hand-overlay"));
  const wrapper = join(dir, "hand_main.go");
  writeFileSync(wrapper, HAND_TRACED_MAIN);
  const replace = Object.fromEntries(
    Object.entries(overlay.Replace).map(([at, file]) => [at, at.endsWith(HARNESS_FILE) ? wrapper : file]),
  );
  const overlayFile = join(dir, "hand-overlay.json");
  writeFileSync(overlayFile, JSON.stringify({ Replace: replace }));
  const binary = join(dir, "hand");
  await execa("go", ["build", "-overlay", overlayFile, "-ldflags=-s -w", "-o", binary, "."], { cwd: program.dir, env });
  return binary;
}

async function overhead(programs, go, work, result) {
  const finishedOk = new Set(
    result.programs.filter((r) => r.runs.length > 0 && r.runs.every((run) => run.outcome === "ok")).map((r) => r.name),
  );
  const okMains = programs.filter((p) => p.kind === "main" && finishedOk.has(p.name.split("/").pop()));
  const chosen = spread(okMains, overheadPrograms);
  const variants = ["bare", "hand", "harness", "traced"];
  const zero = () => Object.fromEntries(variants.map((key) => [key, 0]));
  const totals = zero();
  // The fastest of the runs of each variant: robust against a machine busy with other work.
  const fastest = zero();
  const ratios = [];
  const handRatios = [];
  // schedlab's own work per run outside the process: tracedRun's wall minus the process's.
  let bookkeepingMs = 0;
  let bookkept = 0;
  for (const [p, program] of chosen.entries()) {
    const dir = join(work, `overhead-${p}`);
    mkdirSync(dir, { recursive: true });
    const bare = join(dir, "bare");
    const inModule = existsSync(join(program.root, "go.mod")) || existsSync(join(program.dir, "go.mod"));
    const buildEnv = inModule ? {} : { GO111MODULE: "off" };
    await execa("go", ["build", "-ldflags=-s -w", "-o", bare, "."], { cwd: program.dir, env: buildEnv });
    const hand = await buildHandTraced(program, dir, buildEnv);
    const harnessed = await buildProgram(
      { dir: program.dir, kind: "main", goFiles: program.goFiles },
      go,
      join(dir, "h"),
    );
    const ms = zero();
    const min = Object.fromEntries(variants.map((key) => [key, Infinity]));
    const time = async (key, request) => {
      const wall = (await spawnWithDeadline(request)).wallMs;
      ms[key] += wall;
      min[key] = Math.min(min[key], wall);
    };
    const base = { args: [], cwd: dir, deadlineMs: 60_000, graceMs: 1000, stdoutCap: 65536, stderrCap: 65536 };
    // Alternating the three variants spreads the machine's background load evenly over them.
    // Every run writes a fresh trace and dump file, as collect does (rewriting one file
    // in place costs ext4 a flush on close and would inflate the traced variants).
    for (let i = 0; i < overheadRuns; i++) {
      await time("bare", { ...base, command: bare, env: { GOMAXPROCS: "2" } });
      await time("hand", {
        ...base,
        command: hand,
        env: { GOMAXPROCS: "2", [HARNESS_ENV.trace]: join(dir, `hand${i}.trace`) },
      });
      await time("harness", {
        ...base,
        command: harnessed.binary,
        env: { GOMAXPROCS: "2", [HARNESS_ENV.deadlineMs]: "60000" },
      });
      await time("traced", {
        ...base,
        command: harnessed.binary,
        env: {
          GOMAXPROCS: "2",
          [HARNESS_ENV.trace]: join(dir, `t${i}.trace`),
          [HARNESS_ENV.dump]: join(dir, `d${i}.dump`),
          [HARNESS_ENV.deadlineMs]: "60000",
        },
      });
    }
    // The whole of one collect run (temp dir, spawn, trace check, hash, renames), a few times.
    for (let i = 0; i < Math.min(overheadRuns, 5); i++) {
      const started = performance.now();
      const run = await tracedRun({
        kind: "main",
        dir: program.dir,
        binary: harnessed.binary,
        testName: null,
        config: { procs: 2, testCount: null },
        files: runFiles(join(dir, "collected"), "p", "procs-2", i),
        timeoutMs: 60_000,
        graceMs: 1000,
        go,
      });
      bookkeepingMs += performance.now() - started - run.wallMs;
      bookkept++;
    }
    for (const key of variants) {
      totals[key] += ms[key];
      fastest[key] += min[key];
    }
    ratios.push(ms.traced / ms.bare - 1);
    handRatios.push(ms.hand / ms.bare - 1);
    const per = (v) => (v / overheadRuns).toFixed(1);
    console.log(
      `  ${program.name}: bare ${per(ms.bare)} ms, hand-traced ${per(ms.hand)} ms, ` +
        `harness untraced ${per(ms.harness)} ms, harness traced ${per(ms.traced)} ms per run ` +
        `(${((ms.traced / ms.bare - 1) * 100).toFixed(1)} %; ` +
        `hand-traced ${((ms.hand / ms.bare - 1) * 100).toFixed(1)} %)`,
    );
  }
  if (chosen.length === 0) {
    console.log("harness overhead: no main program finished ok; nothing to measure");
    return;
  }
  const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
  const runsMeasured = chosen.length * overheadRuns;
  const pct = (a, b) => `${((a / b - 1) * 100).toFixed(1)} %`;
  const perRun = (a, b) => `${a >= b ? "+" : ""}${((a - b) / runsMeasured).toFixed(1)} ms`;
  console.log(
    `harness overhead per run (traced, over the bare binary): ${pct(totals.traced, totals.bare)} of wall ` +
      `time, ${perRun(totals.traced, totals.bare)} per run, ` +
      `median ${(median(ratios) * 100).toFixed(1)} % per program (target <= 15 %)`,
  );
  console.log(
    "  tracing itself (hand-traced reference: trace.Start/Stop only, " +
      `over bare): ${pct(totals.hand, totals.bare)}, ${perRun(totals.hand, totals.bare)} per run, ` +
      `median ${(median(handRatios) * 100).toFixed(1)} % per program`,
  );
  console.log(
    `  the harness's own cost (harness traced, over hand-traced): ${pct(totals.traced, totals.hand)}, ` +
      `${perRun(totals.traced, totals.hand)} per run; ` +
      `harness untraced over bare: ${pct(totals.harness, totals.bare)} ` +
      `(${chosen.length} programs x ${overheadRuns} runs)`,
  );
  console.log(
    "on the fastest run of each variant (robust to background load): " +
      `traced over bare ${pct(fastest.traced, fastest.bare)}, ` +
      `hand-traced over bare ${pct(fastest.hand, fastest.bare)}, ` +
      `harness over hand-traced ${pct(fastest.traced, fastest.hand)}`,
  );
  console.log(
    `schedlab bookkeeping per run outside the process (tracedRun wall minus process wall): ${(bookkeepingMs / bookkept).toFixed(2)} ms (${bookkept} runs)`,
  );
}

const work = mkdtempSync(join(tmpdir(), "schedlab-bench-"));
try {
  const go = await goToolchain();
  const { root, programs } = await corpus();
  const result = await speedup(root, programs, go, work);
  await overhead(programs, go, work, result);
} finally {
  rmSync(work, { recursive: true, force: true });
}
