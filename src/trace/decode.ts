// Decoding one trace file: runs the Go helper's `decode` subcommand and parses its
// stream incrementally, so neither Go nor Node ever holds the whole trace.

import { execa } from "execa";
import { existsSync } from "node:fs";
import { goEnv } from "../go/index.js";
import { goHelperPath } from "../gohelper/index.js";
import { TraceCorruptError, TraceDecodeError } from "./errors.js";
import { DEFAULT_GOROUTINE_FILTER } from "./filter.js";
import { canonicalGoroutineIds } from "./identity.js";
import { relativePackagePaths } from "./package-path.js";
import { DecodeStreamParser } from "./stream.js";
import type { DecodedGoroutine, DecodeSummary, GoroutineFilter, RootMode } from "./types.js";
import type { GoroutineRecord, LockOp } from "../core/index.js";

export interface DecodeOptions {
  /** Which goroutine is the root (default "auto"). */
  readonly mode?: RootMode;
  readonly filter?: GoroutineFilter;
  /** GOROOT of the toolchain that built the traced binary; default: `go env GOROOT`. */
  readonly goroot?: string;
  /**
   * The tests a test binary ran, in order: names a TestXxx root whose own stacks never
   * showed its function (a test that neither blocks nor starts goroutines).
   */
  readonly testNames?: readonly string[];
  /** Records per onRecords call (default 4096). */
  readonly batchSize?: number;
  /**
   * The root directory given to collect (programs.root): function names of packages
   * outside any module ("_/abs/dir/pkg.F") are made relative to it (relativePackagePaths).
   */
  readonly packageRoot?: string;
  /**
   * Receives the run's lock operations (docs/events.md), in order with the records: every
   * op after the records before it (seq < op.seq) and before the batch holding record
   * op.seq. Without it they are dropped and record batches are never cut short by them.
   */
  readonly onLockOps?: (ops: LockOp[]) => void;
}

/**
 * Decodes the trace at `path`, handing the user goroutines' records to `onRecords` in
 * trace order, in batches (seq counts from 0), and their lock operations to
 * `options.onLockOps` in order with them. Resolves with the status and the run's
 * goroutines with canonical ids once the stream ends. A truncated trace resolves with
 * status "truncated" after every complete generation's records; a file that is not a
 * readable trace rejects with TraceCorruptError.
 */
export async function decodeTrace(
  path: string,
  options: DecodeOptions,
  onRecords: (records: GoroutineRecord[]) => void,
): Promise<DecodeSummary> {
  if (!existsSync(path)) {
    throw new TraceCorruptError(
      `trace file ${path} does not exist`,
      "Re-run `schedlab collect` for this program, or fix the path.",
    );
  }
  const helper = await goHelperPath();
  const child = execa(helper, await decodeArguments(path, options), {
    reject: false,
    stdout: "pipe",
    stderr: "pipe",
    buffer: { stdout: false, stderr: true },
  });
  const root = options.packageRoot;
  const rename = root === undefined ? undefined : (text: string) => relativePackagePaths(text, root);
  const parser = new DecodeStreamParser(onRecords, options.batchSize, rename, options.onLockOps);
  child.stdout.setEncoding("utf8");
  try {
    for await (const chunk of child.stdout) parser.push(chunk as string);
    parser.finish();
  } catch (error) {
    child.kill();
    await child;
    throw error;
  }
  const result = await child;
  const end = parser.end;
  if (result.exitCode !== 0 || end === undefined) {
    throw helperFailure(`the Go helper failed on ${path}`, result);
  }
  if (end.status === "error") {
    throw new TraceCorruptError(
      `${path}: ${end.message}`,
      "The file is not a readable Go 1.22+ execution trace: re-collect this run (`schedlab collect --force`).",
    );
  }
  return {
    status: end.status,
    message: end.message,
    generations: end.generations,
    recordCount: end.recordCount,
    goroutines: canonicalGoroutineIds(foldNamedRoots(parser.goroutines), { testNames: options.testNames }),
  };
}

/** The Go helper's `decode` arguments for `path` under `options` (before `extra` flags such as -count). */
async function decodeArguments(path: string, options: DecodeOptions, extra: readonly string[] = []): Promise<string[]> {
  const filter = options.filter ?? DEFAULT_GOROUTINE_FILTER;
  const goroot = options.goroot ?? (await defaultGoroot());
  return [
    "decode",
    `-mode=${options.mode ?? "auto"}`,
    `-drop=${filter.drop.join(",")}`,
    `-keep=${filter.keep.join(",")}`,
    `-goroot=${goroot}`,
    ...extra,
    path,
  ];
}

/** The error of a Go helper decode that failed (`what`), with its exit and the tail of its stderr. */
function helperFailure(
  what: string,
  result: { readonly exitCode?: number; readonly signal?: string; readonly stderr?: unknown },
): TraceDecodeError {
  return new TraceDecodeError(
    `${what} (exit ${String(result.exitCode ?? result.signal)}): ${String(result.stderr).trim().slice(-500)}`,
    "This is a schedlab bug if the trace opens with `go tool trace`; report it with the trace file.",
  );
}

/** How many records a decode of a trace gives, and how many of them are six-type events. */
export interface TraceCounts {
  readonly records: number;
  readonly events: number;
}

/**
 * Counts the records decodeTrace would give for `path` with the same options, and the
 * six-type events among them, without streaming them (the helper's `decode -count`: one Go
 * pass, nothing parsed here). Ingest asks before it stores a long run as an excerpt.
 */
export async function countTraceRecords(path: string, options: DecodeOptions): Promise<TraceCounts> {
  const helper = await goHelperPath();
  const result = await execa(helper, await decodeArguments(path, options, ["-count"]), { reject: false });
  const line = /^C\t(\d+)\t(\d+)$/m.exec(String(result.stdout));
  if (result.exitCode !== 0 || line === null) {
    throw helperFailure(`the Go helper could not count the records of ${path}`, result);
  }
  return { records: Number(line[1]), events: Number(line[2]) };
}

/**
 * Replaces the helper's pseudo-root lines by a `namedRoot` on their children. A named root
 * (TestMain, ExampleXxx: docs/identity.md) has no goroutine of its own; the helper prints it
 * as "G <gid> -1 3 0 0 <name>", a gid above every real one, which the stream parser reads
 * as a goroutine with no parent, no root flag and not pre-trace — a combination no real
 * user goroutine has (one created during the trace always has a user parent or is a root).
 */
export function foldNamedRoots(goroutines: readonly DecodedGoroutine[]): DecodedGoroutine[] {
  const named = new Map<number, string>();
  for (const g of goroutines)
    if (g.root === "none" && g.parent === null && !g.preTrace && !g.namedRoot) named.set(g.goroutine, g.entry);
  if (named.size === 0) return [...goroutines];
  return goroutines.flatMap((g) => {
    if (named.has(g.goroutine)) return [];
    const root = g.parent === null ? undefined : named.get(g.parent);
    return root === undefined ? [g] : [{ ...g, parent: null, namedRoot: root }];
  });
}

let gorootPromise: Promise<string> | undefined;

/** `go env GOROOT`, asked once per process. */
function defaultGoroot(): Promise<string> {
  gorootPromise ??= (async () => {
    const { GOROOT } = await goEnv(["GOROOT"]); // a clear ToolchainMissingError when Go is absent
    return GOROOT;
  })();
  return gorootPromise;
}
