// The cheap check collect --budget makes after each run, to stop spending a program's
// budget once a finding is confirmed. It decodes the one trace with the trace stage's
// streaming decoder (memory flat in the number of events) and replays each user
// goroutine's records to its final state, the way `schedlab leaks` reads a run, and counts
// the race detector's reports. The rule (docs/collect.md, "Stop rule"):
//   - a run that crashed (panic, fatal error) confirms nothing by its blocked goroutines:
//     goroutines merely waiting when another one panicked are not leaks;
//   - otherwise a user goroutine whose last record is a block with a leak reason (chan
//     send/receive, select, sync, Cond.Wait, forever) confirms a finding, except, in a run
//     that hung, one that a timer had woken before from the same block (a ticker loop
//     caught mid-wait, which `leaks` does not report either);
//   - a "WARNING: DATA RACE" report confirms a finding whatever the outcome.
// A hang with no goroutine blocked that way (a busy loop, a timer loop) confirms nothing.

import { decodeTrace, type GoroutineRecord } from "../trace/index.js";
import type { GoToolchain } from "./toolchain.js";
import type { BlockedAtEnd, ProgramKind, RunCheck, RunOutcome } from "./types.js";

/** Block reasons after which only another goroutine can wake the blocked one. */
export const LEAK_REASONS: ReadonlySet<string> = new Set(["chan send", "chan receive", "select", "sync", "sync.(*Cond).Wait", "forever"]);

interface Block {
  readonly reason: string;
  readonly site: string | null;
}

/** Final states of a run's goroutines, fed its records in trace order. Pure. */
export interface FinalBlocks {
  push(records: readonly GoroutineRecord[]): void;
  /** Goroutines whose last record is a leak-reason block; `hung` drops timer-woken ones. */
  blocked(hung: boolean): { goroutine: number; reason: string; site: string | null }[];
}

export function finalBlocks(): FinalBlocks {
  /** The block each goroutine is in, if any (leak reason or not). */
  const current = new Map<number, Block>();
  /** gid \0 reason \0 site of blocks a timer (no goroutine actor) ended. */
  const timerWoken = new Set<string>();
  const key = (g: number, b: Block) => `${g}\0${b.reason}\0${b.site ?? ""}`;
  return {
    push(records) {
      for (const r of records) {
        if (r.kind === "GoBlock") {
          // A GC stack-scan suspension is not a block (docs/leaks.md).
          if (r.reason !== "preempted") current.set(r.goroutine, { reason: r.reason, site: r.site });
        } else if (r.kind === "GoUnblock") {
          const block = current.get(r.goroutine);
          if (block !== undefined && r.actor === null) timerWoken.add(key(r.goroutine, block));
          current.delete(r.goroutine);
        } else if (r.kind !== "Initial") {
          current.delete(r.goroutine);
        }
      }
    },
    blocked(hung) {
      const out: { goroutine: number; reason: string; site: string | null }[] = [];
      for (const [goroutine, block] of current) {
        if (!LEAK_REASONS.has(block.reason)) continue;
        if (hung && timerWoken.has(key(goroutine, block))) continue;
        out.push({ goroutine, ...block });
      }
      return out;
    },
  };
}

/** Outcomes of runs that hung: the deadline or schedlab's kill stopped them. */
const HUNG: ReadonlySet<RunOutcome> = new Set(["timeout", "killed"]);

/** The verdict from what a check saw; pure. */
export function runCheckOf(outcome: RunOutcome, blocked: readonly BlockedAtEnd[], races: number, problem?: string): RunCheck {
  const counted = outcome === "panic" ? [] : blocked;
  return {
    finding: races > 0 ? "race" : counted.length > 0 ? "blocked" : null,
    blocked: counted,
    races,
    ...(problem === undefined ? {} : { problem }),
  };
}

/** Checks one recorded run: decodes its trace (if any) and applies the rule above. */
export async function checkRun(
  run: { readonly outcome: RunOutcome; readonly tracePath: string | null; readonly races: number },
  kind: ProgramKind,
  go: GoToolchain,
): Promise<RunCheck> {
  if (run.tracePath === null || run.outcome === "panic") return runCheckOf(run.outcome, [], run.races, run.tracePath === null ? "the run left no trace" : undefined);
  const tracker = finalBlocks();
  try {
    const summary = await decodeTrace(run.tracePath, { mode: kind, goroot: go.goroot }, (records) => tracker.push(records));
    const names = new Map(summary.goroutines.map((g) => [g.goroutine, g.canonicalId]));
    const blocked = tracker.blocked(HUNG.has(run.outcome)).map((b) => ({ goroutine: names.get(b.goroutine) ?? `gid ${b.goroutine}`, reason: b.reason, site: b.site }));
    return runCheckOf(run.outcome, blocked, run.races);
  } catch (error) {
    return runCheckOf(run.outcome, [], run.races, `the trace could not be checked: ${(error as Error).message}`);
  }
}
