// SQLite access of budgeted exploration (collect --budget, --replay): the per-run checks
// and the per-program exploration rows (docs/schema.md, section collect). Each write is
// one short transaction.

import type { ProgramKind } from "../core/index.js";
import { inTransaction, type SchedlabDatabase } from "../store/index.js";
import type { Strategy } from "./strategy.js";
import type { ExplorationSummary, RunCheck, RunOutcome, StopReason, UntracedOutcome } from "./types.js";

export interface ExplorationRow {
  readonly budgetMs: number;
  readonly spentMs: number;
  readonly runs: number;
  readonly status: "exploring" | ExplorationSummary["status"];
  readonly findingRunId: number | null;
  readonly unavailable: readonly string[];
}

export function recordCheck(
  db: SchedlabDatabase,
  runId: number,
  timeoutMs: number,
  check: RunCheck,
  replayOf: number | null = null,
): void {
  inTransaction(db, () =>
    db
      .prepare(
        "INSERT OR REPLACE INTO run_checks (run_id, timeout_ms, finding, detail, replay_of) VALUES (?, ?, ?, ?, ?)",
      )
      .run(runId, timeoutMs, check.finding, JSON.stringify(check), replayOf),
  );
}

export function recordedCheck(db: SchedlabDatabase, runId: number): { timeoutMs: number; check: RunCheck } | null {
  const row = db.prepare("SELECT timeout_ms AS timeoutMs, detail FROM run_checks WHERE run_id = ?").get(runId) as
    { timeoutMs: number; detail: string } | undefined;
  return row === undefined ? null : { timeoutMs: row.timeoutMs, check: JSON.parse(row.detail) as RunCheck };
}

export function loadExploration(db: SchedlabDatabase, programId: number): ExplorationRow | null {
  const row = db
    .prepare(
      "SELECT budget_ms AS budgetMs, spent_ms AS spentMs, runs, status, finding_run_id AS findingRunId, unavailable FROM explorations WHERE program_id = ?",
    )
    .get(programId) as (Omit<ExplorationRow, "unavailable"> & { unavailable: string }) | undefined;
  return row === undefined ? null : { ...row, unavailable: JSON.parse(row.unavailable) as string[] };
}

export function saveExploration(db: SchedlabDatabase, programId: number, row: ExplorationRow): void {
  inTransaction(db, () =>
    db
      .prepare(
        `INSERT INTO explorations (program_id, budget_ms, spent_ms, runs, status, finding_run_id, unavailable, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (program_id) DO UPDATE SET budget_ms = excluded.budget_ms, spent_ms = excluded.spent_ms, runs = excluded.runs,
         status = excluded.status, finding_run_id = excluded.finding_run_id, unavailable = excluded.unavailable, updated_at = excluded.updated_at`,
      )
      .run(
        programId,
        row.budgetMs,
        row.spentMs,
        row.runs,
        row.status,
        row.findingRunId,
        JSON.stringify(row.unavailable),
        new Date().toISOString(),
      ),
  );
}

export function deleteExploration(db: SchedlabDatabase, programId: number): void {
  inTransaction(db, () => db.prepare("DELETE FROM explorations WHERE program_id = ?").run(programId));
}

/** A checked run of a program (not a replay), with its check as stored. */
export interface CheckedRunRow {
  readonly id: number;
  readonly config: string;
  readonly strategy: Strategy;
  readonly seed: number | null;
  /** run_checks.detail (storedCheck reads it). */
  readonly detail: string;
}

/** The checked runs of a program that are not replays, in run order. */
export function checkedRuns(db: SchedlabDatabase, programId: number): CheckedRunRow[] {
  return db
    .prepare(
      "SELECT r.id, r.config, r.strategy, r.seed, c.detail FROM runs r JOIN run_checks c ON c.run_id = " +
        "r.id WHERE r.program_id = ? AND c.replay_of IS NULL ORDER BY r.id",
    )
    .all(programId) as CheckedRunRow[];
}

/** A run of a program that got past its build, as a resumed hunt learns from it. */
export interface ExploredRunRow {
  readonly config: string;
  readonly strategy: Strategy;
  readonly outcome: RunOutcome;
  readonly wallMs: number | null;
  readonly stopReason: StopReason | null;
  readonly stderrTail: string | null;
  readonly outputDigest: string | null;
  readonly untraced: UntracedOutcome | null;
}

/** The runs of a program (ordinary collects' too, replays left out), build errors left out. */
export function exploredRuns(db: SchedlabDatabase, programId: number): ExploredRunRow[] {
  return db
    .prepare(
      `SELECT r.config, r.strategy, r.outcome, r.wall_ms AS wallMs, r.stop_reason AS stopReason,
         r.stderr_tail AS stderrTail, r.output_digest AS outputDigest, r.untraced
       FROM runs r LEFT JOIN run_checks c ON c.run_id = r.id
       WHERE r.program_id = ? AND r.outcome != 'build-error' AND c.replay_of IS NULL`,
    )
    .all(programId) as ExploredRunRow[];
}

/** The next run index of each configuration of a program (one past the largest recorded). */
export function nextRunIndexes(db: SchedlabDatabase, programId: number): Map<string, number> {
  const rows = db
    .prepare("SELECT config, MAX(run_index) AS last FROM runs WHERE program_id = ? GROUP BY config")
    .all(programId) as { config: string; last: number }[];
  return new Map(rows.map((row) => [row.config, row.last + 1]));
}

/** A recorded run with what a replay needs. */
export interface ReplayableRun {
  readonly id: number;
  readonly programId: number;
  readonly program: string;
  readonly kind: ProgramKind;
  readonly dir: string;
  readonly root: string;
  readonly testName: string | null;
  readonly sourceHash: string;
  readonly manifest: string | null;
  readonly config: string;
  readonly procs: number;
  readonly index: number;
  readonly strategy: Strategy;
  readonly seed: number | null;
  readonly outcome: RunOutcome;
  readonly tracePath: string | null;
  /** The run's stderr (and, for tests, stdout) tail: the failures it shows. */
  readonly stderrTail: string | null;
  /** The digest of its whole output, when recorded: read for failures before the tail. */
  readonly outputDigest: string | null;
  readonly untraced: UntracedOutcome | null;
}

export function replayableRun(db: SchedlabDatabase, runId: number): ReplayableRun | null {
  const row = db
    .prepare(
      `SELECT r.id, r.program_id AS programId, p.name AS program, p.kind, p.dir, p.root, p.test_name AS testName,
         p.source_hash AS sourceHash, p.manifest, r.config, r.procs, r.run_index AS "index", r.strategy, r.seed, r.outcome,
         r.trace_path AS tracePath, r.stderr_tail AS stderrTail, r.output_digest AS outputDigest, r.untraced
       FROM runs r JOIN programs p ON p.id = r.program_id WHERE r.id = ?`,
    )
    .get(runId) as ReplayableRun | undefined;
  return row ?? null;
}
