import { describe, expect, it } from "vitest";
import { hashedFamilyPick, resolveHoldout, saveHoldout, splitProgram, splitPrograms } from "../../src/dataset/split.js";
import type { SplitProgram } from "../../src/dataset/split.js";
import { UsageError } from "../../src/errors.js";
import { cleanManifest, insertProgram, insertRun, leakManifest, scratchDatabase } from "./db-fixture.js";
import { records } from "./records.js";

const program = (
  name: string,
  outcome: SplitProgram["outcome"],
  tags: string[],
  extra: Partial<SplitProgram> = {},
): SplitProgram => {
  const dir = name.slice(0, name.lastIndexOf("/"));
  return { name, family: dir, corpus: "corpus", root: "/corpus", testOnly: false, outcome, tags, ...extra };
};

// Five families of patterns (two programs each), three of kernels, and one generated template.
const corpus: SplitProgram[] = [
  ...Array.from({ length: 10 }, (_, i) => program(`patterns/p${i % 5}/clean${i}`, "clean", ["chan"])),
  ...Array.from({ length: 5 }, (_, i) => program(`kernels/k${i % 3}/leak${i}`, "leak", ["select"])),
  program("kernels/k2/dead", "deadlock", ["sync"]),
  ...Array.from({ length: 4 }, (_, i) =>
    program(`generated/pipeline-${i}`, i % 2 === 0 ? "leak" : "clean", ["generated"], { family: "generated/pipeline" }),
  ),
];

const familiesOf = (names: readonly string[]): Set<string> =>
  new Set(names.map((n) => corpus.find((p) => p.name === n)!.family));

describe("program splits", () => {
  it("default holdout: whole families, ~20% per group, deterministic, no family shared with training or validation", () => {
    const a = splitPrograms(corpus, undefined);
    expect(a.test).toEqual(splitPrograms([...corpus].reverse(), undefined).test);
    // round(5 · 0.2) = 1 patterns family and max(1, round(3 · 0.2)) = 1 kernels family; the
    // generated group has one family only and is never held out whole.
    expect([...familiesOf(a.test)].map((f) => f.split("/")[0]).sort()).toEqual(["kernels", "patterns"]);
    expect(a.families.test).toBe(2);
    for (const name of a.test) {
      const family = corpus.find((p) => p.name === name)!.family;
      expect(corpus.filter((p) => p.family === family).every((p) => a.test.includes(p.name))).toBe(true);
    }
    expect([...familiesOf(a.train)].filter((f) => familiesOf(a.test).has(f))).toEqual([]);
    expect(new Set([...a.train, ...a.test]).size).toBe(corpus.length);
    expect(a.validation.every((n) => a.train.includes(n))).toBe(true);
    const rest = a.train.filter((n) => !a.validation.includes(n));
    expect([...familiesOf(rest)].filter((f) => familiesOf(a.validation).has(f))).toEqual([]);
    expect(a.validation.length).toBeGreaterThanOrEqual(2);
    expect(a.familyOf["kernels/k2/dead"]).toBe("kernels/k2");
  });

  it("holds out the siblings of a selected program too, and test corpora only when selected", () => {
    const split = splitPrograms(corpus, "list:patterns/p1/clean1");
    expect(split.test).toEqual(["patterns/p1/clean1"]);
    expect(split.excluded).toEqual(["patterns/p1/clean6"]);
    expect(split.train).not.toContain("patterns/p1/clean6");
    const external = [
      ...corpus,
      program("ext/a/t1", null, [], { corpus: "ext", root: "/ext", testOnly: true }),
      program("ext/b/t2", null, [], { corpus: "ext", root: "/ext", testOnly: true }),
    ];
    const byDefault = splitPrograms(external, undefined);
    expect(byDefault.test.filter((n) => n.startsWith("ext/"))).toEqual([]);
    expect(byDefault.excluded).toEqual(["ext/a/t1", "ext/b/t2"]);
    expect(byDefault.train.filter((n) => n.startsWith("ext/"))).toEqual([]);
    const held = splitPrograms(external, "corpus:/ext");
    expect(held.test).toEqual(["ext/a/t1", "ext/b/t2"]);
    expect(held.train).toHaveLength(corpus.length);
    expect(splitPrograms(external, "corpus:ext").test).toEqual(held.test);
  });

  it("selects by family, folder, tag, outcome, list and unions", () => {
    expect(splitPrograms(corpus, "family:generated/pipeline").test).toHaveLength(4);
    expect(splitPrograms(corpus, "dir:kernels").test).toHaveLength(6);
    expect(splitPrograms(corpus, "dir:kernels/").train).toHaveLength(14);
    expect(splitPrograms(corpus, "tag:sync").test).toEqual(["kernels/k2/dead"]);
    expect(splitPrograms(corpus, "outcome:deadlock").test).toHaveLength(1);
    expect(splitPrograms(corpus, "list:patterns/p3/clean3, kernels/k2/dead").test).toEqual([
      "kernels/k2/dead",
      "patterns/p3/clean3",
    ]);
    expect(splitPrograms(corpus, "dir:kernels+family:generated/pipeline").test).toHaveLength(10);
  });

  it("rejects empty, total, malformed and unknown specs with a hint", () => {
    for (const spec of [
      "dir:nothing",
      "tag:",
      "outcome:flaky",
      "list:ghost",
      "split:x",
      "nosuchname",
      "dir:kernels,patterns",
      "family:nope",
      "corpus:/nowhere",
      "dir:kernels+",
      "default+dir:kernels",
    ]) {
      expect(() => splitPrograms(corpus, spec), spec).toThrow(UsageError);
    }
    expect(() => splitPrograms(corpus.slice(0, 2), "dir:patterns")).toThrow(/nothing to train on/);
  });

  // Two modules of the module proxy collected beside the bundled corpus: each its own corpus, labelled MODULE@VERSION.
  const modules = [
    ...corpus,
    program("github.com/x/a@v1.0.0/p", null, [], { family: "github.com/x/a", corpus: "github.com/x/a@v1.0.0" }),
    program("github.com/x/a@v1.0.0/q", null, [], { family: "github.com/x/a", corpus: "github.com/x/a@v1.0.0" }),
    program("github.com/x/b@v2.1.0", null, [], { family: "github.com/x/b", corpus: "github.com/x/b@v2.1.0" }),
    program("github.com/x/c@v0.1.0", null, [], { family: "github.com/x/c", corpus: "github.com/x/c@v0.1.0" }),
  ];
  const corpusFile = (path: string) =>
    path === "two.tsv"
      ? [
          { module: "github.com/x/a", version: "v1.0.0" },
          { module: "github.com/x/b", version: "v2.1.0" },
        ]
      : [];

  it("corpus-file:FILE selects the programs of the modules a corpus file lists, at their versions", () => {
    const split = splitPrograms(modules, "corpus-file:two.tsv", undefined, { corpusFile });
    expect(split.test).toEqual(["github.com/x/a@v1.0.0/p", "github.com/x/a@v1.0.0/q", "github.com/x/b@v2.1.0"]);
    expect(split.description).toBe("the 2 modules of two.tsv");
    expect(split.train).toContain("github.com/x/c@v0.1.0");
    expect(() => splitPrograms(modules, "corpus-file:none.tsv", undefined, { corpusFile })).toThrow(
      /--holdout corpus-file:none.tsv selects no program/,
    );
  });

  it("--train-on trains only on the programs it selects, never on the holdout's families", () => {
    // Train on the bundled programs, test on the modules: nothing of a module trains.
    const across = splitPrograms(modules, "corpus-file:two.tsv", undefined, { corpusFile, trainOn: "corpus:corpus" });
    expect(across.train).toHaveLength(corpus.length);
    expect(across.train.every((n) => !n.startsWith("github.com/"))).toBe(true);
    expect(across.excluded).toEqual(["github.com/x/c@v0.1.0"]);
    expect(across.trainOn).toBe("corpus:corpus");
    expect(across.description).toBe("the 2 modules of two.tsv; trained on corpus corpus only");
    // Train on the modules, test on one folder of the bundled corpus: the rest of it is excluded.
    const onKernels = splitPrograms(modules, "dir:kernels", undefined, { corpusFile, trainOn: "corpus-file:two.tsv" });
    expect(onKernels.test).toHaveLength(6);
    expect(onKernels.train).toEqual(["github.com/x/a@v1.0.0/p", "github.com/x/a@v1.0.0/q", "github.com/x/b@v2.1.0"]);
    expect(onKernels.excluded).toHaveLength(modules.length - 6 - 3);
    expect(onKernels.families).toMatchObject({ train: 2, test: 3 });
    // A training set that overlaps the holdout loses the holdout's families, as without --train-on.
    const inside = splitPrograms(corpus, "dir:kernels", undefined, { trainOn: "dir:kernels+dir:patterns" });
    expect(inside.train.every((n) => n.startsWith("patterns/"))).toBe(true);
    expect(inside.train).toHaveLength(10);
    // The default holdout of a restricted training set picks among its families only.
    const byDefault = splitPrograms(modules, undefined, undefined, { trainOn: "dir:patterns" });
    expect(byDefault.test.length).toBeGreaterThan(0);
    expect([...byDefault.test, ...byDefault.train].every((n) => n.startsWith("patterns/"))).toBe(true);
  });

  it("--train-on refuses default, an empty selection and a training set the holdout swallows", () => {
    expect(() => splitPrograms(corpus, "dir:kernels", undefined, { trainOn: "default" })).toThrow(/--train-on default/);
    expect(() => splitPrograms(corpus, "dir:kernels", undefined, { trainOn: "dir:nothing" })).toThrow(
      /--train-on dir:nothing selects no program/,
    );
    expect(() => splitPrograms(corpus, "dir:kernels", undefined, { trainOn: "dir:kernels/k1" })).toThrow(
      /--train-on dir:kernels\/k1 leaves nothing to train on/,
    );
  });

  it("hashedFamilyPick skips groups of a single family", () => {
    expect(hashedFamilyPick([program("a/b/c", "clean", [])], "s")).toEqual([]);
  });

  it("reads labels from stored manifests and tolerates bad ones", () => {
    expect(splitProgram("d/x", JSON.stringify(leakManifest))).toMatchObject({
      name: "d/x",
      family: "d",
      outcome: "leak",
      tags: ["select"],
    });
    expect(splitProgram("d/x", "{not json")).toMatchObject({ name: "d/x", family: "d", outcome: null, tags: [] });
    expect(
      splitProgram("g/pipeline-7", JSON.stringify({ ...leakManifest, generated: { template: "pipeline", seed: 7 } }))
        .family,
    ).toBe("generated/pipeline");
    expect(splitProgram("g/x", JSON.stringify({ ...leakManifest, family: "mine" })).family).toBe("mine");
  });

  it("resolves against a database and saves named holdouts", () => {
    const { db } = scratchDatabase();
    const recs = records([
      ["GoCreate", 2],
      ["GoStart", 2],
      ["GoEnd", 2],
    ]);
    for (const [name, manifest] of [
      ["a/one", cleanManifest],
      ["a/two", leakManifest],
      ["b/three", cleanManifest],
      ["b/four", null],
    ] as const) {
      insertRun(db, insertProgram(db, name, manifest), 0, recs);
    }
    insertProgram(db, "c/never-ran", cleanManifest);
    const split = resolveHoldout(db, "dir:a");
    expect(split.test).toEqual(["a/one", "a/two"]);
    expect(split.train).toEqual(["b/four", "b/three"]);
    // The two training programs form one family, so validation falls back to a program.
    expect(split.families).toEqual({ train: 1, validation: 1, test: 1 });
    expect(split.validation).toHaveLength(1);
    expect(split.description).toMatch(/validation by program/);
    saveHoldout(db, "frozen", "tag:select");
    expect(resolveHoldout(db, "frozen").test).toEqual(["a/two"]);
    expect(() => saveHoldout(db, "bad name", "dir:a")).toThrow(UsageError);
  });
});
