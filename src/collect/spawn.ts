// Runs one binary as its own process group with a deadline: SIGTERM to the group at
// deadline + grace, SIGKILL at deadline + 2 × grace; the group is always SIGKILLed
// once the leader exits so no child survives. stdout/stderr keep a capped tail, and each
// is read whole into its output digest (what tells failures and crashes, output-digest.ts).

import { spawn } from "node:child_process";
import { outputDigest } from "./output-digest.js";
import { outputTail } from "./tail.js";

export interface SpawnRequest {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Record<string, string>;
  /** The program's own deadline (the harness or -test.timeout acts on it). */
  readonly deadlineMs: number;
  readonly graceMs: number;
  readonly stdoutCap: number;
  readonly stderrCap: number;
  readonly signal?: AbortSignal;
}

/** What schedlab had to do to end the process. */
export type Enforcement = "none" | "sigterm" | "sigkill" | "aborted";

export interface SpawnResult {
  readonly pid: number | undefined;
  readonly exitCode: number | null;
  /** The signal that ended the process, if any. */
  readonly exitSignal: NodeJS.Signals | null;
  readonly enforcement: Enforcement;
  readonly wallMs: number;
  readonly stdout: Buffer;
  readonly stderr: Buffer;
  readonly stdoutBytes: number;
  readonly stderrBytes: number;
  /** The digests of the whole streams (src/collect/output-digest.ts). */
  readonly stdoutDigest: string;
  readonly stderrDigest: string;
  /** Set when the binary could not be started at all. */
  readonly spawnError: string | null;
}

/** Sends `signal` to the process group led by `pid`, ignoring a group that is gone. */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group has already exited.
  }
}

/** Runs the request to completion; never rejects. */
export function spawnWithDeadline(request: SpawnRequest): Promise<SpawnResult> {
  const started = performance.now();
  const stdout = outputTail(request.stdoutCap);
  const stderr = outputTail(request.stderrCap);
  const stdoutDigest = outputDigest();
  const stderrDigest = outputDigest();
  return new Promise((resolvePromise) => {
    let enforcement: Enforcement = "none";
    const child = spawn(request.command, [...request.args], {
      cwd: request.cwd,
      env: request.env,
      detached: true, // a new process group, so the whole group can be killed
      stdio: ["ignore", "pipe", "pipe"],
    });
    const pid = child.pid;
    child.stdout.on("data", (chunk: Buffer) => {
      stdout.write(chunk);
      stdoutDigest.write(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr.write(chunk);
      stderrDigest.write(chunk);
    });
    const timers: NodeJS.Timeout[] = [];
    const escalate = (signal: "SIGTERM" | "SIGKILL") => {
      if (pid === undefined) return;
      if (enforcement !== "aborted") enforcement = signal === "SIGTERM" ? "sigterm" : "sigkill";
      killGroup(pid, signal);
    };
    timers.push(setTimeout(() => escalate("SIGTERM"), request.deadlineMs + request.graceMs));
    timers.push(setTimeout(() => escalate("SIGKILL"), request.deadlineMs + 2 * request.graceMs));
    const onAbort = () => {
      enforcement = "aborted";
      if (pid !== undefined) killGroup(pid, "SIGKILL");
    };
    request.signal?.addEventListener("abort", onAbort, { once: true });
    if (request.signal?.aborted) onAbort();

    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let exitedAt: number | null = null;
    let spawnError: string | null = null;
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      request.signal?.removeEventListener("abort", onAbort);
      resolvePromise({
        pid,
        exitCode: exit?.code ?? null,
        exitSignal: exit?.signal ?? null,
        enforcement,
        wallMs: (exitedAt ?? performance.now()) - started,
        stdout: stdout.bytes(),
        stderr: stderr.bytes(),
        stdoutBytes: stdout.total,
        stderrBytes: stderr.total,
        stdoutDigest: stdoutDigest.text(),
        stderrDigest: stderrDigest.text(),
        spawnError,
      });
    };
    child.on("error", (error) => {
      spawnError = error.message;
      finish();
    });
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      exitedAt = performance.now();
      // Leftover children of the program die with it; then wait for the pipes to drain,
      // but not forever (a process outside the group may hold them open).
      if (pid !== undefined) killGroup(pid, "SIGKILL");
      const drain = setTimeout(finish, 2_000);
      child.on("close", () => {
        clearTimeout(drain);
        finish();
      });
    });
  });
}
