// The leaks stage's entry points over a database: detect (and store) findings per program,
// and score them — with the peer detectors of the same runs — against manifest labels.

import { existsSync, readFileSync } from "node:fs";
import { goHelperPath } from "../gohelper/index.js";
import { sourceWakersOf, waitSourceOf, type Bug, type PotentialDeadlock } from "../model/index.js";
import type { SchedlabDatabase } from "../store/index.js";
import { relativePackagePaths } from "../trace/index.js";
import { runTimeExpected } from "../corpus/index.js";
import { analyseProgram, detectBlockedAtCrash } from "./detect.js";
import { parseGoroutineDump } from "./dump.js";
import { replayCommand } from "../collect/index.js";
import {
  detectTestFailures,
  type CrashFinding,
  type FailingFinding,
  type FlakyFinding,
  type TracerInducedFailure,
} from "./flaky.js";
import {
  analyseProgramRuns,
  failureRuns,
  raceRunOutputs,
  resolveArtifact,
  storedPrograms,
  type StoredProgram,
} from "./load.js";
import { PEER_ARTIFACTS, parsePeerArtifact, type PeerName } from "./peers.js";
import { scoreSignatures, type LabelledProgram, type LeakScore } from "./score.js";
import { isReportedFinding, signatureOfFinding, signatureOfPotential, type BlockedSignature } from "./signature.js";
import { detectRaces, type RaceFinding } from "./race.js";
import { runEndsOf, type RunEnds } from "./run-ends.js";
import { saveFindings, saveRaceFindings } from "./store.js";
import { placeInTest, type TestPlacement } from "./test-path.js";
import { subtestLookup } from "./test-source.js";
import type { BlockedAtCrash, DetectOptions, LeakFinding } from "./types.js";

export interface AnalyseOptions extends DetectOptions {
  /** Only this program (default: every program in the database). */
  readonly program?: string;
  /** Store the findings in leak_findings and race_findings (default true). */
  readonly save?: boolean;
  /**
   * The Go helper that reads each program's source for waits a timer or context can end
   * (src/model/wait-sites.ts); default: built on first use. null: do not read sources.
   */
  readonly goHelper?: string | null;
}

/** A bug as the leaks stage reports it: the model's bug with its test, one run to replay and that run's trace. */
export interface BugReport extends Bug {
  /** The test path (as `go test -run` names it) of its first goroutine; null in a main program. */
  readonly test: string | null;
  /** Rerun the run explained (or the first run) with its configuration and seed. */
  readonly replay: string | null;
  /** That run's trace, to open with `go tool trace`; null when it left none or it was dropped once stored. */
  readonly trace: string | null;
}

export interface ProgramAnalysis {
  readonly program: string;
  /** Ingested runs the detector read. */
  readonly runs: number;
  /** Of those, runs that ended by a panic or fatal error (left out of the findings). */
  readonly crashedRuns: number;
  /** Some run logged lock operations (a hunt's build): potential deadlocks could be predicted. */
  readonly recordedLocks: boolean;
  readonly findings: readonly LeakFinding[];
  /** Its findings grouped into bugs (every finding belongs to exactly one). */
  readonly bugs: readonly BugReport[];
  /** Deadlocks its recorded lock orders make possible though no run hung on them. */
  readonly potential: readonly PotentialDeadlock[];
  readonly blockedAtCrash: readonly BlockedAtCrash[];
  /** Runs searched for race reports (-race runs, or runs that printed one). */
  readonly raceRunsChecked: number;
  readonly races: readonly RaceFinding[];
  readonly failing: readonly FailingFinding[];
  readonly flaky: readonly FlakyFinding[];
  readonly crashed: readonly CrashFinding[];
  readonly tracerInduced: readonly TracerInducedFailure[];
  /** How its runs ended: cut at the deadline, stopped at the end of a budget, proven hung, hung outside user goroutines, unreadable. */
  readonly runEnds: RunEnds;
}

export interface LeakAnalysis {
  readonly programs: readonly ProgramAnalysis[];
  readonly findings: readonly LeakFinding[];
  readonly bugs: readonly BugReport[];
  readonly potentialDeadlocks: readonly PotentialDeadlock[];
  /** Goroutines that were blocked when a run crashed: not leaks, listed apart. */
  readonly blockedAtCrash: readonly BlockedAtCrash[];
  /** Data races reported by -race runs. */
  readonly races: readonly RaceFinding[];
  /** Runs searched for race reports, over every program. */
  readonly raceRunsChecked: number;
  /** Tests that failed in every run that said something of them, plain runs included. */
  readonly failing: readonly FailingFinding[];
  /** Tests that failed on some schedules and passed on others. */
  readonly flaky: readonly FlakyFinding[];
  /** Panics and fatal errors that killed the binary in every run that said something of their test. */
  readonly crashed: readonly CrashFinding[];
  /** Failures the execution tracer itself caused: a leak check that saw its reader goroutine, a crash its untraced rerun did not repeat. */
  readonly tracerInduced: readonly TracerInducedFailure[];
  /** Programs with no ingested run: no leak could be looked for (races still are). */
  readonly withoutRuns: readonly string[];
  /** Programs without runs because their last build failed, with the compiler's output (not in withoutRuns). */
  readonly buildErrors?: readonly { readonly program: string; readonly output: string }[];
  /** What limited the analysis (e.g. sources not read), to print with it. */
  readonly notes: readonly string[];
}

/**
 * Detects the leaks of each program from its ingested runs, and the data races its -race
 * runs reported, and stores both unless `save` is false. Programs are analysed one at a
 * time and each run's records are streamed, so memory follows the goroutines of one
 * program, never the number of events.
 */
export async function analyseLeaks(db: SchedlabDatabase, options: AnalyseOptions = {}): Promise<LeakAnalysis> {
  const notes: string[] = [];
  let helper = options.goHelper;
  if (helper === undefined) {
    try {
      helper = await goHelperPath();
    } catch (error) {
      helper = null;
      notes.push(
        `sources not read for timer and context waits (${(error as Error).message.split("\n")[0]}); goroutines parked in such waits may be reported as blocked`,
      );
    }
  }
  const programs: ProgramAnalysis[] = [];
  const withoutRuns: string[] = [];
  const buildErrors: { program: string; output: string }[] = [];
  const races: RaceFinding[] = [];
  const failing: FailingFinding[] = [];
  const flaky: FlakyFinding[] = [];
  const crashed: CrashFinding[] = [];
  const tracerInduced: TracerInducedFailure[] = [];
  let raceRunsChecked = 0;
  for (const program of storedPrograms(db, options.program)) {
    const raceRuns = raceRunOutputs(db, program);
    raceRunsChecked += raceRuns.length;
    const programRaces = detectRaces(program.name, raceRuns, (fn) => relativePackagePaths(fn, program.root));
    if (options.save !== false) saveRaceFindings(db, program.id, programRaces);
    races.push(...programRaces);
    const failed = detectTestFailures(program.name, failureRuns(db, program), (runId) => replayCommand(runId, db.name));
    failing.push(...failed.failing);
    flaky.push(...failed.flaky);
    crashed.push(...failed.crashed);
    tracerInduced.push(...failed.tracerInduced);
    const runs = analyseProgramRuns(db, program);
    if (runs.runs.length === 0) {
      const failed = failedBuildOutput(db, program.id);
      if (failed === null) withoutRuns.push(program.name);
      else buildErrors.push({ program: program.name, output: failed });
      continue;
    }
    const placement = program.kind === "test" ? testPlacement(program.dir) : undefined;
    const waitSourceAt = waitSourceOf(program.dir, helper);
    const detect = {
      ...options,
      testPathOf: placement === undefined ? undefined : (id: string) => placement(id)?.test ?? null,
      waitSourceAt,
      sourceWakers: sourceWakersOf(program.dir, helper),
    };
    const { findings, bugs, potential } = analyseProgram(runs, detect);
    const blockedAtCrash = detectBlockedAtCrash(runs, detect);
    if (options.save !== false) saveFindings(db, program.id, findings);
    programs.push({
      program: program.name,
      runs: runs.runs.length,
      crashedRuns: runs.runs.filter((r) => r.run.crashed).length,
      recordedLocks: runs.runs.some((r) => r.states.locks.ops > 0),
      findings,
      bugs: bugs.map((b) => bugReport(db, b, findings)),
      potential,
      blockedAtCrash,
      raceRunsChecked: raceRuns.length,
      races: programRaces,
      failing: failed.failing,
      flaky: failed.flaky,
      crashed: failed.crashed,
      tracerInduced: failed.tracerInduced,
      runEnds: runEndsOf(db, program, runs, waitSourceAt),
    });
  }
  return {
    programs,
    findings: programs.flatMap((p) => p.findings),
    bugs: programs.flatMap((p) => p.bugs),
    potentialDeadlocks: programs.flatMap((p) => p.potential),
    blockedAtCrash: programs.flatMap((p) => p.blockedAtCrash),
    races,
    raceRunsChecked,
    failing,
    flaky,
    crashed,
    tracerInduced,
    withoutRuns,
    buildErrors,
    notes,
  };
}

/** A bug with its test path, the command replaying the run explained (else its first run) and that run's trace. */
function bugReport(db: SchedlabDatabase, bug: Bug, findings: readonly LeakFinding[]): BugReport {
  const runId = bug.explained?.explanation.runId ?? bug.runIds[0] ?? null;
  const row =
    runId === null
      ? undefined
      : (db.prepare("SELECT trace_path FROM runs WHERE id = ?").get(runId) as
          { trace_path: string | null } | undefined);
  const test = findings.find((f) => f.goroutine === bug.goroutines[0])?.test ?? null;
  return {
    ...bug,
    test,
    replay: runId === null ? null : replayCommand(runId, db.name),
    trace: traceOnDisk(db, row?.trace_path ?? null),
  };
}

/** A run's trace file, resolved, when it is still on disk (collect --drop-traces deletes it once stored). */
function traceOnDisk(db: SchedlabDatabase, tracePath: string | null): string | null {
  const file = tracePath === null ? null : resolveArtifact(db, tracePath);
  return file !== null && existsSync(file) ? file : null;
}

/** The compiler output of a program whose latest build failed and that has no run but build-error ones; else null. */
function failedBuildOutput(db: SchedlabDatabase, programId: number): string | null {
  const build = db
    .prepare("SELECT status, output FROM builds WHERE program_id = ? ORDER BY built_at DESC LIMIT 1")
    .get(programId) as { status: string; output: string | null } | undefined;
  if (build?.status !== "error") return null;
  const ran = db.prepare("SELECT 1 FROM runs WHERE program_id = ? AND outcome <> 'build-error' LIMIT 1").get(programId);
  return ran === undefined ? (build.output ?? "") : null;
}

/** Places canonical ids of a test package's goroutines in their tests and subtests, from its source. */
export function testPlacement(dir: string): (canonicalId: string) => TestPlacement | null {
  const lookup = subtestLookup(dir);
  return (canonicalId) => placeInTest(canonicalId, lookup);
}

/** Detectors compared in one table: schedlab's own and its peers. */
export const DETECTORS = ["schedlab", "dump", ...PEER_ARTIFACTS.map((p) => p.name)] as const;
export type DetectorName = "schedlab" | "dump" | PeerName;

export interface DetectorScore {
  readonly detector: DetectorName;
  /** Labelled programs for which this detector had output in at least one run. */
  readonly programsCovered: number;
  readonly score: LeakScore;
}

export interface LeakScoreReport {
  readonly labelledPrograms: number;
  readonly unlabelledPrograms: number;
  readonly detectors: readonly DetectorScore[];
  /** Flaky tests against the manifests' flakyTests: found, missed, and reported on programs not labelled so. */
  readonly flaky: {
    readonly expected: number;
    readonly found: number;
    readonly missed: readonly string[];
    readonly unexpected: readonly string[];
  };
}

/** Signatures a peer reported over a program's runs, and whether it produced anything at all (also read by `leaks --compare`). */
export function peerSignatures(
  db: SchedlabDatabase,
  program: StoredProgram,
  detector: Exclude<DetectorName, "schedlab">,
): { covered: boolean; signatures: BlockedSignature[] } {
  const rows = db
    .prepare("SELECT dump_path, trace_path FROM runs WHERE program_id = ? AND outcome != 'build-error'")
    .all(program.id) as { dump_path: string | null; trace_path: string | null }[];
  const signatures: BlockedSignature[] = [];
  let covered = false;
  for (const row of rows) {
    if (detector === "dump") {
      if (row.dump_path === null) continue;
      const file = resolveArtifact(db, row.dump_path);
      if (!existsSync(file)) continue;
      covered = true;
      signatures.push(...parseGoroutineDump(readFileSync(file, "utf8"), program.name));
      continue;
    }
    if (row.trace_path === null) continue;
    const artifact = PEER_ARTIFACTS.find((p) => p.name === detector);
    if (artifact === undefined) continue;
    const file = artifact.pathOf(resolveArtifact(db, row.trace_path));
    if (!existsSync(file)) continue;
    covered = true;
    signatures.push(...parsePeerArtifact(detector as PeerName, readFileSync(file, "utf8"), program.name));
  }
  return { covered, signatures };
}

/**
 * Scores schedlab's findings (`given`: an analysis already made; else analysed afresh and stored) and every peer's output from
 * the same runs against the manifests recorded at collection. Programs without a
 * manifest are counted but not scored. Every detector is scored on every labelled
 * program, so a program a peer produced no output for counts its expected goroutines
 * as missed; `programsCovered` says how many it saw.
 */
export async function scoreLeaks(
  db: SchedlabDatabase,
  options: AnalyseOptions = {},
  given?: LeakAnalysis,
): Promise<LeakScoreReport> {
  const analysis = given ?? (await analyseLeaks(db, options));
  const programs = storedPrograms(db, options.program);
  const labelled = programs.filter((p) => p.manifest !== null);
  const own = [
    ...analysis.findings.filter(isReportedFinding).map(signatureOfFinding),
    ...analysis.potentialDeadlocks.map(signatureOfPotential),
  ];
  const analysed = new Set(analysis.programs.map((p) => p.program));
  // A potential deadlock can only be predicted from recorded lock operations (collect
  // --budget): without them its label is not scored, for schedlab and the peers alike.
  const withLocks = new Set(analysis.programs.filter((p) => p.recordedLocks).map((p) => p.program));
  const toLabelled = (ps: readonly StoredProgram[]): LabelledProgram[] =>
    ps.map((p) => {
      const manifest = p.manifest as NonNullable<StoredProgram["manifest"]>;
      return {
        program: p.name,
        manifest: withLocks.has(p.name) ? manifest : { ...manifest, expected: runTimeExpected(manifest) },
      };
    });
  const detectors: DetectorScore[] = [];
  const all = toLabelled(labelled);
  detectors.push({
    detector: "schedlab",
    programsCovered: labelled.filter((p) => analysed.has(p.name)).length,
    score: scoreSignatures(all, own),
  });
  for (const detector of DETECTORS.filter((d): d is Exclude<DetectorName, "schedlab"> => d !== "schedlab")) {
    let covered = 0;
    const signatures: BlockedSignature[] = [];
    for (const program of labelled) {
      const peer = peerSignatures(db, program, detector);
      if (peer.covered) covered++;
      signatures.push(...peer.signatures);
    }
    detectors.push({ detector, programsCovered: covered, score: scoreSignatures(all, signatures) });
  }
  const expectedFlaky = labelled.flatMap((p) => (p.manifest?.flakyTests ?? []).map((test) => `${p.name} ${test}`));
  const reportedFlaky = analysis.flaky
    .filter((f) => labelled.some((p) => p.name === f.program))
    .map((f) => `${f.program} ${f.test ?? ""}`);
  const flaky = {
    expected: expectedFlaky.length,
    found: expectedFlaky.filter((e) => reportedFlaky.includes(e)).length,
    missed: expectedFlaky.filter((e) => !reportedFlaky.includes(e)),
    unexpected: reportedFlaky.filter((r) => !expectedFlaky.includes(r)),
  };
  return { labelledPrograms: labelled.length, unlabelledPrograms: programs.length - labelled.length, detectors, flaky };
}
