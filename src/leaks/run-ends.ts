// How a program's runs ended, as a reader of findings must know it: runs the deadline cut
// (they say less, and --timeout gives them room), a main program's runs that ran until its
// budget ran out (a daemon), hangs the runtime proved, runs cut while goroutine 1 — the test
// driver, running an example or TestMain — waited outside the user's goroutines (where, from
// the runtime's view), and traces that could not be read (docs/leaks.md, "How runs ended").

import { daemonParks, hangOutsideUser, type RuleOptions } from "../model/index.js";
import type { SchedlabDatabase } from "../store/index.js";
import type { StoredProgram } from "./load.js";
import type { ProgramRuns } from "./types.js";

/** A run cut while goroutine 1, which the trace does not follow as the user's, waited elsewhere. */
export interface OutsideHangReport {
  readonly runId: number;
  /** The runtime's wait reason of goroutine 1 ("IO wait", "sleep", …). */
  readonly wait: string;
  /** Its innermost user frame, "function file:line", or null. */
  readonly top: string | null;
}

export interface RunEnds {
  /** Runs stopped at their deadline: raise --timeout to let them end. */
  readonly cut: number;
  /** Runs of a main program still going when its hunt's budget ran out, stopped then (a daemon). */
  readonly budget: number;
  /** Runs the runtime proved hung (goroutine 1 can never go on), stopped early by the run agent. */
  readonly hung: number;
  /** Cut runs that hung in goroutine 1 outside the user's goroutines, with where. */
  readonly outside: readonly OutsideHangReport[];
  /** Runs whose trace could not be read at all, with the decoder's message: nothing of them was judged. */
  readonly unreadable: readonly { readonly runId: number; readonly why: string }[];
  /** Where main parks for the program's lifetime, by design (select {}, a wait for a signal): a daemon. */
  readonly daemon: string | null;
}

/** How the runs of `program` (its analysed runs `runs`, and every run recorded) ended. */
export function runEndsOf(
  db: SchedlabDatabase,
  program: StoredProgram,
  runs: ProgramRuns,
  waitSourceAt: RuleOptions["waitSourceAt"],
): RunEnds {
  const rows = db
    .prepare(
      `SELECT id, outcome, stop_reason AS stop, ingest_status AS ingest, ingest_error AS error FROM runs
       WHERE program_id = ? AND outcome != 'build-error' ORDER BY id`,
    )
    .all(program.id) as {
    id: number;
    outcome: string;
    stop: string | null;
    ingest: string | null;
    error: string | null;
  }[];
  // Runs recorded before stop_reason existed: a timeout or a kill was the deadline.
  const stopOf = (r: (typeof rows)[number]): string | null =>
    r.stop ?? (r.outcome === "timeout" || r.outcome === "killed" ? "deadline" : null);
  const outside: OutsideHangReport[] = [];
  let daemon: string | null = null;
  for (const r of runs.runs) {
    const hang = hangOutsideUser(r.run);
    if (hang !== null) outside.push({ runId: r.run.runId, ...hang });
    const main = r.states.finalBlocks.get("main.main");
    if (daemon === null && program.kind === "main" && main !== undefined) {
      const source = waitSourceAt?.(main.reason, main.blockingSite) ?? null;
      if (daemonParks(r, main, source)) daemon = main.blockingSite ?? "main.main";
    }
  }
  return {
    cut: rows.filter((r) => stopOf(r) === "deadline").length,
    budget: rows.filter((r) => stopOf(r) === "budget").length,
    hung: rows.filter((r) => stopOf(r) === "hang").length,
    outside,
    unreadable: rows
      .filter((r) => r.ingest === "error")
      .map((r) => ({ runId: r.id, why: (r.error ?? "").split("\n")[0] ?? "" })),
    daemon,
  };
}

/** Whether anything about how a program's runs ended needs saying. */
export function runEndsWorthSaying(ends: RunEnds): boolean {
  return ends.cut + ends.budget + ends.hung + ends.outside.length + ends.unreadable.length > 0 || ends.daemon !== null;
}

/** Runs that all ended by themselves, their traces read: nothing to say. */
export const NO_RUN_ENDS: RunEnds = { cut: 0, budget: 0, hung: 0, outside: [], unreadable: [], daemon: null };
