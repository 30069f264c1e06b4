// Measures each exploration strategy of `collect --budget` alone: for every program and
// configuration, runs until the cheap per-run check confirms a finding (at most --runs runs
// or --cap seconds of run time) and prints runs and seconds to the first finding. The
// order of src/collect/explore.ts is justified by these numbers (docs/collect.md).
//
//   npm run build
//   node bench/explore.mjs [dir...] [--runs 20] [--cap 8s] [--timeout 2s] [--json]
//
// Default programs: the probes in test/fixtures/collect/explore and the schedule-dependent
// kernels of go-programs/kernels ("shows on some").

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  buildProgram,
  checkRun,
  configKey,
  parseDuration,
  perturbSeed,
  runFiles,
  tracedRun,
} from "../dist/collect/index.js";
import { discoverPrograms } from "../dist/corpus/index.js";
import { goToolchain } from "../dist/go/index.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const value = args[i + 1];
  args.splice(i, 2);
  return value;
};
const maxRuns = Number(flag("--runs", "20"));
const capMs = parseDuration(flag("--cap", "8s"));
const timeoutMs = parseDuration(flag("--timeout", "2s"));
const json = args.includes("--json");
const dirs = args.filter((a) => a !== "--json");

const SOME_KERNELS = [
  "abba/inventoryorder",
  "abba/transfer",
  "chanctx/fetchcancel",
  "chanlock/logsink",
  "chanwg/crawler",
  "condmiss/gateopen",
  "orphan/lookuptimeout",
  "rwrecursive/sessionstore",
  "wgmisuse/addinside",
];

async function programsToMeasure() {
  if (dirs.length > 0) return (await discoverPrograms(dirs.map((d) => resolve(d)))).programs;
  const probes = (await discoverPrograms([join(ROOT, "test/fixtures/collect/explore")])).programs.filter(
    (p) => p.name !== "clean-pool",
  );
  const kernels = (await discoverPrograms([join(ROOT, "go-programs/kernels")])).programs.filter((p) =>
    SOME_KERNELS.includes(p.name),
  );
  return [...probes, ...kernels];
}

const CONFIGS = [
  ["plain", 2, null],
  ["plain", 1, null],
  ["plain", 4, null],
  ["plain", 2, 20],
  ["race", 2, null],
  ["race", 2, 20],
  ["perturb", 2, null],
  ["perturb", 1, null],
  ["perturb", 4, null],
  ["perturb", 2, 20],
  ["perturb", 1, 20],
].map(([strategy, procs, testCount]) => ({ key: configKey(strategy, procs, testCount), strategy, procs, testCount }));

const go = await goToolchain();
const scratch = mkdtempSync(join(tmpdir(), "schedlab-bench-explore-"));
const rows = [];
try {
  for (const program of await programsToMeasure()) {
    const builds = new Map();
    for (const config of CONFIGS) {
      const testCount = program.kind === "test" ? config.testCount : null;
      if (program.kind !== "test" && config.testCount !== null) continue;
      const runConfig = { ...config, key: configKey(config.strategy, config.procs, testCount), testCount };
      if (!builds.has(config.strategy)) {
        const t0 = performance.now();
        const build = await buildProgram(
          { ...program, strategy: config.strategy },
          go,
          join(scratch, `${rows.length}-${config.strategy}`),
        );
        builds.set(config.strategy, { build, ms: performance.now() - t0 });
      }
      const { build, ms: buildMs } = builds.get(config.strategy);
      if (build.status !== "ok") {
        rows.push({
          program: program.name,
          config: runConfig.key,
          buildMs,
          runs: 0,
          foundAt: null,
          ms: 0,
          note: "build failed",
        });
        continue;
      }
      let spent = 0;
      let foundAt = null;
      let runs = 0;
      let finding = null;
      while (runs < maxRuns && spent < capMs && foundAt === null) {
        const seed = config.strategy === "perturb" ? perturbSeed(runConfig.key, runs) : null;
        const t0 = performance.now();
        const result = await tracedRun({
          kind: program.kind,
          dir: program.dir,
          binary: build.binary,
          testName: program.testName,
          config: runConfig,
          files: runFiles(join(scratch, "traces"), program.name, runConfig.key, runs),
          timeoutMs,
          graceMs: 500,
          go,
          seed,
        });
        const check = await checkRun(result, program.kind, go);
        spent += performance.now() - t0;
        runs++;
        if (check.finding !== null) {
          foundAt = runs;
          finding = check.finding;
        }
      }
      rows.push({
        program: program.name,
        config: runConfig.key,
        buildMs: Math.round(buildMs),
        runs,
        foundAt,
        ms: Math.round(spent),
        finding,
      });
      if (!json)
        process.stderr.write(
          `${program.name} ${runConfig.key}: ${foundAt === null ? `none in ${runs} runs` : `run ${foundAt}`} (${(spent / 1000).toFixed(1)}s)\n`,
        );
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

if (json) {
  process.stdout.write(`${JSON.stringify({ maxRuns, capMs, timeoutMs, rows })}\n`);
} else {
  const programs = [...new Set(rows.map((r) => r.program))];
  const cell = (r) =>
    r === undefined ? "-" : r.foundAt === null ? `none/${r.runs}` : `${r.foundAt} (${(r.ms / 1000).toFixed(1)}s)`;
  console.log(
    `runs to the first confirmed finding (seconds of run time), at most ${maxRuns} runs or ${capMs / 1000}s per cell, --timeout ${timeoutMs / 1000}s`,
  );
  console.log(["program", ...CONFIGS.map((c) => c.key)].join(" | "));
  for (const program of programs) {
    const cells = CONFIGS.map((c) => cell(rows.find((r) => r.program === program && r.config === c.key)));
    console.log([program, ...cells].join(" | "));
  }
  // Per config: programs found, and total seconds until found (cap counted for misses).
  console.log("");
  for (const c of CONFIGS) {
    const mine = rows.filter((r) => r.config === c.key);
    if (mine.length === 0) continue;
    const found = mine.filter((r) => r.foundAt !== null);
    console.log(
      `${c.key}: found ${found.length}/${mine.length}, run seconds spent ${(mine.reduce((s, r) => s + r.ms, 0) / 1000).toFixed(1)}`,
    );
  }
}
