// Benchmark: what a hunt of a long test suite costs next to `go test` on it (issue: a suite
// whose plain run takes T costs at most budget + 2T per package). In one run, per package:
// the wall time of plain `go test -count=1 PKG` (the reference, T: build, run and go test's
// own bookkeeping), then of `schedlab hunt PKG --budget B` with no --timeout (its builds,
// runs, checks, ingest and analysis) into a fresh database. Prints both, the ratio
// hunt / (B + T) and the ratio hunt / (B + 2T) (≤ 1: within the bound), the runs the hunt
// made and how its program's hunt ended. Build caches are warmed first (one go test -run
// none and one schedlab hunt with a 1 s budget, thrown away), so both sides start warm.
// The default packages: realsuites/longsuite (T ≈ 30 s, longer than the budget: one complete
// plain run) and realsuites/netexample (T ≈ 8 s, shorter: the hunt explores for its budget).
// Usage: npm run build && node bench/hunt-suite.mjs [BUDGET] [PKG_DIR...]   (default 20s)

import { execa } from "execa";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const budget = process.argv[2] ?? "20s";
const budgetS = Number(/^(\d+(?:\.\d+)?)s$/.exec(budget)?.[1] ?? NaN);
if (!Number.isFinite(budgetS)) throw new Error(`give the budget in seconds, e.g. 20s (got ${budget})`);
const suites = fileURLToPath(new URL("../test/fixtures/realsuites/", import.meta.url));
const packages =
  process.argv.length > 3
    ? process.argv.slice(3).map((p) => resolve(p))
    : ["longsuite", "netexample"].map((p) => join(suites, p));
const bin = fileURLToPath(new URL("../bin/schedlab.js", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "schedlab-bench-hunt-suite-"));

/** Wall seconds of `command args` run in `cwd`; the result too. */
async function wall(cwd, command, args, okCodes = [0]) {
  const t0 = performance.now();
  const result = await execa(command, args, { cwd, reject: false, all: true });
  const seconds = (performance.now() - t0) / 1000;
  if (!okCodes.includes(result.exitCode))
    throw new Error(`${command} ${args.join(" ")} exited ${result.exitCode}:\n${(result.all ?? "").slice(-3000)}`);
  return { seconds, result };
}

function hunt(cwd, pattern, db, budgetArg) {
  // Exit 3: the hunt's default gate found a blocked-forever bug, as a leaking suite should.
  const traces = join(dir, `${basename(db)}-traces`);
  return wall(
    cwd,
    process.execPath,
    [bin, "hunt", pattern, "--budget", budgetArg, "--db", db, "--traces", traces, "--format", "json"],
    [0, 3],
  );
}

try {
  for (const pkg of packages) {
    const module = dirname(pkg);
    const pattern = `./${basename(pkg)}`;
    // Warm both sides' build caches: the test binary, the agent's experiment, the other strategies' builds.
    await wall(module, "go", ["test", "-count=1", "-run", "^$", pattern]);
    await hunt(module, pattern, join(dir, `${basename(pkg)}-warm.db`), "1s");
    const goTest = await wall(module, "go", ["test", "-count=1", pattern], [0, 1]);
    const measured = await hunt(module, pattern, join(dir, `${basename(pkg)}.db`), budget);
    const T = goTest.seconds;
    const analysis = JSON.parse(measured.result.stdout);
    const program = analysis.programs[0] ?? {};
    const line = (measured.result.stderr ?? "").split("\n").find((l) => l.startsWith(`${basename(pkg)}:`));
    console.log(`package: ${pkg}`);
    console.log(`  go test -count=1 (reference T): ${T.toFixed(1)} s`);
    console.log(
      `  schedlab hunt --budget ${budget}: ${measured.seconds.toFixed(1)} s, ${program.runs ?? "?"} run(s) analysed`,
    );
    console.log(`    ${line ?? "(no program line)"}`);
    console.log(`    blocked-forever bugs: ${analysis.counts?.leak ?? "?"}; exit ${measured.result.exitCode}`);
    console.log(`  hunt / (budget + T) = ${(measured.seconds / (budgetS + T)).toFixed(2)}`);
    console.log(
      `  hunt / (budget + 2T) = ${(measured.seconds / (budgetS + 2 * T)).toFixed(2)} (≤ 1.00: within the bound budget + 2T)`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
