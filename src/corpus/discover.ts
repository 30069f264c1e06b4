// Discovery, the one answer to "what is a program" for `corpus check` and collect: turns
// paths into programs. A directory is walked by the Go helper with go/build (build
// constraints applied as `go build` and `go list` do: //go:build lines, GOOS/GOARCH file
// names, -tags) and go/parser (func main, TestXxx and ExampleXxx functions); a `go test`
// package pattern (./..., ./pkg/..., an import path) is resolved by `go list`. This module
// names the programs and reads manifests.

import { execa } from "execa";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, relative, resolve, sep } from "node:path";
import { UsageError } from "../errors.js";
import { moduleRoot } from "../go/index.js";
import { goHelperPath } from "../gohelper/index.js";
import { NoGoCodeError, ProgramNameClashError, ProgramNotFoundError } from "./errors.js";
import { MANIFEST_FILE, manifestProblems, type Manifest } from "./manifest.js";
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
  /** Why it is not a program though it has Go files (its files need cgo, which is off). */
  readonly skipped?: string;
}

export interface DiscoverOptions {
  /** One program per TestXxx or ExampleXxx function ("dir#TestXxx") instead of one per test package. */
  readonly splitTests?: boolean;
  /** Build tags for discovery (go test -tags): files and packages are selected with them. */
  readonly tags?: readonly string[];
  /**
   * go test -run / -skip: only top-level tests and examples `go test` would run with these
   * regexps (its matching, in Go's regexp syntax) are listed; packages left without any are
   * not programs, and main packages are left out (go test does not run them).
   */
  readonly run?: string;
  readonly skip?: string;
  /** The directory package patterns are resolved from (default: the current directory). */
  readonly cwd?: string;
  /** cgo is on for the builds (the toolchain's CGO_ENABLED): cgo files belong to their package; off, cgo-only packages are listed as skipped with why. */
  readonly cgo?: boolean;
  /** A label to put before the names of a root's programs ("label/path"), e.g. for a test corpus. */
  readonly namePrefix?: (root: string) => string | undefined;
}

export interface Discovery {
  readonly programs: ProgramSpec[];
  /** Packages that could not be read and manifests that are invalid; collection goes on without them. */
  readonly warnings: string[];
}

/** What the scanner lists, as go test would (collect-scan's flags). */
export interface ScanOptions {
  readonly tags?: readonly string[];
  readonly run?: string;
  readonly skip?: string;
  /** Each root is one package directory, not a tree to walk. */
  readonly single?: boolean;
  /** cgo is on for the builds (go env CGO_ENABLED), so files that import "C" are part of their package; default: go/build's default. */
  readonly cgo?: boolean;
}

/** Runs the Go helper's scanner over root directories, in one process. */
export async function scanPackages(roots: readonly string[], options: ScanOptions = {}): Promise<ScannedPackage[]> {
  if (roots.length === 0) return [];
  const helper = await goHelperPath();
  const flags = [
    ...((options.tags ?? []).length > 0 ? [`-tags=${(options.tags ?? []).join(",")}`] : []),
    ...(options.run !== undefined ? [`-run=${options.run}`] : []),
    ...(options.skip !== undefined ? [`-skip=${options.skip}`] : []),
    ...(options.single === true ? ["-single"] : []),
    ...(options.cgo === undefined ? [] : [`-cgo=${String(options.cgo)}`]),
  ];
  const result = await execa(helper, ["collect-scan", ...flags, "--", ...roots], {
    maxBuffer: 256 * 1024 * 1024,
    reject: false,
  });
  if (result.exitCode === 2) {
    throw new UsageError(
      result.stderr.replace(/^collect-scan: /, "").trim(),
      "Write --run and --skip as go test takes them: Go regular expressions, e.g. --run 'Test(A|B)'.",
    );
  }
  if (result.exitCode !== 0) throw new Error(`gohelper collect-scan failed: ${result.stderr.trim()}`);
  return (JSON.parse(result.stdout) as { packages: ScannedPackage[] }).packages;
}

/** Whether a path argument is a `go test` package pattern rather than a directory: it has "..." or names no directory and is not a file path. */
export function isPackagePattern(path: string, cwd: string): boolean {
  if (path.includes("...")) return true;
  if (path.startsWith(".") || path.startsWith("/")) return false;
  const dir = resolve(cwd, path);
  return !(existsSync(dir) && statSync(dir).isDirectory());
}

/** A package pattern resolved by `go list`: its package directories and the root programs are named under. */
export interface ResolvedPattern {
  readonly pattern: string;
  readonly root: string;
  readonly dirs: readonly string[];
}

/**
 * Resolves a `go test` package pattern with `go list -e` in `cwd`, honouring build
 * constraints and `tags`. The root names are relative to: the directory before "/..."
 * for a relative pattern (./... → cwd), else the module root of the packages. A pattern
 * matching nothing, or naming a package that cannot be found, is a UsageError.
 */
export async function resolvePackagePattern(
  pattern: string,
  cwd: string,
  tags: readonly string[] = [],
): Promise<ResolvedPattern> {
  const args = [
    "list",
    "-e",
    ...(tags.length > 0 ? [`-tags=${tags.join(",")}`] : []),
    "-f",
    "{{.Dir}}\t{{with .Error}}{{.Err}}{{end}}",
    "--",
    pattern,
  ];
  const result = await execa("go", args, { cwd, reject: false, all: false });
  const rows = result.stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const [dir = "", error = ""] = line.split("\t");
      return { dir, error };
    });
  const dirs = rows.filter((row) => row.dir !== "" && row.error === "").map((row) => row.dir);
  if (result.exitCode !== 0 || dirs.length === 0) {
    const why = [
      ...rows.map((row) => row.error).filter((e) => e !== ""),
      ...result.stderr.split("\n").filter((l) => l.trim() !== ""),
    ]
      .slice(0, 3)
      .join("; ");
    throw new UsageError(
      `the package pattern ${pattern} matches no Go package${tags.length > 0 ? ` with tags ${tags.join(",")}` : ""} in ${cwd}${why === "" ? "" : `: ${why}`}`,
      "Write patterns as go test takes them, relative to the current directory inside a module (./..., " +
        "./pkg/..., an import path of the module), or give a directory; `go list PATTERN` shows what a " +
        "pattern matches (add --tags for build-tagged packages).",
    );
  }
  const prefix = pattern.endsWith("/...") ? pattern.slice(0, -4) : pattern === "..." ? null : undefined;
  const root =
    prefix !== undefined && prefix !== null && (prefix.startsWith(".") || prefix.startsWith("/"))
      ? resolve(cwd, prefix)
      : (moduleRoot(dirs[0]!) ?? dirs[0]!);
  return { pattern, root, dirs: [...new Set(dirs)].sort() };
}

/** The root each path's programs are named under: the directory itself, or a package pattern's root (resolvePackagePattern). */
export async function discoveryRoots(
  paths: readonly string[],
  options: Pick<DiscoverOptions, "cwd" | "tags"> = {},
): Promise<string[]> {
  const cwd = options.cwd ?? process.cwd();
  return Promise.all(
    paths.map(async (p) =>
      isPackagePattern(p, cwd) ? (await resolvePackagePattern(p, cwd, options.tags ?? [])).root : resolve(cwd, p),
    ),
  );
}

/**
 * Finds every program below `paths`: each main package and each package with TestXxx
 * functions (or ExampleXxx functions with output). A path is a directory or a `go test`
 * package pattern (./..., ./pkg/..., an import path). Throws NoGoCodeError for a directory
 * without Go code, UsageError for a pattern or --run matching nothing, and
 * ProgramNameClashError when two roots yield the same name; programs are sorted by name.
 */
export async function discoverPrograms(paths: readonly string[], options: DiscoverOptions = {}): Promise<Discovery> {
  const programs: ProgramSpec[] = [];
  const warnings: string[] = [];
  const byName = new Map<string, string>();
  const cwd = options.cwd ?? process.cwd();
  const tags = options.tags ?? [];
  const patterns = await Promise.all(
    paths.filter((p) => isPackagePattern(p, cwd)).map((p) => resolvePackagePattern(p, cwd, tags)),
  );
  const roots = paths.filter((p) => !isPackagePattern(p, cwd)).map((p) => resolve(cwd, p));
  for (const path of roots) {
    if (!existsSync(path) || !statSync(path).isDirectory()) {
      throw new NoGoCodeError(
        `${path} is not a directory`,
        "Give collect a program directory, a tree of programs, a Go module root, or a package pattern as go " +
          "test takes them (./..., ./pkg/..., an import path).",
      );
    }
  }
  const filter = { tags, run: options.run, skip: options.skip, cgo: options.cgo };
  const selecting = options.run !== undefined || options.skip !== undefined;
  const scanned = [
    ...(await scanPackages(roots, filter)),
    // A pattern's packages are scanned one by one and named under the pattern's root.
    ...(await scanPackages([...new Set(patterns.flatMap((p) => p.dirs))], { ...filter, single: true })).flatMap((pkg) =>
      patterns.filter((p) => p.dirs.includes(pkg.dir)).map((p) => ({ ...pkg, root: p.root })),
    ),
  ];
  const groups = [...new Set([...roots, ...patterns.map((p) => p.root)])];
  for (const path of groups) {
    const packages = scanned
      .filter((pkg) => pkg.root === path)
      .filter((pkg, i, all) => all.findIndex((other) => other.dir === pkg.dir) === i);
    const prefix = options.namePrefix?.(path);
    const found = packages
      .flatMap((pkg) => programsOf(path, pkg, options.splitTests ?? false, warnings, prefix))
      .filter((program) => !selecting || program.kind === "test");
    if (found.length === 0) {
      if (selecting) {
        throw new UsageError(
          `no test or example under ${path} matches${options.run === undefined ? "" : ` --run ${options.run}`}` +
            (options.skip === undefined ? "" : ` --skip ${options.skip}`),
          "--run and --skip select top-level TestXxx and ExampleXxx functions as go test -run/-skip do " +
            "(unanchored Go regexps); `go test -list REGEX ./...` shows what a regexp selects.",
        );
      }
      const skipped = packages.find((pkg) => pkg.skipped !== undefined);
      if (skipped !== undefined)
        throw new NoGoCodeError(
          `no Go program under ${path} can be built: ${programName(path, skipped.dir)} was skipped`,
          `${skipped.skipped}.`,
        );
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
          "Program names are paths relative to the root given; collect the two roots separately with different " +
            "--db files, or pass their parent directory instead.",
        );
      }
      if (other !== undefined) continue; // the same package given twice (a directory and a pattern)
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

function programsOf(
  root: string,
  pkg: ScannedPackage,
  splitTests: boolean,
  warnings: string[],
  prefix: string | undefined,
): ProgramSpec[] {
  const relativeName = programName(root, pkg.dir);
  const base =
    prefix === undefined ? relativeName : relative(root, pkg.dir) === "" ? prefix : `${prefix}/${relativeName}`;
  if (pkg.skipped !== undefined) {
    warnings.push(`${base}: skipped: ${pkg.skipped}`);
    return [];
  }
  if (
    pkg.error !== undefined &&
    pkg.goFiles.length === 0 &&
    pkg.testGoFiles.length === 0 &&
    pkg.xTestGoFiles.length === 0
  ) {
    warnings.push(`${base}: skipped, the package cannot be read: ${pkg.error}`);
    return [];
  }
  const testFiles = [...pkg.testGoFiles, ...pkg.xTestGoFiles];
  const sourceHash = hashSources([...pkg.goFiles, ...testFiles]);
  const { manifest, problems } = readManifest(pkg.dir);
  if (problems.length > 0) warnings.push(`${base}: ${MANIFEST_FILE} ignored: ${problems.join("; ")}`);
  const common = {
    root,
    dir: pkg.dir,
    goFiles: pkg.goFiles,
    testFiles,
    sourceHash,
    manifest,
    manifestProblems: problems,
  };
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
