// The runtime's view of a run beside its trace: its goroutine leak profile (or, failing
// that, a goroutine dump), which sees every goroutine of the process — the test driver and
// the runtime's own included — where the trace sees only the user's. Whether a goroutine was
// proven leaked, whether the process as a whole hung, and where a run hung outside the user's
// goroutines. Pure.

import type { RuntimeGoroutine } from "../core/index.js";
import type { LeakReason, LeakRun, OutlivingReason } from "./types.js";
import { preciseWait, type PreciseWait } from "./waits.js";

/**
 * The runtime's wait reasons after which only another goroutine can go on (Go's waitReason
 * strings, as goroutine dumps print them): channels, select, sync and semaphores. A
 * goroutine in any other wait (IO wait, sleep, syscall, a timer's select is still
 * "select") can be ended by the outside world or by time.
 */
const BLOCKING_WAITS: ReadonlySet<string> = new Set([
  "chan receive",
  "chan send",
  "chan receive (nil chan)",
  "chan send (nil chan)",
  "select",
  "select (no cases)",
  "sync.Mutex.Lock",
  "sync.RWMutex.Lock",
  "sync.RWMutex.RLock",
  "sync.WaitGroup.Wait",
  "sync.Cond.Wait",
  "semacquire",
]);

/** Whether the runtime's wait reason `wait` is one only another goroutine can end. */
export function isBlockingWait(wait: string): boolean {
  return BLOCKING_WAITS.has(wait);
}

/**
 * Maps a runtime wait reason as a goroutine dump or leak profile prints it ("chan receive",
 * "sync.WaitGroup.Wait, 2 minutes", "IO wait", …) to the trace's block reason; null for waits
 * that are neither blocks a leak can sit in nor waits a goroutine can outlive its test in (a
 * network wait: a server never shut down; a syscall).
 */
export function traceReasonOfDumpStatus(status: string): LeakReason | OutlivingReason | null {
  const s = status.split(",")[0].trim();
  if (s === "chan send (nil chan)" || s === "chan receive (nil chan)" || s === "select (no cases)") return "forever";
  if (s === "chan send" || s === "chan receive" || s === "select") return s;
  if (s === "sync.Cond.Wait") return "sync.(*Cond).Wait";
  if (s.startsWith("sync.") || s === "semacquire") return "sync";
  if (s === "IO wait") return "network";
  if (s === "syscall") return "syscall";
  return null;
}

/** The precise waits the runtime names itself; the others are their trace reason's (preciseWait). */
const RUNTIME_PRECISE_WAITS: ReadonlyMap<string, PreciseWait> = new Map([
  ["chan send (nil chan)", "nil chan send"],
  ["chan receive (nil chan)", "nil chan receive"],
  ["sync.Mutex.Lock", "Mutex.Lock"],
  ["sync.RWMutex.Lock", "RWMutex.Lock"],
  ["sync.RWMutex.RLock", "RWMutex.RLock"],
  ["sync.WaitGroup.Wait", "WaitGroup.Wait"],
]);

/** A goroutine's wait as the runtime's view of a run shows it, in the trace's terms. */
export interface RuntimeWait {
  readonly reason: LeakReason | OutlivingReason;
  readonly wait: PreciseWait;
  /** Its innermost user frame, "function file:line" (as the trace's blocking sites are written); null when none. */
  readonly blockingSite: string | null;
  readonly leaked: boolean;
}

/**
 * The wait the runtime's view of `run` shows goroutine `canonicalId` in — a block a leak can
 * sit in, a network wait or a syscall; null without a view, or when it shows it in no such
 * wait (running, asleep, gone). The view is taken after the trace stopped (at the run's end,
 * its hang or its deadline), so it can show in a wait a goroutine the trace left runnable or
 * running: a ticker loop woken just before the trace stopped.
 */
export function runtimeWait(run: LeakRun, canonicalId: string): RuntimeWait | null {
  const seen = runtimeOf(run, canonicalId);
  if (seen === null) return null;
  const reason = traceReasonOfDumpStatus(seen.wait);
  if (reason === null) return null;
  const status = seen.wait.split(",")[0].trim();
  const wait = RUNTIME_PRECISE_WAITS.get(status) ?? preciseWait(reason, "");
  return { reason, wait, blockingSite: seen.top, leaked: seen.leaked };
}

const gidsByRun = new WeakMap<LeakRun, Map<string, number>>();

/** The runtime id of the goroutine the run names `canonicalId`, or null. */
function gidOf(run: LeakRun, canonicalId: string): number | null {
  let gids = gidsByRun.get(run);
  if (gids === undefined) {
    gids = new Map(run.goroutines.map((g) => [g.canonicalId, g.goroutine]));
    gidsByRun.set(run, gids);
  }
  return gids.get(canonicalId) ?? null;
}

/** What the runtime's view of `run` says of its goroutine `canonicalId`; null without a view, or when the view does not show it waiting. */
export function runtimeOf(run: LeakRun, canonicalId: string): RuntimeGoroutine | null {
  const view = run.runtime;
  if (view == null) return null;
  const gid = gidOf(run, canonicalId);
  return gid === null ? null : (view.goroutines.get(gid) ?? null);
}

/** Whether goroutine 1 of the process is one of the run's user goroutines (a main program's main) rather than the test driver. */
function mainIsUser(run: LeakRun): boolean {
  return run.goroutines.some((g) => g.goroutine === 1);
}

/** How a run whose user goroutines all ended blocked is known to have hung as a process. */
export interface ProcessHang {
  /** A proof (the runtime's, or every goroutine of the process seen blocked) rather than the user goroutines only. */
  readonly proven: boolean;
  readonly why: string;
}

/**
 * Whether the process of `run`, whose user goroutines all ended blocked with nothing left for
 * time to wake, hung as a whole (docs/leaks.md, "One rule"): proven when the run agent stopped
 * it because the runtime proved goroutine 1 can never go on, when the leak profile marks
 * goroutine 1 leaked, or when the runtime's view (profile or dump) shows every goroutine with
 * a user frame, goroutine 1 included, in a wait only another goroutine can end; null when
 * goroutine 1 — the test driver, running an example, or TestMain — was still running or in a
 * wait the outside world or time can end (the run hung there, not in the user's goroutines:
 * hangOutsideUser). Without any view, a main program's user goroutines are all of its own
 * (proven), a test binary's driver was not seen (likely).
 */
export function processHang(run: LeakRun): ProcessHang | null {
  if (run.stop === "hang")
    return {
      proven: true,
      why: "the runtime proved the process can never go on (goroutine 1 leaked), so schedlab stopped it",
    };
  const view = run.runtime;
  if (view == null) {
    if (mainIsUser(run)) return { proven: true, why: "the run hung with every goroutine of the program blocked" };
    return {
      proven: false,
      why: "the run hung with every user goroutine blocked (the test driver was not seen: no leak profile or goroutine dump)",
    };
  }
  const main = view.goroutines.get(1);
  if (main === undefined) return null;
  if (main.leaked) return { proven: true, why: "the runtime's leak profile proved goroutine 1 can never go on" };
  if (!isBlockingWait(main.wait)) return null;
  const others = [...view.goroutines.values()].filter((g) => g.gid !== 1 && g.top !== null);
  if (others.every((g) => isBlockingWait(g.wait)))
    return { proven: true, why: "the run hung with every goroutine of the process blocked" };
  return { proven: false, why: "the run hung with every user goroutine blocked" };
}

/** Where a run hung outside the user's goroutines: goroutine 1's wait and its innermost user frame. */
export interface OutsideHang {
  readonly wait: string;
  readonly top: string | null;
}

/**
 * Where `run`, stopped at its deadline, hung when goroutine 1 is not a user goroutine (the
 * test driver, which runs examples and TestMain) and the runtime's view shows it in a wait
 * other goroutines cannot end or not proven leaked — an example waiting on the network, a
 * TestMain sleeping; null otherwise (the user's goroutines, which the rule judges, hung).
 */
export function hangOutsideUser(run: LeakRun): OutsideHang | null {
  const view = run.runtime;
  if (run.stop !== "deadline" || view == null || mainIsUser(run)) return null;
  const main = view.goroutines.get(1);
  if (main === undefined || main.leaked || isBlockingWait(main.wait)) return null;
  return { wait: main.wait, top: main.top };
}
