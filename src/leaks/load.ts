// Reading the runs the detector needs from the database, per program and run: each run's
// records are streamed through the final-state fold (never held), so memory follows the
// number of goroutines and runs, not events; a run ingested with --store summary has its
// fold's result stored, which is read instead. Uses the trace stage's loaders only.

import { existsSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import {
  goroutinesOfDump,
  parseFailures,
  raceLogPath,
  withUntracedRerun,
  type UntracedOutcome,
} from "../collect/index.js";
import { UsageError } from "../errors.js";
import type { Manifest } from "../corpus/index.js";
import type { SchedlabDatabase } from "../store/index.js";
import { forEachRunRecord, loadRunEndStates, loadRunGoroutines } from "../trace/index.js";
import type { GoroutineInfo, LeakProfileTaken, ProgramKind } from "../core/index.js";
import { leakRunOf, runStateFold } from "../model/index.js";
import type { FailureRun } from "./flaky.js";
import type { RaceRunOutput } from "./race.js";
import type { AnalysedRun, LeakRun, ProgramRuns, RunEnd, RunStop, RuntimeView } from "./types.js";

export interface StoredProgram {
  readonly id: number;
  readonly name: string;
  readonly kind: ProgramKind;
  /** The program's directory (absolute, as collect recorded it). */
  readonly dir: string;
  /** The root directory given to collect, under which the program was found. */
  readonly root: string;
  /** The manifest recorded at collection, or null. */
  readonly manifest: Manifest | null;
}

/** Programs in the database (one name, or all), by name. Unknown names are a UsageError. */
export function storedPrograms(db: SchedlabDatabase, name?: string): StoredProgram[] {
  const rows = db
    .prepare(
      `SELECT id, name, kind, dir, root, manifest FROM programs ${name === undefined ? "" : "WHERE name = ?"} ORDER BY name`,
    )
    .all(...(name === undefined ? [] : [name])) as {
    id: number;
    name: string;
    kind: ProgramKind;
    dir: string;
    root: string;
    manifest: string | null;
  }[];
  if (name !== undefined && rows.length === 0) {
    throw new UsageError(
      `no program named ${JSON.stringify(name)} in the database`,
      "Run `schedlab collect` on it first, or check the name with `schedlab dist --abstraction split`.",
    );
  }
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    kind: r.kind,
    dir: r.dir,
    root: r.root,
    manifest: parseManifest(r.manifest),
  }));
}

function parseManifest(text: string | null): Manifest | null {
  if (text === null) return null;
  try {
    return JSON.parse(text) as Manifest;
  } catch {
    return null;
  }
}

/**
 * The ingested runs of a program (ingest_status 'ok' or 'truncated'; build errors and
 * undecodable traces have nothing to say), in run order, without their records.
 * Canonical ids are shared between runs (one string per id per program).
 */
export function programLeakRuns(db: SchedlabDatabase, program: StoredProgram): LeakRun[] {
  const rows = db
    .prepare(
      `SELECT id, run_index, config, outcome, stderr_tail, output_digest, wall_ms, stop_reason, dump_path FROM runs
       WHERE program_id = ? AND ingest_status IN ('ok', 'truncated') AND outcome != 'build-error'
       ORDER BY config, run_index`,
    )
    .all(program.id) as {
    id: number;
    run_index: number;
    config: string;
    outcome: RunEnd;
    stderr_tail: string | null;
    output_digest: string | null;
    wall_ms: number | null;
    stop_reason: RunStop | null;
    dump_path: string | null;
  }[];
  const runtimeView = runtimeViewReader(db);
  const ids = new Map<string, string>();
  const shared = (g: GoroutineInfo): GoroutineInfo => {
    const id = ids.get(g.canonicalId);
    if (id === undefined) ids.set(g.canonicalId, g.canonicalId);
    return id === undefined ? g : { ...g, canonicalId: id };
  };
  return rows.map((row) =>
    leakRunOf(
      {
        id: row.id,
        runIndex: row.run_index,
        config: row.config,
        outcome: row.outcome,
        stderrTail: row.stderr_tail,
        outputDigest: row.output_digest,
        wallMs: row.wall_ms,
        stop: row.stop_reason,
        runtime: runtimeView(row.id) ?? dumpView(db, row.dump_path, row.stop_reason),
      },
      loadRunGoroutines(db, row.id).map(shared),
    ),
  );
}

/**
 * Reads the runtime's view of a run from its leak profile (runtime_goroutines), or null
 * without one: every goroutine it shows waiting (docs/leaks.md, "Evidence"), a server's too,
 * whose frames are all the standard library's.
 */
function runtimeViewReader(db: SchedlabDatabase): (runId: number) => RuntimeView | null {
  const select = db.prepare("SELECT gid, taken, wait, leaked, top FROM runtime_goroutines WHERE run_id = ?");
  return (runId) => {
    const rows = select.all(runId) as {
      gid: number;
      taken: LeakProfileTaken;
      wait: string;
      leaked: number;
      top: string | null;
    }[];
    if (rows.length === 0) return null;
    return {
      source: "leak-profile",
      taken: rows[0].taken,
      goroutines: new Map(rows.map((r) => [r.gid, { gid: r.gid, wait: r.wait, leaked: r.leaked === 1, top: r.top }])),
    };
  };
}

/**
 * The runtime's view of run `runId` read from its goroutine dump when it has no leak profile
 * (Go before 1.26, --no-leak-profile) and was stopped at its deadline: the traceback
 * -test.timeout prints, or the harness's dump, shows every goroutine's wait — goroutine 1's
 * above all — though it proves nothing leaked. Null otherwise, or without a readable dump.
 */
function dumpView(db: SchedlabDatabase, dumpPath: string | null, stop: RunStop | null): RuntimeView | null {
  if (stop !== "deadline" || dumpPath === null) return null;
  const file = resolveArtifact(db, dumpPath);
  if (!existsSync(file)) return null;
  const goroutines = goroutinesOfDump(readFileSync(file, "utf8")).filter((g) => g.gid === 1 || g.top !== null);
  if (goroutines.length === 0) return null;
  return { source: "dump", taken: "deadline", goroutines: new Map(goroutines.map((g) => [g.gid, g])) };
}

/**
 * Streams the records of one run through the final-state fold; for a run ingested with
 * --store summary, reads the states that fold gave at ingest.
 */
export function analyseRun(db: SchedlabDatabase, run: LeakRun): AnalysedRun {
  const stored = loadRunEndStates(db, run.runId, run.goroutines);
  if (stored !== null) return { run, states: stored };
  const fold = runStateFold(run);
  forEachRunRecord(
    db,
    run.runId,
    (record) => fold.add(record),
    (op) => fold.addLockOp(op),
  );
  return { run, states: fold.finish() };
}

/** The ingested runs of a program with their end states, one run's records at a time. */
export function analyseProgramRuns(db: SchedlabDatabase, program: StoredProgram): ProgramRuns {
  return { program: program.name, runs: programLeakRuns(db, program).map((run) => analyseRun(db, run)) };
}

/** What a race report starts with. */
const RACE_WARNING = "WARNING: DATA RACE";

/**
 * The runs of a program whose output may hold race reports: every -race run (strategy
 * 'race'), and any other run whose stderr tail, output digest or race log has one. Build
 * errors have none.
 */
export function raceRunOutputs(db: SchedlabDatabase, program: StoredProgram): RaceRunOutput[] {
  const rows = db
    .prepare(
      "SELECT id, strategy, stderr_tail, output_digest, trace_path FROM runs WHERE program_id = ? AND outcome != 'build-error' ORDER BY config, run_index",
    )
    .all(program.id) as {
    id: number;
    strategy: string;
    stderr_tail: string | null;
    output_digest: string | null;
    trace_path: string | null;
  }[];
  const outputs: RaceRunOutput[] = [];
  for (const row of rows) {
    const texts = [row.stderr_tail, row.output_digest].filter((t): t is string => t !== null);
    if (row.trace_path !== null) {
      const log = raceLogPath(resolveArtifact(db, row.trace_path));
      if (existsSync(log)) texts.push(readFileSync(log, "utf8"));
    }
    if (row.strategy === "race" || texts.some((t) => t.includes(RACE_WARNING))) outputs.push({ runId: row.id, texts });
  }
  return outputs;
}

/**
 * Every run of a program that ran (build errors did not), with the failures its output shows:
 * read from its output digest when it has one (the whole output), else from its stderr tail;
 * a fatal crash whose untraced rerun passed is the tracer's (withUntracedRerun).
 */
export function failureRuns(db: SchedlabDatabase, program: StoredProgram): FailureRun[] {
  const rows = db
    .prepare(
      `SELECT id, config, strategy, seed, outcome, stderr_tail, output_digest, untraced FROM runs
       WHERE program_id = ? AND outcome != 'build-error' ORDER BY config, run_index`,
    )
    .all(program.id) as {
    id: number;
    config: string;
    strategy: FailureRun["strategy"];
    seed: number | null;
    outcome: string;
    stderr_tail: string | null;
    output_digest: string | null;
    untraced: UntracedOutcome | null;
  }[];
  return rows.map((row) => ({
    runId: row.id,
    config: row.config,
    strategy: row.strategy,
    seed: row.seed,
    cut: row.outcome === "timeout" || row.outcome === "killed",
    untraced: row.untraced,
    failures: withUntracedRerun(parseFailures(row.output_digest ?? row.stderr_tail ?? ""), row.untraced),
  }));
}

/** A path collect recorded (a trace, a dump), resolved against the database file's directory when relative. */
export function resolveArtifact(db: SchedlabDatabase, path: string): string {
  return isAbsolute(path) ? path : resolve(dirname(db.name), path);
}
