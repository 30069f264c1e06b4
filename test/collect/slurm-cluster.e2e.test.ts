// examples/slurm on a real Slurm cluster: munged, slurmctld and slurmd (Debian's slurm-wlm and
// munge; .ci/run installs them) are started on this machine with a generated slurm.conf in a
// temporary directory, the documented `submit.sh` submits collect.sbatch as a job array and
// merge.sbatch after it, and the merged database equals a single-process collection of the
// same corpus (programs, builds, runs per program/config/index with outcome and goroutine
// count: the comparison of test/collect/shard-engines, whose comment says why a run's event
// count is not compared with another execution's). Every daemon is stopped by its pid after.

import { execa } from "execa";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { hostname } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shardOf } from "../../src/collect/index.js";
import { buildSchedlab, snapshot } from "./engines.js";
import { PROGRAMS, scratch } from "./helpers.js";

const EXAMPLES = fileURLToPath(new URL("../../examples/slurm/", import.meta.url));
const NAMES = ["clean", "leak-select", "os-exit", "test-leak"];
const COLLECT_FLAGS = "--runs 2 --procs 1 --timeout 5s --jobs 1 --progress-interval 500ms";
/** The array of this test, given to submit.sh as documented (ARRAY: it becomes sbatch --array). */
const ARRAY = "0-2";
const SHARDS = 3;
const DAEMONS = ["munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol"];

/** The cluster's programs not on PATH: any fails the test, unless .ci/run said it could not install them (SCHEDLAB_SLURM_UNAVAILABLE). */
function missing(): string[] {
  const path = (process.env.PATH ?? "").split(":");
  return DAEMONS.filter((program) => !path.some((dir) => dir !== "" && existsSync(join(dir, program))));
}
const absent = missing();
const unavailable = process.env.SCHEDLAB_SLURM_UNAVAILABLE;
const skipped = absent.length > 0 && unavailable !== undefined;

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => done(typeof address === "object" && address !== null ? address.port : 0));
    });
  });
}

let dir: string;
let env: Record<string, string>;
const pids: { name: string; file: string }[] = [];

function pidOf(file: string): number | null {
  return existsSync(file) ? Number(readFileSync(file, "utf8").trim()) : null;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function slurm(command: string, args: string[]): Promise<string> {
  const result = await execa(command, args, { env, extendEnv: false, reject: false });
  return `${result.stdout}${result.stderr === "" ? "" : `\n${result.stderr}`}`;
}

/** Starts munged, slurmctld and slurmd in `dir`, each writing its pid file there. */
async function startCluster(): Promise<void> {
  const munge = join(dir, "munge");
  mkdirSync(munge, { mode: 0o700 });
  writeFileSync(
    join(munge, "munge.key"),
    Buffer.from(Array.from({ length: 128 }, () => Math.floor(Math.random() * 256))),
  );
  chmodSync(join(munge, "munge.key"), 0o400);
  const socket = join(munge, "munge.socket");
  // As root munged needs --force; it forks and writes its pid file.
  await execa(
    "munged",
    [
      "--force",
      `--socket=${socket}`,
      `--key-file=${join(munge, "munge.key")}`,
      `--log-file=${join(munge, "munged.log")}`,
      `--pid-file=${join(munge, "munged.pid")}`,
      `--seed-file=${join(munge, "munged.seed")}`,
    ],
    { env },
  );
  pids.push({ name: "munged", file: join(munge, "munged.pid") });
  const host = hostname().split(".")[0]!;
  const [ctldPort, slurmdPort] = [await freePort(), await freePort()];
  mkdirSync(join(dir, "state"));
  mkdirSync(join(dir, "spool"));
  writeFileSync(
    env.SLURM_CONF!,
    [
      "ClusterName=schedlab",
      `SlurmctldHost=${host}(127.0.0.1)`,
      `SlurmctldPort=${ctldPort}`,
      `SlurmdPort=${slurmdPort}`,
      "AuthType=auth/munge",
      "CredType=cred/munge",
      `AuthInfo=socket=${socket}`,
      "SlurmUser=root",
      "SlurmdUser=root",
      `StateSaveLocation=${join(dir, "state")}`,
      `SlurmdSpoolDir=${join(dir, "spool")}`,
      `SlurmctldPidFile=${join(dir, "slurmctld.pid")}`,
      `SlurmdPidFile=${join(dir, "slurmd.pid")}`,
      `SlurmctldLogFile=${join(dir, "slurmctld.log")}`,
      `SlurmdLogFile=${join(dir, "slurmd.log")}`,
      // No cgroups in a container: plain process tracking, no task plugin, no accounting.
      "ProctrackType=proctrack/linuxproc",
      "TaskPlugin=task/none",
      "JobAcctGatherType=jobacct_gather/none",
      "AccountingStorageType=accounting_storage/none",
      "JobCompType=jobcomp/none",
      "MpiDefault=none",
      "SwitchType=switch/none",
      "SchedulerType=sched/backfill",
      "SelectType=select/cons_tres",
      "SelectTypeParameters=CR_CPU",
      // The node offers what collect.sbatch asks of a task (4 CPUs, 8G), whatever this machine has:
      // one task runs at a time.
      "SlurmdParameters=config_overrides",
      "ReturnToService=2",
      `NodeName=schedlab-node NodeHostname=${host} NodeAddr=127.0.0.1 CPUs=4 RealMemory=16384 State=UNKNOWN`,
      "PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
      "",
    ].join("\n"),
  );
  // Both daemons fork and write their pid files; -i: no state to recover.
  await execa("slurmctld", ["-i"], { env, extendEnv: false });
  pids.push({ name: "slurmctld", file: join(dir, "slurmctld.pid") });
  await execa("slurmd", ["-N", "schedlab-node"], { env, extendEnv: false });
  pids.push({ name: "slurmd", file: join(dir, "slurmd.pid") });
  await until("the node to be idle", async () => /\bidle\b/.test(await slurm("sinfo", ["-h", "-o", "%T"])), 60_000);
}

/** Stops the cluster: jobs cancelled, slurmctld and slurmd shut down, munged stopped; each by its own pid. */
async function stopCluster(): Promise<void> {
  if (existsSync(env.SLURM_CONF!)) {
    await slurm("scancel", ["--full", "--quiet", "--user=root"]);
    await until("no job left", async () => (await slurm("squeue", ["-h"])).trim() === "", 30_000).catch(() => {});
    await slurm("scontrol", ["shutdown"]);
  }
  for (const { file } of [...pids].reverse()) {
    const pid = pidOf(file);
    if (pid === null) continue;
    await until(`pid ${pid} to exit`, () => !alive(pid), 10_000).catch(() => process.kill(pid, "SIGTERM"));
    await until(`pid ${pid} to exit`, () => !alive(pid), 10_000).catch(() => process.kill(pid, "SIGKILL"));
  }
}

interface Job {
  readonly id: string;
  readonly arrayJob: string | null;
  readonly arrayTask: string | null;
  readonly state: string;
  readonly exitCode: string;
}

/** Every job the cluster has run, as scontrol still shows it (a finished job stays MinJobAge, 300 s by default). */
async function jobs(): Promise<Job[]> {
  return (await slurm("scontrol", ["show", "job", "-o"]))
    .split("\n")
    .filter((line) => line.startsWith("JobId="))
    .map((line) => ({
      id: /^JobId=(\d+)/.exec(line)![1]!,
      arrayJob: /\bArrayJobId=(\d+)/.exec(line)?.[1] ?? null,
      arrayTask: /\bArrayTaskId=(\S+)/.exec(line)?.[1] ?? null,
      state: /\bJobState=(\S+)/.exec(line)![1]!,
      exitCode: /\bExitCode=(\S+)/.exec(line)![1]!,
    }));
}

describe.skipIf(skipped)(
  `examples/slurm on a single-node Slurm cluster${skipped ? ` (skipped: ${unavailable}; missing ${absent.join(", ")})` : ""}`,
  () => {
    let submitted: string[] = [];
    let out: string;
    let whole: string;

    beforeAll(async () => {
      expect(
        absent,
        `${absent.join(", ")} not installed: apt-get install slurm-wlm munge (.ci/run installs them; it sets ` +
          "SCHEDLAB_SLURM_UNAVAILABLE to skip this test only when they cannot be installed)",
      ).toEqual([]);
      dir = realpathSync(scratch("slurm"));
      const binDir = await buildSchedlab(join(dir, "schedlab"));
      const corpus = join(dir, "corpus");
      for (const name of NAMES) cpSync(join(PROGRAMS, name), join(corpus, name), { recursive: true });
      out = join(dir, "out");
      const base: Record<string, string> = {};
      for (const [key, value] of Object.entries(process.env))
        if (value !== undefined && !/^(SLURM_|SBATCH_|SCHEDLAB_SHARD_)/.test(key) && key !== "JOB_COMPLETION_INDEX")
          base[key] = value;
      env = {
        ...base,
        PATH: `${binDir}:${process.env.PATH ?? ""}`,
        SLURM_CONF: join(dir, "slurm.conf"),
        COLLECT_FLAGS,
      };
      const single = await execa(
        "bash",
        ["-c", `schedlab collect . $COLLECT_FLAGS --db '${join(dir, "whole.db")}' --traces '${join(dir, "whole-t")}'`],
        { cwd: corpus, env, extendEnv: false, reject: false },
      );
      expect(single.exitCode, single.stderr).toBe(0);
      whole = join(dir, "whole.db");

      await startCluster();
      const submit = join(dir, "submit");
      mkdirSync(submit);
      const sub = await execa("bash", [join(EXAMPLES, "submit.sh")], {
        cwd: submit,
        env: { ...env, SRC: corpus, OUT: out, ARRAY },
        extendEnv: false,
        reject: false,
      });
      expect(sub.exitCode, `${sub.stdout}\n${sub.stderr}`).toBe(0);
      // submit.sh prints the merge job's id (--parsable: "id" or "id;cluster"); its dependency names the array's.
      const merge = sub.stdout.trim().split(";")[0]!;
      const dependency = /\bDependency=afterany:(\d+)/.exec(await slurm("scontrol", ["show", "job", "-o", merge]));
      expect(dependency, "the merge job waits for the array").not.toBeNull();
      submitted = [dependency![1]!, merge];
      await until("every job to end", async () => (await slurm("squeue", ["-h"])).trim() === "", 600_000);
    }, 900_000);

    afterAll(async () => {
      if (env !== undefined) await stopCluster();
      for (const { name, file } of pids) {
        const pid = pidOf(file);
        expect(pid === null || !alive(pid), `${name} (pid ${pid}) still running`).toBe(true);
      }
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    }, 120_000);

    it("runs every array task and then the merge, each to completion", async () => {
      const [array, merge] = submitted;
      const all = await jobs();
      expect(
        all.map((j) => [j.arrayJob === array ? `${array}_${j.arrayTask}` : j.id, j.state, j.exitCode]).sort(),
      ).toEqual(
        [
          [`${array}_0`, "COMPLETED", "0:0"],
          [`${array}_1`, "COMPLETED", "0:0"],
          [`${array}_2`, "COMPLETED", "0:0"],
          [merge, "COMPLETED", "0:0"],
        ].sort(),
      );
      const log = readFileSync(join(dir, "submit", `schedlab-merge-${submitted[1]}.out`), "utf8");
      expect(log).toContain("merged.db");
    });

    it("gives each task the shard of its array index, as --shard auto reads Slurm's variables", () => {
      for (let index = 0; index < SHARDS; index++) {
        const log = readFileSync(join(dir, "submit", `schedlab-collect-${submitted[0]}_${index}.out`), "utf8");
        expect(log).toContain(`shard ${index}/${SHARDS} (slurm: SLURM_ARRAY_TASK_ID=${index}`);
        const expected = NAMES.filter((name) => shardOf(name, SHARDS) === index);
        expect(snapshot(join(out, `shard-${index}.db`)).programs.map((p) => p.split(" ")[0])).toEqual(expected);
      }
    });

    it("merges into what one process collects of the same corpus", () => {
      const merged = snapshot(join(out, "merged.db"));
      expect(merged.runs).toHaveLength(2 * NAMES.length);
      expect(merged).toEqual(snapshot(whole));
    });
  },
);
