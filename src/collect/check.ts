// The cheap check collect --budget makes after each run, to stop spending a program's
// budget once a finding of a class it hunts is confirmed. It decodes the one trace with the
// trace stage's streaming decoder (memory flat in the number of events), folds it with the
// goroutine model and judges the run with the one leak rule that `schedlab leaks` applies
// to all runs (src/model/: judgeProgram), so the budget and `leaks` cannot disagree about a
// run judged alone; `leaks` knows more (wakers seen in other runs), which can only turn a
// leak into an inconclusive or outlived finding, never create one. The classes
// (docs/collect.md, "Stop rule"):
//   - leak: a goroutine the rule judges blocked forever and gating (a leak or deadlock not
//     seen only in a run the deadline cut; crashed runs confirm nothing);
//   - race: a "WARNING: DATA RACE" report, whatever the outcome;
//   - failure: a test failing (or panicking) under race or perturb that no plain run of the
//     program has failed so far (withFailureClass: the check alone has no history).

import type { ProgramKind } from "../corpus/index.js";
import { goHelperPath } from "../gohelper/index.js";
import {
  judgeProgram,
  leakRunOf,
  runStateFold,
  waitSourceOf,
  type RuleOptions,
  type RuntimeView,
} from "../model/index.js";
import { decodeTrace, type DecodeTap } from "../trace/index.js";
import type { GoroutineInfo } from "../core/index.js";
import { parseFailures, withUntracedRerun } from "./failures.js";
import type { Strategy } from "./strategy.js";
import type { GoToolchain } from "../go/index.js";
import type {
  BlockedAtEnd,
  FindingClass,
  RecordedLeakProfile,
  RunCheck,
  RunOutcome,
  StopReason,
  TestFailure,
  UntracedOutcome,
} from "./types.js";

/**
 * How a check gets a run's decode: it streams the records and lock ops to `tap` and resolves
 * with the run's goroutines, or rejects when the trace cannot be read. The check's own
 * (checkDecode), or the one the run's ingest makes (collect --budget: one decode for both).
 */
export type TraceDecode = (tap: DecodeTap) => Promise<readonly GoroutineInfo[]>;

/** The trace at `tracePath` decoded for the check alone. */
export function checkDecode(tracePath: string, kind: ProgramKind, go: GoToolchain): TraceDecode {
  return async (tap) => {
    const summary = await decodeTrace(
      tracePath,
      { mode: kind, goroot: go.goroot, onLockOps: (ops) => tap.onLockOps(ops) },
      (records) => tap.onRecords(records),
    );
    return summary.goroutines;
  };
}

/**
 * The goroutines the one leak rule judges blocked forever (and gating) in one run, from its
 * trace (decoded by `decode`, the check's own by default); `waitSourceAt` is the program
 * source's view of its waits. Crashed runs have none.
 */
export async function blockedForeverInRun(
  run: {
    readonly outcome: Exclude<RunOutcome, "build-error">;
    readonly tracePath: string;
    readonly stderrTail?: string;
    readonly outputDigest?: string | null;
    readonly wallMs?: number | null;
    readonly stopReason?: StopReason | null;
    readonly leakProfile?: RecordedLeakProfile | null;
  },
  kind: ProgramKind,
  go: GoToolchain,
  waitSourceAt: RuleOptions["waitSourceAt"],
  decode: TraceDecode = checkDecode(run.tracePath, kind, go),
): Promise<BlockedAtEnd[]> {
  // The run as `leaks` reads it back from the database: one view, so the two judge it alike.
  const leakRun = leakRunOf(
    {
      id: 0,
      runIndex: 0,
      config: "",
      outcome: run.outcome,
      stderrTail: run.stderrTail ?? null,
      outputDigest: run.outputDigest ?? null,
      wallMs: run.wallMs ?? null,
      stop: run.stopReason ?? null,
      runtime: runtimeViewOf(run.leakProfile ?? null),
    },
    [],
  );
  const fold = runStateFold(leakRun);
  const goroutines = await decode({
    onRecords: (records) => {
      for (const record of records) fold.add(record);
    },
    onLockOps: (ops) => {
      for (const op of ops) fold.addLockOp(op);
    },
  });
  const states = fold.finish(goroutines);
  const judged = judgeProgram({ program: "", runs: [{ run: { ...leakRun, goroutines }, states }] }, { waitSourceAt });
  return judged
    .filter((j) => j.gating)
    .map((j) => {
      const block = states.finalBlocks.get(j.goroutine);
      return { goroutine: j.goroutine, reason: block?.reason ?? "", site: block?.blockingSite ?? null };
    });
}

/** The runtime's view of a run from the leak profile its agent wrote, or null without one. */
export function runtimeViewOf(profile: RecordedLeakProfile | null): RuntimeView | null {
  if (profile === null) return null;
  return {
    source: "leak-profile",
    taken: profile.taken,
    goroutines: new Map(profile.goroutines.map((g) => [g.gid, g])),
  };
}

/** The verdict from what a check saw; pure. Failures are listed, never a class here (see withFailureClass). */
export function runCheckOf(
  outcome: RunOutcome,
  blocked: readonly BlockedAtEnd[],
  races: number,
  problem?: string,
  failures: readonly TestFailure[] = [],
): RunCheck {
  const counted = outcome === "panic" ? [] : blocked;
  const classes: FindingClass[] = [];
  if (races > 0) classes.push("race");
  if (counted.length > 0) classes.push("leak");
  return {
    finding: legacyFinding(classes),
    classes,
    blocked: counted,
    races,
    failures,
    ...(problem === undefined ? {} : { problem }),
  };
}

/** run_checks.finding's value for `classes` (the column predates classes; see RunCheck.finding). */
function legacyFinding(classes: readonly FindingClass[]): RunCheck["finding"] {
  return classes.includes("race") ? "race" : classes.includes("leak") ? "blocked" : null;
}

/** The test a failure is keyed by in a program's history; a main program's panic has none. */
export function failureKey(failure: TestFailure): string {
  return failure.test ?? "";
}

/**
 * `check` with the class failure added when, in a run of a race or perturb build, a
 * failure that is not tracer-induced names a test no plain run of the program has failed
 * so far (`failedInPlain`: failureKey of those). A test that fails in plain runs fails
 * anyway: that is not a schedule-dependent bug. Pure.
 */
export function withFailureClass(check: RunCheck, strategy: Strategy, failedInPlain: ReadonlySet<string>): RunCheck {
  if (strategy === "plain" || check.classes.includes("failure")) return check;
  const flaky = check.failures.some((f) => !f.tracerInduced && !failedInPlain.has(failureKey(f)));
  return flaky ? { ...check, classes: [...check.classes, "failure"] } : check;
}

/** Whether a run confirming `classes` ends a hunt that stops on `stopOn`. Pure. */
export function stopsHunt(classes: readonly FindingClass[], stopOn: readonly FindingClass[]): boolean {
  return classes.some((c) => stopOn.includes(c));
}

/** A check as stored in run_checks.detail, also one recorded before classes and failures existed. */
export function storedCheck(detail: string): RunCheck {
  const raw = JSON.parse(detail) as Omit<RunCheck, "classes" | "failures"> &
    Partial<Pick<RunCheck, "classes" | "failures">>;
  const classes =
    raw.classes ??
    (raw.finding === null ? [] : raw.races > 0 ? (raw.blocked.length > 0 ? ["race", "leak"] : ["race"]) : ["leak"]);
  return { ...raw, classes, failures: raw.failures ?? [] } as RunCheck;
}

/**
 * Checks one recorded run: decodes its trace (if any; `decode` as blockedForeverInRun takes
 * it), applies the rule above, and lists the failures in its output.
 */
export async function checkRun(
  run: {
    readonly outcome: RunOutcome;
    readonly tracePath: string | null;
    readonly races: number;
    readonly stderrTail?: string;
    /** The run's output digest; failures are read from it when there is one, else from the tail. */
    readonly outputDigest?: string | null;
    /** How the binary ended when rerun without the tracer (a crash whose rerun passed was the tracer's). */
    readonly untraced?: UntracedOutcome | null;
    readonly wallMs?: number | null;
    readonly stopReason?: StopReason | null;
    readonly leakProfile?: RecordedLeakProfile | null;
  },
  program: { readonly kind: ProgramKind; readonly dir: string },
  go: GoToolchain,
  decode?: TraceDecode,
): Promise<RunCheck> {
  const output = run.outputDigest ?? run.stderrTail;
  const failures = output === undefined ? [] : withUntracedRerun(parseFailures(output), run.untraced ?? null);
  if (run.tracePath === null || run.outcome === "build-error")
    return runCheckOf(
      run.outcome,
      [],
      run.races,
      run.tracePath === null ? "the run left no trace" : undefined,
      failures,
    );
  try {
    const blocked = await blockedForeverInRun(
      {
        outcome: run.outcome,
        tracePath: run.tracePath,
        stderrTail: run.stderrTail,
        outputDigest: run.outputDigest,
        wallMs: run.wallMs,
        stopReason: run.stopReason,
        leakProfile: run.leakProfile,
      },
      program.kind,
      go,
      waitSourceOf(program.dir, await goHelperPath()),
      decode,
    );
    return runCheckOf(run.outcome, blocked, run.races, undefined, failures);
  } catch (error) {
    return runCheckOf(
      run.outcome,
      [],
      run.races,
      `the trace could not be checked: ${(error as Error).message}`,
      failures,
    );
  }
}
