// The leak detector: across the runs of a program, each canonical goroutine the one leak
// rule (src/model/leak-rule.ts) judges, with its sites, run counts, the upper bound on
// P(GoUnblock) and the early-detection curve. Pure: runs in, findings out.

import {
  blockKey,
  endWaitOf,
  explainProgram,
  groupBugs,
  judgeProgram,
  predictDeadlocks,
  type Bug,
  type PotentialDeadlock,
  type RuntimeWait,
} from "../model/index.js";
import { clopperPearsonUpper } from "./bound.js";
import type {
  AnalysedRun,
  BlockedAtCrash,
  DetectOptions,
  EarlyDetection,
  EarlyStep,
  FinalBlock,
  FinalReason,
  FinalWait,
  LeakFinding,
  ProgramRuns,
} from "./types.js";
import type { GoroutineInfo } from "../core/index.js";

/** The `go` statement "file.go:LINE" of a canonical id's last segment (entry@file:line#n); null for a root. */
export function creationSiteKey(canonicalId: string): string | null {
  const last = canonicalId.split("/").pop() ?? "";
  const match = /@([^@#]+:\d+)#\d+$/.exec(last);
  return match === null ? null : match[1];
}

/** What a goroutine ended a run waiting in: the trace's final block or wait, or the runtime's view (endWaitOf). */
type EndWait = FinalBlock | FinalWait | RuntimeWait;

/** The most frequent value, ties broken by first appearance. */
function mode<T>(values: readonly T[]): T {
  const counts = new Map<T, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best = values[0];
  for (const [v, n] of counts) if (n > (counts.get(best) ?? 0)) best = v;
  return best;
}

/**
 * Early detection for one finding. In run r the goroutine's final block is event b_r; the
 * signature (blocked there, no GoUnblock of it in the prefix) holds in every prefix of
 * depth d ≥ b_r + 1. The curve counts, for each depth, the runs where it already holds.
 * Without any block in the trace (a background goroutine only the runtime saw waiting) it
 * holds at no depth: the depths are null and the curve empty.
 */
export function earlyDetection(
  blocks: readonly (FinalBlock | FinalWait)[],
  runsSeen: number,
  runsFalseAlarm: number,
): EarlyDetection {
  const starts = blocks.map((b) => b.depth + 1).sort((a, b) => a - b);
  const curve: EarlyStep[] = [];
  starts.forEach((depth, i) => {
    if (curve.length > 0 && curve[curve.length - 1].depth === depth)
      curve[curve.length - 1] = { depth, runsHolding: i + 1 };
    else curve.push({ depth, runsHolding: i + 1 });
  });
  if (blocks.length === 0)
    return { firstDepthAllBlockedRuns: null, firstDepthFraction: null, firstDepthAllRuns: null, runsFalseAlarm, curve };
  const first = starts[starts.length - 1];
  return {
    firstDepthAllBlockedRuns: first,
    firstDepthFraction: Math.max(...blocks.map((b) => (b.depth + 1) / Math.max(1, b.runEvents))),
    firstDepthAllRuns: blocks.length === runsSeen ? first : null,
    runsFalseAlarm,
    curve,
  };
}

/** Runtime goroutine info by canonical id, from the first run that has it. */
function infosByCanonicalId(program: ProgramRuns): Map<string, GoroutineInfo> {
  const infos = new Map<string, GoroutineInfo>();
  for (const { run } of program.runs)
    for (const g of run.goroutines) if (!infos.has(g.canonicalId)) infos.set(g.canonicalId, g);
  return infos;
}

/**
 * Findings of one program, sorted by goroutine id: every goroutine the rule judges (a
 * kind for each: leak, deadlock, outlived, background, inconclusive). runsBlocked <
 * runsSeen marks a schedule-dependent finding. The reason, wait and blocking site are those
 * of the run its explanation comes from (else the most frequent among the runs where it ends
 * blocked), the explanation saying where else it ended; `runsWoken` counts the runs where it
 * blocked at that same place but was woken from its last block there, and the bound
 * counts wake-ups within runs (wakesAtSite). Crashed runs count for nothing here (see
 * detectBlockedAtCrash).
 */
export function detectLeaks(program: ProgramRuns, options: DetectOptions = {}): LeakFinding[] {
  return analyseProgram(program, options).findings;
}

/** A program's findings, the bugs they form and the deadlocks its lock orders predict. */
export interface ProgramFindings {
  readonly findings: LeakFinding[];
  readonly bugs: Bug[];
  readonly potential: PotentialDeadlock[];
}

/** detectLeaks, with the findings grouped into bugs (src/model/bugs.ts) and the lock-order prediction (src/model/lock-order.ts). */
export function analyseProgram(program: ProgramRuns, options: DetectOptions = {}): ProgramFindings {
  const confidence = options.confidence ?? 0.95;
  const analysed = program.runs.filter((r) => !r.run.crashed);
  const infos = infosByCanonicalId(program);
  const judgements = judgeProgram(program, { cutFraction: options.cutFraction, waitSourceAt: options.waitSourceAt });
  const explanations = explainProgram(
    program,
    judgements.map((j) => j.goroutine),
    { sourceWakers: options.sourceWakers },
  );
  const bugs = groupBugs(program, judgements, explanations);
  const bugOf = new Map(bugs.flatMap((b) => b.goroutines.map((g) => [g, b.fingerprint] as const)));
  const findings: LeakFinding[] = [];
  for (const judged of judgements) {
    const goroutine = judged.goroutine;
    // Where it ended in each run: blocked (a leak reason), or in a network wait or syscall
    // (outlived only); a background goroutine the trace left live, where the runtime saw it wait.
    const finalOf = (r: AnalysedRun): EndWait | undefined => endWaitOf(r, goroutine);
    const blocked = analysed.filter((r) => finalOf(r) !== undefined);
    const ends = blocked.map((r) => finalOf(r) as EndWait);
    // Its reason and site are those of the runs that support its kind (a goroutine an
    // outlived finding saw in a network wait may have ended other runs in a lock).
    const supporting = new Set(judged.runs.filter((j) => j.kind === judged.kind).map((j) => j.runId));
    const telling = blocked.filter((r) => supporting.has(r.run.runId)).map((r) => finalOf(r) as EndWait);
    const explanation = explanations.get(goroutine) ?? null;
    // One item names one place: the block of the run its explanation comes from (the run that
    // says the most), so its wait, line, stack and paragraph agree; else the most frequent.
    const explained = analysed.find((r) => r.run.runId === explanation?.runId);
    const told = explained !== undefined && supporting.has(explained.run.runId) ? finalOf(explained) : undefined;
    const reason: FinalReason = told?.reason ?? mode((telling.length > 0 ? telling : ends).map((b) => b.reason));
    const blockingSite =
      told !== undefined ? told.blockingSite : mode(ends.filter((b) => b.reason === reason).map((b) => b.blockingSite));
    const key = blockKey(reason, blockingSite);
    const wokenThere = (r: AnalysedRun): boolean => (r.states.wakes.get(goroutine)?.get(key)?.count ?? 0) > 0;
    const runsSeen = analysed.filter((r) => r.states.seen.has(goroutine)).length;
    const runsWoken = analysed.filter((r) => finalOf(r) === undefined && wokenThere(r)).length;
    const runsFalseAlarm = analysed.filter(wokenThere).length;
    findings.push({
      ...identityOf(program, goroutine, infos, options),
      reason,
      wait:
        told?.wait ??
        mode(ends.filter((b) => b.reason === reason && b.blockingSite === blockingSite).map((b) => b.wait)),
      kind: judged.kind,
      verdict: judged.verdict,
      gating: judged.gating,
      why: judged.why,
      evidence: judged.evidence,
      owner: judged.owner,
      wakers: judged.wakers,
      wakesAtSite: judged.wakesAtSite,
      formal: reason === "select",
      creationSiteKey: creationSiteKey(goroutine),
      blockingSite,
      runsSeen,
      runsBlocked: blocked.length,
      blockedFraction: blocked.length / Math.max(1, runsSeen),
      runsWoken,
      pUnblockUpper: clopperPearsonUpper(judged.wakesAtSite, blocked.length + judged.wakesAtSite, confidence),
      // Early detection reads depths in the trace: a wait only the runtime saw has none.
      early: earlyDetection(
        ends.filter((b): b is FinalBlock | FinalWait => "depth" in b),
        runsSeen,
        runsFalseAlarm,
      ),
      explanation,
      bug: bugOf.get(goroutine) ?? "",
    });
  }
  return { findings, bugs, potential: predictDeadlocks(program) };
}

/** What every report of a goroutine says about who it is: program, id, test, entry, root or not, creation site. */
function identityOf(
  program: ProgramRuns,
  goroutine: string,
  infos: ReturnType<typeof infosByCanonicalId>,
  options: Pick<DetectOptions, "testPathOf">,
) {
  const info = infos.get(goroutine);
  return {
    program: program.program,
    goroutine,
    test: options.testPathOf?.(goroutine) ?? null,
    entry: info?.entry ?? null,
    isRoot: info?.isRoot ?? !goroutine.includes("/"),
    creationSite: info?.creationSite ?? null,
  };
}

/**
 * The goroutines blocked in a leak-reason wait when a run crashed, over the program's
 * crashed runs, sorted by goroutine id: reported apart from leaks, never as one.
 */
export function detectBlockedAtCrash(
  program: ProgramRuns,
  options: Pick<DetectOptions, "testPathOf"> = {},
): BlockedAtCrash[] {
  const crashed = program.runs.filter((r) => r.run.crashed).map((r) => r.states);
  const infos = infosByCanonicalId(program);
  const goroutines = [...new Set(crashed.flatMap((s) => [...s.finalBlocks.keys()]))].sort();
  return goroutines.map((goroutine) => {
    const blocks = crashed.flatMap((s) => s.finalBlocks.get(goroutine) ?? []);
    const reason = mode(blocks.map((b) => b.reason));
    return {
      ...identityOf(program, goroutine, infos, options),
      reason,
      blockingSite: mode(blocks.filter((b) => b.reason === reason).map((b) => b.blockingSite)),
      runsCrashed: blocks.length,
    };
  });
}
