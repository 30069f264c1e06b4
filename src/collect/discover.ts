// Discovery: turns the paths given to collect into programs. The Go helper walks each
// tree with go/build (build constraints applied as `go list` does) and go/parser
// (func main, TestXxx functions); this module names the programs and reads manifests.

import { execa } from "execa";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, relative, resolve, sep } from "node:path";
import { MANIFEST_FILE, manifestProblems, type Manifest } from "../corpus/manifest.js";
import { goHelperPath } from "../gohelper/index.js";
import { NoGoCodeError, ProgramNameClashError, ProgramNotFoundError } from "./errors.js";
import type { ProgramSpec } from "./types.js";

/** A package directory as reported by `gohelper collect-scan`. */
export interface ScannedPackage {
  /** The root argument under which the package was found, as given. */
  readonly root: string;
  readonly dir: string;
  readonly name: string;
  readonly goFiles: readonly string[];
  readonly testGoFiles: readonly string[];
  readonly xTestGoFiles: readonly string[];
  readonly hasMain: boolean;
  readonly tests: readonly string[];
  readonly error?: string;
}

export interface DiscoverOptions {
  /** One program per TestXxx function ("dir#TestXxx") instead of one per test package. */
  readonly splitTests?: boolean;
  /** A label to put before the names of a root's programs ("label/path"), e.g. for a test corpus. */
  readonly namePrefix?: (root: string) => string | undefined;
}

export interface Discovery {
  readonly programs: ProgramSpec[];
  /** Packages that could not be read and manifests that are invalid; collection goes on without them. */
  readonly warnings: string[];
}

/** Runs the Go helper's scanner over root directories, in one process. */
export async function scanPackages(roots: readonly string[]): Promise<ScannedPackage[]> {
  const helper = await goHelperPath();
  const { stdout } = await execa(helper, ["collect-scan", ...roots], { maxBuffer: 256 * 1024 * 1024 });
  return (JSON.parse(stdout) as { packages: ScannedPackage[] }).packages;
}

/**
 * Finds every program below `paths`: each main package and each package with TestXxx
 * functions. Throws NoGoCodeError for a path without Go code and ProgramNameClashError
 * when two roots yield the same name; programs are sorted by name.
 */
export async function discoverPrograms(paths: readonly string[], options: DiscoverOptions = {}): Promise<Discovery> {
  const programs: ProgramSpec[] = [];
  const warnings: string[] = [];
  const byName = new Map<string, string>();
  const roots = paths.map((p) => resolve(p));
  for (const path of roots) {
    if (!existsSync(path) || !statSync(path).isDirectory()) {
      throw new NoGoCodeError(
        `${path} is not a directory`,
        "Give collect a program directory, a tree of programs or a Go module root.",
      );
    }
  }
  const scanned = await scanPackages(roots);
  for (const path of roots) {
    const packages = scanned.filter((pkg) => pkg.root === path);
    const prefix = options.namePrefix?.(path);
    const found = packages.flatMap((pkg) => programsOf(path, pkg, options.splitTests ?? false, warnings, prefix));
    if (found.length === 0) {
      throw new NoGoCodeError(
        `no Go program under ${path}: no main package and no package with TestXxx functions`,
        packages.length === 0
          ? "Point collect at a directory that contains .go files (a main package, or _test.go files with func TestXxx(t *testing.T))."
          : "Add a `func main()` in package main, or a `func TestXxx(t *testing.T)` in a _test.go file, or point collect at another directory.",
      );
    }
    for (const program of found) {
      const other = byName.get(program.name);
      if (other !== undefined && other !== program.dir) {
        throw new ProgramNameClashError(
          `two programs are both named ${program.name}: ${other} and ${program.dir}`,
          "Program names are paths relative to the root given; collect the two roots separately with different --db files, or pass their parent directory instead.",
        );
      }
      byName.set(program.name, program.dir);
      programs.push(program);
    }
  }
  programs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { programs, warnings };
}

/**
 * Keeps the programs whose name is one of `names`, exactly as discovery names them (the
 * path relative to the root given, e.g. "kernels/abba/transfer", "pkg#TestX"), so a
 * selection collects under the same names as the whole tree. Every name must match a
 * program: unknown names throw ProgramNotFoundError listing them with the names they may
 * have meant. Pure; keeps the order of `programs`.
 */
export function selectProgramsByName(programs: readonly ProgramSpec[], names: readonly string[]): ProgramSpec[] {
  const wanted = new Set(names);
  const known = new Set(programs.map((program) => program.name));
  const unknown = [...wanted].filter((name) => !known.has(name));
  if (unknown.length > 0) {
    const meant = unknown.flatMap((name) => closeNames(programs, name));
    const roots = [...new Set(programs.map((program) => program.root))].join(", ");
    throw new ProgramNotFoundError(
      `no program named ${unknown.join(", ")} under ${roots || "the paths given"}`,
      meant.length > 0
        ? `Name programs by their path relative to the root given, e.g. ${[...new Set(meant)].slice(0, 5).join(", ")}.`
        : "Name programs by their path relative to the root given, as `schedlab collect` without --program prints them.",
    );
  }
  return programs.filter((program) => wanted.has(program.name));
}

/**
 * Discovered names a selection may have meant: its directory under a longer path
 * ("addcount" → "kernels/wgmisuse/addcount"), with another "#" suffix, or below it.
 */
function closeNames(programs: readonly ProgramSpec[], name: string): string[] {
  const dir = name.split("#")[0]!;
  return programs
    .map((program) => program.name)
    .filter((candidate) => {
      const candidateDir = candidate.split("#")[0]!;
      return candidateDir === dir || candidateDir.endsWith(`/${dir}`) || candidateDir.startsWith(`${dir}/`);
    });
}

/** The program name of `dir` under `root`: the relative path with "/" separators, or the root's base name. */
export function programName(root: string, dir: string): string {
  const rel = relative(root, dir).split(sep).join("/");
  return rel === "" ? basename(root) : rel;
}

function programsOf(root: string, pkg: ScannedPackage, splitTests: boolean, warnings: string[], prefix: string | undefined): ProgramSpec[] {
  const relativeName = programName(root, pkg.dir);
  const base = prefix === undefined ? relativeName : relative(root, pkg.dir) === "" ? prefix : `${prefix}/${relativeName}`;
  if (pkg.error !== undefined && pkg.goFiles.length === 0 && pkg.testGoFiles.length === 0 && pkg.xTestGoFiles.length === 0) {
    warnings.push(`${base}: skipped, the package cannot be read: ${pkg.error}`);
    return [];
  }
  const testFiles = [...pkg.testGoFiles, ...pkg.xTestGoFiles];
  const sourceHash = hashSources([...pkg.goFiles, ...testFiles]);
  const { manifest, problems } = readManifest(pkg.dir);
  if (problems.length > 0) warnings.push(`${base}: ${MANIFEST_FILE} ignored: ${problems.join("; ")}`);
  const common = { root, dir: pkg.dir, goFiles: pkg.goFiles, testFiles, sourceHash, manifest, manifestProblems: problems };
  const programs: ProgramSpec[] = [];
  // A package with pkg.error that still has programs (the scanner found func main or TestXxx in
  // the text of a file that does not parse) is collected: its build records the compiler's message.
  if (pkg.hasMain) programs.push({ ...common, name: base, kind: "main", testName: null });
  if (pkg.tests.length > 0) {
    if (splitTests) {
      for (const test of pkg.tests) programs.push({ ...common, name: `${base}#${test}`, kind: "test", testName: test });
    } else {
      // A main package with tests keeps the plain name for main; its tests get "#test".
      programs.push({ ...common, name: pkg.hasMain ? `${base}#test` : base, kind: "test", testName: null });
    }
  }
  return programs;
}

function hashSources(files: readonly string[]): string {
  const hash = createHash("sha256");
  for (const file of [...files].sort()) {
    hash.update(basename(file)).update("\0").update(readFileSync(file)).update("\0");
  }
  return hash.digest("hex");
}

/** Reads `dir`/schedlab.json; a missing file is no problem, an invalid one is reported and ignored. */
export function readManifest(dir: string): { manifest: Manifest | null; problems: string[] } {
  const file = resolve(dir, MANIFEST_FILE);
  if (!existsSync(file)) return { manifest: null, problems: [] };
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    return { manifest: null, problems: [`not valid JSON (${(error as Error).message})`] };
  }
  const problems = manifestProblems(value);
  return problems.length === 0 ? { manifest: value as Manifest, problems } : { manifest: null, problems };
}
