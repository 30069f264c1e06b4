// collect --shard auto on each batch engine, through the shipped examples: the shard and merge
// commands of examples/kubernetes, examples/slurm and examples/github-actions run as real
// processes of a compiled schedlab, with the variables each engine sets, on a copy of four
// fixture programs. Each merged database equals a single-process collection of the same
// programs (programs, builds, runs per program/config/index with their outcome and goroutine
// count; ids, times, paths and hashes excluded) and holds exactly its shards' runs with their
// event counts (a run's event count is not compared with the single process's run of the same
// index: even at GOMAXPROCS 1, preemption and syscall records under load make two executions
// of one program differ, the nondeterminism schedlab measures); each shard holds exactly the
// programs shardOf gives its index, and merging again changes nothing. Without a terminal, collect
// prints progress lines and a final line; --quiet prints none. Every `schedlab` command and
// flag in the examples exists in the CLI.

import Database from "better-sqlite3";
import { Command } from "commander";
import { execa } from "execa";
import { cpSync, mkdirSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { registerCommands } from "../../src/cli/commands.js";
import { shardOf } from "../../src/collect/index.js";
import { buildSchedlab, snapshot } from "./engines.js";
import { PROGRAMS, scratch } from "./helpers.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const EXAMPLES = join(ROOT, "examples");
const NAMES = ["clean", "leak-select", "os-exit", "test-leak"];
/** The collection every shard and the single process make: small, and deterministic at GOMAXPROCS 1. */
const COLLECT_FLAGS = "--runs 2 --procs 1 --timeout 5s --jobs 1 --progress-interval 500ms";

let dir: string;
let corpus: string;
let binDir: string;

/** The environment of a launched process: this one's, without any engine's shard variables, plus `extra`. */
function environment(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (
      value === undefined ||
      /^(SLURM_|SCHEDLAB_SHARD_)/.test(key) ||
      key === "JOB_COMPLETION_INDEX" ||
      key === "COLLECT_FLAGS"
    )
      continue;
    env[key] = value;
  }
  return { ...env, PATH: `${binDir}:${process.env.PATH ?? ""}`, COLLECT_FLAGS, ...extra };
}

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a shell script (a file, or text) with bash, as the engine would. */
async function bash(
  script: { file: string } | { text: string },
  env: Record<string, string>,
  cwd: string,
): Promise<Ran> {
  const args = "file" in script ? [script.file] : ["-e", "-c", script.text];
  const result = await execa("bash", args, {
    env: environment(env),
    extendEnv: false,
    cwd,
    reject: false,
    stdin: "ignore",
  });
  return { code: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr };
}

async function schedlab(args: readonly string[], cwd: string): Promise<Ran> {
  return bash({ text: `schedlab ${args.map((a) => `'${a}'`).join(" ")}` }, {}, cwd);
}

/** The lines of a YAML literal block (`key: |` or `- |`) that starts at line `at`, dedented. */
function literalBlock(lines: readonly string[], at: number): string {
  const indent = (line: string) => line.length - line.trimStart().length;
  const body: string[] = [];
  for (const line of lines.slice(at + 1)) {
    if (line.trim() !== "" && indent(line) <= indent(lines[at]!)) break;
    body.push(line);
  }
  const depth = Math.min(...body.filter((l) => l.trim() !== "").map(indent));
  return body
    .map((l) => l.slice(depth))
    .join("\n")
    .trim();
}

/** The literal block of the first line matching `block` after the first line matching `after`. */
function blockAfter(text: string, after: RegExp, block: RegExp): string {
  const lines = text.split("\n");
  const start = lines.findIndex((l) => after.test(l));
  expect(start, `no line ${after} in the example`).toBeGreaterThanOrEqual(0);
  const at = lines.findIndex((l, i) => i > start && block.test(l));
  expect(at, `no block ${block} after ${after}`).toBeGreaterThan(start);
  return literalBlock(lines, at);
}

function example(path: string): string {
  return readFileSync(join(EXAMPLES, path), "utf8");
}

/** Rows per table, every table. */
function tableCounts(path: string): Record<string, number> {
  const db = new Database(path, { readonly: true });
  try {
    const tables = (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]
    ).map((t) => t.name);
    return Object.fromEntries(
      tables.map((t) => [t, (db.prepare(`SELECT count(*) AS n FROM "${t}"`).get() as { n: number }).n]),
    );
  } finally {
    db.close();
  }
}

function programNames(path: string): string[] {
  const db = new Database(path, { readonly: true });
  try {
    return (db.prepare("SELECT name FROM programs ORDER BY name").all() as { name: string }[]).map((r) => r.name);
  } finally {
    db.close();
  }
}

/** One engine's run: the shards it launched (index, count, the database each wrote, its stderr), and the merged database. */
interface EngineRun {
  readonly shards: { readonly index: number; readonly count: number; readonly db: string; readonly stderr: string }[];
  readonly merged: string;
  /** Runs the example's merge step again. */
  readonly mergeAgain: () => Promise<Ran>;
}

let whole: { db: string; stderr: string };
const engines = new Map<string, EngineRun>();

beforeAll(async () => {
  // The real path: a shell's "." and $SRC must name the corpus root alike.
  dir = realpathSync(scratch("engines"));
  binDir = await buildSchedlab(join(dir, "schedlab"));
  corpus = join(dir, "corpus");
  for (const name of NAMES) cpSync(join(PROGRAMS, name), join(corpus, name), { recursive: true });

  const wholeRun = await bash(
    {
      text: `schedlab collect . $COLLECT_FLAGS --db '${join(dir, "whole.db")}' --traces '${join(dir, "whole-traces")}'`,
    },
    {},
    corpus,
  );
  expect(wholeRun.code, wholeRun.stderr).toBe(0);
  whole = { db: join(dir, "whole.db"), stderr: wholeRun.stderr };

  // Kubernetes: the Indexed Job's container script, once per completion index, with the
  // Job's SCHEDLAB_SHARD_COUNT; then the merge Job's script.
  {
    const job = example("kubernetes/collect-job.yaml");
    const count = Number(/name: SCHEDLAB_SHARD_COUNT, value: "(\d+)"/.exec(job)![1]);
    const script = blockAfter(job, /- name: collect$/, /^\s*- \|$/);
    const out = join(dir, "k8s-out");
    mkdirSync(out);
    const shards = await Promise.all(
      Array.from({ length: count }, async (_, index) => {
        const ran = await bash(
          { text: script },
          { JOB_COMPLETION_INDEX: String(index), SCHEDLAB_SHARD_COUNT: String(count), SRC: corpus, OUT: out },
          dir,
        );
        expect(ran.code, ran.stderr).toBe(0);
        return { index, count, db: join(out, `shard-${index}.db`), stderr: ran.stderr };
      }),
    );
    const mergeScript = blockAfter(example("kubernetes/merge-job.yaml"), /- name: merge$/, /^\s*- \|$/);
    const mergeAgain = () => bash({ text: mergeScript }, { OUT: out }, dir);
    const merged = await mergeAgain();
    expect(merged.code, merged.stderr).toBe(0);
    engines.set("kubernetes", { shards, merged: join(out, "merged.db"), mergeAgain });
  }

  // Slurm: collect.sbatch as `sbatch --array=1-3` runs it (ids from 1: the index is ID - MIN),
  // then merge.sbatch.
  {
    const out = join(dir, "slurm-out");
    const shards = await Promise.all(
      [1, 2, 3].map(async (id) => {
        const ran = await bash(
          { file: join(EXAMPLES, "slurm", "collect.sbatch") },
          {
            SLURM_ARRAY_JOB_ID: "4242",
            SLURM_ARRAY_TASK_ID: String(id),
            SLURM_ARRAY_TASK_MIN: "1",
            SLURM_ARRAY_TASK_MAX: "3",
            SLURM_ARRAY_TASK_STEP: "1",
            SLURM_ARRAY_TASK_COUNT: "3",
            SRC: corpus,
            OUT: out,
          },
          dir,
        );
        expect(ran.code, ran.stderr).toBe(0);
        return { index: id - 1, count: 3, db: join(out, `shard-${id}.db`), stderr: ran.stderr };
      }),
    );
    const mergeAgain = () => bash({ file: join(EXAMPLES, "slurm", "merge.sbatch") }, { OUT: out }, dir);
    const merged = await mergeAgain();
    expect(merged.code, merged.stderr).toBe(0);
    engines.set("slurm", { shards, merged: join(out, "merged.db"), mergeAgain });
  }

  // GitHub Actions: the "Collect shard" step once per matrix value, in the checkout (the
  // corpus), with the job's env (SCHEDLAB_SHARD_COUNT is strategy.job-total: the matrix's
  // size); then the "Merge shards" step where download-artifact put the databases.
  {
    const workflow = example("github-actions/schedlab.yml");
    const matrix = JSON.parse(/^\s*shard: (\[[\d, ]+\])\s*$/m.exec(workflow)![1]!) as number[];
    const script = blockAfter(workflow, /- name: Collect shard$/, /^\s*run: \|$/);
    const shards = await Promise.all(
      matrix.map(async (index) => {
        const ran = await bash(
          { text: script },
          { SCHEDLAB_SHARD_INDEX: String(index), SCHEDLAB_SHARD_COUNT: String(matrix.length) },
          corpus,
        );
        expect(ran.code, ran.stderr).toBe(0);
        return { index, count: matrix.length, db: join(corpus, `shard-${index}.db`), stderr: ran.stderr };
      }),
    );
    const mergeScript = blockAfter(workflow, /- name: Merge shards$/, /^\s*run: \|$/);
    const mergeAgain = () => bash({ text: mergeScript }, {}, corpus);
    const merged = await mergeAgain();
    expect(merged.code, merged.stderr).toBe(0);
    engines.set("github-actions", { shards, merged: join(corpus, "merged.db"), mergeAgain });
  }
}, 900_000);

describe.each(["kubernetes", "slurm", "github-actions"])("--shard auto on %s", (engine) => {
  it("gives each shard exactly the programs shardOf assigns to its index, and says where the shard came from", () => {
    const run = engines.get(engine)!;
    for (const shard of run.shards) {
      const expected = NAMES.filter((name) => shardOf(name, shard.count) === shard.index);
      expect(programNames(shard.db)).toEqual(expected);
      expect(shard.stderr).toContain(`shard ${shard.index}/${shard.count} (`);
      expect(shard.stderr).toMatch(
        new RegExp(
          `^collect: done: programs ${expected.length}/${expected.length}, runs ${2 * expected.length}/${2 * expected.length}`,
          "m",
        ),
      );
    }
    expect(run.shards.flatMap((s) => programNames(s.db)).sort()).toEqual(NAMES);
  });

  it("merges into what one process collects (programs, builds, runs, goroutines), with exactly the shards' runs and events", () => {
    const run = engines.get(engine)!;
    const merged = snapshot(run.merged);
    expect(merged.runs).toHaveLength(2 * NAMES.length);
    expect(merged).toEqual(snapshot(whole.db));
    const withEvents = snapshot(run.merged, true);
    expect([...withEvents.runs].sort()).toEqual(run.shards.flatMap((s) => snapshot(s.db, true).runs).sort());
    for (const r of withEvents.runs) expect(Number(r.split(" ").at(-1)), r).toBeGreaterThan(0);
    const events = (path: string) => tableCounts(path).event_records ?? 0;
    expect(events(run.merged)).toBe(run.shards.reduce((sum, s) => sum + events(s.db), 0));
  });

  it("changes nothing when merged again", async () => {
    const run = engines.get(engine)!;
    const before = { counts: tableCounts(run.merged), snapshot: snapshot(run.merged) };
    const again = await run.mergeAgain();
    expect(again.code, again.stderr).toBe(0);
    const summary = await schedlab(["merge", "--json", run.merged, ...run.shards.map((s) => s.db)], dir);
    expect(summary.code, summary.stderr).toBe(0);
    const inputs = (JSON.parse(summary.stdout) as { inputs: { programsAdded: number; runsAdded: number }[] }).inputs;
    expect(inputs.map((i) => [i.programsAdded, i.runsAdded])).toEqual(run.shards.map(() => [0, 0]));
    expect({ counts: tableCounts(run.merged), snapshot: snapshot(run.merged) }).toEqual(before);
  });
});

describe("collect progress without a terminal", () => {
  it("prints a status line every interval and a final line", () => {
    const lines = whole.stderr.split("\n");
    const done = lines.findIndex((l) => l.startsWith("collect: done: "));
    expect(lines[done]).toMatch(/^collect: done: programs 4\/4, runs 8\/8(, \d+ not ok)?; elapsed \d+:\d\d$/);
    expect(
      lines
        .slice(0, done)
        .filter((l) => /^collect: (programs \d+\/4, runs \d+\/8|discovering and building); elapsed /.test(l)).length,
    ).toBeGreaterThan(0);
  });

  it("prints nothing with --quiet, and only the final line when there is nothing left to run", async () => {
    const quiet = await bash(
      { text: `schedlab collect . $COLLECT_FLAGS --quiet --db '${whole.db}' --traces '${join(dir, "whole-traces")}'` },
      {},
      corpus,
    );
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).toBe("");
    expect(quiet.stdout).toContain("0 run(s) executed, 8 already recorded.");
    const resumed = await bash(
      { text: `schedlab collect . $COLLECT_FLAGS --db '${whole.db}' --traces '${join(dir, "whole-traces")}'` },
      {},
      corpus,
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    const lines = resumed.stderr.trim().split("\n");
    expect(lines.at(-1)).toMatch(/^collect: done: programs 4\/4, runs 0\/0; elapsed \d+:\d\d$/);
    for (const line of lines.slice(0, -1))
      expect(line).toMatch(/^collect: (discovering and building|programs 4\/4, runs 0\/0); elapsed /);
  });
});

/** The options of every CLI command, by name (commander's own --help included). */
function cliOptions(): Map<string, Set<string>> {
  const program = new Command();
  registerCommands(program);
  return new Map(program.commands.map((c) => [c.name(), new Set([...c.options.map((o) => o.long!), "--help"])]));
}

/**
 * The `schedlab CMD ARGS` invocations of an example: shell and YAML lines (comments left out,
 * backslash continuations joined), and in Markdown the code spans and fenced lines.
 */
function invocations(path: string): { command: string; args: string }[] {
  const text = readFileSync(path, "utf8");
  const code = path.endsWith(".md")
    ? [...text.matchAll(/`([^`\n]+)`/g)]
        .map((m) => m[1]!)
        .concat(
          text
            .split(/^```/m)
            .filter((_, i) => i % 2 === 1)
            .flatMap((block) => block.split("\n")),
        )
    : text
        .replace(/\\\n\s*/g, " ")
        .split("\n")
        .filter((line) => !/^\s*#/.test(line));
  return code.flatMap((line) =>
    [...line.matchAll(/(?:^|[\s;&|(])schedlab\s+([a-z][a-z-]*)([^;&|`)>]*)/g)].map((m) => ({
      command: m[1]!,
      args: m[2]!,
    })),
  );
}

function examplesFiles(): string[] {
  const walk = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)],
    );
  return walk(EXAMPLES);
}

describe("the examples", () => {
  it("call only commands and flags the CLI has, COLLECT_FLAGS included", () => {
    const options = cliOptions();
    const problems: string[] = [];
    let checked = 0;
    for (const file of examplesFiles()) {
      for (const { command, args } of invocations(file)) {
        const known = options.get(command);
        if (known === undefined) {
          problems.push(`${file}: schedlab ${command} is not a command`);
          continue;
        }
        for (const flag of args.match(/(?<![\w-])--[a-z][a-z-]*/g) ?? [])
          if (!known.has(flag)) problems.push(`${file}: schedlab ${command} has no ${flag}`);
        checked++;
      }
      // The flags each example gives collect through COLLECT_FLAGS.
      for (const line of readFileSync(file, "utf8")
        .split("\n")
        .filter((l) => /COLLECT_FLAGS(:|=\$\{COLLECT_FLAGS:-|, value:)/.test(l))) {
        for (const flag of line.match(/--[a-z][a-z-]*/g) ?? [])
          if (!options.get("collect")!.has(flag)) problems.push(`${file}: COLLECT_FLAGS: collect has no ${flag}`);
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(12);
  });

  it("shard every collect with --shard auto and count the shards consistently", () => {
    const collects = examplesFiles()
      .filter((f) => !f.endsWith(".md"))
      .flatMap((f) =>
        invocations(f)
          .filter((i) => i.command === "collect")
          .map((i) => ({ f, ...i })),
      );
    expect(collects.length).toBe(3);
    for (const c of collects) expect(c.args, c.f).toMatch(/--shard auto(\s|$)/);
    const job = example("kubernetes/collect-job.yaml");
    expect(job).toMatch(/^\s*completionMode: Indexed$/m);
    expect(/^\s*completions: (\d+)$/m.exec(job)?.[1]).toBe(/name: SCHEDLAB_SHARD_COUNT, value: "(\d+)"/.exec(job)?.[1]);
    expect(example("slurm/collect.sbatch")).toMatch(/^#SBATCH --array=\d+-\d+(:\d+)?$/m);
    const workflow = example("github-actions/schedlab.yml");
    expect(workflow).toContain("SCHEDLAB_SHARD_INDEX: ${{ matrix.shard }}");
    expect(workflow).toContain("SCHEDLAB_SHARD_COUNT: ${{ strategy.job-total }}");
    expect(workflow).toMatch(
      /uses: github\/codeql-action\/upload-sarif@v\d+\n\s+with:\n\s+sarif_file: schedlab\.sarif/,
    );
    expect(workflow).toContain("schedlab leaks --db merged.db --format sarif > schedlab.sarif");
    expect(workflow).toMatch(/security-events: write/);
  });

  it("are well-formed: shell scripts parse, YAML has no tabs and keeps two-space indentation", async () => {
    for (const file of examplesFiles()) {
      const text = readFileSync(file, "utf8");
      if (/\.(sh|sbatch)$/.test(file)) {
        const parsed = await execa("bash", ["-n", file], { reject: false });
        expect(parsed.exitCode, `${file}: ${parsed.stderr}`).toBe(0);
        expect(text.startsWith("#!/bin/bash\n"), file).toBe(true);
      }
      if (/\.ya?ml$/.test(file)) {
        for (const [n, line] of text.split("\n").entries()) {
          expect(line.includes("\t"), `${file}:${n + 1} has a tab`).toBe(false);
          expect(
            (line.length - line.trimStart().length) % 2,
            `${file}:${n + 1} is indented by an odd number of spaces`,
          ).toBe(0);
        }
      }
    }
  });
});
