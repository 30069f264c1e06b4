// The bundled corpus under the default holdout: whole families are held out, so no test
// program has a sibling (same template, category or directory) in training or validation.

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { discoverPrograms } from "../../src/corpus/index.js";
import { splitProgram, splitPrograms } from "../../src/dataset/split.js";

const CORPUS = resolve(import.meta.dirname, "../../go-programs");

describe("the default holdout of go-programs/", () => {
  it("shares no family between test, validation and training, and holds out every group", async () => {
    const { programs } = await discoverPrograms([CORPUS]);
    const candidates = programs.map((p) =>
      splitProgram(p.name, p.manifest === null ? null : JSON.stringify(p.manifest), {
        label: "go-programs",
        root: CORPUS,
        testOnly: false,
      }),
    );
    const split = splitPrograms(candidates, undefined);
    const familyOf = (name: string): string => split.familyOf[name]!;
    const families = (names: readonly string[]) => new Set(names.map(familyOf));
    const test = families(split.test);
    const validation = families(split.validation);
    const fit = families(split.train.filter((n) => !split.validation.includes(n)));
    expect([...test].filter((f) => fit.has(f) || validation.has(f))).toEqual([]);
    expect([...validation].filter((f) => fit.has(f))).toEqual([]);
    // Generated programs are siblings by template, hand-written ones by category folder.
    expect(new Set(candidates.filter((p) => p.name.startsWith("generated/")).map((p) => p.family)).size).toBe(
      (JSON.parse(readFileSync(resolve(CORPUS, "generated/SEEDS.json"), "utf8")) as { templates: string[] }).templates
        .length,
    );
    for (const group of ["generated", "patterns", "kernels"]) {
      expect(
        [...test].some((f) => f.startsWith(`${group}/`)),
        `a ${group} family in test`,
      ).toBe(true);
    }
    expect(split.families.test).toBe(test.size);
    expect(split.excluded).toEqual([]);
  });
});
