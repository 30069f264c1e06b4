// The collect stage's SQLite access: programs, builds and runs. Every write is one
// short transaction, so an interrupted collect leaves only whole runs behind.

import { existsSync } from "node:fs";
import { ProgramNameClashError, type ProgramSpec } from "../corpus/index.js";
import { inTransaction, type SchedlabDatabase } from "../store/index.js";
import type { TracedRunResult } from "./traced-run.js";
import { parseConfigKey, type Strategy } from "./strategy.js";
import type { RunOutcome, RunSummary, StopReason } from "./types.js";

/** What a traced run may add to its record (absent: NULL, as for a run that has none). */
type RunEnding = Partial<Pick<TracedRunResult, "stopReason" | "outputDigest" | "untraced" | "leakProfile">>;

/** One run as recorded: what the traced run produced, plus where it belongs. */
export interface RunRow
  extends
    RunEnding,
    Pick<
      TracedRunResult,
      | "outcome"
      | "exitCode"
      | "wallMs"
      | "tracePath"
      | "traceSha256"
      | "traceBytes"
      | "dumpPath"
      | "stderrTail"
      | "env"
      | "truncated"
    > {
  readonly programId: number;
  readonly config: string;
  readonly procs: number;
  readonly index: number;
  readonly goVersion: string;
  /** Default "plain". */
  readonly strategy?: Strategy;
  /** The perturbation seed (perturb runs), else null. */
  readonly seed?: number | null;
}

/**
 * Inserts or updates the program row and returns its id. When the sources changed
 * since the last collect, its builds and runs (and their decoded events) are dropped:
 * they describe another program.
 */
export function upsertProgram(db: SchedlabDatabase, program: ProgramSpec): { id: number; sourceChanged: boolean } {
  return inTransaction(db, () => {
    const existing = db
      .prepare("SELECT id, root, dir, source_hash AS sourceHash FROM programs WHERE name = ?")
      .get(program.name) as { id: number; root: string; dir: string; sourceHash: string } | undefined;
    // Two roots may never silently share a name. The same sources under another root are the
    // same tree moved (a fresh clone, a renamed checkout), and keep their runs.
    if (existing !== undefined && existing.root !== program.root && existing.sourceHash !== program.sourceHash) {
      throw new ProgramNameClashError(
        `program name ${program.name} is already taken by ${existing.dir} (collected from ${existing.root}), so ${program.dir} cannot use it`,
        "Collect the other tree as a test corpus (`schedlab collect DIR --test-corpus` names its programs " +
          '"<label>/<path>"; `schedlab run --test-corpus DIR` does this), or into another --db file.',
      );
    }
    const manifest = program.manifest === null ? null : JSON.stringify(program.manifest);
    if (existing === undefined) {
      const info = db
        .prepare(
          "INSERT INTO programs (name, root, dir, kind, test_name, source_hash, manifest) VALUES (?, ?, ?, ?, ?, ?, ?)",
        )
        .run(program.name, program.root, program.dir, program.kind, program.testName, program.sourceHash, manifest);
      return { id: Number(info.lastInsertRowid), sourceChanged: false };
    }
    const sourceChanged = existing.sourceHash !== program.sourceHash;
    if (sourceChanged) {
      db.prepare("DELETE FROM runs WHERE program_id = ?").run(existing.id);
      db.prepare("DELETE FROM builds WHERE program_id = ?").run(existing.id);
    }
    db.prepare(
      "UPDATE programs SET root = ?, dir = ?, kind = ?, test_name = ?, source_hash = ?, manifest = ? WHERE id = ?",
    ).run(program.root, program.dir, program.kind, program.testName, program.sourceHash, manifest, existing.id);
    return { id: existing.id, sourceChanged };
  });
}

/**
 * Run indexes of `programId`/`config` that are finished: recorded, not a build error, and its
 * trace still on disk or the run stored from it (ingest dropped the trace after, --drop-traces).
 */
export function completedRunIndexes(db: SchedlabDatabase, programId: number, config: string): Set<number> {
  const rows = db
    .prepare(
      `SELECT run_index AS idx, outcome, trace_path AS tracePath, ingest_status IN ('ok', 'truncated') AS stored
       FROM runs WHERE program_id = ? AND config = ?`,
    )
    .all(programId, config) as { idx: number; outcome: RunOutcome; tracePath: string | null; stored: number | null }[];
  return new Set(
    rows
      .filter(
        (row) =>
          row.outcome !== "build-error" && row.tracePath !== null && (row.stored === 1 || existsSync(row.tracePath)),
      )
      .map((row) => row.idx),
  );
}

/**
 * The runs of `strategy` a program has recorded (any GOMAXPROCS) that ended by themselves (ok
 * or exit-error), with their -test.count, for the derived deadline.
 */
export function completeRuns(
  db: SchedlabDatabase,
  programId: number,
  strategy: Strategy,
): { readonly outcome: string; readonly wallMs: number | null; readonly testCount: number | null }[] {
  const rows = db
    .prepare(
      `SELECT outcome, config, wall_ms AS wallMs FROM runs
       WHERE program_id = ? AND strategy = ? AND outcome IN ('ok', 'exit-error')`,
    )
    .all(programId, strategy) as { outcome: string; config: string; wallMs: number | null }[];
  return rows.map((r) => ({
    outcome: r.outcome,
    wallMs: r.wallMs,
    testCount: parseConfigKey(r.config)?.testCount ?? null,
  }));
}

/** Deletes every run of `programId`/`config` (for --force). */
export function deleteRuns(db: SchedlabDatabase, programId: number, config: string): void {
  inTransaction(db, () => db.prepare("DELETE FROM runs WHERE program_id = ? AND config = ?").run(programId, config));
}

export function recordBuild(
  db: SchedlabDatabase,
  build: {
    programId: number;
    config: string;
    status: "ok" | "error";
    output: string;
    sourceHash: string;
    goVersion: string;
  },
): void {
  inTransaction(db, () =>
    db
      .prepare(
        `INSERT INTO builds (program_id, config, status, output, source_hash, go_version, built_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (program_id, config) DO UPDATE SET status = excluded.status, output = excluded.output,
           source_hash = excluded.source_hash, go_version = excluded.go_version, built_at = excluded.built_at`,
      )
      .run(
        build.programId,
        build.config,
        build.status,
        build.output,
        build.sourceHash,
        build.goVersion,
        new Date().toISOString(),
      ),
  );
}

/** Records one run, replacing an earlier record of the same (program, config, index) and its decoded events; returns its id. */
export function recordRun(db: SchedlabDatabase, run: RunRow): number {
  return inTransaction(db, () => {
    db.prepare("DELETE FROM runs WHERE program_id = ? AND config = ? AND run_index = ?").run(
      run.programId,
      run.config,
      run.index,
    );
    const info = db
      .prepare(
        `INSERT INTO runs (program_id, config, procs, run_index, outcome, exit_code, wall_ms, trace_path, trace_sha256,
         trace_bytes, dump_path, stderr_tail, go_version, env, strategy, seed, truncated, created_at, stop_reason,
         output_digest, untraced, leak_profile)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        run.programId,
        run.config,
        run.procs,
        run.index,
        run.outcome,
        run.exitCode,
        run.wallMs,
        run.tracePath,
        run.traceSha256,
        run.traceBytes,
        run.dumpPath,
        run.stderrTail,
        run.goVersion,
        JSON.stringify(run.env),
        run.strategy ?? "plain",
        run.seed ?? null,
        run.truncated ? 1 : 0,
        new Date().toISOString(),
        run.stopReason ?? null,
        run.outputDigest ?? null,
        run.untraced ?? null,
        run.leakProfile?.path ?? null,
      );
    const runId = Number(info.lastInsertRowid);
    if (run.leakProfile != null) {
      const insert = db.prepare(
        "INSERT OR REPLACE INTO runtime_goroutines (run_id, gid, taken, wait, leaked, top) VALUES (?, ?, ?, ?, ?, ?)",
      );
      for (const g of run.leakProfile.goroutines)
        insert.run(runId, g.gid, run.leakProfile.taken, g.wait, g.leaked ? 1 : 0, g.top);
    }
    return runId;
  });
}

/**
 * The recorded build of a program, for the summary of a fully resumed program: of the
 * given configs when any is recorded (a failed -race build says nothing of the plain one),
 * else of any config.
 */
export function recordedBuild(
  db: SchedlabDatabase,
  programId: number,
  configs: readonly string[] = [],
): { status: "ok" | "error"; output: string } | null {
  type Row = { status: "ok" | "error"; output: string | null };
  const marks = configs.map(() => "?").join(", ");
  const ofConfigs =
    configs.length === 0
      ? undefined
      : (db
          .prepare(
            `SELECT status, output FROM builds WHERE program_id = ? AND config IN (${marks}) ORDER BY built_at DESC LIMIT 1`,
          )
          .get(programId, ...configs) as Row | undefined);
  const row =
    ofConfigs ??
    (db
      .prepare("SELECT status, output FROM builds WHERE program_id = ? ORDER BY built_at DESC LIMIT 1")
      .get(programId) as Row | undefined);
  return row === undefined ? null : { status: row.status, output: row.output ?? "" };
}

/** The recorded runs of a program in the given configs, as the --json contract reports them. */
export function recordedRuns(db: SchedlabDatabase, programId: number, configs: readonly string[]): RunSummary[] {
  const rows = db
    .prepare(
      `SELECT id, run_index AS idx, config, outcome, exit_code AS exitCode, wall_ms AS wallMs, trace_path AS tracePath,
         dump_path AS dumpPath, truncated, strategy, seed, stop_reason AS stopReason FROM runs WHERE program_id = ?
       ORDER BY config, run_index`,
    )
    .all(programId) as {
    id: number;
    idx: number;
    config: string;
    outcome: RunOutcome;
    exitCode: number | null;
    wallMs: number | null;
    tracePath: string | null;
    dumpPath: string | null;
    truncated: number;
    strategy: Strategy;
    seed: number | null;
    stopReason: StopReason | null;
  }[];
  return rows
    .filter((row) => configs.includes(row.config) && row.outcome !== "build-error")
    .map((row) => ({
      id: row.id,
      index: row.idx,
      config: row.config,
      outcome: row.outcome,
      exitCode: row.exitCode,
      wallMs: Math.round(row.wallMs ?? 0),
      trace: row.tracePath,
      ...(row.dumpPath === null ? {} : { dump: row.dumpPath }),
      ...(row.truncated === 1 ? { truncated: true } : {}),
      ...(row.strategy === "plain" ? {} : { strategy: row.strategy }),
      ...(row.seed === null ? {} : { seed: row.seed }),
      ...(row.stopReason === null ? {} : { stopReason: row.stopReason }),
    }));
}
