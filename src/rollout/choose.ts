// The goroutine-choice rule: predictors give an event type only, so the state machine picks
// the subject (and actor) of each rolled-out event. Pure; documented in docs/rollout.md.

import type { EventType } from "../core/index.js";
import type { GoroutineMachine, ProposedTransition, Verdict } from "./state-machine.js";
import { validateTransition } from "./state-machine.js";

function first(map: ReadonlyMap<number, true>): number | undefined {
  for (const key of map.keys()) return key;
  return undefined;
}

function last(map: ReadonlyMap<number, true>): number | undefined {
  let found: number | undefined;
  for (const key of map.keys()) found = key;
  return found;
}

/**
 * The transition an event type stands for in this state, or null when no goroutine is eligible:
 * - GoStart: the longest-runnable goroutine (a FIFO run queue);
 * - GoBlock, GoSched, GoEnd: the most recently started running goroutine;
 * - GoUnblock: the longest-waiting goroutine, woken by the most recently started running one (or null);
 * - GoCreate: a new goroutine (the largest id seen + 1) created by the most recently started running one.
 * GoCreate with nothing running has no actor and so no eligible creator: null.
 */
export function chooseTransition(machine: GoroutineMachine, event: EventType): ProposedTransition | null {
  const current = last(machine.running);
  switch (event) {
    case "GoStart": {
      const g = first(machine.runnable);
      return g === undefined ? null : { kind: event, goroutine: g, actor: null };
    }
    case "GoBlock":
    case "GoSched":
    case "GoEnd":
      return current === undefined ? null : { kind: event, goroutine: current, actor: current };
    case "GoUnblock": {
      const g = first(machine.waiting);
      return g === undefined ? null : { kind: event, goroutine: g, actor: current ?? null };
    }
    case "GoCreate":
      return current === undefined ? null : { kind: event, goroutine: machine.maxGoroutine + 1, actor: current };
  }
}

/** The chosen transition and the state machine's verdict on it (invalid when no goroutine is eligible). */
export interface JudgedEvent {
  readonly transition: ProposedTransition | null;
  readonly verdict: Verdict;
}

/** chooseTransition, then validateTransition on the choice. */
export function judgeEvent(machine: GoroutineMachine, event: EventType): JudgedEvent {
  const transition = chooseTransition(machine, event);
  if (transition === null)
    return {
      transition,
      verdict: { valid: false, rule: noCandidateRule(event), message: `${event}: no eligible goroutine` },
    };
  return { transition, verdict: validateTransition(machine, transition) };
}

function noCandidateRule(event: EventType): Extract<Verdict, { valid: false }>["rule"] {
  switch (event) {
    case "GoStart":
      return "start-not-runnable";
    case "GoUnblock":
      return "unblock-not-waiting";
    case "GoBlock":
      return "block-not-running";
    case "GoSched":
      return "sched-not-running";
    case "GoEnd":
      return "end-not-running";
    case "GoCreate":
      return "create-actor-not-running";
  }
}
