// The untraced rerun: a traced run that crashed with a fatal runtime error or signal is
// rerun once without the execution tracer — the same binary, arguments, environment,
// working directory and deadline, minus the trace — to tell a crash of the code from one
// the tracer caused (docs/collect.md, "Crashes under the tracer"). A test binary loses its
// -test.trace flag; a main program loses SCHEDLAB_TRACE, so its harness starts no trace.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProgramKind } from "../corpus/index.js";
import { parseFailures } from "./failures.js";
import { AGENT_ENV } from "./agent.js";
import { HARNESS_ENV } from "./harness.js";
import { PEERS, peerRunEnv } from "./peers.js";
import { spawnWithDeadline } from "./spawn.js";
import { testArguments } from "./traced-run.js";
import type { RunConfig, UntracedOutcome } from "./types.js";

export interface UntracedRerunRequest {
  readonly kind: ProgramKind;
  readonly dir: string;
  readonly binary: string;
  readonly testName: string | null;
  readonly config: RunConfig;
  readonly timeoutMs: number;
  readonly graceMs: number;
  /** The traced run's environment (TracedRunResult.env). */
  readonly env: Record<string, string>;
  readonly signal?: AbortSignal;
}

/** How the rerun ended, and how long it took. */
export interface UntracedRerun {
  readonly untraced: UntracedOutcome;
  readonly wallMs: number;
}

/** The flag that names the trace file of a test binary's run. */
const TRACE_FLAG = "-test.trace=";

/** The arguments of the traced run of `request` without its trace. */
export function untracedArguments(
  request: Pick<UntracedRerunRequest, "kind" | "testName" | "config" | "timeoutMs">,
): string[] {
  return request.kind === "main" ? [] : testArguments(request, "").filter((a) => !a.startsWith(TRACE_FLAG));
}

/**
 * The traced run's environment without the trace: no SCHEDLAB_TRACE (the harness starts no
 * trace), no harness or agent dump, no leak profile or watchdog, no peer reports (the traced
 * run's stay as they are), and HOME and TMPDIR in `workdir`, the rerun's own.
 */
export function untracedEnvironment(env: Readonly<Record<string, string>>, workdir: string): Record<string, string> {
  const dropped = new Set<string>([
    HARNESS_ENV.trace,
    HARNESS_ENV.dump,
    // The run agent writes the traced run's profile and dump: the rerun keeps them as they are.
    AGENT_ENV.profile,
    AGENT_ENV.watch,
    AGENT_ENV.dump,
    ...Object.keys(peerRunEnv("", PEERS)),
  ]);
  const kept = Object.fromEntries(Object.entries(env).filter(([key]) => !dropped.has(key)));
  return { ...kept, HOME: workdir, TMPDIR: workdir };
}

/**
 * Reruns the binary once without the tracer; null when aborted. ok: it exited 0; crashed:
 * its output shows a panic or fatal error, or a signal ended it; failed: anything else (a
 * test failed, the deadline cut it).
 */
export async function untracedRerun(request: UntracedRerunRequest): Promise<UntracedRerun | null> {
  const workdir = mkdtempSync(join(tmpdir(), "schedlab-untraced-"));
  try {
    const result = await spawnWithDeadline({
      command: request.binary,
      args: untracedArguments(request),
      cwd: request.dir,
      env: untracedEnvironment(request.env, workdir),
      deadlineMs: request.timeoutMs,
      graceMs: request.graceMs,
      stdoutCap: 0,
      stderrCap: 0,
      signal: request.signal,
    });
    if (result.enforcement === "aborted" || request.signal?.aborted === true) return null;
    const crashed =
      (result.exitSignal !== null && result.enforcement === "none") ||
      parseFailures(`${result.stderrDigest}${result.stdoutDigest}`).some((f) => f.kind !== "fail");
    const untraced: UntracedOutcome =
      result.exitCode === 0 && result.enforcement === "none" ? "ok" : crashed ? "crashed" : "failed";
    return { untraced, wallMs: result.wallMs };
  } finally {
    rmSync(workdir, { recursive: true, force: true });
  }
}
