// The process runner with real binaries: process-group kill leaves no process behind,
// a flood of output is drained and capped, and an aborted run records nothing.

import { execa } from "execa";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildProgram, HARNESS_ENV, spawnWithDeadline } from "../../src/collect/index.js";
import { goToolchain, type GoToolchain } from "../../src/go/index.js";
import { parsedTrace, PROGRAMS, scratch, SPECIAL } from "./helpers.js";

let go: GoToolchain;
beforeAll(async () => {
  go = await goToolchain();
});

/** Pids of live (not zombie) processes whose process group is `pgid`, from /proc. */
function processesInGroup(pgid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the parenthesised command: state ppid pgrp …
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid && fields[0] !== "Z") pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

/**
 * The group's live processes once SIGKILL has had time to land: the kernel delivers it
 * asynchronously, so a killed child can still show as running for a moment on a loaded
 * machine. Polls until the group is empty, for at most 5 s, and returns what is left.
 */
async function groupAfterKill(pgid: number): Promise<number[]> {
  for (let waited = 0; waited < 5_000; waited += 20) {
    if (processesInGroup(pgid).length === 0) return [];
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return processesInGroup(pgid);
}

function alive(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, "utf8");
    return state.slice(state.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

describe("spawnWithDeadline", () => {
  it("kills a program that ignores SIGTERM, and its child, leaving no process in the group", async () => {
    const dir = scratch("stubborn");
    const build = await buildProgram(
      { dir: join(SPECIAL, "stubborn"), kind: "main", goFiles: [join(SPECIAL, "stubborn", "main.go")] },
      go,
      dir,
    );
    expect(build.status).toBe("ok");
    // No SCHEDLAB_DEADLINE_MS: the harness never stops it on its own.
    const result = await spawnWithDeadline({
      command: build.binary!,
      args: [],
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", [HARNESS_ENV.trace]: join(dir, "t.trace") },
      deadlineMs: 300,
      graceMs: 300,
      stdoutCap: 4096,
      stderrCap: 4096,
    });
    expect(result.enforcement).toBe("sigkill");
    expect(result.exitSignal).toBe("SIGKILL");
    const child = Number(/child (\d+)/.exec(result.stdout.toString())![1]);
    expect(child).toBeGreaterThan(0);
    expect(await groupAfterKill(result.pid!)).toEqual([]);
    expect(alive(child)).toBe(false);
  });

  it("drains 20 MB of stdout, counting every byte and keeping only the capped tail", async () => {
    const dir = scratch("flood");
    const build = await buildProgram(
      { dir: join(PROGRAMS, "flood"), kind: "main", goFiles: [join(PROGRAMS, "flood", "main.go")] },
      go,
      dir,
    );
    const result = await spawnWithDeadline({
      command: build.binary!,
      args: [],
      cwd: dir,
      env: { PATH: process.env.PATH ?? "" },
      deadlineMs: 60_000,
      graceMs: 1_000,
      stdoutCap: 64 * 1024,
      stderrCap: 4096,
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdoutBytes).toBe(20 * 1024 * 1024 + "THE END\n".length);
    expect(result.stdout.length).toBe(64 * 1024);
    expect(result.stdout.toString().endsWith("x\nTHE END\n")).toBe(true);
  });

  it("kills the group at once when aborted", async () => {
    const dir = scratch("abort");
    const build = await buildProgram(
      { dir: join(SPECIAL, "stubborn"), kind: "main", goFiles: [join(SPECIAL, "stubborn", "main.go")] },
      go,
      dir,
    );
    const controller = new AbortController();
    const running = spawnWithDeadline({
      command: build.binary!,
      args: [],
      cwd: dir,
      env: { PATH: process.env.PATH ?? "" },
      deadlineMs: 600_000,
      graceMs: 1_000,
      stdoutCap: 4096,
      stderrCap: 4096,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 200);
    const result = await running;
    expect(result.enforcement).toBe("aborted");
    expect(await groupAfterKill(result.pid!)).toEqual([]);
  });

  it("reports a binary that cannot be started instead of throwing", async () => {
    const result = await spawnWithDeadline({
      command: join(scratch("missing"), "no-such-binary"),
      args: [],
      cwd: scratch("cwd"),
      env: {},
      deadlineMs: 1000,
      graceMs: 100,
      stdoutCap: 10,
      stderrCap: 10,
    });
    expect(result.spawnError).toMatch(/ENOENT/);
  });
});

describe("a deadlocked program under the execution tracer", () => {
  it("hangs instead of dying with 'all goroutines are asleep', which is why deadlines are essential", async () => {
    const dir = scratch("traced-deadlock");
    const program = join(SPECIAL, "traced-deadlock");
    await execa("go", ["build", "-o", join(dir, "bin"), "."], { cwd: program, env: { GO111MODULE: "off" } });
    const base = {
      command: join(dir, "bin"),
      cwd: dir,
      env: { PATH: process.env.PATH ?? "" },
      graceMs: 300,
      stdoutCap: 4096,
      stderrCap: 65536,
    };

    const untraced = await spawnWithDeadline({ ...base, args: [], deadlineMs: 60_000 });
    expect(untraced.exitCode).toBe(2);
    expect(untraced.stderr.toString()).toContain("fatal error: all goroutines are asleep - deadlock!");
    expect(untraced.enforcement).toBe("none");

    const traced = await spawnWithDeadline({ ...base, args: [join(dir, "t.trace")], deadlineMs: 1_000 });
    expect(traced.enforcement).toBe("sigterm");
    expect(traced.exitSignal).toBe("SIGTERM");
    expect(traced.stderr.toString()).not.toContain("all goroutines are asleep");
  });
});

describe("SIGTERM to a harnessed program", () => {
  it("stops the trace and writes the dump once the handler is armed (half the deadline)", async () => {
    const dir = scratch("sigterm");
    const program = join(PROGRAMS, "mutex-deadlock");
    const build = await buildProgram({ dir: program, kind: "main", goFiles: [join(program, "main.go")] }, go, dir);
    const trace = join(dir, "t.trace");
    const dump = join(dir, "d.dump");
    const running = spawnWithDeadline({
      command: build.binary!,
      args: [],
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? "",
        [HARNESS_ENV.trace]: trace,
        [HARNESS_ENV.dump]: dump,
        [HARNESS_ENV.deadlineMs]: "6000",
      },
      deadlineMs: 60_000,
      graceMs: 1_000,
      stdoutCap: 4096,
      stderrCap: 65536,
    });
    // The deadlocked program hangs; at 3 s the handler is armed, at 4.5 s SIGTERM arrives, 1.5 s before the deadline.
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    const pid = readdirSync("/proc")
      .map(Number)
      .find((p) => {
        try {
          return readFileSync(`/proc/${p}/cmdline`, "utf8").startsWith(build.binary!);
        } catch {
          return false;
        }
      });
    expect(pid).toBeDefined();
    process.kill(pid!, "SIGTERM");
    const result = await running;
    expect(result.exitCode).toBe(124);
    expect(result.enforcement).toBe("none");
    expect(readFileSync(dump, "utf8").split("\n")[0]).toBe("# schedlab-harness stop=sigterm code=124");
    expect((await parsedTrace(trace)).exitCode).toBe(0);
  });
});
