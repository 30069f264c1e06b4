// Why a goroutine is stuck: for each goroutine a run ended blocked, the goroutines it waits
// for — the holder of the lock it wants (from lock recording), the goroutines that woke the
// same wait in other runs, or those the source shows can complete it — with their state
// when the trace stopped; closed sets of blocked goroutines as a cycle; and one paragraph
// that says it (docs/leaks.md, "Why it is stuck"). Pure: analysed runs in, explanations out.

import { blockKey } from "./goroutine-fold.js";
import { ALIVE, ownerEnded, ownerEndedText, ownerOf, timerWoke, wakeIndex } from "./leak-rule.js";
import { holdersOf } from "./locks.js";
import {
  isLive,
  NON_USER_WAKER,
  TIMER_WAKER,
  type AnalysedRun,
  type EndState,
  type FinalBlock,
  type ProgramRuns,
} from "./types.js";
import {
  frameText,
  isLockWait,
  libraryCall,
  parseFrame,
  parseStack,
  shortFunction,
  type Frame,
  type PreciseWait,
} from "./waits.js";

/** How a waited-for goroutine was found. */
export type WaitForBasis = "holds-lock" | "woke-before" | "source";

/** One goroutine a blocked one waits for, as the run explained saw it. */
export interface WaitFor {
  readonly goroutine: string;
  readonly basis: WaitForBasis;
  /** Its state when the run's trace stopped. */
  readonly state: EndState;
  /** Where it is blocked and on what, when blocked. */
  readonly blockedAt: string | null;
  readonly wait: PreciseWait | null;
  /** For a lock holder: where it took the lock, and that acquisition's stack. */
  readonly tookLockAt: string | null;
  readonly lockStack: string | null;
}

/** One step of a wait-for cycle: this goroutine, blocked at `site` on `wait`, waits for the next (the last for the first). */
export interface CycleStep {
  readonly goroutine: string;
  readonly site: string | null;
  /** The frame that called into the blocking function (its caller's line), when the stack has one. */
  readonly calledFrom: string | null;
  readonly wait: PreciseWait;
}

/** Why one goroutine stayed blocked, from the run that says the most. */
export interface Explanation {
  readonly runId: number;
  readonly wait: PreciseWait;
  /** The standard-library call the user's line made that parks it there ("io.Copy"), when not the wait itself; else null. */
  readonly inside: string | null;
  /** User frames at the block, innermost first, "function file:line". */
  readonly stack: readonly string[];
  readonly waitsFor: readonly WaitFor[];
  /** A closed set of blocked goroutines, in wait-for order, starting with this one; null when none was found. */
  readonly cycle: readonly CycleStep[] | null;
  /** Nothing is left to wake it: whoever it waits for (or, knowing no one, every other goroutine of its owner) had ended; never when a timer wakes it. */
  readonly partnerGone: boolean;
  /** Wake-ups of this wait by a timer, over all runs: above 0, time keeps it alive. */
  readonly timerWakes: number;
  /**
   * Where it ended blocked, per place (site and wait) over the runs, the explained run's
   * place first, then by runs; more than one: the text says so ("in 2 of 5 runs at …").
   */
  readonly places: readonly BlockPlace[];
  /** One paragraph for a reader. */
  readonly text: string;
}

/** One place a goroutine ended blocked at, and in how many runs. */
export interface BlockPlace {
  readonly site: string | null;
  readonly wait: PreciseWait;
  readonly runs: number;
}

/** A blocked goroutine as the source is asked about it: its frames (innermost first) and the `go` statement that started it. */
export interface SourceGoroutine {
  readonly id: string;
  readonly frames: readonly Frame[];
  /** "function file:line" of its `go` statement; null for a root. */
  readonly creationSite: string | null;
}

/** The source's view: which of `candidates` can complete the wait `blocked` is parked in (src/model/wait-sites.ts, wakersInSource). */
export type SourceWakers = (
  blocked: SourceGoroutine & { readonly site: string; readonly reason: string; readonly wait: PreciseWait },
  candidates: readonly SourceGoroutine[],
) => readonly string[];

export interface ExplainOptions {
  readonly sourceWakers?: SourceWakers;
}

/** A readable name for a canonical goroutine id: its entry without the package path and its sibling number; a root as itself. */
export function goroutineLabel(canonicalId: string): string {
  const segments = canonicalId.split("/");
  if (segments.length === 1) return canonicalId;
  const last = segments[segments.length - 1];
  const match = /^(.*)@[^@]*#(\d+)$/.exec(last);
  if (match === null) return shortFunction(last);
  const ordinal = Number(match[2]);
  return `${shortFunction(match[1])}${ordinal > 0 ? `#${ordinal}` : ""}`;
}

/** "file:line" of a "function file:line" site. */
export function siteLine(site: string | null): string {
  if (site === null) return "an unknown line";
  const frame = parseFrame(site);
  return frame === null ? site : `${frame.file}:${frame.line}`;
}

function rootOf(canonicalId: string): string {
  return canonicalId.split("/", 1)[0];
}

/** The goroutines `goroutine` waits for in run `r`, where it ended in `block`. */
function waitsForIn(
  r: AnalysedRun,
  wakesOf: ReturnType<typeof wakeIndex>,
  goroutine: string,
  block: FinalBlock,
  options: ExplainOptions,
): WaitFor[] {
  const states = r.states;
  const describe = (
    id: string,
    basis: WaitForBasis,
    lock: { site: string | null; stack: string | null } | null,
  ): WaitFor => {
    const theirs = states.finalBlocks.get(id);
    return {
      goroutine: id,
      basis,
      state: states.ends.get(id) ?? "ended",
      blockedAt: theirs?.blockingSite ?? null,
      wait: theirs?.wait ?? null,
      tookLockAt: lock?.site ?? null,
      lockStack: lock?.stack ?? null,
    };
  };
  const wanted = states.locks.wanting.get(goroutine);
  if (isLockWait(block.wait) && wanted !== undefined) {
    // Its own read lock does not block a second read: only a queued writer does.
    const holders = holdersOf(states.locks, wanted.lock).filter(
      (h) => !(h.goroutine === goroutine && h.hold.mode === "r" && wanted.mode === "r"),
    );
    if (holders.length > 0) return holders.map((h) => describe(h.goroutine, "holds-lock", h.hold));
  }
  // Timers and the runtime are not goroutines to wait for.
  const wakers = wakesOf(goroutine, blockKey(block.reason, block.blockingSite)).wakers.filter(
    (w) => w !== TIMER_WAKER && w !== NON_USER_WAKER && states.seen.has(w),
  );
  if (wakers.length > 0) return wakers.map((w) => describe(w, "woke-before", null));
  if (options.sourceWakers !== undefined && block.blockingSite !== null) {
    const createdAt = new Map(r.run.goroutines.map((g) => [g.canonicalId, g.creationSite]));
    const asked = (id: string, b: FinalBlock): SourceGoroutine => ({
      id,
      frames: parseStack(b.stack).frames,
      creationSite: createdAt.get(id) ?? null,
    });
    const candidates = [...states.finalBlocks].filter(([id]) => id !== goroutine).map(([id, b]) => asked(id, b));
    const found = options.sourceWakers(
      { ...asked(goroutine, block), site: block.blockingSite, reason: block.reason, wait: block.wait },
      candidates,
    );
    if (found.length > 0) return [...found].sort().map((w) => describe(w, "source", null));
  }
  return [];
}

/**
 * The shortest cycle through `start` over the blocked goroutines' wait-for edges; null if
 * none. A lock wait needs every holder to release, so any blocked holder continues it; any
 * one of the goroutines that can complete a channel wait would do, so such a wait continues
 * only when none of them is live (the others blocked or gone).
 */
function cycleThrough(start: string, edges: ReadonlyMap<string, readonly WaitFor[]>): string[] | null {
  let best: string[] | null = null;
  const path: string[] = [start];
  const visit = (at: string): void => {
    if (path.length > 8) return;
    const out = edges.get(at) ?? [];
    if (out.some((w) => w.basis !== "holds-lock" && isLive(w.state))) return;
    for (const next of out) {
      if (next.state !== "blocked") continue;
      if (next.goroutine === start) {
        if (best === null || path.length < best.length) best = [...path];
        continue;
      }
      if (path.includes(next.goroutine)) continue;
      path.push(next.goroutine);
      visit(next.goroutine);
      path.pop();
    }
  };
  visit(start);
  return best;
}

function frameText2(frame: Frame | undefined): string | null {
  return frame === undefined ? null : frameText(frame);
}

/** How much an explanation says: a cycle, then a lock holder, then a partner gone, then any waited-for goroutine. */
export function explanationWeight(e: Explanation): number {
  return (
    (e.cycle !== null ? 8 : 0) +
    (e.waitsFor.some((w) => w.basis === "holds-lock") ? 4 : 0) +
    (e.partnerGone ? 2 : 0) +
    (e.waitsFor.length > 0 ? 1 : 0)
  );
}

function describeWaitFor(w: WaitFor): string {
  const name = goroutineLabel(w.goroutine);
  const lock = w.tookLockAt === null ? "" : ` (it took the lock at ${siteLine(w.tookLockAt)})`;
  if (w.state === "ended")
    return `${name}${lock}, which had ended${w.basis === "holds-lock" ? " without releasing it" : ""}`;
  if (w.state === "blocked")
    return `${name}${lock}, which is itself blocked at ${siteLine(w.blockedAt)} in ${w.wait ?? "a wait"}`;
  return `${name}${lock}, which was still ${w.state} when the trace stopped`;
}

/** How the list of waited-for goroutines is introduced; "woke-before" says where the wake-ups were seen (runs: the program's). */
function basisText(basis: WaitForBasis, runs: number): string {
  switch (basis) {
    case "holds-lock":
      return "The lock is held by";
    case "woke-before":
      return runs === 1
        ? "Earlier in the only run, it was woken there by"
        : `In the ${runs} runs, it was woken there by`;
    case "source":
      return "The source shows who can complete it:";
  }
}

/** What one run cannot show, said wherever a claim rests on the runs: it saw one schedule. */
const ONE_RUN = "One run shows one schedule: more runs (--runs) can show whether another one wakes it.";

/** What the paragraph of one goroutine in one run is made of. */
interface ParagraphFacts {
  readonly goroutine: string;
  readonly block: FinalBlock;
  readonly inside: string | null;
  readonly waitsFor: readonly WaitFor[];
  readonly cycle: readonly CycleStep[] | null;
  readonly partnerGone: boolean;
  /** Other goroutines of its owner in the run. */
  readonly others: number;
  /** Timer wake-ups of this wait over all runs, and whether its owner had ended in this run. */
  readonly timerWakes: number;
  readonly ownerEnded: boolean;
  /** Runs of the program explained (crashed ones left out). */
  readonly runs: number;
}

function paragraph(facts: ParagraphFacts): string {
  const { goroutine, block, waitsFor, cycle, partnerGone, others, runs } = facts;
  if (cycle !== null) {
    const next = (i: number): string => goroutineLabel(cycle[(i + 1) % cycle.length].goroutine);
    const where = (s: CycleStep): string =>
      `${siteLine(s.site)} (${s.wait}${s.calledFrom === null ? "" : `, called at ${siteLine(s.calledFrom)}`})`;
    const steps = cycle
      .map((s, i) => `${i === 0 ? goroutineLabel(s.goroutine) : ", which"} waits at ${where(s)} for ${next(i)}`)
      .join("");
    const holders = waitsFor
      .filter((w) => w.basis === "holds-lock" && w.tookLockAt !== null)
      .map((w) => `${goroutineLabel(w.goroutine)} took that lock at ${siteLine(w.tookLockAt)}`);
    return `${steps}: a cycle of blocked goroutines, so none of them can ever be woken.${holders.length > 0 ? ` ${holders.join("; ")}.` : ""}`;
  }
  const at = `${goroutineLabel(goroutine)} waits at ${siteLine(block.blockingSite)} in ${block.wait}${facts.inside === null ? "" : ` inside ${facts.inside}`}`;
  // Alive, kept going by a timer: say what keeps it alive, never that nothing can wake it.
  if (facts.timerWakes > 0) {
    const owner = ownerOf(goroutine);
    const ended = facts.ownerEnded && owner.kind !== "background" ? `; ${ownerEndedText(owner)}` : "";
    return `${at}, but ${timerWoke(facts.timerWakes)}${ALIVE}${ended}.`;
  }
  const first = `${at}.`;
  const oneRun = runs === 1 ? ` ${ONE_RUN}` : "";
  if (waitsFor.length > 0) {
    const list = waitsFor.slice(0, 3).map(describeWaitFor).join("; ");
    const more = waitsFor.length > 3 ? ` (and ${waitsFor.length - 3} more)` : "";
    const end = partnerGone
      ? " Nothing is left to wake it."
      : waitsFor.some((w) => isLive(w.state))
        ? " It may still be woken."
        : "";
    return `${first} ${basisText(waitsFor[0].basis, runs)} ${list}${more}.${end}`;
  }
  const noOne =
    runs === 1 ? "The only run does not show who could wake it" : `None of the ${runs} runs shows who could wake it`;
  if (partnerGone)
    return (
      `${first} ${noOne}, and ` +
      (others === 0
        ? "it was the only goroutine of its owner"
        : "every other goroutine of its owner had ended or waits in the same operation") +
      `: nothing is left to wake it.${oneRun}`
    );
  return `${first} ${noOne}.${oneRun}`;
}

/** The explanation of `goroutine` in run `r` (one of `runs`), where it ended in `block`. */
function explainIn(
  r: AnalysedRun,
  goroutine: string,
  block: FinalBlock,
  edges: ReadonlyMap<string, readonly WaitFor[]>,
  context: { readonly runs: number; readonly wakesOf: ReturnType<typeof wakeIndex> },
): Explanation {
  const waitsFor = edges.get(goroutine) ?? [];
  const loop = cycleThrough(goroutine, edges);
  const cycle =
    loop === null
      ? null
      : loop.map((id) => {
          const b = r.states.finalBlocks.get(id) as FinalBlock;
          return {
            goroutine: id,
            site: b.blockingSite,
            calledFrom: frameText2(parseStack(b.stack).frames[1]),
            wait: b.wait,
          };
        });
  const root = rootOf(goroutine);
  const others = [...r.states.ends].filter(([id]) => id !== goroutine && rootOf(id) === root);
  // Knowing no one who could wake it: gone if the rest of its owner ended, or waits in the
  // very same operation (a sibling parked at the same send cannot complete this send).
  const sameWait = (id: string): boolean => {
    const theirs = r.states.finalBlocks.get(id);
    return theirs !== undefined && theirs.reason === block.reason && theirs.blockingSite === block.blockingSite;
  };
  const timerWakes = context.wakesOf(goroutine, blockKey(block.reason, block.blockingSite)).timer;
  const partnerGone =
    timerWakes === 0 &&
    (waitsFor.length > 0
      ? waitsFor.every((w) => w.state === "ended")
      : others.every(([id, state]) => state === "ended" || sameWait(id)));
  const inside = libraryCall(parseStack(block.stack).api);
  return {
    runId: r.run.runId,
    wait: block.wait,
    inside,
    stack: parseStack(block.stack).frames.map(frameText),
    waitsFor,
    cycle,
    partnerGone,
    timerWakes,
    places: [{ site: block.blockingSite, wait: block.wait, runs: 1 }],
    text: paragraph({
      goroutine,
      block,
      inside,
      waitsFor,
      cycle,
      partnerGone,
      others: others.length,
      timerWakes,
      ownerEnded: ownerEnded(r, root),
      runs: context.runs,
    }),
  };
}

/**
 * Explains each of `goroutines` from the program's runs where it ended blocked (crashed
 * runs left out), keeping the run that says the most. Goroutines never blocked at the end
 * of a run get none.
 */
export function explainProgram(
  program: ProgramRuns,
  goroutines: Iterable<string>,
  options: ExplainOptions = {},
): Map<string, Explanation> {
  const runs = program.runs.filter((r) => !r.run.crashed);
  const wakesOf = wakeIndex(runs);
  const memo = new Map<AnalysedRun, Map<string, WaitFor[]>>();
  const edgesIn = (r: AnalysedRun): ReadonlyMap<string, readonly WaitFor[]> => {
    let edges = memo.get(r);
    if (edges === undefined) {
      edges = new Map();
      for (const [id, block] of r.states.finalBlocks) edges.set(id, waitsForIn(r, wakesOf, id, block, options));
      memo.set(r, edges);
    }
    return edges;
  };
  const out = new Map<string, Explanation>();
  for (const goroutine of goroutines) {
    let best: { explanation: Explanation; place: string } | null = null;
    const places = new Map<string, BlockPlace>();
    for (const r of runs) {
      const block = r.states.finalBlocks.get(goroutine);
      if (block === undefined) continue;
      const place = `${block.blockingSite ?? ""}\0${block.wait}`;
      const seen = places.get(place);
      places.set(place, { site: block.blockingSite, wait: block.wait, runs: (seen?.runs ?? 0) + 1 });
      const e = explainIn(r, goroutine, block, edgesIn(r), { runs: runs.length, wakesOf });
      if (best === null || explanationWeight(e) > explanationWeight(best.explanation)) best = { explanation: e, place };
    }
    if (best !== null) out.set(goroutine, withPlaces(best.explanation, best.place, places, runs.length));
  }
  return out;
}

/**
 * The explanation with every place the goroutine ended blocked at, the explained one first;
 * when there are several, the text says where it ended in how many of the runs, so one item
 * never shows different lines or waits without saying why.
 */
function withPlaces(
  e: Explanation,
  explained: string,
  places: ReadonlyMap<string, BlockPlace>,
  runs: number,
): Explanation {
  const own = places.get(explained) as BlockPlace;
  const others = [...places].filter(([key]) => key !== explained).map(([, p]) => p);
  others.sort((a, b) => b.runs - a.runs);
  const all = [own, ...others];
  if (others.length === 0) return { ...e, places: all };
  const where = (p: BlockPlace): string => `in ${p.runs} of ${runs} runs at ${siteLine(p.site)} in ${p.wait}`;
  const text =
    `${e.text} It did not always end blocked there: ${where(own)} (the run explained), ` +
    `${others.map(where).join(", ")}.`;
  return { ...e, places: all, text };
}
