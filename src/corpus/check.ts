// `corpus check`: validates every manifest under a directory, checks that every program
// builds and that expected creation sites are `go` statements, and reports the class balance.

import { existsSync, readFileSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, resolve } from "node:path";
import { UsageError } from "../errors.js";
import { goToolchain } from "../go/index.js";
import { discoverPrograms, type DiscoveredProgram, type ProgramKind } from "./discover.js";
import { buildProblems } from "./go-build.js";
import { manifestProblems, type Manifest } from "./manifest.js";
import { creatorMatches, enclosingFunction, siteProblem } from "./sites.js";

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

/** A program with its parsed manifest (null when unlabelled or unreadable). */
interface LabelledProgram {
  readonly program: DiscoveredProgram;
  readonly manifest: Manifest | null;
}

/** Checks every program under `options.dir`; failures are collected, never thrown, so one bad program never hides the others. */
export async function checkCorpus(options: CorpusCheckOptions): Promise<CorpusCheckReport> {
  const dir = resolve(options.dir);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new UsageError(`${options.dir} is not a directory`, "Pass the directory that holds the Go programs (default: go-programs).");
  }
  const discovered = discoverPrograms(dir);
  if (discovered.length === 0) {
    throw new UsageError(`no Go programs found under ${options.dir}`, "A program is a main package or a package with _test.go files defining TestXxx functions.");
  }
  const failures: CorpusFailure[] = [];
  const labelled = discovered.map((program) => readLabels(program, failures));
  if (options.skipBuild !== true) {
    const go = await goToolchain(dir); // the toolchain collect would build with here; a clear ToolchainMissingError before any build
    const targets = discovered.flatMap((p) => (p.kind === null ? [] : [{ dir: p.dir, kind: p.kind, goFiles: p.goFiles }]));
    const problems = await buildProblems(targets, go, options.concurrency ?? Math.max(1, Math.floor(availableParallelism() / 2)));
    for (const p of discovered) {
      const problem = problems.get(p.dir);
      if (problem !== undefined) failures.push({ program: p.name, problem });
    }
  }
  failures.sort((a, b) => a.program.localeCompare(b.program));
  return summarize(dir, labelled, failures);
}

/** Reads and validates one program's manifest, appending its problems to `failures`. */
function readLabels(program: DiscoveredProgram, failures: CorpusFailure[]): LabelledProgram {
  const fail = (problem: string): LabelledProgram => {
    failures.push({ program: program.name, problem });
    return { program, manifest: null };
  };
  if (program.kind === null) fail("has a manifest but no main package or TestXxx function");
  if (program.manifestPath === null) return { program, manifest: null };
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(program.manifestPath, "utf8"));
  } catch (error) {
    return fail(`manifest is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const problems = manifestProblems(value);
  if (problems.length > 0) {
    for (const problem of problems) failures.push({ program: program.name, problem: `manifest: ${problem}` });
    return { program, manifest: null };
  }
  const manifest = value as Manifest;
  for (const problem of labelProblems(program, manifest)) failures.push({ program: program.name, problem });
  return { program, manifest };
}

/** Consistency between a valid manifest and the program's source: kind, sites and root goroutines. */
export function labelProblems(program: DiscoveredProgram, manifest: Manifest): string[] {
  const problems: string[] = [];
  if (program.kind !== null && manifest.kind !== program.kind) {
    problems.push(`manifest says kind "${manifest.kind}" but the directory holds a ${program.kind === "main" ? "main package" : "test package"}`);
  }
  if (manifest.outcome === "clean" && manifest.showsOn !== "never") problems.push(`a clean program must have showsOn "never", got "${manifest.showsOn}"`);
  if (manifest.outcome !== "clean" && manifest.showsOn === "never") problems.push(`outcome ${manifest.outcome} must show on "every" or "some" schedule`);
  const readSource = (file: string): string | null => {
    const path = join(program.dir, file);
    return existsSync(path) ? readFileSync(path, "utf8") : null;
  };
  manifest.expected.forEach((g, i) => {
    if (g.finding === "outlived" && manifest.kind !== "test") problems.push(`expected[${i}]: finding "outlived" (alive after the test that created it) needs a test program`);
    if (g.site === null) {
      if (manifest.kind === "main" && g.creator !== "main.main") problems.push(`expected[${i}]: a root goroutine (site null) of a main program has creator "main.main", got "${g.creator}"`);
      if (manifest.kind === "test" && !/\.Test\w*$/.test(g.creator)) problems.push(`expected[${i}]: a root goroutine (site null) of a test program has the test function as creator, got "${g.creator}"`);
      return;
    }
    const problem = siteProblem(g.site, readSource);
    if (problem !== null) return problems.push(`expected[${i}]: ${problem}`);
    const [file, line] = g.site.split(":");
    const declared = enclosingFunction(readSource(file) ?? "", Number(line));
    if (declared !== null && !creatorMatches(g.creator, declared)) {
      problems.push(`expected[${i}]: creator "${g.creator}" is not ${declared} (or a closure in it), the function around ${g.site}`);
    }
  });
  problems.push(...flakyTestProblems(program, manifest, readSource));
  return problems;
}

/** A flaky program is a test program, and each of its `flakyTests` names a test function declared in its `_test.go` files. */
function flakyTestProblems(program: DiscoveredProgram, manifest: Manifest, readSource: (file: string) => string | null): string[] {
  if (manifest.outcome !== "flaky") return [];
  if (manifest.kind !== "test") return [`outcome flaky needs a test program (flakyTests name tests), got kind "${manifest.kind}"`];
  const testSources = program.goFiles.filter((f) => f.endsWith("_test.go")).map((f) => readSource(f) ?? "");
  return (manifest.flakyTests ?? []).flatMap((name, i) => {
    const top = name.split("/")[0];
    const declared = testSources.some((text) => new RegExp(`^func\\s+${top}\\s*\\(`, "m").test(text));
    return declared ? [] : [`flakyTests[${i}]: no func ${top} in the program's _test.go files`];
  });
}

function summarize(dir: string, labelled: readonly LabelledProgram[], failures: CorpusFailure[]): CorpusCheckReport {
  const count = (record: Record<string, number>, key: string): void => {
    record[key] = (record[key] ?? 0) + 1;
  };
  const byKind: Record<ProgramKind, number> = { main: 0, test: 0 };
  const byOutcome: Record<string, number> = {};
  const byPattern: Record<string, number> = {};
  const byShowsOn: Record<string, number> = {};
  let leakOrDeadlock = 0;
  let cleanHigh = 0;
  for (const { program, manifest } of labelled) {
    if (program.kind !== null) byKind[program.kind] += 1;
    if (manifest === null) continue;
    count(byOutcome, manifest.outcome);
    count(byPattern, manifest.pattern);
    count(byShowsOn, manifest.showsOn);
    if (manifest.outcome === "leak" || manifest.outcome === "deadlock") leakOrDeadlock += 1;
    if (manifest.outcome === "clean" && manifest.tags.includes(HIGH_NONDETERMINISM_TAG)) cleanHigh += 1;
  }
  const programs = labelled.filter((l) => l.program.kind !== null).length;
  const share = (n: number): number => (programs === 0 ? 0 : Math.round((n / programs) * 1000) / 1000);
  const unlabelledPrograms = labelled.filter((l) => l.program.manifestPath === null).map((l) => l.program.name);
  return {
    dir,
    programs,
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
