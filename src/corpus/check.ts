// `corpus check`: validates every manifest under a directory, checks that every program
// builds and that expected creation sites are `go` statements, and reports the class balance.
// The programs are discovery's (discoverPrograms), the ones collect would collect.

import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, resolve } from "node:path";
import { UsageError } from "../errors.js";
import { goToolchain } from "../go/index.js";
import { discoverPrograms, programName } from "./discover.js";
import { NoGoCodeError } from "./errors.js";
import { buildProblems } from "./go-build.js";
import { MANIFEST_FILE, type Manifest } from "./manifest.js";
import { creatorMatches, enclosingFunction, siteProblem } from "./sites.js";
import type { ProgramKind } from "../core/index.js";
import type { ProgramSpec } from "./types.js";

export interface CorpusCheckOptions {
  /** The directory to scan; every program below it is checked. */
  readonly dir: string;
  /** Parallel per-package builds (default: half the CPUs, at least 1). */
  readonly concurrency?: number;
  /** Skip compiling (manifests and sites only). Default false. */
  readonly skipBuild?: boolean;
}

export interface CorpusFailure {
  readonly program: string;
  readonly problem: string;
}

/** The tag that marks a clean program written to race heavily under the scheduler. */
export const HIGH_NONDETERMINISM_TAG = "high-nondeterminism";

export interface CorpusCheckReport {
  readonly dir: string;
  /** Programs found (labelled and unlabelled). */
  readonly programs: number;
  /** Programs without a manifest: counted, not failures. */
  readonly unlabelled: number;
  readonly byKind: Record<ProgramKind, number>;
  /** Labelled programs per manifest outcome. */
  readonly byOutcome: Record<string, number>;
  readonly byPattern: Record<string, number>;
  readonly byShowsOn: Record<string, number>;
  /** Shares of all programs: leak or deadlock, and clean with the high-nondeterminism tag. */
  readonly balance: { readonly leakOrDeadlock: number; readonly cleanHighNondeterminism: number };
  /** Programs without a manifest, by name. */
  readonly unlabelledPrograms: readonly string[];
  readonly failures: readonly CorpusFailure[];
}

/** Checks every program under `options.dir`; failures are collected, never thrown, so one bad program never hides the others. */
export async function checkCorpus(options: CorpusCheckOptions): Promise<CorpusCheckReport> {
  const dir = resolve(options.dir);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new UsageError(
      `${options.dir} is not a directory`,
      "Pass the directory that holds the Go programs (default: go-programs).",
    );
  }
  const programs = await discoverOrRefuse(dir, options.dir);
  const failures: CorpusFailure[] = [];
  for (const program of programs) {
    for (const problem of program.manifestProblems)
      failures.push({ program: program.name, problem: `manifest: ${problem}` });
    if (program.manifest !== null)
      for (const problem of labelProblems(program, program.manifest)) failures.push({ program: program.name, problem });
  }
  const programDirs = new Set(programs.map((p) => p.dir));
  for (const orphan of manifestDirs(dir).filter((d) => !programDirs.has(d))) {
    failures.push({
      program: programName(dir, orphan),
      problem: "has a manifest but no main package or TestXxx function",
    });
  }
  if (options.skipBuild !== true) {
    const go = await goToolchain(dir); // the toolchain collect would build with here; a clear ToolchainMissingError before any build
    const problems = await buildProblems(
      programs,
      go,
      options.concurrency ?? Math.max(1, Math.floor(availableParallelism() / 2)),
    );
    for (const p of programs) {
      const problem = problems.get(p.dir);
      if (problem !== undefined) failures.push({ program: p.name, problem });
    }
  }
  failures.sort((a, b) => a.program.localeCompare(b.program));
  return summarize(dir, programs, failures);
}

/** The programs under `dir` as collect finds them; none is a usage error of `corpus check`. */
async function discoverOrRefuse(dir: string, given: string): Promise<ProgramSpec[]> {
  try {
    return (await discoverPrograms([dir])).programs;
  } catch (error) {
    if (!(error instanceof NoGoCodeError)) throw error;
    throw new UsageError(
      `no Go programs found under ${given}`,
      "A program is a main package or a package with _test.go files defining TestXxx functions.",
    );
  }
}

/** Directories below `root` holding a manifest, skipping the directories discovery skips (testdata, vendor, node_modules, hidden, _-prefixed). */
function manifestDirs(root: string): string[] {
  const found: string[] = [];
  const visit = (dir: string): void => {
    const entries = readdirSync(dir, { withFileTypes: true });
    if (entries.some((e) => e.isFile() && e.name === MANIFEST_FILE)) found.push(dir);
    for (const e of entries) {
      const skipped =
        e.name === "testdata" ||
        e.name === "vendor" ||
        e.name === "node_modules" ||
        e.name.startsWith(".") ||
        e.name.startsWith("_");
      if (e.isDirectory() && !skipped) visit(join(dir, e.name));
    }
  };
  visit(root);
  return found;
}

/** Consistency between a valid manifest and the program's source: kind, sites and root goroutines. */
export function labelProblems(program: ProgramSpec, manifest: Manifest): string[] {
  const problems: string[] = [];
  if (manifest.kind !== program.kind) {
    problems.push(
      `manifest says kind "${manifest.kind}" but the directory holds a ${program.kind === "main" ? "main package" : "test package"}`,
    );
  }
  if (manifest.outcome === "clean" && manifest.showsOn !== "never")
    problems.push(`a clean program must have showsOn "never", got "${manifest.showsOn}"`);
  if (manifest.outcome !== "clean" && manifest.showsOn === "never")
    problems.push(`outcome ${manifest.outcome} must show on "every" or "some" schedule`);
  const readSource = (file: string): string | null => {
    const path = join(program.dir, file);
    return existsSync(path) ? readFileSync(path, "utf8") : null;
  };
  manifest.expected.forEach((g, i) => {
    if (g.finding === "outlived" && manifest.kind !== "test")
      problems.push(`expected[${i}]: finding "outlived" (alive after the test that created it) needs a test program`);
    if (g.site === null) {
      if (manifest.kind === "main" && g.creator !== "main.main")
        problems.push(
          `expected[${i}]: a root goroutine (site null) of a main program has creator "main.main", got "${g.creator}"`,
        );
      if (manifest.kind === "test" && !/\.Test\w*$/.test(g.creator))
        problems.push(
          `expected[${i}]: a root goroutine (site null) of a test program has the test function as creator, got "${g.creator}"`,
        );
      return;
    }
    const problem = siteProblem(g.site, readSource);
    if (problem !== null) return problems.push(`expected[${i}]: ${problem}`);
    const [file, line] = g.site.split(":");
    const declared = enclosingFunction(readSource(file) ?? "", Number(line));
    if (declared !== null && !creatorMatches(g.creator, declared)) {
      problems.push(
        `expected[${i}]: creator "${g.creator}" is not ${declared} (or a closure in it), the function around ${g.site}`,
      );
    }
  });
  problems.push(...flakyTestProblems(program, manifest));
  problems.push(...failureTestProblems(program, manifest));
  return problems;
}

/** True when one of the program's `_test.go` files declares the top-level function of `test` ("TestX" of "TestX/sub"). */
function declaresTest(program: ProgramSpec, test: string): boolean {
  const top = test.split("/")[0];
  return program.testFiles.some((f) => new RegExp(`^func\\s+${top}\\s*\\(`, "m").test(readFileSync(f, "utf8")));
}

/** A flaky program is a test program, and each of its `flakyTests` names a test function declared in its `_test.go` files. */
function flakyTestProblems(program: ProgramSpec, manifest: Manifest): string[] {
  if (manifest.outcome !== "flaky") return [];
  if (manifest.kind !== "test")
    return [`outcome flaky needs a test program (flakyTests name tests), got kind "${manifest.kind}"`];
  return (manifest.flakyTests ?? []).flatMap((name, i) =>
    declaresTest(program, name)
      ? []
      : [`flakyTests[${i}]: no func ${name.split("/")[0]} in the program's _test.go files`],
  );
}

/** An expected failure of a test program names one of its tests; a main program's names none (test null). */
function failureTestProblems(program: ProgramSpec, manifest: Manifest): string[] {
  return (manifest.failures ?? []).flatMap(({ test }, i) => {
    if (manifest.kind === "main")
      return test === null ? [] : [`failures[${i}]: a main program has no tests, so test must be null, got "${test}"`];
    if (test === null) return [`failures[${i}]: a test program's failure names its test, got null`];
    return declaresTest(program, test)
      ? []
      : [`failures[${i}]: no func ${test.split("/")[0]} in the program's _test.go files`];
  });
}

function summarize(dir: string, programs: readonly ProgramSpec[], failures: CorpusFailure[]): CorpusCheckReport {
  const count = (record: Record<string, number>, key: string): void => {
    record[key] = (record[key] ?? 0) + 1;
  };
  const byKind: Record<ProgramKind, number> = { main: 0, test: 0 };
  const byOutcome: Record<string, number> = {};
  const byPattern: Record<string, number> = {};
  const byShowsOn: Record<string, number> = {};
  let leakOrDeadlock = 0;
  let cleanHigh = 0;
  for (const { kind, manifest } of programs) {
    byKind[kind] += 1;
    if (manifest === null) continue;
    count(byOutcome, manifest.outcome);
    count(byPattern, manifest.pattern);
    count(byShowsOn, manifest.showsOn);
    if (manifest.outcome === "leak" || manifest.outcome === "deadlock") leakOrDeadlock += 1;
    if (manifest.outcome === "clean" && manifest.tags.includes(HIGH_NONDETERMINISM_TAG)) cleanHigh += 1;
  }
  const share = (n: number): number => (programs.length === 0 ? 0 : Math.round((n / programs.length) * 1000) / 1000);
  // Unlabelled: no manifest file at all (an invalid one is a failure, not a missing label).
  const unlabelledPrograms = programs
    .filter((p) => p.manifest === null && p.manifestProblems.length === 0)
    .map((p) => p.name);
  return {
    dir,
    programs: programs.length,
    unlabelled: unlabelledPrograms.length,
    byKind,
    byOutcome,
    byPattern,
    byShowsOn,
    balance: { leakOrDeadlock: share(leakOrDeadlock), cleanHighNondeterminism: share(cleanHigh) },
    unlabelledPrograms,
    failures,
  };
}
