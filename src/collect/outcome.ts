// Classifies how a run ended, from what the process did and what the harness or the
// testing package reported. Pure: no I/O.

import type { ProgramKind } from "../corpus/index.js";
import type { HarnessStop } from "./harness.js";
import type { Enforcement } from "./spawn.js";
import type { RunOutcome } from "./types.js";

export interface RunEvidence {
  readonly kind: ProgramKind;
  readonly exitCode: number | null;
  readonly exitSignal: string | null;
  readonly enforcement: Enforcement;
  /** The stop reason the harness wrote in its dump (main programs only), or null. */
  readonly harnessStop: HarnessStop | null;
  /** The run agent stopped the run because the runtime proved it hung (its dump says so). */
  readonly agentHang?: boolean;
  /** Tail of stderr (and, for tests, stdout), as text. */
  readonly output: string;
}

/** `panic: test timed out after 1s` is the testing package's deadline. */
const TEST_TIMEOUT = /^panic: test timed out after /m;
/** A Go panic or fatal runtime error (exit code 2). */
const GO_CRASH = /^(panic: |fatal error: )/m;

/**
 * - timeout: the harness or -test.timeout stopped the program at its deadline, or the run
 *   agent stopped it as proven hung (the trace is complete either way);
 * - killed: schedlab had to SIGKILL it, or a signal ended it;
 * - panic: a Go panic or fatal error;
 * - exit-error / ok: the exit code.
 */
export function classifyOutcome(evidence: RunEvidence): RunOutcome {
  if (evidence.enforcement === "sigkill" || evidence.enforcement === "aborted") return "killed";
  if (evidence.agentHang === true) return "timeout";
  if (evidence.kind === "main" && (evidence.harnessStop === "deadline" || evidence.harnessStop === "sigterm"))
    return "timeout";
  if (evidence.kind === "test" && TEST_TIMEOUT.test(evidence.output)) return "timeout";
  if (evidence.exitSignal !== null || evidence.exitCode === null) return "killed";
  if (evidence.exitCode === 0) return "ok";
  if (evidence.exitCode === 2 && GO_CRASH.test(evidence.output)) return "panic";
  if (evidence.kind === "main" && evidence.harnessStop === "panic") return "panic";
  return "exit-error";
}
