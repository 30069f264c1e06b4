// Types of the collect stage: the options a caller gives, the normalised options the
// inner modules use, discovered programs, and the results of builds and runs.

import type { Manifest } from "../corpus/manifest.js";
import type { Peer } from "./peers.js";

/** How a run ended. `build-error` runs have no trace; every other outcome has one. */
export const RUN_OUTCOMES = ["ok", "exit-error", "panic", "timeout", "build-error", "killed"] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

export type ProgramKind = "main" | "test";

/** Options of `collect()`, as a caller (or the CLI) gives them. Only `paths` is required. */
export interface CollectOptions {
  /** Program directories, trees or Go module roots. */
  readonly paths: readonly string[];
  /**
   * Collect only these programs, named as discovery names them under `paths` (e.g.
   * "kernels/abba/transfer"); every name must exist. Default: every program found.
   */
  readonly programs?: readonly string[];
  /** Traced runs per program and configuration (default 5). */
  readonly runs?: number;
  /** Deadline per run in milliseconds (default 10 000). */
  readonly timeoutMs?: number;
  /** GOMAXPROCS values, one configuration each (default: the number of CPUs). */
  readonly procs?: readonly number[];
  /** Concurrent builds and runs (default: the number of CPUs). */
  readonly jobs?: number;
  /** SQLite database (default "schedlab.db"). */
  readonly db?: string;
  /** Directory for traces and dumps (default "traces"). */
  readonly traces?: string;
  /** Redo runs already recorded (default false: resume). */
  readonly force?: boolean;
  /** One program per TestXxx function instead of one per test package. */
  readonly splitTests?: boolean;
  /** Passed to test binaries as -test.count. */
  readonly testCount?: number;
  /** Peer leak detectors to run at the end of each run (docs/leaks.md); builds each program alone. */
  readonly peers?: readonly Peer[];
  /**
   * Collect the paths as test corpora: their programs are named "<label>/<path>" (the label is
   * the root's base name unless another root has it) and are never trained on (docs/dataset.md).
   */
  readonly testCorpus?: boolean;
  /** Aborting stops the workers, kills child process groups and rejects with CollectInterruptedError. */
  readonly signal?: AbortSignal;
  /** Receives progress after every build and run. */
  readonly onProgress?: (progress: CollectProgress) => void;
}

/** Options after validation and defaulting; inner modules never re-validate. */
export interface NormalizedCollectOptions {
  readonly paths: readonly string[];
  /** The program names selected, or null for every program found. */
  readonly programs: readonly string[] | null;
  readonly runs: number;
  readonly timeoutMs: number;
  /** Time between the deadline and SIGTERM, and between SIGTERM and SIGKILL. */
  readonly graceMs: number;
  readonly procs: readonly number[];
  readonly jobs: number;
  readonly db: string;
  readonly traces: string;
  readonly force: boolean;
  readonly splitTests: boolean;
  readonly testCount: number | null;
  readonly peers: readonly Peer[];
  readonly testCorpus: boolean;
  readonly signal: AbortSignal | undefined;
  readonly onProgress: ((progress: CollectProgress) => void) | undefined;
}

/** A program found by discovery: one main package, test package, or test function. */
export interface ProgramSpec {
  /** Directory relative to the root given ("." → the root's base name), after "<label>/" for a test corpus; "#TestXxx" for a split test. */
  readonly name: string;
  readonly root: string;
  /** Absolute package directory. */
  readonly dir: string;
  readonly kind: ProgramKind;
  /** The test function run, for split tests; null otherwise. */
  readonly testName: string | null;
  /** Absolute paths of the package's non-test Go files (after build constraints). */
  readonly goFiles: readonly string[];
  /** Absolute paths of the package's _test.go files. */
  readonly testFiles: readonly string[];
  /** sha256 of the package's Go sources; a change invalidates recorded runs. */
  readonly sourceHash: string;
  /** The parsed schedlab.json, or null when absent or invalid (see `manifestProblems`). */
  readonly manifest: Manifest | null;
  readonly manifestProblems: readonly string[];
}

/** One configuration a program is run under. */
export interface RunConfig {
  /** e.g. "procs-2" or "procs-2-count-3". */
  readonly key: string;
  readonly procs: number;
  readonly testCount: number | null;
}

export interface BuildResult {
  readonly status: "ok" | "error";
  /** The binary, when status is "ok". */
  readonly binary: string | null;
  /** Compiler output (tail), always present for errors. */
  readonly output: string;
}

/** A recorded run as reported by `collect()` and the --json output. */
export interface RunSummary {
  readonly index: number;
  readonly config: string;
  readonly outcome: RunOutcome;
  readonly exitCode: number | null;
  readonly wallMs: number;
  /** The trace file; null only for build errors or a run that died before the trace began. */
  readonly trace: string | null;
  readonly dump?: string;
  /** The trace lost its last generation (a fatal error or kill made it unavoidable). */
  readonly truncated?: boolean;
}

export interface ProgramSummary {
  readonly name: string;
  readonly kind: ProgramKind;
  readonly build: "ok" | "error";
  readonly buildOutput?: string;
  readonly runs: RunSummary[];
}

export interface CollectResult {
  readonly programs: ProgramSummary[];
  /** Runs executed by this call (the rest were resumed from the database). */
  readonly executed: number;
  readonly skipped: number;
  /** Problems that did not stop collection: invalid manifests, unreadable packages. */
  readonly warnings: string[];
}

export interface CollectProgress {
  readonly programsDone: number;
  readonly programsTotal: number;
  readonly runsDone: number;
  readonly runsTotal: number;
  readonly failures: number;
  readonly elapsedMs: number;
  /** Estimated milliseconds left, or null before the first executed run. */
  readonly etaMs: number | null;
}
