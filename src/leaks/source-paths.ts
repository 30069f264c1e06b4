// Where a finding's sites are in the user's repository. A site names a function with its
// package path and a base file name ("example.com/m/pool.(*Pool).Get pool.go:12"); the
// program's directory (programs.dir), the go.mod above it and the root collect was given
// say which directory holds that file. Paths come out relative to the repository root, as
// code scanning and workflow annotations want them (docs/ci.md, "Paths"). Reads go.mod
// files and checks that files exist; everything else is string work.

import { execaSync } from "execa";
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { ProgramKind } from "../core/index.js";
import { parseFrame } from "../model/index.js";

/** A program as the resolver needs it (the programs table). */
export interface ProgramSource {
  readonly name: string;
  readonly kind: ProgramKind;
  /** Its package directory, absolute. */
  readonly dir: string;
  /** The root collect was given. */
  readonly root: string;
  /** The test function of a split test (--split-tests), else null. */
  readonly testName: string | null;
}

/** A place in the repository. */
export interface SourceLocation {
  /** "/"-separated path relative to the repository root; absolute when the file is outside it. */
  readonly path: string;
  readonly inRepository: boolean;
  readonly line: number;
  /** The function, with its package path; "" when unknown. */
  readonly function: string;
}

export interface SourceResolver {
  readonly repoRoot: string;
  /** A "function file:line" site of `program`; null when no directory it can name holds that file. */
  site(program: string, site: string | null): SourceLocation | null;
  /** Where `func name(` is declared among the program's own .go files; null when not found. */
  declaration(program: string, name: string): SourceLocation | null;
  /** A file of the program's own directory and a line ("pool_test.go:27" of a failure message). */
  fileLine(program: string, file: string, line: number): SourceLocation | null;
}

/**
 * The repository root a run reports against: the git toplevel of `cwd`, else `cwd` itself
 * (a tree that is not a git checkout, or no git installed).
 */
export function defaultRepoRoot(cwd: string = process.cwd()): string {
  try {
    const result = execaSync("git", ["rev-parse", "--show-toplevel"], { cwd, reject: false, stdin: "ignore" });
    const top = typeof result.stdout === "string" ? result.stdout.trim() : "";
    if (result.exitCode === 0 && top !== "") return top;
  } catch {
    // git is not installed: fall through to the working directory.
  }
  return resolve(cwd);
}

/** The package path of a Go symbol: up to the first "." after its last "/" ("example.com/m/pool.(*Pool).Get" → "example.com/m/pool"). */
export function packageOf(fn: string): string {
  const slash = fn.lastIndexOf("/");
  const dot = fn.indexOf(".", slash + 1);
  return dot < 0 ? fn : fn.slice(0, dot);
}

interface Module {
  readonly path: string;
  readonly dir: string;
}

const MODULE_LINE = /^\s*module\s+("?)([^"\s]+)\1\s*$/m;

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/**
 * The resolver for `programs`, with paths relative to `repoRoot`. A site's file is looked
 * for, in order, in: the program's directory when the package is main or the program's own;
 * the directory its package path names inside the module whose go.mod is nearest above the
 * program; the directory it names below collect's root (packages outside any module are
 * named relative to it); the program's directory. The first that holds the file wins.
 */
export function sourceResolver(programs: readonly ProgramSource[], repoRoot: string): SourceResolver {
  const root = canonical(repoRoot);
  const byName = new Map(programs.map((p) => [p.name, p]));
  const modules = new Map<string, Module | null>();
  const moduleOf = (dir: string): Module | null => {
    const cached = modules.get(dir);
    if (cached !== undefined) return cached;
    let found: Module | null = null;
    const mod = join(dir, "go.mod");
    if (existsSync(mod)) {
      const path = MODULE_LINE.exec(readFileSync(mod, "utf8"))?.[2];
      found = path === undefined ? null : { path, dir };
    } else if (dirname(dir) !== dir) {
      found = moduleOf(dirname(dir));
    }
    modules.set(dir, found);
    return found;
  };
  const locate = (abs: string, line: number, fn: string): SourceLocation => {
    const real = canonical(abs);
    const rel = relative(root, real);
    const inRepository = rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
    return { path: inRepository ? rel.split(sep).join("/") : real, inRepository, line, function: fn };
  };
  const directoriesFor = (program: ProgramSource, fn: string): string[] => {
    const dirs: string[] = [];
    const pkg = packageOf(fn).replace(/_test$/, "");
    if (pkg === "main" || pkg === "") dirs.push(program.dir);
    const mod = moduleOf(program.dir);
    if (mod !== null && (pkg === mod.path || pkg.startsWith(`${mod.path}/`)))
      dirs.push(join(mod.dir, pkg.slice(mod.path.length)));
    if (pkg !== "" && !pkg.includes(".."))
      dirs.push(pkg === basename(program.root) ? program.root : join(program.root, pkg));
    dirs.push(program.dir);
    return dirs;
  };
  return {
    repoRoot: root,
    site(name, site) {
      const program = byName.get(name);
      const frame = site === null ? null : parseFrame(site);
      if (program === undefined || frame === null) return null;
      const file = basename(frame.file);
      const dir = directoriesFor(program, frame.function).find((d) => existsSync(join(d, file)));
      return dir === undefined ? null : locate(join(dir, file), frame.line, frame.function);
    },
    declaration(name, fn) {
      const program = byName.get(name);
      if (program === undefined || !existsSync(program.dir)) return null;
      const declared = new RegExp(`^func ${fn.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\(`, "m");
      for (const file of readdirSync(program.dir)
        .filter((f) => f.endsWith(".go"))
        .sort()) {
        const text = readFileSync(join(program.dir, file), "utf8");
        const match = declared.exec(text);
        if (match !== null) return locate(join(program.dir, file), text.slice(0, match.index).split("\n").length, fn);
      }
      return null;
    },
    fileLine(name, file, line) {
      const program = byName.get(name);
      if (program === undefined) return null;
      const abs = join(program.dir, basename(file));
      return existsSync(abs) ? locate(abs, line, "") : null;
    },
  };
}
