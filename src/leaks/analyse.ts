// The leaks stage's entry points over a database: detect (and store) findings per program,
// and score them — with the peer detectors of the same runs — against manifest labels.

import { existsSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import type { SchedlabDatabase } from "../store/index.js";
import { detectLeaks } from "./detect.js";
import { parseGoroutineDump } from "./dump.js";
import { loadProgramRuns, storedPrograms, type StoredProgram } from "./load.js";
import { PEER_ARTIFACTS, parsePeerArtifact, type PeerName } from "./peers.js";
import { scoreSignatures, type LabelledProgram, type LeakScore } from "./score.js";
import { signatureOfFinding, type BlockedSignature } from "./signature.js";
import { saveFindings } from "./store.js";
import type { DetectOptions, LeakFinding } from "./types.js";

export interface AnalyseOptions extends DetectOptions {
  /** Only this program (default: every program in the database). */
  readonly program?: string;
  /** Store the findings in leak_findings (default true). */
  readonly save?: boolean;
}

export interface ProgramAnalysis {
  readonly program: string;
  /** Ingested runs the detector read. */
  readonly runs: number;
  readonly findings: readonly LeakFinding[];
}

export interface LeakAnalysis {
  readonly programs: readonly ProgramAnalysis[];
  readonly findings: readonly LeakFinding[];
  /** Programs with no ingested run: nothing could be said about them. */
  readonly withoutRuns: readonly string[];
}

/** Detects the leaks of each program from its ingested runs, and stores them unless `save` is false. */
export function analyseLeaks(db: SchedlabDatabase, options: AnalyseOptions = {}): LeakAnalysis {
  const programs: ProgramAnalysis[] = [];
  const withoutRuns: string[] = [];
  for (const program of storedPrograms(db, options.program)) {
    const runs = loadProgramRuns(db, program);
    if (runs.runs.length === 0) {
      withoutRuns.push(program.name);
      continue;
    }
    const findings = detectLeaks(runs, options);
    if (options.save !== false) saveFindings(db, program.id, findings);
    programs.push({ program: program.name, runs: runs.runs.length, findings });
  }
  return { programs, findings: programs.flatMap((p) => p.findings), withoutRuns };
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
}

function resolveArtifact(db: SchedlabDatabase, path: string): string {
  return isAbsolute(path) ? path : resolve(dirname(db.name), path);
}

/** Signatures a peer reported over a program's runs, and whether it produced anything at all. */
function peerSignatures(db: SchedlabDatabase, program: StoredProgram, detector: Exclude<DetectorName, "schedlab">): { covered: boolean; signatures: BlockedSignature[] } {
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
 * Scores schedlab's findings (analysed afresh, and stored) and every peer's output from
 * the same runs against the manifests recorded at collection. Programs without a
 * manifest are counted but not scored. Every detector is scored on every labelled
 * program, so a program a peer produced no output for counts its expected goroutines
 * as missed; `programsCovered` says how many it saw.
 */
export function scoreLeaks(db: SchedlabDatabase, options: AnalyseOptions = {}): LeakScoreReport {
  const analysis = analyseLeaks(db, options);
  const programs = storedPrograms(db, options.program);
  const labelled = programs.filter((p) => p.manifest !== null);
  const own = analysis.findings.map(signatureOfFinding);
  const analysed = new Set(analysis.programs.map((p) => p.program));
  const toLabelled = (ps: readonly StoredProgram[]): LabelledProgram[] => ps.map((p) => ({ program: p.name, manifest: p.manifest as NonNullable<StoredProgram["manifest"]> }));
  const detectors: DetectorScore[] = [];
  const all = toLabelled(labelled);
  detectors.push({ detector: "schedlab", programsCovered: labelled.filter((p) => analysed.has(p.name)).length, score: scoreSignatures(all, own) });
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
  return { labelledPrograms: labelled.length, unlabelledPrograms: programs.length - labelled.length, detectors };
}
