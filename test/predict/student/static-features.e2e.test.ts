// The Go helper's staticfeatures pass on real program directories.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  STATIC_FEATURE_KEYS,
  StaticFeaturesError,
  staticFeaturesOf,
} from "../../../src/predict/student/static-features.js";
import { FIXTURE_DIR } from "../../train/traced-runs.js";

describe("static features", () => {
  it("counts the concurrency constructs of the worker pool", async () => {
    const f = await staticFeaturesOf(join(FIXTURE_DIR, "workerpool"));
    expect(Object.keys(f)).toEqual([...STATIC_FEATURE_KEYS]);
    expect(f).toMatchObject({
      files: 1,
      hasMain: 1,
      goStmts: 3,
      goStmtsInLoops: 1,
      loopsWithGo: 1,
      chanMakes: 2,
      chanMakesBuffered: 2,
      chanMakesUnbuffered: 0,
      chanBufferSizeSum: 16,
      chanBufferSizeMax: 8,
      sends: 2,
      closes: 2,
      waitGroupAdds: 1,
      waitGroupDones: 1,
      waitGroupWaits: 1,
      selects: 0,
    });
  });

  it("tells Cond waits from WaitGroup waits by declared type, and counts selects and sleeps", async () => {
    const cond = await staticFeaturesOf(join(FIXTURE_DIR, "condqueue"));
    expect(cond).toMatchObject({
      condWaits: 2,
      condSignals: 2,
      waitGroupWaits: 2,
      waitUnknown: 0,
      mutexLocks: 2,
      mutexUnlocks: 2,
    });
    const pipeline = await staticFeaturesOf(join(FIXTURE_DIR, "pipeline"));
    expect(pipeline).toMatchObject({
      selects: 2,
      selectCases: 4,
      selectCasesMax: 2,
      selectsWithDefault: 0,
      timeAfters: 1,
      chanMakesUnbuffered: 3,
    });
    const mutex = await staticFeaturesOf(join(FIXTURE_DIR, "mutexcounter"));
    expect(mutex).toMatchObject({ timeSleeps: 1, mutexLocks: 1, goStmtsInLoops: 1 });
    const pingpong = await staticFeaturesOf(join(FIXTURE_DIR, "pingpong"));
    expect(pingpong).toMatchObject({ gosched: 1, rangeLoops: 1 });
  });

  it("fails with an actionable error on a directory without Go files", async () => {
    const empty = mkdtempSync(join(tmpdir(), "schedlab-nogo-"));
    writeFileSync(join(empty, "README"), "no go here\n");
    await expect(staticFeaturesOf(empty)).rejects.toBeInstanceOf(StaticFeaturesError);
    await expect(staticFeaturesOf(join(empty, "missing"))).rejects.toThrow(/does not exist/);
  });
});
