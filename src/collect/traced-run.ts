// One traced execution of a built program: a temporary working directory, the scrubbed
// environment, the deadline, then the trace and dump moved into place and checked.
// Files are written under ".partial" names and renamed at the end, so an interrupted
// run leaves nothing that looks finished.

import { createHash } from "node:crypto";
import {
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ProgramKind } from "../corpus/index.js";
import { runEnvironment, type GoToolchain } from "../go/index.js";
import { agentStoppedHung } from "./agent.js";
import { agentRunEnv, keepAgentProfile, removeAgentProfile } from "./agent-run.js";
import { HARNESS_ENV, harnessStopOf } from "./harness.js";
import { classifyOutcome } from "./outcome.js";
import { keepPeerReports, peerRunEnv, type Peer } from "./peers.js";
import { PERTURB_SEED_ENV } from "./perturb.js";
import { raceReports } from "./races.js";
import { raceLogPath, type RunFiles } from "./paths.js";
import { spawnWithDeadline } from "./spawn.js";
import { checkTraceFile, trimIncompleteBatch } from "./trace-file.js";
import type { DeadlineCause } from "./timeout.js";
import type { RecordedLeakProfile, RunConfig, RunOutcome, StopReason, UntracedOutcome } from "./types.js";

const STDOUT_CAP = 64 * 1024;
/** Enough for the all-goroutine traceback of a large program. */
const STDERR_CAP = 1024 * 1024;
/** The stderr tail kept in the database. */
const STDERR_TAIL_IN_DB = 16 * 1024;
/** Traces up to this size are hashed from one synchronous read; larger ones are streamed. */
const HASH_IN_ONE_READ_BYTES = 8 * 1024 * 1024;
/** The start of checkTraceFile's problem for a trace whose writer stopped inside a batch (the case trimIncompleteBatch repairs). */
const CUT_INSIDE_BATCH = "the trace ends inside";

export interface TracedRunRequest {
  readonly kind: ProgramKind;
  readonly dir: string;
  readonly binary: string;
  readonly testName: string | null;
  readonly config: RunConfig;
  readonly files: RunFiles;
  readonly timeoutMs: number;
  readonly graceMs: number;
  readonly go: GoToolchain;
  /** Peer leak detectors built into the binary; their reports land beside the trace. */
  readonly peers?: readonly Peer[];
  /** The binary has the run agent's leak profile: run it with the agent's environment (src/collect/agent-run.ts). */
  readonly leakProfile?: boolean;
  /** The perturbation seed, for a binary built with strategy "perturb" (else null or absent). */
  readonly seed?: number | null;
  /** What stopping the run at its deadline means: its deadline (the default), or the end of a main program's budget. */
  readonly deadlineCause?: DeadlineCause;
  readonly signal?: AbortSignal;
}

export interface TracedRunResult {
  readonly outcome: RunOutcome;
  readonly exitCode: number | null;
  readonly wallMs: number;
  readonly tracePath: string | null;
  readonly traceSha256: string | null;
  readonly traceBytes: number | null;
  readonly dumpPath: string | null;
  readonly truncated: boolean;
  /** Why the trace is incomplete, when it is. */
  readonly traceProblem: string | null;
  readonly stderrTail: string;
  readonly env: Record<string, string>;
  /** "WARNING: DATA RACE" reports on stderr (race builds); they are kept in `racesPath`. */
  readonly races: number;
  /** `<trace>.races.txt`: the race reports, when there were any. */
  readonly racesPath: string | null;
  /** Why the run was stopped before it ended by itself (runs.stop_reason), or null. */
  readonly stopReason: StopReason | null;
  /** The failure-relevant lines of the whole output (runs.output_digest), or null when not kept. */
  readonly outputDigest: string | null;
  /** How the binary ended when rerun untraced after a crash (runs.untraced), or null when not rerun. */
  readonly untraced: UntracedOutcome | null;
  /** The goroutine leak profile the run agent wrote, or null. */
  readonly leakProfile: RecordedLeakProfile | null;
}

/** The race detector's settings for a run: report every race, and no 1 s sleep at exit. */
export const RACE_RUN_ENV = "halt_on_error=0 atexit_sleep_ms=0";

/** Go test flags for one traced run of a test binary. */
export function testArguments(
  request: Pick<TracedRunRequest, "testName" | "config" | "timeoutMs">,
  tracePath: string,
): string[] {
  const args = [`-test.trace=${tracePath}`, `-test.timeout=${request.timeoutMs}ms`, "-test.v=true"];
  if (request.testName !== null) args.push(`-test.run=^${request.testName}$`);
  else if (request.config.testRun !== undefined) args.push(`-test.run=${request.config.testRun}`);
  if (request.config.testSkip !== undefined) args.push(`-test.skip=${request.config.testSkip}`);
  if (request.config.testCount !== null) args.push(`-test.count=${request.config.testCount}`);
  return args;
}

/** Runs the program once; resolves null when aborted (nothing is left on disk then). */
export async function tracedRun(request: TracedRunRequest): Promise<TracedRunResult | null> {
  const { files } = request;
  mkdirSync(files.dir, { recursive: true });
  const partialTrace = `${files.trace}.partial`;
  const partialDump = `${files.dump}.partial`;
  const racesFile = raceLogPath(files.trace);
  for (const file of [files.trace, files.dump, partialTrace, partialDump, racesFile]) rmSync(file, { force: true });
  removeAgentProfile(files.trace);
  // HOME and TMPDIR of the run: its own directory, removed afterwards. The working directory
  // is the package's source directory, as go test runs a test binary (and as a program is
  // usually run from its own directory): tests open files beside their source and build
  // paths from os.Getwd(). schedlab writes nothing there (traces, dumps and overlays live elsewhere).
  const workdir = mkdtempSync(join(tmpdir(), "schedlab-run-"));
  try {
    const peers = request.peers ?? [];
    const extra: Record<string, string> = {
      ...(request.kind === "main"
        ? {
            [HARNESS_ENV.trace]: partialTrace,
            [HARNESS_ENV.dump]: partialDump,
            [HARNESS_ENV.deadlineMs]: String(request.timeoutMs),
          }
        : {}),
      ...peerRunEnv(files.trace, peers),
      ...(request.leakProfile === true ? agentRunEnv(request.kind, files.trace, partialDump, request.timeoutMs) : {}),
      ...(request.config.strategy === "perturb" && request.seed != null
        ? { [PERTURB_SEED_ENV]: String(request.seed) }
        : {}),
      ...(request.config.strategy === "race" ? { GORACE: RACE_RUN_ENV } : {}),
    };
    const env = runEnvironment(request.go, { procs: request.config.procs, workdir, extra });
    const result = await spawnWithDeadline({
      command: request.binary,
      args: request.kind === "main" ? [] : testArguments(request, partialTrace),
      cwd: request.dir,
      env,
      deadlineMs: request.timeoutMs,
      graceMs: request.graceMs,
      stdoutCap: STDOUT_CAP,
      stderrCap: STDERR_CAP,
      signal: request.signal,
    });
    if (result.enforcement === "aborted" || request.signal?.aborted) {
      rmSync(partialTrace, { force: true });
      rmSync(partialDump, { force: true });
      keepPeerReports(files.trace, []);
      removeAgentProfile(files.trace);
      return null;
    }
    keepPeerReports(files.trace, peers);
    const agent = keepAgentProfile(files.trace, request.go.goroot);
    const stderr = result.stderr.toString("utf8");
    const output = request.kind === "test" ? `${stderr}\n${result.stdout.toString("utf8")}` : stderr;
    // What the whole output said of failures and crashes, in the order the tails are kept (stderr, then a test's stdout).
    const outputDigest = request.kind === "test" ? `${result.stderrDigest}${result.stdoutDigest}` : result.stderrDigest;
    // The harness's dump (main programs), or the run agent's of a run it stopped as hung.
    const harnessDump = existsSync(partialDump) ? readFileSync(partialDump, "utf8") : null;
    const hung = harnessDump !== null && agentStoppedHung(harnessDump);
    const outcome = classifyOutcome({
      kind: request.kind,
      exitCode: result.exitCode,
      exitSignal: result.exitSignal,
      enforcement: result.enforcement,
      harnessStop: harnessDump === null ? null : harnessStopOf(harnessDump),
      agentHang: hung,
      // The tails, and the digest: a crash header a megabyte-long traceback pushed out of the tail.
      output: `${output}\n${outputDigest}`,
    });

    let trace: { path: string; sha256: string; bytes: number; complete: boolean; problem: string | null } | null = null;
    if (existsSync(partialTrace)) {
      renameSync(partialTrace, files.trace);
      let check = checkTraceFile(files.trace);
      // A writer killed mid-batch leaves a tail no parser reads; keep what parses. Only a
      // trace cut inside a batch is walked twice; a complete one, the common case, once.
      if (check.problem?.startsWith(CUT_INSIDE_BATCH) === true && trimIncompleteBatch(files.trace) > 0)
        check = checkTraceFile(files.trace);
      trace = {
        path: files.trace,
        sha256: await sha256File(files.trace, check.bytes),
        bytes: check.bytes,
        complete: check.complete,
        problem: check.problem,
      };
    }

    // The dump: the harness's or the agent's own, else the crash traceback on stderr.
    let dumpPath: string | null = null;
    if (harnessDump !== null) {
      renameSync(partialDump, files.dump);
      dumpPath = files.dump;
    } else if (outcome !== "ok" && result.stderr.length > 0) {
      writeFileSync(files.dump, result.stderr);
      dumpPath = files.dump;
    }
    // The reports the digest kept (the first ones, whole) and those in the tail (the last ones).
    const races = [...new Set([...raceReports(result.stderrDigest), ...raceReports(stderr)])];
    if (races.length > 0)
      writeFileSync(racesFile, races.map((report) => `==================\n${report}\n==================\n`).join(""));
    const spawnNote =
      result.spawnError === null ? "" : `schedlab: cannot start ${request.binary}: ${result.spawnError}\n`;
    const signalNote =
      result.exitSignal === null
        ? ""
        : `\nschedlab: the process was ended by ${result.exitSignal}` +
          `${result.enforcement === "none" ? "" : ` (sent by schedlab after the deadline, ${result.enforcement})`}`;
    return {
      outcome,
      exitCode: result.exitCode,
      wallMs: result.wallMs,
      tracePath: trace?.path ?? null,
      traceSha256: trace?.sha256 ?? null,
      traceBytes: trace?.bytes ?? null,
      dumpPath,
      truncated: trace === null || !trace.complete,
      traceProblem: trace === null ? "the program wrote no trace" : trace.problem,
      // A failing test reports on stdout ("--- FAIL"), so tests keep the tail of both.
      stderrTail:
        spawnNote +
        (request.kind === "test"
          ? `${tailText(stderr, STDERR_TAIL_IN_DB / 2)}\n--- stdout (tail) ---\n${tailText(result.stdout.toString("utf8"), STDERR_TAIL_IN_DB / 2)}`
          : tailText(stderr, STDERR_TAIL_IN_DB)) +
        signalNote +
        agent.note,
      env,
      races: races.length,
      racesPath: races.length > 0 ? racesFile : null,
      stopReason: hung ? "hang" : stopReasonOf(outcome, request.deadlineCause ?? "deadline"),
      outputDigest,
      untraced: null,
      leakProfile: agent.leakProfile,
    };
  } finally {
    rmSync(workdir, { recursive: true, force: true });
  }
}

/** Why a run that ended `outcome` was stopped: a timeout or kill is its deadline (or a main program's budget); other outcomes ended by themselves. */
function stopReasonOf(outcome: RunOutcome, cause: DeadlineCause): StopReason | null {
  return outcome === "timeout" || outcome === "killed" ? cause : null;
}

function tailText(text: string, cap: number): string {
  return text.length <= cap ? text : text.slice(text.length - cap);
}

/**
 * The hex sha256 of the file at `path`, `bytes` long. A small file (most traces) is read
 * and hashed in one synchronous call: a read stream costs about a millisecond of event-loop
 * turns per run even for a few kilobytes. A large one is streamed, so memory stays bounded.
 */
async function sha256File(path: string, bytes: number): Promise<string> {
  if (bytes <= HASH_IN_ONE_READ_BYTES) return createHash("sha256").update(readFileSync(path)).digest("hex");
  return new Promise((resolve, reject) => {
    const hash = createHash("sha256");
    createReadStream(path)
      .on("data", (chunk) => hash.update(chunk))
      .on("error", reject)
      .on("end", () => resolve(hash.digest("hex")));
  });
}
