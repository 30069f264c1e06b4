// The goroutine model's edge to the source: runs `gohelper wait-sites` over a package's
// files (its blocking channel operations, and whether a timer or a context can end each)
// and finds the operation at a trace's blocking site, the leak rule's WaitSource. Sites
// are read once per (dir, files).

import { execaSync } from "execa";
import { existsSync, readdirSync } from "node:fs";
import { basename, dirname, resolve, sep } from "node:path";
import { goHelperPath } from "../gohelper/index.js";
import type { RuleOptions } from "./leak-rule.js";

/** One communication case of a select. `line` is its `case` keyword's line. */
export interface WaitCase {
  readonly line: number;
  readonly op: "recv" | "send";
  /** Source text of the channel expression, e.g. "t.C", "ctx.Done()", "time.After(d)". */
  readonly operand: string;
  /** A timer will send on it: time.After/time.Tick, a timer's or ticker's C, or a variable or field assigned from one. */
  readonly timed: boolean;
  /** An X.Done() channel (a context, or anything with Done()), or a variable or field assigned from one. */
  readonly context: boolean;
}

export type WaitSiteKind = "select" | "recv" | "send" | "range";

/**
 * One blocking channel operation. `line` is the line the Go execution tracer reports as
 * the top user frame of a goroutine blocked there (src/gohelper/waitsites.go states the
 * rules, checked on Go 1.26 traces): the `select` keyword for a select of 0 or ≥ 2 cases;
 * the `<-` of a receive, or the `:=`/`=` of a comma-ok receive; a send's arrow; the
 * `range` keyword of a range over a channel; a one-case select is its case's operation.
 */
export interface WaitSite {
  /** Base name of the file. */
  readonly file: string;
  /** Absolute path of the file. */
  readonly path: string;
  /** The file's package clause, e.g. "main", "pool", "pool_test". */
  readonly package: string;
  /** The enclosing declaration as the tracer names it without its package (F, T.M, (*T).M); "" at package level. */
  readonly function: string;
  readonly line: number;
  readonly column: number;
  readonly kind: WaitSiteKind;
  /** False only for a select with a default case, which never blocks. */
  readonly blocking: boolean;
  /** A select: any case is timed; else: the operand is. */
  readonly timed: boolean;
  /** A select: any case is a Done() channel; else: the operand is. */
  readonly context: boolean;
  /** The communication cases of a select (default not listed); [] for the other kinds. */
  readonly cases: readonly WaitCase[];
}

export interface WaitSiteIndex {
  readonly sites: readonly WaitSite[];
  /** Files skipped because they could not be read or parsed, with the parser's message. */
  readonly errors: readonly string[];
  /** Sites by "base name:line", in column order. */
  readonly byLine: ReadonlyMap<string, readonly WaitSite[]>;
}

const EMPTY_INDEX: WaitSiteIndex = { sites: [], errors: [], byLine: new Map() };

const cache = new Map<string, WaitSiteIndex>();

/**
 * The wait sites of `files` (paths relative to `dir`, or absolute), read by the helper at
 * `helper` (from `goHelperPath()`). Synchronous so it can be called where sources are read
 * during analysis. Files that do not parse are skipped; a helper that fails gives an empty
 * index: never an exception. Cached per (dir, files, helper) for the life of the process.
 */
export function waitSites(dir: string, files: readonly string[], helper: string): WaitSiteIndex {
  const paths = files.map((f) => resolve(dir, f));
  const key = JSON.stringify([helper, resolve(dir), paths]);
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  let index = EMPTY_INDEX;
  if (paths.length > 0) {
    try {
      const result = execaSync(helper, ["wait-sites", ...paths], { reject: false, timeout: 60_000, maxBuffer: 256 * 1024 * 1024 });
      if (result.exitCode === 0) index = parseWaitSites(result.stdout);
    } catch {
      index = EMPTY_INDEX;
    }
  }
  cache.set(key, index);
  return index;
}

/** waitSites with the helper built (or found in its cache) first. */
export async function loadWaitSites(dir: string, files: readonly string[]): Promise<WaitSiteIndex> {
  return waitSites(dir, files, await goHelperPath());
}

/** Parses the helper's JSON; anything malformed gives the empty index. */
export function parseWaitSites(json: string): WaitSiteIndex {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return EMPTY_INDEX;
  }
  if (!isRecord(value) || !Array.isArray(value.sites)) return EMPTY_INDEX;
  const sites = value.sites.filter(isWaitSite);
  const errors = Array.isArray(value.errors) ? value.errors.filter((e): e is string => typeof e === "string") : [];
  const byLine = new Map<string, WaitSite[]>();
  for (const site of sites) {
    const key = `${site.file}:${String(site.line)}`;
    const list = byLine.get(key) ?? [];
    list.push(site);
    byLine.set(key, list);
  }
  for (const list of byLine.values()) list.sort((a, b) => (a.path === b.path ? a.column - b.column : a.path < b.path ? -1 : 1));
  return { sites, errors, byLine };
}

/** Kinds that block with a given GoBlock reason; a one-case select blocks as its case's operation. */
function kindsOfReason(reason: string): readonly WaitSiteKind[] | null {
  switch (reason) {
    case "select":
      return ["select"];
    case "chan receive":
      return ["recv", "range", "select"];
    case "chan send":
      return ["send", "select"];
    default:
      return null;
  }
}

/**
 * The wait site at a trace's blocking site, "function file:line" (the file a base name or
 * a path; "file:line" alone is accepted too), or null when the index has none there.
 * Matched by base name and line; when files of several directories share the base name,
 * the one whose directory and package fit the function's package path (and whose
 * declaration fits the function) wins, and a tie is null. `reason`, the GoBlock reason,
 * picks among several operations on one line (`ch <- <-in`: "chan receive" is the receive);
 * without it, or if it rules all out, the first in column order is returned.
 */
export function waitSiteAt(index: WaitSiteIndex, site: string, reason?: string): WaitSite | null {
  const m = /^(?:(.*\S)\s+)?(\S+\.go):(\d+)$/.exec(site.trim());
  if (m === null) return null;
  const fn = m[1] ?? null;
  const candidates = index.byLine.get(`${basename(m[2])}:${m[3]}`);
  if (candidates === undefined) return null;
  const paths = [...new Set(candidates.map((c) => c.path))];
  let inFile = candidates;
  if (paths.length > 1) {
    if (fn === null) return null;
    const scored = paths.map((path) => ({ path, score: packageFit(fn, path, candidates.filter((c) => c.path === path)) }));
    const best = Math.max(...scored.map((s) => s.score));
    const winners = scored.filter((s) => s.score === best);
    if (winners.length !== 1) return null;
    inFile = candidates.filter((c) => c.path === winners[0].path);
  }
  const kinds = reason === undefined ? null : kindsOfReason(reason);
  const fitting = kinds === null ? inFile : inFile.filter((c) => kinds.includes(c.kind));
  return fitting[0] ?? inFile[0] ?? null;
}

/**
 * How well a file fits a traced function name such as "example.com/x/pool.(*Pool).Go.func1":
 * trailing directory names equal to the package path's last elements (2 each), the
 * package clause equal to its last element (1), a declaration the function is or is nested in (1).
 */
function packageFit(fn: string, path: string, inFile: readonly WaitSite[]): number {
  const slash = fn.lastIndexOf("/");
  const dot = fn.indexOf(".", slash + 1);
  const pkgPath = dot < 0 ? fn : fn.slice(0, dot);
  const rest = dot < 0 ? "" : fn.slice(dot + 1);
  const pkgParts = pkgPath.split("/").filter((p) => p !== "" && p !== "." && p !== "..");
  const dirParts = dirname(path).split(sep).filter((p) => p !== "");
  let score = 0;
  for (let i = 1; i <= Math.min(pkgParts.length, dirParts.length); i++) {
    const pkg = pkgParts[pkgParts.length - i];
    if (pkg !== dirParts[dirParts.length - i] && pkg !== `${dirParts[dirParts.length - i]}_test`) break;
    score += 2;
  }
  if (pkgParts.length > 0 && inFile.some((s) => s.package === pkgParts[pkgParts.length - 1])) score += 1;
  if (inFile.some((s) => s.function !== "" && (rest === s.function || rest.startsWith(`${s.function}.`)))) score += 1;
  return score;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

function isWaitCase(value: unknown): value is WaitCase {
  return (
    isRecord(value) &&
    typeof value.line === "number" &&
    (value.op === "recv" || value.op === "send") &&
    typeof value.operand === "string" &&
    typeof value.timed === "boolean" &&
    typeof value.context === "boolean"
  );
}

function isWaitSite(value: unknown): value is WaitSite {
  return (
    isRecord(value) &&
    typeof value.file === "string" &&
    typeof value.path === "string" &&
    typeof value.package === "string" &&
    typeof value.function === "string" &&
    typeof value.line === "number" &&
    typeof value.column === "number" &&
    (value.kind === "select" || value.kind === "recv" || value.kind === "send" || value.kind === "range") &&
    typeof value.blocking === "boolean" &&
    typeof value.timed === "boolean" &&
    typeof value.context === "boolean" &&
    Array.isArray(value.cases) &&
    value.cases.every(isWaitCase)
  );
}

/**
 * What a program's source says each blocking site can be ended by (a timer, a context),
 * from the Go files of its directory; undefined when sources are not read (no helper) or
 * the directory is gone.
 */
export function waitSourceOf(dir: string, helper: string | null): RuleOptions["waitSourceAt"] {
  if (helper === null || !existsSync(dir)) return undefined;
  const index = waitSites(dir, readdirSync(dir).filter((f) => f.endsWith(".go")), helper);
  return (reason, site) => {
    const wait = site === null ? null : waitSiteAt(index, site, reason);
    return wait === null ? null : { timer: wait.timed, context: wait.context };
  };
}
