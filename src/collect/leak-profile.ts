// Reads the goroutine leak profile the run agent writes (src/collect/agent.ts): its first line
// says when it was taken, then the runtime's debug=2 text, one block per goroutine. Pure.

import { basename } from "node:path";
import type { LeakProfileTaken, RuntimeGoroutine } from "../core/index.js";
import { SchedlabError } from "../errors.js";
import { AGENT_PROFILE_HEADER } from "./agent.js";

/** A profile file that is not what the run agent writes (empty, cut, or another file). */
export class LeakProfileFormatError extends SchedlabError {
  constructor(problem: string) {
    super(
      `the goroutine leak profile does not parse: ${problem}`,
      "The run is recorded without it; collect the program again (--force) to take it again.",
    );
  }
}

export interface ParsedLeakProfile {
  readonly taken: LeakProfileTaken;
  /** Every goroutine the profile shows waiting (or in a system call), in the profile's order. */
  readonly goroutines: readonly RuntimeGoroutine[];
}

/** Where the toolchain's standard library lives: frames under `${goroot}/src/` are not the user's. */
export interface LeakProfileContext {
  readonly goroot?: string;
}

const TAKEN: readonly LeakProfileTaken[] = ["end", "hang", "deadline"];

/** "goroutine 7 [sync.Mutex.Lock (leaked), 2 minutes]:" (a gp=… m=… part after the id at GOTRACEBACK=system). */
const HEADER = /^goroutine (\d+)(?: [^[\n]*)? \[(.*)\]:$/;

/** States in which a goroutine waits for nothing: left out (the agent's own probe is running). */
const NOT_WAITING = new Set(["running", "runnable"]);

/**
 * The goroutines of a run agent's profile file: per goroutine its id (the trace's goroutine
 * id), the runtime's wait reason without the "(leaked)" mark and the ", N minutes" or
 * ", locked to thread" notes, whether the GC proved it leaked, and its top: the innermost
 * frame that is neither the runtime's nor the standard library's nor schedlab's (harness,
 * agent, perturbation), as "function file:line" with the file's base name — the decoder's
 * sites (the harness's renamed main and the agent's renamed TestMain named as the user wrote
 * them). Goroutines running or runnable, and those of the agent and the harness, are left out.
 *
 *   parseLeakProfile("# schedlab-agent taken=hang\ngoroutine 7 [sync.Mutex.Lock (leaked)]:\n" +
 *     "sync.(*Mutex).Lock(...)\n\t/go/src/sync/mutex.go:46\nexample.com/m.f()\n\t/src/m/f.go:12 +0x39\n",
 *     { goroot: "/go" })
 *   → { taken: "hang", goroutines: [{ gid: 7, wait: "sync.Mutex.Lock", leaked: true, top: "example.com/m.f f.go:12" }] }
 *
 * Throws LeakProfileFormatError when the first line is not the agent's or no goroutine is shown.
 */
export function parseLeakProfile(text: string, context: LeakProfileContext = {}): ParsedLeakProfile {
  const newline = text.indexOf("\n");
  const first = newline < 0 ? text : text.slice(0, newline);
  if (!first.startsWith(AGENT_PROFILE_HEADER))
    throw new LeakProfileFormatError(`its first line is not "${AGENT_PROFILE_HEADER}…"`);
  const taken = first.slice(AGENT_PROFILE_HEADER.length).trim();
  if (!(TAKEN as readonly string[]).includes(taken))
    throw new LeakProfileFormatError(`unknown taken=${JSON.stringify(taken)}`);
  const { goroutines, shown } = goroutinesOf(text.slice(newline + 1), context);
  if (shown === 0) throw new LeakProfileFormatError("it shows no goroutine (cut short?)");
  return { taken: taken as LeakProfileTaken, goroutines };
}

/**
 * The goroutines a goroutine dump shows waiting — the traceback a test binary prints when
 * -test.timeout fires, the harness's dump — read as parseLeakProfile reads a profile's (no
 * goroutine of a plain dump is marked leaked: a dump proves nothing). Text before the first
 * goroutine (the panic's header) is skipped; [] when it shows none.
 */
export function goroutinesOfDump(text: string, context: LeakProfileContext = {}): RuntimeGoroutine[] {
  return goroutinesOf(text, context).goroutines;
}

function goroutinesOf(
  text: string,
  context: LeakProfileContext,
): { readonly goroutines: RuntimeGoroutine[]; readonly shown: number } {
  const goroutines: RuntimeGoroutine[] = [];
  let shown = 0;
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.trim().split("\n");
    const header = HEADER.exec(lines[0]);
    if (header === null) continue;
    shown++;
    const status = header[2];
    const wait = status
      .split(", ")[0]
      .replace(/ \((leaked|scan|durable)\)/g, "")
      .trim();
    if (NOT_WAITING.has(wait)) continue;
    const frames = framesOf(lines.slice(1));
    if (frames.some((f) => isSchedlabFunction(f.fn))) continue;
    const top = frames.find((f) => isUserFrame(f, context));
    goroutines.push({
      gid: Number(header[1]),
      wait,
      leaked: status.includes(" (leaked)"),
      top: top === undefined ? null : `${top.fn} ${basename(top.file)}:${top.line}`,
    });
  }
  return { goroutines, shown };
}

interface Frame {
  readonly fn: string;
  readonly file: string;
  readonly line: number;
}

/** The call frames of a goroutine block (function line, then a tab and file:line); "created by" is not a frame. */
function framesOf(lines: readonly string[]): Frame[] {
  const frames: Frame[] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    const call = lines[i];
    if (call.startsWith("\t") || call.startsWith("created by ")) continue;
    const where = /^\t(.+):(\d+)(?: \+0x[0-9a-f]+)?$/.exec(lines[i + 1]);
    const paren = call.lastIndexOf("(");
    if (where === null || paren <= 0) continue;
    frames.push({ fn: userName(call.slice(0, paren)), file: where[1], line: Number(where[2]) });
  }
  return frames;
}

/** The harness's renamed main and the agent's renamed TestMain, named as the user wrote them (the decoder's mapFunc). */
function userName(fn: string): string {
  if (fn.startsWith("main.schedlabUserMain")) return `main.main${fn.slice("main.schedlabUserMain".length)}`;
  const dot = fn.indexOf(".", fn.lastIndexOf("/") + 1);
  const renamed = "schedlabUserTestMain";
  return dot >= 0 && fn.startsWith(renamed, dot + 1)
    ? `${fn.slice(0, dot + 1)}TestMain${fn.slice(dot + 1 + renamed.length)}`
    : fn;
}

/** The agent's and the harness's own functions: their goroutines are not the program's. */
function isSchedlabFunction(fn: string): boolean {
  const name = fn.slice(fn.lastIndexOf("/") + 1);
  return name.includes(".schedlabAgent") || name.startsWith("main.schedlabHarness");
}

/** Neither the standard library's (GOROOT, or a package path without a dot), nor generated, nor injected by schedlab. */
function isUserFrame(frame: Frame, context: LeakProfileContext): boolean {
  const base = basename(frame.file);
  if (base === "_testmain.go" || base.startsWith("zz_schedlab_")) return false;
  if (frame.fn.slice(frame.fn.lastIndexOf("/") + 1).includes(".schedlab")) return false;
  const goroot = context.goroot?.replace(/\/$/, "");
  if (goroot !== undefined && goroot !== "" && frame.file.startsWith("/"))
    return !frame.file.startsWith(`${goroot}/src/`);
  return !isStdFunction(frame.fn);
}

/** The decoder's rule for a frame without a GOROOT to compare with: the package path's first element has no dot and the package is not main. */
function isStdFunction(fn: string): boolean {
  if (fn.startsWith("main.")) return false;
  const slash = fn.lastIndexOf("/");
  const dot = fn.indexOf(".", slash + 1);
  const pkg = dot < 0 ? fn : fn.slice(0, dot);
  return !pkg.split("/")[0].includes(".");
}
