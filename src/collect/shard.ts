// collect --shard I/N: a stable partition of programs, so N machines (an Indexed Job, an
// array job, a CI matrix) collect disjoint parts of one tree and `schedlab merge` joins
// their databases; and --shard auto, which reads I and N from the variables the engine
// that launched the process sets (docs/scale-out.md). Pure: the environment is an argument.

import { createHash } from "node:crypto";
import { UsageError } from "../errors.js";
import { parseShard } from "./options.js";
import type { Shard } from "./types.js";

/**
 * The shard a program belongs to among `count`: the first 32 bits of the sha256 of its
 * name, modulo `count`. It depends on the name only, so it is the same on every machine
 * and for every selection of programs, and adding a program never moves another.
 */
export function shardOf(name: string, count: number): number {
  return createHash("sha256").update(name).digest().readUInt32BE(0) % count;
}

/** The programs of `shard`, in their order. */
export function selectShard<T extends { readonly name: string }>(programs: readonly T[], shard: Shard): T[] {
  return programs.filter((program) => shardOf(program.name, shard.count) === shard.index);
}

/** The variables of an explicit matrix (a CI matrix, a script, or a Kubernetes Job's count). */
export const SHARD_INDEX_ENV = "SCHEDLAB_SHARD_INDEX";
export const SHARD_COUNT_ENV = "SCHEDLAB_SHARD_COUNT";
/** Set by Kubernetes in every pod of an Indexed Job: the pod's completion index, 0 … completions-1. */
export const KUBERNETES_INDEX_ENV = "JOB_COMPLETION_INDEX";
/** Set by Slurm in every task of a job array (sbatch --array). */
export const SLURM_ARRAY_ENV = {
  id: "SLURM_ARRAY_TASK_ID",
  count: "SLURM_ARRAY_TASK_COUNT",
  min: "SLURM_ARRAY_TASK_MIN",
  max: "SLURM_ARRAY_TASK_MAX",
  step: "SLURM_ARRAY_TASK_STEP",
} as const;

/** The engine --shard auto read the shard from. */
export type ShardEngine = "matrix" | "kubernetes" | "slurm";

/** A shard with where it came from: the engine and the variables read, e.g. "SLURM_ARRAY_TASK_ID=3, …". */
export interface ResolvedShard extends Shard {
  readonly engine: ShardEngine | "flag";
  readonly from: string;
}

/** --shard auto found no engine variables, or variables that contradict each other. */
export class ShardEnvironmentError extends UsageError {}

/** What to set, for every engine: the hint of every ShardEnvironmentError. */
const WHAT_TO_SET = [
  `Kubernetes Indexed Job: ${KUBERNETES_INDEX_ENV} (Kubernetes sets it) and ${SHARD_COUNT_ENV} = spec.completions in the container's env (or --shard auto/N);`,
  `Slurm job array: ${SLURM_ARRAY_ENV.id} and ${SLURM_ARRAY_ENV.count} (sbatch --array=0-<N-1> sets them; ${SLURM_ARRAY_ENV.min} when ids start elsewhere);`,
  `CI matrix or script: ${SHARD_INDEX_ENV}=I and ${SHARD_COUNT_ENV}=N (0 ≤ I < N).`,
].join("\n  ");

export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * The shard of `collect --shard TEXT`: "I/N" as given; "auto" or "auto/N" from `env`
 * (shardFromEnvironment). Throws UsageError for anything else.
 */
export function parseShardOption(text: string, env: Environment): ResolvedShard {
  const auto = /^\s*auto\s*(?:\/\s*(\S*)\s*)?$/.exec(text);
  if (auto === null) return { ...parseShard(text), engine: "flag", from: `--shard ${text.trim()}` };
  const count = auto[1] === undefined ? undefined : countOf("--shard auto/N", auto[1]);
  return shardFromEnvironment(env, count);
}

/**
 * The shard the launching engine assigned, from its variables in `env`, in this order:
 *
 * - SCHEDLAB_SHARD_INDEX (an explicit matrix; it wins over engine variables, so a script can
 *   override them) with SCHEDLAB_SHARD_COUNT or `count`;
 * - JOB_COMPLETION_INDEX (Kubernetes Indexed Job) with SCHEDLAB_SHARD_COUNT or `count`
 *   (Kubernetes does not export spec.completions: the Job passes it);
 * - SLURM_ARRAY_TASK_ID (Slurm job array): index (ID - MIN) / STEP, count
 *   SLURM_ARRAY_TASK_COUNT (or `count`), where MIN defaults to 0 and STEP to 1; the array
 *   must be a range MIN-MAX[:STEP] (a list such as 1,4,9 numbers no shards).
 *
 * `count` (from --shard auto/N) must agree with a count the environment gives. Throws
 * ShardEnvironmentError, naming the variables to set, when none is present, when values are
 * not whole numbers, or when they are inconsistent (both an Indexed Job's and a Slurm
 * array's index, an index outside the count, counts that disagree).
 */
export function shardFromEnvironment(env: Environment, count?: number): ResolvedShard {
  const value = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === "" ? undefined : v.trim();
  };
  const explicitIndex = value(SHARD_INDEX_ENV);
  const kubernetesIndex = value(KUBERNETES_INDEX_ENV);
  const slurmId = value(SLURM_ARRAY_ENV.id);
  if (explicitIndex !== undefined) {
    const total = explicitCount(value, count, "a CI matrix");
    return checked("matrix", numberOf(SHARD_INDEX_ENV, explicitIndex), total.count, [
      `${SHARD_INDEX_ENV}=${explicitIndex}`,
      total.from,
    ]);
  }
  if (kubernetesIndex !== undefined && slurmId !== undefined) {
    throw new ShardEnvironmentError(
      `--shard auto: both ${KUBERNETES_INDEX_ENV}=${kubernetesIndex} (Kubernetes) and ` +
        `${SLURM_ARRAY_ENV.id}=${slurmId} (Slurm) are set, so the engine is ambiguous`,
      `Set ${SHARD_INDEX_ENV} and ${SHARD_COUNT_ENV} to choose, or unset the other engine's variable. --shard auto reads:\n  ${WHAT_TO_SET}`,
    );
  }
  if (kubernetesIndex !== undefined) {
    const total = explicitCount(value, count, "a Kubernetes Indexed Job (it does not export spec.completions)");
    return checked("kubernetes", numberOf(KUBERNETES_INDEX_ENV, kubernetesIndex), total.count, [
      `${KUBERNETES_INDEX_ENV}=${kubernetesIndex}`,
      total.from,
    ]);
  }
  if (slurmId !== undefined) return slurmShard(value, slurmId, count);
  throw new ShardEnvironmentError(
    "--shard auto: no shard index in the environment (not launched by a Kubernetes Indexed Job, a Slurm job array or a matrix that sets one)",
    `Set the variables of your engine, or give --shard I/N. --shard auto reads:\n  ${WHAT_TO_SET}`,
  );
}

type Lookup = (name: string) => string | undefined;

/** The count of a matrix or an Indexed Job: SCHEDLAB_SHARD_COUNT, or --shard auto/N; both must agree. */
function explicitCount(value: Lookup, count: number | undefined, what: string): { count: number; from: string } {
  const text = value(SHARD_COUNT_ENV);
  const fromEnv = text === undefined ? undefined : countOf(SHARD_COUNT_ENV, text);
  if (fromEnv !== undefined && count !== undefined && fromEnv !== count) {
    throw new ShardEnvironmentError(
      `--shard auto/${count} disagrees with ${SHARD_COUNT_ENV}=${text}`,
      `Give the shard count once: --shard auto with ${SHARD_COUNT_ENV}, or --shard auto/N without it.`,
    );
  }
  const resolved = fromEnv ?? count;
  if (resolved === undefined) {
    throw new ShardEnvironmentError(
      `--shard auto: the shard count of ${what} is missing`,
      `Set ${SHARD_COUNT_ENV}=N (for an Indexed Job: env: [{name: ${SHARD_COUNT_ENV}, value: ` +
        `"<spec.completions>"}]), or give --shard auto/N. --shard auto reads:\n  ${WHAT_TO_SET}`,
    );
  }
  return { count: resolved, from: text === undefined ? `--shard auto/${resolved}` : `${SHARD_COUNT_ENV}=${text}` };
}

/** A Slurm array task's shard: (ID - MIN) / STEP of COUNT, the array checked to be a range MIN-MAX[:STEP]. */
function slurmShard(value: Lookup, idText: string, count: number | undefined): ResolvedShard {
  const e = SLURM_ARRAY_ENV;
  const id = numberOf(e.id, idText);
  const min = value(e.min) === undefined ? 0 : numberOf(e.min, value(e.min)!);
  const step = value(e.step) === undefined ? 1 : countOf(e.step, value(e.step)!);
  const countText = value(e.count);
  const fromEnv = countText === undefined ? undefined : countOf(e.count, countText);
  if (fromEnv !== undefined && count !== undefined && fromEnv !== count) {
    throw new ShardEnvironmentError(
      `--shard auto/${count} disagrees with ${e.count}=${countText}`,
      `The array has ${countText} tasks: give --shard auto and let Slurm say how many.`,
    );
  }
  const total = fromEnv ?? count;
  if (total === undefined) {
    throw new ShardEnvironmentError(
      `--shard auto: ${e.id}=${idText} but no ${e.count}`,
      `Run under sbatch --array (which sets ${e.count}), or give --shard auto/N. --shard auto reads:\n  ${WHAT_TO_SET}`,
    );
  }
  const maxText = value(e.max);
  const range = `${min}-${maxText ?? "?"}${step === 1 ? "" : `:${step}`}`;
  const notARange = (why: string) =>
    new ShardEnvironmentError(
      `--shard auto: the Slurm array ${range} with ${total} task(s) does not number shards 0…${total - 1}: ${why}`,
      `Submit the array as a range, e.g. sbatch --array=0-${total - 1} (ids may start elsewhere, with a ` +
        `step: 1-${total}, 0-${2 * (total - 1)}:2), not a list of ids.`,
    );
  if (id < min || (id - min) % step !== 0) throw notARange(`task ${id} is not MIN + k·STEP`);
  if (maxText !== undefined && (numberOf(e.max, maxText) - min) / step + 1 !== total)
    throw notARange(`(MAX - MIN) / STEP + 1 is not ${e.count}`);
  const from = [`${e.id}=${idText}`];
  if (min !== 0) from.push(`${e.min}=${min}`);
  if (step !== 1) from.push(`${e.step}=${step}`);
  from.push(countText === undefined ? `--shard auto/${total}` : `${e.count}=${countText}`);
  return checked("slurm", (id - min) / step, total, from);
}

/** The shard, unless its index is not below its count; `from` lists the variables read. */
function checked(engine: ShardEngine, index: number, count: number, from: readonly string[]): ResolvedShard {
  const said = from.join(", ");
  if (index >= count) {
    throw new ShardEnvironmentError(
      `--shard auto: shard ${index} is not below the count ${count} (${said})`,
      `The count must be the number of shards (an Indexed Job's spec.completions, the array's size): 0 ≤ index < count.`,
    );
  }
  return { index, count, engine, from: said };
}

/** A whole number ≥ 0 written in decimal. */
function numberOf(name: string, text: string): number {
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new ShardEnvironmentError(
      `--shard auto: ${name}=${JSON.stringify(text)} is not a whole number ≥ 0`,
      `Set ${name} to the shard's index (0, 1, …).`,
    );
  }
  return Number(text);
}

/** A whole number ≥ 1 written in decimal. */
function countOf(name: string, text: string): number {
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new ShardEnvironmentError(
      `--shard auto: ${name}=${JSON.stringify(text)} is not a whole number ≥ 1`,
      `Set ${name} to the number of shards.`,
    );
  }
  return n;
}
