// Module sources: a `MODULE@VERSION` argument (with "/..." or a package path after the version)
// names a module of the Go module proxy. It is fetched with `go mod download -json` (the go
// command verifies its checksum against go.sum's database, GOSUMDB) and copied once per
// module@version into a writable directory under schedlab's cache, where it is tested.

import { execa } from "execa";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve, sep } from "node:path";
import { SchedlabError } from "../errors.js";
import { schedlabCacheDir } from "../gohelper/index.js";

/** A module source as given: `github.com/x/y@v1.2.3`, `…@v1.2.3/...`, `…@v1.2.3/sub/pkg` or `…@v1.2.3/sub/...`. */
export interface ModuleSource {
  /** The argument as given. */
  readonly arg: string;
  readonly module: string;
  readonly version: string;
  /** The package directory inside the module ("" for the module root); its packages below it are collected too. */
  readonly subdir: string;
  /** Package directories of the module to leave out (a corpus file's exclude_packages), with those below them. */
  readonly exclude?: readonly string[];
}

/** A module source fetched and prepared: the writable copy programs are discovered and built in. */
export interface FetchedModule extends ModuleSource {
  /** The directory of `subdir` in the copy: the root discovery walks. */
  readonly root: string;
  /** The copy of the whole module. */
  readonly copy: string;
  /** The name its programs are named under: "module@version", then "/subdir". */
  readonly label: string;
  /** What preparing the copy changed so that it builds as a main module (a synthesised go.mod, a dropped replace). */
  readonly notes: readonly string[];
}

/** A module could not be fetched from the proxy or prepared for building. */
export class ModuleFetchError extends SchedlabError {}

/**
 * Parses a module source argument, or null when `arg` is not one (a directory or a package
 * pattern). A module source is "path@version" where the path's first element has a dot (as
 * every module path outside the standard library has) and the version starts with "v". Pure.
 *
 * @example parseModuleSource("github.com/oklog/run@v1.2.0/...") // => { module: "github.com/oklog/run", version: "v1.2.0", subdir: "" }
 */
export function parseModuleSource(arg: string): ModuleSource | null {
  const match = /^([^@\s]+)@(v[^/\s]+)(\/.*)?$/.exec(arg);
  if (match === null) return null;
  const [, module = "", version = "", rest = ""] = match;
  if (!module.split("/")[0]!.includes(".") || module.startsWith(".") || module.startsWith("/")) return null;
  const subdir = rest
    .replace(/^\//, "")
    .replace(/(^|\/)\.\.\.$/, "")
    .replace(/\/$/, "");
  return { arg, module, version, subdir };
}

/** The name a module's programs are named under: "module@version" and the subdirectory given. */
export function moduleLabel(source: Pick<ModuleSource, "module" | "version" | "subdir">): string {
  return source.subdir === ""
    ? `${source.module}@${source.version}`
    : `${source.module}@${source.version}/${source.subdir}`;
}

/** Where prepared copies live: one directory per module@version under schedlab's cache. */
export function moduleCopiesDir(): string {
  return join(schedlabCacheDir(), "modules");
}

/** What `go mod download -json` prints for one module. */
interface Download {
  readonly Dir?: string;
  readonly GoMod?: string;
  readonly Version?: string;
  readonly Error?: string;
}

/** The record a finished copy carries; a copy without it was interrupted and is made again. */
const PREPARED_FILE = ".schedlab-module.json";

/**
 * Fetches `source` through the Go module proxy and returns its writable copy, made once per
 * module@version (later calls reuse it). Preparing the copy does what the go command needs
 * to test a downloaded module as its main module: a module without go.mod gets the go.mod
 * the go command synthesised for it; a `replace` pointing at a folder the module zip lacks
 * is dropped, as the go command ignores a dependency's replaces; then `go mod tidy` fills
 * go.sum. Throws ModuleFetchError with the go command's reason. Processes preparing the same
 * module at once (shards on one machine) each build their own and the first one's is kept.
 */
export async function fetchModule(
  source: ModuleSource,
  env: Readonly<Record<string, string>> = {},
): Promise<FetchedModule> {
  const copy = join(moduleCopiesDir(), `${source.module}@${source.version}`);
  const goEnv = { ...process.env, ...env, GOFLAGS: "-mod=mod", GOWORK: "off" };
  if (!existsSync(join(copy, PREPARED_FILE))) await prepareCopy(source, copy, goEnv);
  const notes = (JSON.parse(readFileSync(join(copy, PREPARED_FILE), "utf8")) as { notes: string[] }).notes;
  const root = source.subdir === "" ? copy : join(copy, source.subdir);
  if (!existsSync(root))
    throw new ModuleFetchError(
      `${source.arg}: the module ${source.module}@${source.version} has no directory ${source.subdir}`,
      "Give a package path of the module after the version (…@v1.2.3/sub/pkg), or /... for all its packages.",
    );
  return { ...source, root, copy, label: moduleLabel(source), notes };
}

async function prepareCopy(source: ModuleSource, copy: string, env: NodeJS.ProcessEnv): Promise<void> {
  const at = `${source.module}@${source.version}`;
  const download = await execa("go", ["mod", "download", "-json", at], { cwd: tmpdir(), env, reject: false });
  const info = downloadOf(download.stdout, download.stderr);
  if (info.Error !== undefined || info.Dir === undefined || download.exitCode !== 0) {
    throw new ModuleFetchError(
      `${at} cannot be fetched: ${oneLine(info.Error ?? download.stderr)}`,
      "Check the module path and version (`go list -m -versions MODULE` lists the versions the proxy serves) " +
        "and that GOPROXY reaches a module proxy.",
    );
  }
  // Built beside its final place and renamed, so an interrupted preparation leaves no half copy.
  const building = `${copy}.partial-${process.pid}`;
  try {
    const notes = await prepareIn(building, info, env, at);
    writeFileSync(
      join(building, PREPARED_FILE),
      `${JSON.stringify({ module: source.module, version: info.Version, notes })}\n`,
    );
    // Another process (a shard of the same array) may have finished the same copy meanwhile, and
    // may be building in it: keep its copy, never replace it. A copy without its record was interrupted.
    if (existsSync(copy) && !existsSync(join(copy, PREPARED_FILE))) rmSync(copy, { recursive: true, force: true });
    renameSync(building, copy);
  } catch (error) {
    rmSync(building, { recursive: true, force: true });
    if (!existsSync(join(copy, PREPARED_FILE))) throw error;
  }
}

/** Copies the downloaded module to `building`, writable, and makes it build as a main module; returns what it changed. */
async function prepareIn(building: string, info: Download, env: NodeJS.ProcessEnv, at: string): Promise<string[]> {
  const notes: string[] = [];
  rmSync(building, { recursive: true, force: true });
  mkdirSync(resolve(building, ".."), { recursive: true });
  cpSync(info.Dir ?? "", building, { recursive: true });
  makeWritable(building);
  const goMod = join(building, "go.mod");
  if (!existsSync(goMod)) {
    // The go command synthesises "module PATH" for a module without go.mod; testing it needs the file.
    writeFileSync(goMod, readFileSync(info.GoMod ?? "", "utf8"));
    notes.push(
      "no go.mod in the module zip: the go.mod the go command synthesised was written, go.sum made by go mod tidy",
    );
  }
  for (const replace of await localReplaces(building, env)) {
    if (existsSync(resolve(building, replace.path))) continue;
    await goIn(building, ["mod", "edit", `-dropreplace=${replace.old}`], env, at);
    notes.push(
      `go.mod replaces ${replace.old} with ${replace.path}, a folder the module zip lacks: the replace was dropped, ` +
        "as the go command ignores a dependency's replaces",
    );
  }
  await goIn(building, ["mod", "tidy"], env, at);
  return notes;
}

/** What `go mod download -json` printed, or its error output when it printed no JSON. */
function downloadOf(stdout: string, stderr: string): Download {
  try {
    return JSON.parse(stdout) as Download;
  } catch {
    return { Error: stderr };
  }
}

/** The replaces of the copy's go.mod whose target is a directory (a path, not a module version). */
async function localReplaces(dir: string, env: NodeJS.ProcessEnv): Promise<{ old: string; path: string }[]> {
  const edit = await execa("go", ["mod", "edit", "-json"], { cwd: dir, env, reject: false });
  if (edit.exitCode !== 0) return [];
  const parsed = JSON.parse(edit.stdout) as {
    Replace?: { Old: { Path: string; Version?: string }; New: { Path: string; Version?: string } }[];
  };
  return (parsed.Replace ?? [])
    .filter((r) => r.New.Version === undefined)
    .map((r) => ({
      old: r.Old.Version === undefined ? r.Old.Path : `${r.Old.Path}@${r.Old.Version}`,
      path: r.New.Path,
    }));
}

async function goIn(dir: string, args: string[], env: NodeJS.ProcessEnv, at: string): Promise<void> {
  const result = await execa("go", args, { cwd: dir, env, reject: false });
  if (result.exitCode === 0) return;
  throw new ModuleFetchError(
    `${at} cannot be prepared for testing: go ${args.join(" ")}: ${oneLine(result.stderr.split("\n").slice(0, 3).join("\n"))}`,
    "The module's requirements must be served by the module proxy; collect another version, or a local checkout.",
  );
}

/** The go command's message as one line (it indents a proxy's response on its own line). */
function oneLine(message: string): string {
  return message
    .trim()
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .join("; ");
}

/** The module cache is read-only (files 0444, folders 0555); the copy is written to by builds and go mod tidy. */
function makeWritable(dir: string): void {
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) makeWritable(path);
    else if (entry.isFile()) chmodSync(path, 0o644);
  }
}

/** The sources of a collect: local paths as given, and the module sources fetched, by the root they are discovered under. */
export interface ResolvedSources {
  /** Directories and package patterns for discovery (a module source becomes its copy's directory). */
  readonly paths: readonly string[];
  readonly modules: ReadonlyMap<string, FetchedModule>;
  /** Module sources of a corpus file that could not be fetched, each with why; they are skipped. */
  readonly skipped: readonly string[];
}

/**
 * Fetches the module sources among `args` (a module that cannot be fetched is an error: it
 * was asked for by name) and those of a corpus file (`listed`: one that cannot be fetched is
 * skipped and said why); other arguments are kept as they are.
 */
export async function resolveSources(
  args: readonly string[],
  listed: readonly ModuleSource[] = [],
  env: Readonly<Record<string, string>> = {},
): Promise<ResolvedSources> {
  const paths: string[] = [];
  const modules = new Map<string, FetchedModule>();
  const skipped: string[] = [];
  for (const arg of args) {
    const source = parseModuleSource(arg);
    if (source === null) {
      paths.push(arg);
      continue;
    }
    const fetched = await fetchModule(source, env);
    paths.push(fetched.root);
    modules.set(fetched.root, fetched);
  }
  for (const source of listed) {
    try {
      const fetched = await fetchModule(source, env);
      paths.push(fetched.root);
      modules.set(fetched.root, fetched);
    } catch (error) {
      if (!(error instanceof ModuleFetchError)) throw error;
      skipped.push(`${source.arg}: skipped: ${error.message}`);
    }
  }
  return { paths, modules, skipped };
}

/** Whether a package directory is one a module source leaves out (its exclude list, or below one of them). */
export function excludedByModule(module: FetchedModule, dir: string): boolean {
  const rel = relative(module.copy, dir).split(sep).join("/");
  return (module.exclude ?? []).some((e) => rel === e || rel.startsWith(`${e}/`));
}
