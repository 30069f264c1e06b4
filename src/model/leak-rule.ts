// The one leak rule: from the end states of a program's runs, what each goroutine left in
// a leak-reason wait is — blocked forever (leak, deadlock), alive after its owner ended
// (outlived), someone else's (background), or not decidable (inconclusive). collect's
// per-run check and `schedlab leaks` both call judgeProgram, so they cannot disagree on a
// run (docs/leaks.md, "One rule"). Pure.

import { blockKey } from "./goroutine-fold.js";
import {
  isBlockingWait,
  processHang,
  runtimeOf,
  runtimeWait,
  type ProcessHang,
  type RuntimeWait,
} from "./runtime-view.js";
import {
  isLeakReason,
  isLive,
  NON_USER_WAKER,
  runFinished,
  runWasCut,
  TIMER_WAKER,
  type AnalysedRun,
  type FinalBlock,
  type EndState,
  type Evidence,
  type FinalWait,
  type FindingKind,
  type LeakReason,
  type Owner,
  type ProgramRuns,
  type TraceEvidence,
  type Verdict,
} from "./types.js";

/** What the source says a wait can be ended by, besides another goroutine. */
export interface WaitSource {
  /** A timer or ticker channel is among the operands (time.After, time.Tick, t.C, …). */
  readonly timer: boolean;
  /** A context's Done channel is among the operands. */
  readonly context: boolean;
  /** A channel given to signal.Notify is among the operands: the wait ends when the process gets a signal. */
  readonly signal?: boolean;
}

export interface RuleOptions {
  /** The source's view of a blocking site ("function file:line"); null when unknown. Default: unknown everywhere. */
  readonly waitSourceAt?: (reason: LeakReason, site: string | null) => WaitSource | null;
  /**
   * In a run cut by the deadline, a goroutine is judged only if it had been blocked for at
   * least this fraction of the run's traced time (default 0.5): one blocked just before the
   * cut was probably about to be woken.
   */
  readonly cutFraction?: number;
}

/** What one run says of one goroutine it ended blocked. */
export interface RunJudgement {
  readonly runId: number;
  /** null: alive in this run (e.g. a one-shot timer wait), no finding. */
  readonly kind: FindingKind | null;
  readonly verdict: Verdict;
  /** Counts for --fail-on-leak: a leak or deadlock not seen only in runs cut by the deadline. */
  readonly gating: boolean;
  /** One sentence: why. */
  readonly why: string;
  /** What decided it, by kind of evidence. */
  readonly evidence: Evidence;
}

/** The rule's conclusion for one goroutine over every run of its program. */
export interface GoroutineJudgement {
  readonly goroutine: string;
  readonly kind: FindingKind;
  readonly verdict: Verdict;
  readonly gating: boolean;
  readonly why: string;
  /** What decided it (the run whose judgement it is), by kind of evidence. */
  readonly evidence: Evidence;
  readonly owner: Owner;
  /** Goroutines (canonical ids) that woke the same wait in any run; TIMER_WAKER / NON_USER_WAKER for the others. */
  readonly wakers: readonly string[];
  /** Wake-ups from the same wait over all runs (within runs, not only whole runs). */
  readonly wakesAtSite: number;
  /** The judgement of each run where it ended blocked. */
  readonly runs: readonly RunJudgement[];
}

/** The owner of a goroutine, from the root of its canonical id (docs/identity.md). */
export function ownerOf(canonicalId: string): Owner {
  if (canonicalId.startsWith("(pre-trace)")) return { kind: "background", why: "pre-trace" };
  if (canonicalId.startsWith("(orphan)")) return { kind: "background", why: "orphan" };
  const root = rootOf(canonicalId);
  if (root === "TestMain" || root.startsWith("TestMain#")) return { kind: "background", why: "TestMain" };
  if (root === "main.main") return { kind: "main" };
  return { kind: "test", root };
}

/** Kinds from the strongest to the weakest claim: the program-level kind is the first any run supports. */
const STRENGTH: readonly (FindingKind | "cut-leak")[] = ["deadlock", "leak", "outlived", "cut-leak", "inconclusive"];
const VERDICT_ORDER: readonly Verdict[] = ["proven", "likely", "inconclusive"];

const BACKGROUND_WHY: Record<Extract<Owner, { kind: "background" }>["why"], string> = {
  "pre-trace": "it existed before tracing began (package init or state shared by tests), so no test owns it",
  TestMain: "TestMain started it, so no test owns it",
  orphan: "its creator is not a user goroutine, so no test owns it",
};

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/** A goroutine's wake-ups from one wait, summed over all runs. */
export interface SiteWakes {
  readonly count: number;
  /** Of those, by a timer (no goroutine acted). */
  readonly timer: number;
  /** Canonical ids of the goroutines that woke it, NON_USER_WAKER / TIMER_WAKER for the others; itself left out. */
  readonly wakers: readonly string[];
}

/** Per goroutine and wait key, the wake-ups over all runs (each pair summed once). */
export function wakeIndex(runs: readonly AnalysedRun[]): (goroutine: string, key: string) => SiteWakes {
  const memo = new Map<string, SiteWakes>();
  return (goroutine, key) => {
    const memoKey = `${goroutine}\0${key}`;
    const known = memo.get(memoKey);
    if (known !== undefined) return known;
    const summed = sumWakes(runs, goroutine, key);
    memo.set(memoKey, summed);
    return summed;
  };
}

function sumWakes(runs: readonly AnalysedRun[], goroutine: string, key: string): SiteWakes {
  let count = 0;
  let timer = 0;
  const wakers = new Set<string>();
  for (const { states } of runs) {
    const tally = states.wakes.get(goroutine)?.get(key);
    if (tally === undefined) continue;
    count += tally.count;
    timer += tally.timer;
    for (const w of tally.wakers) if (w !== goroutine) wakers.add(w);
  }
  return { count, timer, wakers: [...wakers].sort() };
}

/**
 * Judges every goroutine that ends a (non-crashed) run of `program` in a leak-reason wait.
 * Crashed runs say nothing: a goroutine merely waiting when another one panicked is not
 * leaked. Sorted by goroutine id; goroutines alive in every such run are left out.
 */
export function judgeProgram(program: ProgramRuns, options: RuleOptions = {}): GoroutineJudgement[] {
  const runs = program.runs.filter((r) => !r.run.crashed);
  const wakesOf = wakeIndex(runs);
  const cutFraction = options.cutFraction ?? 0.5;
  const sourceOf = (b: FinalBlock): WaitSource | null => options.waitSourceAt?.(b.reason, b.blockingSite) ?? null;
  /**
   * Whether time (a timer, a ticker, a context) can still end this wait in run r. A timer
   * that woke it there in any run is evidence; the source's timer or context case alone is
   * not, once the wait has outlasted most of a run the deadline cut: a timer that was going
   * to fire would have (a drain of an already-fired timer's channel, a context nobody
   * cancels).
   */
  const timerCapable = (r: AnalysedRun, goroutine: string, b: FinalBlock): boolean => {
    if (wakesOf(goroutine, blockKey(b.reason, b.blockingSite)).timer > 0) return true;
    const source = sourceOf(b);
    // A signal ends a wait on a channel given to signal.Notify whenever the process gets one.
    if (source?.signal === true) return true;
    if (source?.timer !== true && source?.context !== true) return false;
    return !(r.states.cut && b.blockedNs >= cutFraction * r.states.tracedNs);
  };
  // A hang is a deadlock only when nothing alive could still be woken by time, and only when
  // the process hung, not just its user goroutines (the test driver may wait on the network).
  const hangs = new Map<AnalysedRun, ProcessHang | null>(
    runs.map((r) => [
      r,
      r.states.allBlocked && [...r.states.finalBlocks].every(([g, b]) => !timerCapable(r, g, b))
        ? processHang(r.run)
        : null,
    ]),
  );

  const candidates = new Set<string>();
  for (const r of runs) for (const id of r.states.finalBlocks.keys()) candidates.add(id);
  for (const r of runs) for (const id of r.states.finalWaits.keys()) candidates.add(id);
  for (const r of runs) for (const id of r.states.seen) if (lateWaitOf(r, id) !== null) candidates.add(id);
  const out: GoroutineJudgement[] = [];
  for (const goroutine of [...candidates].sort()) {
    const owner = ownerOf(goroutine);
    const judgements: RunJudgement[] = [];
    let wakers: readonly string[] = [];
    let wakesAtSite = 0;
    for (const r of runs) {
      const outside = r.states.finalWaits.get(goroutine);
      if (outside !== undefined) {
        judgements.push(judgeOutsideWait(r, goroutine, outside, owner, cutFraction));
        continue;
      }
      const block = r.states.finalBlocks.get(goroutine);
      if (block === undefined) {
        const late = lateWaitOf(r, goroutine);
        if (late !== null && owner.kind === "background") {
          const source = isLeakReason(late.reason)
            ? (options.waitSourceAt?.(late.reason, late.blockingSite) ?? null)
            : null;
          judgements.push(judgeLateWait(r, goroutine, late, owner, sourceEvidence(source)));
        }
        continue;
      }
      const wakes = wakesOf(goroutine, blockKey(block.reason, block.blockingSite));
      wakers = [...new Set([...wakers, ...wakes.wakers])].sort();
      wakesAtSite = Math.max(wakesAtSite, wakes.count);
      judgements.push(
        judgeRun(r, goroutine, block, {
          owner,
          wakes,
          source: sourceOf(block),
          aliveByTime: timerCapable(r, goroutine, block),
          hang: hangs.get(r) ?? null,
          cutFraction,
        }),
      );
    }
    const best = strongest(judgements);
    if (best === null) continue;
    out.push({ goroutine, ...best, owner, wakers, wakesAtSite, runs: judgements });
  }
  return out;
}

interface RunContext {
  readonly owner: Owner;
  readonly wakes: SiteWakes;
  readonly source: WaitSource | null;
  /** Time (a timer, a ticker, a context) can still end the wait (judgeProgram's timerCapable). */
  readonly aliveByTime: boolean;
  /** The run hung with every user goroutine blocked, nothing left for time to wake, and the process hung too (how it is known); null otherwise. */
  readonly hang: ProcessHang | null;
  readonly cutFraction: number;
}

/** What time keeping a wait alive reads as: "a timer woke it there 84 times" (the explanation says it in the same words). */
export function timerWoke(timerWakes: number): string {
  return `a timer woke it there ${plural(timerWakes, "time")}`;
}

/** What follows what keeps a wait alive. */
export const ALIVE = ", so it is alive, not blocked";

/** An owner that ended and left a goroutine going: "its test TestPoll ended without stopping it". */
export function ownerEndedText(owner: Owner): string {
  const who = owner.kind === "test" ? `its test ${owner.root}` : "the program";
  return `${who} ended without stopping it`;
}

/** What proving a wait blocked forever by the runtime reads as. */
export const RUNTIME_PROOF =
  "proven by the runtime: its goroutine leak profile found it blocked on something no running goroutine or global can reach";

/**
 * What goroutine `goroutine` ended run `r` waiting in: the trace's final block or wait, else
 * the runtime's view (lateWaitOf); undefined when it ended no wait.
 */
export function endWaitOf(r: AnalysedRun, goroutine: string): FinalBlock | FinalWait | RuntimeWait | undefined {
  return (
    r.states.finalBlocks.get(goroutine) ?? r.states.finalWaits.get(goroutine) ?? lateWaitOf(r, goroutine) ?? undefined
  );
}

/**
 * The wait a background goroutine (package state, init, TestMain) is in at the end of run
 * `r` when the trace left it live — runnable or running, as a ticker loop is when its tick
 * lands just before the trace stops — and the runtime's view, taken after the trace stopped,
 * shows it waiting; null otherwise. Whether such a goroutine is reported must not hang on
 * where one tick fell. Only background goroutines: their kind is their owner's whatever the
 * wait, where a test's goroutine is judged by wake-ups and wakers the trace did not see.
 */
export function lateWaitOf(r: AnalysedRun, goroutine: string): RuntimeWait | null {
  if (r.states.finalBlocks.has(goroutine) || r.states.finalWaits.has(goroutine)) return null;
  const end = r.states.ends.get(goroutine);
  if (end === undefined || end === "ended" || ownerOf(goroutine).kind !== "background") return null;
  return runtimeWait(r.run, goroutine);
}

/**
 * What the trace said of a goroutine it left live: its end state; for "waiting" (a wait begun
 * before tracing, a GC wait), that it showed no wait a leak can sit in.
 */
function traceLeft(end: EndState | undefined): string {
  if (end === "waiting") return "the trace showed it in no wait a leak can sit in";
  return `the trace stopped while it was ${end ?? "live"}`;
}

/** A background goroutine the trace left live and the runtime saw waiting at the end of run `r` (lateWaitOf). */
function judgeLateWait(
  r: AnalysedRun,
  goroutine: string,
  late: RuntimeWait,
  owner: Extract<Owner, { kind: "background" }>,
  source: Evidence["source"],
): RunJudgement {
  const profiled = r.run.runtime?.source === "leak-profile";
  const runtime: Evidence["runtime"] = late.leaked
    ? "leaked"
    : profiled && isLeakReason(late.reason)
      ? "reachable"
      : null;
  return {
    runId: r.run.runId,
    kind: "background",
    verdict: "likely",
    gating: false,
    why: `${BACKGROUND_WHY[owner.why]} (${traceLeft(r.states.ends.get(goroutine))}; the runtime saw it waiting in ${late.wait} at the run's end)`,
    evidence: { runtime, trace: "owner", source },
  };
}

/**
 * A goroutine its run left in a network wait or a syscall: alive (the outside world ends
 * such a wait), so never blocked forever; after its test ended, it outlived the test — a
 * server or connection never shut down. Main programs' are not findings: the process's exit
 * ends them, as it does a daemon's.
 */
function judgeOutsideWait(
  r: AnalysedRun,
  goroutine: string,
  wait: FinalWait,
  owner: Owner,
  cutFraction: number,
): RunJudgement {
  const runId = r.run.runId;
  const evidence: Evidence = { runtime: null, trace: "outside-wait", source: null };
  const none = { runId, kind: null, verdict: "inconclusive", gating: false, why: "", evidence } as const;
  if (owner.kind === "background")
    return {
      ...none,
      kind: "background",
      verdict: "likely",
      why: BACKGROUND_WHY[owner.why],
      evidence: { ...evidence, trace: "owner" },
    };
  if (owner.kind !== "test") return none;
  if (!ownerEnded(r, owner.root)) return none;
  // Still there after the run settled? The leak profile taken at the end sees every goroutine
  // of the process: one it no longer shows waiting had finished its wait (a connection closing).
  const view = r.run.runtime;
  if (view?.source === "leak-profile" && view.taken === "end") {
    const seen = runtimeOf(r.run, goroutine);
    if (seen === null || (seen.wait !== "IO wait" && seen.wait !== "syscall")) return none;
  } else if (wait.reason === "syscall" && wait.blockedNs < cutFraction * r.states.tracedNs) {
    // A system call is usually a passing moment (a write, a close): only a long one is a wait.
    return none;
  }
  const what =
    wait.reason === "network"
      ? `it waits on the network at ${wait.blockingSite ?? "a standard-library frame"} (a server or connection never shut down)`
      : "it is in a system call that has not returned";
  return {
    runId,
    kind: "outlived",
    verdict: "proven",
    gating: false,
    why: `${what}; its test ${owner.root} ended without stopping it`,
    evidence,
  };
}

/** What the source says can end a wait, as evidence. */
function sourceEvidence(source: WaitSource | null): Evidence["source"] {
  if (source?.signal === true) return "signal";
  if (source?.context === true) return "context";
  return source?.timer === true ? "timer" : null;
}

/** The rule for one goroutine left in `block` at the end of run `r` (docs/leaks.md, "One rule"). */
function judgeRun(r: AnalysedRun, goroutine: string, block: FinalBlock, c: RunContext): RunJudgement {
  const runId = r.run.runId;
  const states = r.states;
  const seenByRuntime = runtimeOf(r.run, goroutine);
  const runtime: Evidence["runtime"] =
    r.run.stop === "hang"
      ? "hang"
      : seenByRuntime?.leaked === true
        ? "leaked"
        : seenByRuntime !== null && r.run.runtime?.source === "leak-profile" && isBlockingWait(seenByRuntime.wait)
          ? "reachable"
          : null;
  const source = sourceEvidence(c.source);
  const judgement = (
    kind: FindingKind | null,
    verdict: Verdict,
    gating: boolean,
    why: string,
    trace: TraceEvidence,
  ): RunJudgement => ({ runId, kind, verdict, gating, why, evidence: { runtime, trace, source } });
  if (c.owner.kind === "background")
    return judgement("background", "likely", false, BACKGROUND_WHY[c.owner.why], "owner");

  if (c.owner.kind === "main" && goroutine === "main.main" && daemonParks(r, block, c.source))
    return judgement(
      null,
      "inconclusive",
      false,
      `main parks here for the program's lifetime (${block.reason === "forever" ? "select {}" : "a wait for a signal"}): a daemon, not a leak`,
      "lifetime",
    );

  // The runtime's proof: nothing running and no global can reach what it waits on.
  if (runtime === "leaked") {
    if (c.hang !== null) return judgement("deadlock", "proven", true, `${RUNTIME_PROOF}; ${c.hang.why}`, "hung");
    return judgement("leak", "proven", true, RUNTIME_PROOF, "never-woken");
  }

  // Alive: a timer, a ticker or a context can still end this wait.
  if (c.aliveByTime) {
    const by =
      c.wakes.timer > 0
        ? timerWoke(c.wakes.timer)
        : c.source?.signal === true
          ? "it waits for a signal (a channel given to signal.Notify)"
          : c.source?.context === true
            ? "the wait has a context case"
            : "the wait has a timer case";
    if (states.cut) {
      // Cut later, but its test had ended before: it outlived the test all the same.
      if (c.owner.kind === "test" && states.ends.get(c.owner.root) === "ended" && c.wakes.count > 0)
        return judgement(
          "outlived",
          "proven",
          false,
          `${by}${ALIVE}; ${ownerEndedText(c.owner)} (the run was cut later)`,
          c.wakes.timer > 0 ? "timer-woken" : "cut",
        );
      return judgement(null, "inconclusive", false, `${by}; the run was cut while it waited`, "cut");
    }
    // A one-shot timer wait never seen firing there ends by itself if its timer is live
    // (time.After) and never if it was already spent (a drain of t.C after Stop): listed, never counted.
    const loops = c.wakes.count > 0 || c.source?.context === true || c.source?.signal === true;
    if (!loops)
      return judgement(
        "inconclusive",
        "inconclusive",
        false,
        `${by} that never fired there: it ends by itself if the timer is live (time.After), never if it was already spent (a drain of t.C after Stop)`,
        "never-woken",
      );
    return judgement(
      "outlived",
      "proven",
      false,
      `${by}${ALIVE}; ${ownerEndedText(c.owner)}`,
      c.wakes.timer > 0 ? "timer-woken" : "never-woken",
    );
  }

  if (c.hang !== null)
    return judgement(
      "deadlock",
      c.hang.proven ? "proven" : "likely",
      true,
      c.hang.proven ? c.hang.why : `${c.hang.why}; ${NO_RUNTIME_PROOF}`,
      "hung",
    );
  // select {} and nil channels: nothing can ever wake the wait, whoever is still running.
  if (block.reason === "forever")
    return judgement("leak", "proven", true, "select {} or a nil channel: nothing can wake this wait", "never-woken");

  // Who woke this wait elsewhere, and where they stood when this run's trace stopped.
  const live = c.wakes.wakers.filter(
    (w) => w === NON_USER_WAKER || (isLive(states.ends.get(w) ?? "ended") && states.seen.has(w)),
  );
  if (live.length > 0) {
    const w = live[0];
    const where =
      w === NON_USER_WAKER
        ? "runtime or library code woke it there before"
        : `${w} woke it there before and was still ${states.ends.get(w)} when the trace stopped`;
    return judgement("inconclusive", "inconclusive", false, where, "waker-live");
  }
  if (states.cut) {
    if (block.blockedNs < c.cutFraction * states.tracedNs)
      return judgement(
        "inconclusive",
        "inconclusive",
        false,
        "blocked only shortly before the deadline cut the run",
        "cut",
      );
    return judgement(
      "leak",
      "likely",
      false,
      "blocked for most of a run the deadline cut (not counted by --fail-on-leak on its own)",
      "cut",
    );
  }
  // The goroutines seen waking it are a sample: if any goroutine of the same owner was
  // still at work when the trace stopped, the run may have ended just before it woke this
  // one (an exit race: the test or program finished while its workers were in flight).
  const sibling = liveOfRoot(states).get(rootOf(goroutine));
  if (sibling !== undefined && sibling !== goroutine) {
    return judgement(
      "inconclusive",
      "inconclusive",
      false,
      `${sibling}, of the same ${c.owner.kind === "main" ? "program" : "test"}, was still ` +
        `${states.ends.get(sibling)} when the trace stopped and may have been about to wake it`,
      "waker-live",
    );
  }
  // The runtime found what it waits on still reachable, and something that could reach it is
  // alive (a goroutine of its owner, or a background one such as a pool's purger): it may yet
  // be woken, so it is not blocked forever — alive after its test, or undecided.
  if (runtime === "reachable") {
    const keeper = liveKeeper(r, goroutine);
    if (keeper !== null) {
      const why =
        `the runtime found what it waits on still reachable (from a global or a live goroutine), and ${keeper} ` +
        `was still alive (${keeperState(states, keeper)}): ` +
        "it may yet be woken, so it is not blocked forever";
      if (c.owner.kind === "test" && ownerEnded(r, c.owner.root))
        return judgement(
          "outlived",
          "likely",
          false,
          `${why}; its test ${c.owner.root} ended without stopping it`,
          "waker-live",
        );
      return judgement("inconclusive", "inconclusive", false, why, "waker-live");
    }
  }
  const missing = runtime === "reachable" ? REACHABLE_NOT_PROVEN : NO_RUNTIME_PROOF;
  const partners = c.wakes.wakers.filter((w) => w !== TIMER_WAKER && states.seen.has(w));
  if (partners.length > 0) {
    const blocked = partners.filter((w) => states.ends.get(w) === "blocked");
    const why =
      blocked.length > 0
        ? `it waits for ${blocked[0]}, which is itself blocked`
        : `${partners[0]}, which woke it there before, had ended`;
    return judgement("leak", "likely", true, `${why}; ${missing}`, "wakers-gone");
  }
  return judgement(
    "leak",
    "likely",
    true,
    `${c.wakes.count > 0 ? "its earlier wakers never ran in this run" : "never woken from this wait in any run"}; ${missing}`,
    "never-woken",
  );
}

/** What a likely verdict lacks when no leak profile showed the goroutine. */
export const NO_RUNTIME_PROOF = "not proven: no goroutine leak profile showed it (Go 1.26 or newer takes one)";

/** What a likely verdict lacks when the leak profile found its wait reachable. */
export const REACHABLE_NOT_PROVEN =
  "not proven: the runtime found what it waits on still reachable from a global, though nothing live was seen to wake it";

/**
 * A goroutine alive when the trace stopped that could still reach what `goroutine` waits on,
 * named for the reader; null when none is. From the trace: one of its owner's (the same root)
 * or a background one (package state, init, TestMain), not waiting for another goroutine or
 * in a loop a timer wakes. From the runtime's view: a goroutine the trace does not follow as
 * the user's (one started before tracing, in package init) whose code has a user frame other
 * than this wait's, and that the leak profile did not mark leaked — a pool's purger, a
 * session manager. A traced background one blocked where the leak profile does not find it
 * leaked counts as alive too.
 */
function liveKeeper(r: AnalysedRun, goroutine: string): string | null {
  const states = r.states;
  const root = rootOf(goroutine);
  const profiled = r.run.runtime?.source === "leak-profile";
  const alive = (id: string, end: EndState): boolean => {
    if (isLive(end)) return true;
    const block = states.finalBlocks.get(id);
    if (block === undefined) return false;
    if ((states.wakes.get(id)?.get(blockKey(block.reason, block.blockingSite))?.timer ?? 0) > 0) return true;
    // A background goroutine (package state) blocked where the leak profile does not find it
    // leaked: something can still wake it (a purger on a ticker). Never a sibling of the same
    // owner: two goroutines stuck on the same unprovable wait would vouch for each other.
    const seen = profiled && ownerOf(id).kind === "background" ? runtimeOf(r.run, id) : null;
    return seen !== null && !seen.leaked;
  };
  for (const [id, end] of states.ends) {
    if (id === goroutine || !alive(id, end)) continue;
    if (rootOf(id) === root || ownerOf(id).kind === "background") return id;
  }
  const view = r.run.runtime;
  if (view == null || !profiled) return null;
  const traced = new Set(r.run.goroutines.map((g) => g.goroutine));
  const own = runtimeOf(r.run, goroutine)?.top ?? null;
  const ownFunction = own === null ? null : own.slice(0, own.lastIndexOf(" "));
  for (const g of view.goroutines.values()) {
    if (g.gid === 1 || g.leaked || g.top === null || traced.has(g.gid)) continue;
    if (g.top.slice(0, g.top.lastIndexOf(" ")) !== ownFunction) return `goroutine ${g.gid} (${g.top}, ${g.wait})`;
  }
  return null;
}

/** How a keeper stood when the trace stopped: its end state, a timer-woken loop, or what the runtime showed. */
function keeperState(states: AnalysedRun["states"], keeper: string): string {
  const end = states.ends.get(keeper);
  if (end === undefined) return "seen by the runtime, not leaked";
  return end === "blocked" ? "in a loop a timer wakes" : end;
}

/**
 * Whether main, left in `block` at the end of run `r`, parks there for the program's lifetime
 * by design (select {}, a wait for a signal): a daemon its budget or deadline stopped while it
 * was still going. A run the runtime proved hung is no daemon's: nothing in it could go on.
 */
export function daemonParks(r: AnalysedRun, block: FinalBlock, source: WaitSource | null): boolean {
  const stillGoing = runWasCut(r.run.outcome) && r.run.stop !== "hang";
  return stillGoing && (block.reason === "forever" || source?.signal === true);
}

/** Whether the owner test `root` had ended in run `r`: the run ran its tests to the end, or the test's goroutine ended. */
export function ownerEnded(r: AnalysedRun, root: string): boolean {
  return runFinished(r.run) || r.states.ends.get(root) === "ended";
}

/** The root segment of a canonical id (its owner's name). */
function rootOf(canonicalId: string): string {
  return canonicalId.split("/", 1)[0];
}

const liveByRun = new WeakMap<AnalysedRun["states"], Map<string, string>>();

/** Per owner root, the first goroutine (by id) still live when the run's trace stopped. */
function liveOfRoot(states: AnalysedRun["states"]): Map<string, string> {
  let live = liveByRun.get(states);
  if (live === undefined) {
    live = new Map();
    for (const id of [...states.ends.keys()].sort()) {
      const root = rootOf(id);
      if (!live.has(root) && isLive(states.ends.get(id) ?? "ended")) live.set(root, id);
    }
    liveByRun.set(states, live);
  }
  return live;
}

/** The program-level conclusion: the strongest kind any run supports, with its best verdict. */
function strongest(
  judgements: readonly RunJudgement[],
): Omit<GoroutineJudgement, "goroutine" | "owner" | "wakers" | "wakesAtSite" | "runs"> | null {
  const bucket = (j: RunJudgement): FindingKind | "cut-leak" | null =>
    j.kind === "leak" && !j.gating ? "cut-leak" : j.kind;
  if (judgements.some((j) => j.kind === "background")) {
    const j = judgements.find((x) => x.kind === "background") as RunJudgement;
    return { kind: "background", verdict: j.verdict, gating: false, why: j.why, evidence: j.evidence };
  }
  for (const level of STRENGTH) {
    const matching = judgements.filter((j) => bucket(j) === level);
    if (matching.length === 0) continue;
    const best = [...matching].sort((a, b) => VERDICT_ORDER.indexOf(a.verdict) - VERDICT_ORDER.indexOf(b.verdict))[0];
    return {
      kind: best.kind as FindingKind,
      verdict: best.verdict,
      gating: best.gating,
      why: best.why,
      evidence: best.evidence,
    };
  }
  return null;
}
