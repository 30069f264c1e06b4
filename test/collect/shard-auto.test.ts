// collect --shard auto: the shard index and count read from the variables of the engine that
// launched the process (Kubernetes Indexed Jobs, Slurm job arrays, an explicit matrix), and
// the errors that name what to set when they are missing or contradict each other.

import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/errors.js";
import { parseShardOption, ShardEnvironmentError, shardFromEnvironment } from "../../src/collect/shard.js";

const slurm = (id: number, min: number, max: number, count: number, step?: number) => ({
  SLURM_ARRAY_JOB_ID: "4242",
  SLURM_ARRAY_TASK_ID: String(id),
  SLURM_ARRAY_TASK_MIN: String(min),
  SLURM_ARRAY_TASK_MAX: String(max),
  SLURM_ARRAY_TASK_COUNT: String(count),
  ...(step === undefined ? {} : { SLURM_ARRAY_TASK_STEP: String(step) }),
});

/** The error `f` throws (it must throw one). */
function errorOf(f: () => unknown): ShardEnvironmentError {
  try {
    f();
  } catch (error) {
    expect(error).toBeInstanceOf(ShardEnvironmentError);
    return error as ShardEnvironmentError;
  }
  throw new Error("expected an error");
}

describe("--shard I/N", () => {
  it("is taken as given, whatever the environment says", () => {
    expect(parseShardOption("2/4", { JOB_COMPLETION_INDEX: "1" })).toEqual({
      index: 2,
      count: 4,
      engine: "flag",
      from: "--shard 2/4",
    });
    expect(() => parseShardOption("4/4", {})).toThrow(UsageError);
    expect(() => parseShardOption("automatic", {})).toThrow(UsageError);
  });
});

describe("--shard auto on a Kubernetes Indexed Job", () => {
  it("takes the index from JOB_COMPLETION_INDEX and the count from SCHEDLAB_SHARD_COUNT or auto/N", () => {
    expect(parseShardOption("auto", { JOB_COMPLETION_INDEX: "3", SCHEDLAB_SHARD_COUNT: "8" })).toEqual({
      index: 3,
      count: 8,
      engine: "kubernetes",
      from: "JOB_COMPLETION_INDEX=3, SCHEDLAB_SHARD_COUNT=8",
    });
    expect(parseShardOption("auto/8", { JOB_COMPLETION_INDEX: "0" })).toEqual({
      index: 0,
      count: 8,
      engine: "kubernetes",
      from: "JOB_COMPLETION_INDEX=0, --shard auto/8",
    });
    expect(parseShardOption(" auto / 8 ", { JOB_COMPLETION_INDEX: "7", SCHEDLAB_SHARD_COUNT: "8" })).toMatchObject({
      index: 7,
      count: 8,
    });
  });

  it("says to pass the completions count when it is missing, since Kubernetes does not export it", () => {
    const error = errorOf(() => shardFromEnvironment({ JOB_COMPLETION_INDEX: "1" }));
    expect(error.message).toContain(
      "the shard count of a Kubernetes Indexed Job (it does not export spec.completions) is missing",
    );
    expect(error.hint).toContain("Set SCHEDLAB_SHARD_COUNT=N");
    expect(error.hint).toContain("--shard auto/N");
    expect(error.exitCode).toBe(2);
  });

  it("refuses an index not below the count, and counts that disagree", () => {
    expect(errorOf(() => shardFromEnvironment({ JOB_COMPLETION_INDEX: "4", SCHEDLAB_SHARD_COUNT: "4" })).message).toBe(
      "--shard auto: shard 4 is not below the count 4 (JOB_COMPLETION_INDEX=4, SCHEDLAB_SHARD_COUNT=4)",
    );
    expect(
      errorOf(() => parseShardOption("auto/3", { JOB_COMPLETION_INDEX: "1", SCHEDLAB_SHARD_COUNT: "4" })).message,
    ).toBe("--shard auto/3 disagrees with SCHEDLAB_SHARD_COUNT=4");
    expect(
      errorOf(() => shardFromEnvironment({ JOB_COMPLETION_INDEX: "x1", SCHEDLAB_SHARD_COUNT: "4" })).message,
    ).toContain('JOB_COMPLETION_INDEX="x1" is not a whole number');
    expect(
      errorOf(() => shardFromEnvironment({ JOB_COMPLETION_INDEX: "1", SCHEDLAB_SHARD_COUNT: "0" })).message,
    ).toContain('SCHEDLAB_SHARD_COUNT="0" is not a whole number ≥ 1');
  });
});

describe("--shard auto on a Slurm job array", () => {
  it("numbers shards from SLURM_ARRAY_TASK_MIN, with the array's count", () => {
    expect(shardFromEnvironment(slurm(0, 0, 7, 8))).toEqual({
      index: 0,
      count: 8,
      engine: "slurm",
      from: "SLURM_ARRAY_TASK_ID=0, SLURM_ARRAY_TASK_COUNT=8",
    });
    expect(shardFromEnvironment(slurm(8, 1, 8, 8))).toEqual({
      index: 7,
      count: 8,
      engine: "slurm",
      from: "SLURM_ARRAY_TASK_ID=8, SLURM_ARRAY_TASK_MIN=1, SLURM_ARRAY_TASK_COUNT=8",
    });
    // --array=0-14:2: ids 0, 2, …, 14.
    expect(shardFromEnvironment(slurm(6, 0, 14, 8, 2))).toMatchObject({
      index: 3,
      count: 8,
      from: "SLURM_ARRAY_TASK_ID=6, SLURM_ARRAY_TASK_STEP=2, SLURM_ARRAY_TASK_COUNT=8",
    });
    // Only the id and the count (MIN taken as 0): the documented minimum.
    expect(shardFromEnvironment({ SLURM_ARRAY_TASK_ID: "2", SLURM_ARRAY_TASK_COUNT: "3" })).toMatchObject({
      index: 2,
      count: 3,
    });
    expect(parseShardOption("auto/3", { SLURM_ARRAY_TASK_ID: "2" })).toMatchObject({
      index: 2,
      count: 3,
      from: "SLURM_ARRAY_TASK_ID=2, --shard auto/3",
    });
  });

  it("refuses an array of listed ids, which numbers no shards, saying to submit a range", () => {
    // sbatch --array=1,4,9: MIN 1, MAX 9, COUNT 3.
    const error = errorOf(() => shardFromEnvironment(slurm(4, 1, 9, 3)));
    expect(error.message).toContain("the Slurm array 1-9 with 3 task(s) does not number shards 0…2");
    expect(error.hint).toContain("sbatch --array=0-2");
    expect(errorOf(() => shardFromEnvironment(slurm(3, 0, 14, 8, 2))).message).toContain("task 3 is not MIN + k·STEP");
  });

  it("refuses a count that disagrees with the array's, and an id without a count", () => {
    expect(errorOf(() => parseShardOption("auto/5", slurm(3, 0, 3, 4))).message).toBe(
      "--shard auto/5 disagrees with SLURM_ARRAY_TASK_COUNT=4",
    );
    expect(errorOf(() => shardFromEnvironment({ SLURM_ARRAY_TASK_ID: "3" })).message).toBe(
      "--shard auto: SLURM_ARRAY_TASK_ID=3 but no SLURM_ARRAY_TASK_COUNT",
    );
  });
});

describe("--shard auto in a CI matrix", () => {
  it("takes SCHEDLAB_SHARD_INDEX and SCHEDLAB_SHARD_COUNT, over any engine's variables", () => {
    expect(shardFromEnvironment({ SCHEDLAB_SHARD_INDEX: "1", SCHEDLAB_SHARD_COUNT: "4" })).toEqual({
      index: 1,
      count: 4,
      engine: "matrix",
      from: "SCHEDLAB_SHARD_INDEX=1, SCHEDLAB_SHARD_COUNT=4",
    });
    expect(
      shardFromEnvironment({
        SCHEDLAB_SHARD_INDEX: "1",
        SCHEDLAB_SHARD_COUNT: "4",
        ...slurm(3, 0, 7, 8),
        JOB_COMPLETION_INDEX: "2",
      }),
    ).toMatchObject({ index: 1, count: 4, engine: "matrix" });
    expect(errorOf(() => shardFromEnvironment({ SCHEDLAB_SHARD_INDEX: "1" })).message).toContain(
      "the shard count of a CI matrix is missing",
    );
  });
});

describe("--shard auto with no engine, or two", () => {
  it("names every engine's variables when none is set (empty values count as unset)", () => {
    const error = errorOf(() => parseShardOption("auto", { JOB_COMPLETION_INDEX: "", PATH: "/bin" }));
    expect(error.message).toContain("no shard index in the environment");
    for (const name of [
      "JOB_COMPLETION_INDEX",
      "SCHEDLAB_SHARD_COUNT",
      "SLURM_ARRAY_TASK_ID",
      "SLURM_ARRAY_TASK_COUNT",
      "SLURM_ARRAY_TASK_MIN",
      "SCHEDLAB_SHARD_INDEX",
    ]) {
      expect(error.hint).toContain(name);
    }
  });

  it("refuses both an Indexed Job's and a Slurm array's index: the engine is ambiguous", () => {
    const error = errorOf(() =>
      shardFromEnvironment({ JOB_COMPLETION_INDEX: "1", SCHEDLAB_SHARD_COUNT: "4", ...slurm(1, 0, 3, 4) }),
    );
    expect(error.message).toContain(
      "both JOB_COMPLETION_INDEX=1 (Kubernetes) and SLURM_ARRAY_TASK_ID=1 (Slurm) are set",
    );
    expect(error.hint).toContain("Set SCHEDLAB_SHARD_INDEX and SCHEDLAB_SHARD_COUNT to choose");
  });
});
