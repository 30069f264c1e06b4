import { describe, expect, it } from "vitest";
import { hashedPick, resolveHoldout, saveHoldout, splitProgram, splitPrograms } from "../../src/dataset/split.js";
import type { SplitProgram } from "../../src/dataset/split.js";
import { UsageError } from "../../src/errors.js";
import { cleanManifest, insertProgram, insertRun, leakManifest, scratchDatabase } from "./db-fixture.js";
import { records } from "./records.js";

const corpus: SplitProgram[] = [
  ...Array.from({ length: 10 }, (_, i) => ({ name: `patterns/clean${i}`, outcome: "clean" as const, tags: ["chan"] })),
  ...Array.from({ length: 5 }, (_, i) => ({ name: `kernels/leak${i}`, outcome: "leak" as const, tags: ["select"] })),
  { name: "kernels/dead", outcome: "deadlock" as const, tags: ["sync"] },
];

describe("program splits", () => {
  it("default holdout: ~20% per stratum, deterministic, buggy and clean both present", () => {
    const a = splitPrograms(corpus, undefined);
    expect(a.test).toEqual(splitPrograms([...corpus].reverse(), undefined).test);
    expect(a.test.filter((n) => n.startsWith("patterns/"))).toHaveLength(2); // round(10 · 0.2)
    expect(a.test.filter((n) => n.startsWith("kernels/"))).toHaveLength(1); // round(6 · 0.2)
    expect(new Set([...a.train, ...a.test]).size).toBe(corpus.length);
    expect(a.train.filter((n) => a.test.includes(n))).toEqual([]);
    expect(a.validation.every((n) => a.train.includes(n))).toBe(true);
    expect(a.validation.length).toBeGreaterThanOrEqual(2);
  });

  it("selects by folder, tag, outcome and list", () => {
    expect(splitPrograms(corpus, "dir:kernels").test).toHaveLength(6);
    expect(splitPrograms(corpus, "dir:kernels/").train).toHaveLength(10);
    expect(splitPrograms(corpus, "tag:sync").test).toEqual(["kernels/dead"]);
    expect(splitPrograms(corpus, "outcome:leak").test).toHaveLength(5);
    expect(splitPrograms(corpus, "list:patterns/clean3, kernels/dead").test).toEqual(["kernels/dead", "patterns/clean3"]);
  });

  it("rejects empty, total, malformed and unknown specs with a hint", () => {
    for (const spec of ["dir:nothing", "tag:", "outcome:flaky", "list:ghost", "split:x", "nosuchname", "dir:kernels,patterns"]) {
      expect(() => splitPrograms(corpus, spec), spec).toThrow(UsageError);
    }
    expect(() => splitPrograms(corpus.slice(0, 2), "dir:patterns")).toThrow(/nothing to train on/);
  });

  it("hashedPick skips singleton strata", () => {
    expect(hashedPick([{ name: "a", outcome: "clean", tags: [] }], "s")).toEqual([]);
  });

  it("reads labels from stored manifests and tolerates bad ones", () => {
    expect(splitProgram("x", JSON.stringify(leakManifest))).toEqual({ name: "x", outcome: "leak", tags: ["select"] });
    expect(splitProgram("x", "{not json")).toEqual({ name: "x", outcome: null, tags: [] });
  });

  it("resolves against a database and saves named holdouts", () => {
    const { db } = scratchDatabase();
    const recs = records([["GoCreate", 2], ["GoStart", 2], ["GoEnd", 2]]);
    for (const [name, manifest] of [["a/one", cleanManifest], ["a/two", leakManifest], ["b/three", cleanManifest], ["b/four", null]] as const) {
      insertRun(db, insertProgram(db, name, manifest), 0, recs);
    }
    insertProgram(db, "c/never-ran", cleanManifest);
    const split = resolveHoldout(db, "dir:a");
    expect(split.test).toEqual(["a/one", "a/two"]);
    expect(split.train).toEqual(["b/four", "b/three"]);
    saveHoldout(db, "frozen", "tag:select");
    expect(resolveHoldout(db, "frozen").test).toEqual(["a/two"]);
    expect(() => saveHoldout(db, "bad name", "dir:a")).toThrow(UsageError);
  });
});
