// The goroutine model's edge to the source: runs `gohelper wait-sites` over a package's
// files (its blocking channel operations, whether a timer or a context can end each, every
// channel operation with its channel's class, and the calls that pass channels) and finds
// the operation at a trace's blocking site, the leak rule's WaitSource, and the goroutines
// whose code could complete it, resolving parameters through their stacks (wakersInSource).
// Sites are read once per (dir, files).

import { execaSync } from "execa";
import { existsSync, readdirSync } from "node:fs";
import { basename, dirname, resolve, sep } from "node:path";
import { goHelperPath } from "../gohelper/index.js";
import type { SourceWakers } from "./explain.js";
import type { RuleOptions } from "./leak-rule.js";
import { parseFrame } from "./waits.js";

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
  /** A channel given to signal.Notify, or a variable or field assigned from one. */
  readonly signal: boolean;
  /** The class of the channel (see ChannelOp.channel); null when the operand is not a variable or field (time.After(d), ctx.Done()). */
  readonly channel: string | null;
  /** Its merged class (ChannelOp.merged). */
  readonly merged: string | null;
  /** The local parameter it is (ChannelOp.param). */
  readonly param: ParamRef | null;
}

export type WaitSiteKind = "select" | "recv" | "send" | "range";

/**
 * One blocking channel operation. `line` is the line the Go execution tracer reports as
 * the top user frame of a goroutine blocked there (src/gohelper/scan/waitsites.go states the
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
  /** A select: any case is a channel given to signal.Notify; else: the operand is. */
  readonly signal: boolean;
  /** The communication cases of a select (default not listed); [] for the other kinds. */
  readonly cases: readonly WaitCase[];
  /** The distinct classes of its operand, or of a select's cases in case order (each case's own is `channel`). */
  readonly channels: readonly string[];
  /** The same, with the merged classes (ChannelOp.merged). */
  readonly merged: readonly string[];
  /** The local parameter a plain operation's operand is (ChannelOp.param); null for a select (its cases carry their own) and otherwise. */
  readonly param: ParamRef | null;
}

/** A parameter: its function (FunctionRange.id) and its index among the parameters (the receiver not counted). */
export interface ParamRef {
  readonly funcId: string;
  readonly index: number;
}

export type ChannelOpKind = "send" | "recv" | "close";

/**
 * One channel operation anywhere in the package (send, receive — a select's cases and a
 * range over a channel included —, close).
 *
 * `channel` is its channel's class: the helper joins, without regard to control flow,
 * every variable, parameter, result and struct field of the package that can hold the same
 * channel (assignments, struct literals, returns, slices of channels, and the arguments of
 * calls of same-package functions, methods and literals with the parameters that leave
 * their function; src/gohelper/scan/chanflow.go), and names the class after its first-declared
 * member, "name@file.go:line". Null when the operand is not a variable or field (a call
 * such as time.After(d) or ctx.Done()).
 *
 * A parameter that stays in its function (its class holds no other parameter, nothing but
 * its function's locals) is not joined with its arguments: `param` names it, and which
 * channel it is depends on the call, given by the call site (CallSite) the goroutine's
 * stack passed through. `merged` is the class with every parameter joined with its
 * arguments (context-insensitive: one function started on several channels joins them
 * all), the answer when no stack says.
 */
export interface ChannelOp {
  readonly channel: string | null;
  readonly merged: string | null;
  readonly param: ParamRef | null;
  readonly op: ChannelOpKind;
  /** Base name of the file. */
  readonly file: string;
  readonly path: string;
  /** The enclosing declaration, as WaitSite.function. */
  readonly function: string;
  /** Where the tracer reports a goroutine parked at it (WaitSite.line's rules): a select's cases at the select's line. */
  readonly line: number;
  readonly column: number;
  /** Lines of the innermost enclosing function declaration or literal. */
  readonly funcStart: number;
  readonly funcEnd: number;
}

/** A function declaration or literal: its lines from `func` to the closing brace. */
export interface FunctionRange {
  /** "F@file.go:line:column" of its func keyword, a literal "F.func@…" (F its enclosing declaration): what ParamRef and CallSite name. */
  readonly id: string;
  readonly file: string;
  readonly path: string;
  /** The enclosing declaration, as WaitSite.function. */
  readonly function: string;
  readonly start: number;
  readonly end: number;
}

/** An argument of a call site, for one channel-holding parameter. */
export interface CallArg {
  readonly index: number;
  /** The classes of what it holds; [] for a fresh channel (make(chan T)) or one no variable or field names. */
  readonly channels: readonly string[];
  /** The caller's local parameter it is (then `channels` is []). */
  readonly param: ParamRef | null;
}

/**
 * A call of a same-package function, method or literal with channel-holding parameters: a
 * call expression, or a go or defer statement. `line` is the go or defer keyword's, else
 * the call's left parenthesis's: the line the tracer reports for the created goroutine's
 * creation site, or for the caller's frame while the call runs.
 */
export interface CallSite {
  /** Base name of the file. */
  readonly file: string;
  readonly path: string;
  readonly line: number;
  readonly column: number;
  readonly kind: "call" | "go" | "defer";
  /** FunctionRange.id of the callee. */
  readonly callee: string;
  /** FunctionRange.id of the innermost function holding the call; "" at package level. */
  readonly caller: string;
  /** One per channel-holding, non-variadic parameter, in order; an argument that cannot be resolved (`[]chan T{p, c}` with p a parameter) is left out. */
  readonly args: readonly CallArg[];
}

export interface WaitSiteIndex {
  readonly sites: readonly WaitSite[];
  /** Files skipped because they could not be read or parsed, with the parser's message. */
  readonly errors: readonly string[];
  /** Sites by "base name:line", in column order. */
  readonly byLine: ReadonlyMap<string, readonly WaitSite[]>;
  /** Every channel operation, in source order. */
  readonly ops: readonly ChannelOp[];
  /** Operations by channel class (of every directory indexed: compare paths too). */
  readonly opsByChannel: ReadonlyMap<string, readonly ChannelOp[]>;
  /** Operations by merged class (of every directory indexed: compare paths too). */
  readonly opsByMerged: ReadonlyMap<string, readonly ChannelOp[]>;
  /** Every function declaration and literal, in source order. */
  readonly functions: readonly FunctionRange[];
  /** Every call that passes channels to a same-package function, in source order. */
  readonly calls: readonly CallSite[];
}

const EMPTY_INDEX: WaitSiteIndex = {
  sites: [],
  errors: [],
  byLine: new Map(),
  ops: [],
  opsByChannel: new Map(),
  opsByMerged: new Map(),
  functions: [],
  calls: [],
};

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
      const result = execaSync(helper, ["wait-sites", ...paths], {
        reject: false,
        timeout: 60_000,
        maxBuffer: 256 * 1024 * 1024,
      });
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
  for (const list of byLine.values())
    list.sort((a, b) => (a.path === b.path ? a.column - b.column : a.path < b.path ? -1 : 1));
  const ops = Array.isArray(value.ops) ? value.ops.filter(isChannelOp) : [];
  const opsByChannel = groupBy(ops, (op) => op.channel);
  const opsByMerged = groupBy(ops, (op) => op.merged);
  const functions = Array.isArray(value.funcs) ? value.funcs.filter(isFunctionRange) : [];
  const calls = Array.isArray(value.calls) ? value.calls.filter(isCallSite) : [];
  return { sites, errors, byLine, ops, opsByChannel, opsByMerged, functions, calls };
}

/** `items` by their non-null key, in order. */
function groupBy<T>(items: readonly T[], keyOf: (item: T) => string | null): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    if (key === null) continue;
    const list = out.get(key) ?? [];
    list.push(item);
    out.set(key, list);
  }
  return out;
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
  return sitesAt(index, site, reason)[0] ?? null;
}

/** The sites of one file at a blocking site, those fitting `reason` first (all of them when none fits); waitSiteAt's rules. */
function sitesAt(index: WaitSiteIndex, site: string, reason?: string): readonly WaitSite[] {
  const m = /^(?:(.*\S)\s+)?(\S+\.go):(\d+)$/.exec(site.trim());
  if (m === null) return [];
  const fn = m[1] ?? null;
  const candidates = index.byLine.get(`${basename(m[2])}:${m[3]}`);
  if (candidates === undefined) return [];
  const paths = [...new Set(candidates.map((c) => c.path))];
  let inFile = candidates;
  if (paths.length > 1) {
    if (fn === null) return [];
    const scored = paths.map((path) => ({
      path,
      score: packageFit(
        fn,
        path,
        candidates.filter((c) => c.path === path),
      ),
    }));
    const best = Math.max(...scored.map((s) => s.score));
    const winners = scored.filter((s) => s.score === best);
    if (winners.length !== 1) return [];
    inFile = candidates.filter((c) => c.path === winners[0].path);
  }
  const kinds = reason === undefined ? null : kindsOfReason(reason);
  const fitting = kinds === null ? inFile : inFile.filter((c) => kinds.includes(c.kind));
  return fitting.length > 0 ? fitting : inFile;
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
  const dirParts = dirname(path)
    .split(sep)
    .filter((p) => p !== "");
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

/** A place in the source: a frame or a goroutine's creation site (file: base name or path). */
export interface SourceLine {
  readonly file: string;
  readonly line: number;
}

/** Where a goroutine is parked: the top user frame of its block, with its function and block reason when known. */
export interface BlockedAt {
  /** Base name or path. */
  readonly file: string;
  readonly line: number;
  /** The traced function ("pkg/path.F.func1"): picks the file when files of several directories share the base name. */
  readonly function?: string;
  /** The GoBlock reason or the precise wait ("chan receive", "chan send", "select", "nil chan send", …). */
  readonly reason?: string;
  /** Its user frames, innermost first, the first the blocking site (a GoBlock's stack); default: the blocking site alone. */
  readonly frames?: readonly SourceLine[];
  /**
   * Callers pass the goroutine's creation site here: the site of the `go` statement that
   * started it (its GoCreate's site, the goroutines table's creation_site). A goroutine's
   * stack starts at its entry function, so this is the call site of its outermost frame.
   */
  readonly creationSite?: SourceLine;
}

/**
 * A goroutine that could be the waker: its user frames, innermost first (file: base name
 * or path), and its creation site: callers pass the site of the `go` statement that started
 * it (its GoCreate's site, the goroutines table's creation_site), the call site of its
 * outermost frame, since a goroutine's stack starts at its entry function.
 */
export interface WakerCandidate {
  readonly id: string;
  readonly frames: readonly SourceLine[];
  readonly creationSite?: SourceLine;
}

/** Waits no operation can ever complete: on a nil channel, or a select with no usable case. */
const NEVER_COMPLETED: ReadonlySet<string> = new Set([
  "nil chan send",
  "nil chan receive",
  "select {}",
  "select on nil channels",
]);

/** A channel operand as the helper classes it. */
interface Operand {
  readonly channel: string | null;
  readonly merged: string | null;
  readonly param: ParamRef | null;
}

/**
 * The channel an operation uses in one goroutine: its merged class, and the classes it can
 * be (`exact`), or null when its parameter could not be resolved through the stack.
 */
interface ChannelIdentity {
  readonly merged: string;
  readonly exact: readonly string[] | null;
}

/** One channel operation a wait is parked in (a plain operation's, or one case of a select), resolved in the blocked goroutine. */
interface Waiting {
  readonly op: "recv" | "send";
  readonly identity: ChannelIdentity;
}

/** A goroutine's user frames, innermost first, and its creation site. */
interface Stack {
  readonly frames: readonly SourceLine[];
  readonly creationSite?: SourceLine;
}

/** The functions and call sites of the blocked site's directory. */
interface Scope {
  readonly functions: readonly FunctionRange[];
  readonly functionById: ReadonlyMap<string, FunctionRange>;
  /** Calls by "base name:line". */
  readonly callsAt: ReadonlyMap<string, readonly CallSite[]>;
  readonly defers: readonly CallSite[];
}

/**
 * Which candidates' code could complete the wait parked at `blockedAt`, by the source alone:
 * for waits that no run ever saw completed (a ring A ← B ← C ← A where each
 * sends only after it received). Pure; returns the ids of `candidates` in their order.
 *
 * The rule. The wait's operations are those of the wait site at `blockedAt` (of the sites
 * there fitting `reason`, all of them without one): a receive or a range is completed by
 * a send or close on the same channel, a send by a receive, a select by any operation
 * completing one of its cases. A candidate is a waker when one of its frames lies in a
 * function (the narrowest declaration or literal of that file and line, in the blocked
 * site's directory) that contains such an operation — except, at its innermost frame, where
 * it is parked, an operation on exactly that line on the channel and in the direction (close
 * counts as send) of one of the blocked wait's own operations: a goroutine parked there
 * waits as the blocked one does (the same select in another instance of the same loop),
 * it does not complete it.
 *
 * The same channel. Operations on variables and fields compare their classes
 * (ChannelOp.channel). An operation on a parameter of its function (ChannelOp.param) is
 * resolved in its own goroutine: from the frame holding it outward to the parameter's
 * function's frame (through literals nested in it, called directly), the call site at the
 * next frame's line calling that function (at the outermost frame: the `go` statement at
 * the goroutine's creation site; a deferred call: the defer statements of the caller's
 * function calling it) gives the argument's classes, or, when the argument is the caller's
 * own parameter, resolution goes on outward, to the stack's end. When that fails (no frame
 * of the function, no creation site, no call site at that line — a call through an
 * interface or a function value —, an argument that cannot be resolved) the operation
 * keeps its merged class (ChannelOp.merged): it is the same channel as any operation of
 * that class. So one function started on a ring of channels resolves each instance to its
 * own channels when stacks and creation sites are given, and makes every instance a waker
 * of every other when they are not.
 *
 * Its limits. The classes are flow-insensitive (src/gohelper/scan/chanflow.go); a function that
 * contains a completing operation counts even if the candidate already passed it or will
 * never reach it; a candidate parked at a completing operation on another channel of the
 * class is still counted. Channels passed through interfaces, maps, other channels,
 * function values, other packages or reflection lose their identity: an operand that is not
 * a variable or field has no class, so a wait on it (time.After(d), ctx.Done(), m[k]) has
 * no candidates; nor does a wait on a nil channel (`reason` says so), or a site the index
 * does not know.
 */
export function wakersInSource(
  index: WaitSiteIndex,
  blockedAt: BlockedAt,
  candidates: readonly WakerCandidate[],
): string[] {
  if (blockedAt.reason !== undefined && NEVER_COMPLETED.has(blockedAt.reason)) return [];
  const sites = sitesAt(
    index,
    `${blockedAt.function ?? ""} ${basename(blockedAt.file)}:${String(blockedAt.line)}`,
    blockedAt.reason,
  );
  if (sites.length === 0) return [];
  const dir = dirname(sites[0].path);
  const scope = scopeOf(index, dir);
  const blockedStack: Stack = {
    frames: blockedAt.frames !== undefined && blockedAt.frames.length > 0 ? blockedAt.frames : [blockedAt],
    creationSite: blockedAt.creationSite,
  };
  const waiting: Waiting[] = [];
  for (const operand of sites.flatMap(operandsOf)) {
    const identity = identityOf(scope, operand, blockedStack, 0);
    if (identity !== null) waiting.push({ op: operand.op, identity });
  }
  const completing = new Set<ChannelOp>();
  for (const w of waiting) {
    for (const o of index.opsByMerged.get(w.identity.merged) ?? [])
      if (dirname(o.path) === dir && completes(o.op, w.op)) completing.add(o);
  }
  if (completing.size === 0) return [];
  const waitsLikeIt = (o: ChannelOp, identity: ChannelIdentity): boolean =>
    waiting.some((w) => w.op === (o.op === "close" ? "send" : o.op) && sameChannel(w.identity, identity));
  return candidates
    .filter((c) =>
      c.frames.some((frame, i) => {
        const fn = innermostFunction(scope.functions, basename(frame.file), frame.line);
        if (fn === null) return false;
        for (const o of completing) {
          if (o.path !== fn.path || o.funcStart !== fn.start || o.funcEnd !== fn.end) continue;
          const identity = identityOf(scope, o, c, i);
          if (identity === null || !waiting.some((w) => completes(o.op, w.op) && sameChannel(w.identity, identity)))
            continue;
          if (!(i === 0 && o.line === frame.line && waitsLikeIt(o, identity))) return true;
        }
        return false;
      }),
    )
    .map((c) => c.id);
}

function scopeOf(index: WaitSiteIndex, dir: string): Scope {
  const callsAt = new Map<string, CallSite[]>();
  const defers: CallSite[] = [];
  for (const call of index.calls) {
    if (dirname(call.path) !== dir) continue;
    if (call.kind === "defer") defers.push(call);
    const key = `${call.file}:${String(call.line)}`;
    const list = callsAt.get(key) ?? [];
    list.push(call);
    callsAt.set(key, list);
  }
  const functions = index.functions.filter((f) => dirname(f.path) === dir);
  return { functions, functionById: new Map(functions.map((f) => [f.id, f])), callsAt, defers };
}

/** The operands of a wait site with their direction: a plain operation's, or each case of a select. */
function operandsOf(site: WaitSite): (Operand & { readonly op: "recv" | "send" })[] {
  if (site.kind === "select")
    return site.cases.map((c) => ({ channel: c.channel, merged: c.merged, param: c.param, op: c.op }));
  if (site.channels.length === 0 || site.merged.length === 0) return [];
  return [
    {
      channel: site.channels[0],
      merged: site.merged[0],
      param: site.param,
      op: site.kind === "send" ? "send" : "recv",
    },
  ];
}

/** The channel of `operand`, an operation in the function of `stack.frames[at]`; null when it has no class. */
function identityOf(scope: Scope, operand: Operand, stack: Stack, at: number): ChannelIdentity | null {
  if (operand.channel === null || operand.merged === null) return null;
  if (operand.param === null) return { merged: operand.merged, exact: [operand.channel] };
  return { merged: operand.merged, exact: resolveParam(scope, operand.param, stack, at) };
}

/**
 * The classes `param` has in the goroutine of `stack`, used from the function of
 * `stack.frames[at]` (the parameter's function or a literal nested in it); null when the
 * stack cannot say (see wakersInSource).
 */
function resolveParam(scope: Scope, param: ParamRef, stack: Stack, at: number): string[] | null {
  const owner = scope.functionById.get(param.funcId);
  if (owner === undefined) return null;
  let j = at;
  for (; j < stack.frames.length; j++) {
    const fn = frameFunction(scope, stack.frames[j]);
    if (fn === null || fn.path !== owner.path || fn.start < owner.start || fn.end > owner.end) return null;
    if (fn.id === owner.id) break;
  }
  if (j >= stack.frames.length) return null;
  const outermost = j + 1 === stack.frames.length;
  let sites: readonly CallSite[];
  if (!outermost) {
    const caller = frameFunction(scope, stack.frames[j + 1]);
    if (caller === null) return null;
    sites = callsAt(scope, stack.frames[j + 1]).filter(
      (c) => c.callee === param.funcId && c.caller === caller.id && c.kind === "call",
    );
    if (sites.length === 0) sites = scope.defers.filter((c) => c.callee === param.funcId && c.caller === caller.id);
  } else {
    if (stack.creationSite === undefined) return null;
    sites = callsAt(scope, stack.creationSite).filter((c) => c.callee === param.funcId && c.kind === "go");
  }
  if (sites.length === 0) return null;
  const out = new Set<string>();
  for (const site of sites) {
    const arg = site.args.find((a) => a.index === param.index);
    if (arg === undefined) return null;
    if (arg.param === null) {
      for (const c of arg.channels) out.add(c);
      continue;
    }
    // The creator's frames are not this goroutine's: its parameter cannot be resolved here.
    if (outermost) return null;
    const outer = resolveParam(scope, arg.param, stack, j + 1);
    if (outer === null) return null;
    for (const c of outer) out.add(c);
  }
  return [...out];
}

function frameFunction(scope: Scope, frame: SourceLine): FunctionRange | null {
  return innermostFunction(scope.functions, basename(frame.file), frame.line);
}

function callsAt(scope: Scope, at: SourceLine): readonly CallSite[] {
  return scope.callsAt.get(`${basename(at.file)}:${String(at.line)}`) ?? [];
}

/** Two operations' channels can be one: the same merged class and, when both are resolved, a class in common. */
function sameChannel(a: ChannelIdentity, b: ChannelIdentity): boolean {
  if (a.merged !== b.merged) return false;
  if (a.exact === null || b.exact === null) return true;
  return a.exact.some((c) => b.exact?.includes(c) === true);
}

/** An operation of kind `op` can complete a goroutine parked in `waiting` on the same channel. */
function completes(op: ChannelOpKind, waiting: "recv" | "send"): boolean {
  return waiting === "recv" ? op === "send" || op === "close" : op === "recv";
}

/** The narrowest function of `file` (base name) holding `line`, or null. */
function innermostFunction(functions: readonly FunctionRange[], file: string, line: number): FunctionRange | null {
  let best: FunctionRange | null = null;
  for (const f of functions) {
    if (f.file !== file || line < f.start || line > f.end) continue;
    if (
      best === null ||
      f.end - f.start < best.end - best.start ||
      (f.end - f.start === best.end - best.start && f.start > best.start)
    )
      best = f;
  }
  return best;
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
    typeof value.context === "boolean" &&
    typeof value.signal === "boolean" &&
    isNullableString(value.channel) &&
    isNullableString(value.merged) &&
    isNullableParamRef(value.param)
  );
}

function isNullableString(value: unknown): value is string | null {
  return value === null || typeof value === "string";
}

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((c) => typeof c === "string");
}

function isNullableParamRef(value: unknown): value is ParamRef | null {
  return value === null || (isRecord(value) && typeof value.funcId === "string" && typeof value.index === "number");
}

function isChannelOp(value: unknown): value is ChannelOp {
  return (
    isRecord(value) &&
    isNullableString(value.channel) &&
    isNullableString(value.merged) &&
    isNullableParamRef(value.param) &&
    (value.op === "send" || value.op === "recv" || value.op === "close") &&
    typeof value.file === "string" &&
    typeof value.path === "string" &&
    typeof value.function === "string" &&
    typeof value.line === "number" &&
    typeof value.column === "number" &&
    typeof value.funcStart === "number" &&
    typeof value.funcEnd === "number"
  );
}

function isFunctionRange(value: unknown): value is FunctionRange {
  return (
    isRecord(value) &&
    typeof value.id === "string" &&
    typeof value.file === "string" &&
    typeof value.path === "string" &&
    typeof value.function === "string" &&
    typeof value.start === "number" &&
    typeof value.end === "number"
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
    typeof value.signal === "boolean" &&
    Array.isArray(value.cases) &&
    value.cases.every(isWaitCase) &&
    isStrings(value.channels) &&
    isStrings(value.merged) &&
    isNullableParamRef(value.param)
  );
}

function isCallArg(value: unknown): value is CallArg {
  return (
    isRecord(value) && typeof value.index === "number" && isStrings(value.channels) && isNullableParamRef(value.param)
  );
}

function isCallSite(value: unknown): value is CallSite {
  return (
    isRecord(value) &&
    typeof value.file === "string" &&
    typeof value.path === "string" &&
    typeof value.line === "number" &&
    typeof value.column === "number" &&
    (value.kind === "call" || value.kind === "go" || value.kind === "defer") &&
    typeof value.callee === "string" &&
    typeof value.caller === "string" &&
    Array.isArray(value.args) &&
    value.args.every(isCallArg)
  );
}

/**
 * The leak model's question to a program's source (src/model/explain.ts): which blocked
 * goroutines can complete the channel wait another one is parked in, by wakersInSource
 * over the Go files of its directory; undefined when sources are not read.
 */
export function sourceWakersOf(dir: string, helper: string | null): SourceWakers | undefined {
  if (helper === null || !existsSync(dir)) return undefined;
  const index = waitSites(
    dir,
    readdirSync(dir).filter((f) => f.endsWith(".go")),
    helper,
  );
  const line = (site: string | null): SourceLine | undefined => {
    const frame = site === null ? null : parseFrame(site);
    return frame === null ? undefined : { file: frame.file, line: frame.line };
  };
  return (blocked, candidates) => {
    const at = parseFrame(blocked.site);
    if (at === null) return [];
    return wakersInSource(
      index,
      {
        file: at.file,
        line: at.line,
        function: at.function,
        reason: blocked.wait,
        frames: blocked.frames.length > 0 ? blocked.frames : undefined,
        creationSite: line(blocked.creationSite),
      },
      candidates.map((c) => ({ id: c.id, frames: c.frames, creationSite: line(c.creationSite) })),
    );
  };
}

/**
 * What a program's source says each blocking site can be ended by (a timer, a context),
 * from the Go files of its directory; undefined when sources are not read (no helper) or
 * the directory is gone.
 */
export function waitSourceOf(dir: string, helper: string | null): RuleOptions["waitSourceAt"] {
  if (helper === null || !existsSync(dir)) return undefined;
  const index = waitSites(
    dir,
    readdirSync(dir).filter((f) => f.endsWith(".go")),
    helper,
  );
  return (reason, site) => {
    const wait = site === null ? null : waitSiteAt(index, site, reason);
    return wait === null ? null : { timer: wait.timed, context: wait.context, signal: wait.signal };
  };
}
