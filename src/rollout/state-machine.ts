// The goroutine state machine (docs/rollout.md): replays a prefix on core's
// scheduler-state tracker and judges whether a proposed next record obeys Go's rules.
// Pure and synchronous; the tracker holds the statuses, this module adds the rules and the
// per-status arrival order the goroutine-choice rule needs.

import {
  applyRecord,
  goroutineState,
  newSchedulerTracker,
  snapshotCounts,
  initialState,
  type GoroutineRecord,
  type GoroutineStatus,
  type RecordKind,
  type SchedulerTracker,
} from "../core/index.js";

/** Every rule the machine checks; a violation names exactly one. */
export const TRANSITION_RULES = [
  "unknown-goroutine",
  "ended-goroutine",
  "create-existing",
  "create-actor-not-running",
  "start-not-runnable",
  "unblock-not-waiting",
  "block-not-running",
  "sched-not-running",
  "end-not-running",
  "syscall-enter-not-running",
  "syscall-exit-not-in-syscall",
  "syscall-unblock-not-in-syscall",
  "gomaxprocs-exceeded",
  "initial-conflict",
] as const;
export type TransitionRule = (typeof TRANSITION_RULES)[number];

/** A proposed next record: what happens, to whom, caused by whom. */
export interface ProposedTransition {
  readonly kind: RecordKind;
  /** The subject goroutine. */
  readonly goroutine: number;
  /** The acting goroutine (the creator for GoCreate, the waker for GoUnblock), or null. */
  readonly actor: number | null;
  /** GoBlock/GoSched reason; Initial: the state name. */
  readonly reason?: string;
}

export type Verdict =
  { readonly valid: true } | { readonly valid: false; readonly rule: TransitionRule; readonly message: string };

const VALID: Verdict = { valid: true };

/**
 * Mutable replay state. Invariant: each live goroutine sits in exactly one of the three order
 * maps matching its tracker status (runnable, waiting, running), keyed by goroutine id, with
 * insertion order = the order in which they entered that status (JS Maps keep it).
 */
export interface GoroutineMachine {
  readonly tracker: SchedulerTracker;
  /** GOMAXPROCS of the run; 0 = unknown (the processor rule is then not checked). */
  readonly procs: number;
  readonly runnable: Map<number, true>;
  readonly waiting: Map<number, true>;
  readonly running: Map<number, true>;
  /** Largest goroutine id seen: a synthesised GoCreate uses the next one. */
  maxGoroutine: number;
}

export function newGoroutineMachine(procs: number): GoroutineMachine {
  return {
    tracker: newSchedulerTracker(),
    procs,
    runnable: new Map(),
    waiting: new Map(),
    running: new Map(),
    maxGoroutine: 0,
  };
}

function statusOf(machine: GoroutineMachine, gid: number): GoroutineStatus | undefined {
  return goroutineState(machine.tracker, gid)?.status;
}

function invalid(rule: TransitionRule, message: string): Verdict {
  return { valid: false, rule, message };
}

function runningCount(machine: GoroutineMachine): number {
  return machine.running.size;
}

/** `fromStatus` must be the subject's status, else `rule`; ended and unknown subjects have their own rules. */
function requireStatus(
  machine: GoroutineMachine,
  t: ProposedTransition,
  allowed: readonly GoroutineStatus[],
  rule: TransitionRule,
): Verdict {
  const status = statusOf(machine, t.goroutine);
  if (status === undefined)
    return invalid("unknown-goroutine", `${t.kind} of G${t.goroutine}, which no earlier record created or mentioned`);
  if (status === "ended") return invalid("ended-goroutine", `${t.kind} of G${t.goroutine}, which has ended`);
  if (!allowed.includes(status))
    return invalid(rule, `${t.kind} of G${t.goroutine}, which is ${status} (needs ${allowed.join(" or ")})`);
  return VALID;
}

function requireFreeProcessor(machine: GoroutineMachine, t: ProposedTransition): Verdict {
  if (machine.procs > 0 && runningCount(machine) >= machine.procs) {
    return invalid(
      "gomaxprocs-exceeded",
      `${t.kind} of G${t.goroutine} while ${runningCount(machine)} goroutines already run on GOMAXPROCS=${machine.procs}`,
    );
  }
  return VALID;
}

/**
 * Judges `t` against the current state without changing it. The rules (docs/rollout.md):
 * - GoCreate: the subject must be new; a known actor must be running (an actor that is not a
 *   user goroutine — the runtime, the testing driver — is invisible here and not checked).
 * - GoStart: runnable → running, and fewer than GOMAXPROCS goroutines running.
 * - GoBlock, GoSched: running only. GoEnd: running or in a syscall.
 * - GoUnblock: waiting only.
 * - SyscallEnter: running; SyscallExit: syscall → running (needs a processor); SyscallUnblock: syscall → runnable.
 * - Initial (a status first seen): a known goroutine must be restated with its current status.
 * Ended goroutines never come back; a goroutine never mentioned before cannot be acted on.
 */
export function validateTransition(machine: GoroutineMachine, t: ProposedTransition): Verdict {
  switch (t.kind) {
    case "GoCreate": {
      const status = statusOf(machine, t.goroutine);
      if (status === "ended")
        return invalid("ended-goroutine", `GoCreate of G${t.goroutine}, which has ended (ids are never reused)`);
      if (status !== undefined)
        return invalid("create-existing", `GoCreate of G${t.goroutine}, which already exists (${status})`);
      if (t.actor !== null) {
        const actor = statusOf(machine, t.actor);
        if (actor !== undefined && actor !== "running")
          return invalid("create-actor-not-running", `G${t.actor} creates G${t.goroutine} while ${actor}`);
      }
      return VALID;
    }
    case "GoStart": {
      const v = requireStatus(machine, t, ["runnable"], "start-not-runnable");
      return v.valid ? requireFreeProcessor(machine, t) : v;
    }
    case "GoBlock":
      return requireStatus(machine, t, ["running"], "block-not-running");
    case "GoSched":
      return requireStatus(machine, t, ["running"], "sched-not-running");
    case "GoEnd":
      return requireStatus(machine, t, ["running", "syscall"], "end-not-running");
    case "GoUnblock":
      return requireStatus(machine, t, ["waiting"], "unblock-not-waiting");
    case "SyscallEnter":
      return requireStatus(machine, t, ["running"], "syscall-enter-not-running");
    case "SyscallExit": {
      const v = requireStatus(machine, t, ["syscall"], "syscall-exit-not-in-syscall");
      return v.valid ? requireFreeProcessor(machine, t) : v;
    }
    case "SyscallUnblock":
      return requireStatus(machine, t, ["syscall"], "syscall-unblock-not-in-syscall");
    case "Initial": {
      const status = statusOf(machine, t.goroutine);
      if (status === undefined) return VALID;
      const stated = initialState(t.reason ?? "").status;
      return stated === status
        ? VALID
        : invalid("initial-conflict", `G${t.goroutine} restated as ${stated} while the replay has it ${status}`);
    }
  }
}

function orderMapOf(machine: GoroutineMachine, status: GoroutineStatus | undefined): Map<number, true> | undefined {
  switch (status) {
    case "runnable":
      return machine.runnable;
    case "waiting":
      return machine.waiting;
    case "running":
      return machine.running;
    default:
      return undefined;
  }
}

/** Applies a record (valid or not: a replay follows the trace) to the tracker and the order maps. */
export function applyTransition(machine: GoroutineMachine, record: GoroutineRecord): void {
  const before = statusOf(machine, record.goroutine);
  applyRecord(machine.tracker, record);
  const after = statusOf(machine, record.goroutine);
  if (record.goroutine > machine.maxGoroutine) machine.maxGoroutine = record.goroutine;
  if (before === after && record.kind === "Initial") return;
  orderMapOf(machine, before)?.delete(record.goroutine);
  orderMapOf(machine, after)?.set(record.goroutine, true);
}

/** A violation found while replaying recorded history: where and which rule. */
export interface ReplayViolation {
  readonly index: number;
  readonly record: GoroutineRecord;
  readonly verdict: Extract<Verdict, { valid: false }>;
}

/**
 * Replays records[0 .. end) into a new machine, judging each record before applying it.
 * Every record is applied even when it breaks a rule (the trace is the ground truth), so the
 * machine ends in the trace's state; the violations say where the rules and the trace disagree.
 */
export function replayRecords(
  records: readonly GoroutineRecord[],
  end: number,
  procs: number,
): { machine: GoroutineMachine; violations: ReplayViolation[] } {
  const machine = newGoroutineMachine(procs);
  const violations: ReplayViolation[] = [];
  for (let i = 0; i < end && i < records.length; i++) {
    const r = records[i];
    const verdict = validateTransition(machine, {
      kind: r.kind,
      goroutine: r.goroutine,
      actor: r.actor,
      reason: r.reason,
    });
    if (!verdict.valid) violations.push({ index: i, record: r, verdict });
    applyTransition(machine, r);
  }
  return { machine, violations };
}

/** Goroutines per status, as the tracker counts them (for keys and messages). */
export function machineCounts(machine: GoroutineMachine): ReturnType<typeof snapshotCounts> {
  return snapshotCounts(machine.tracker);
}
