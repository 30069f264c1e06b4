// Discovery with the real Go helper: naming, skipped directories, build constraints,
// split tests and the errors for paths without Go code.

import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { discoverPrograms, NoGoCodeError, ProgramNotFoundError, selectProgramsByName } from "../../src/corpus/index.js";
import { PROGRAMS, SPECIAL } from "./helpers.js";

describe("discoverPrograms", () => {
  it("names a single program directory after its base name", async () => {
    const { programs } = await discoverPrograms([join(PROGRAMS, "clean")]);
    expect(programs.map((p) => [p.name, p.kind, p.testName])).toEqual([["clean", "main", null]]);
    expect(programs[0].goFiles).toEqual([join(PROGRAMS, "clean", "main.go")]);
    expect(programs[0].sourceHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("applies build constraints: a //go:build ignore main file does not make a second package", async () => {
    const { programs, warnings } = await discoverPrograms([join(PROGRAMS, "modtree")]);
    expect(programs.map((p) => `${p.name}:${p.kind}`)).toEqual([
      "cmd/broken:main",
      "cmd/hello:main",
      "tools/hello:main",
      "work:test",
    ]);
    expect(programs[3].goFiles).toEqual([join(PROGRAMS, "modtree", "work", "work.go")]);
    expect(warnings).toEqual([]);
  });

  it("makes one program per TestXxx function with splitTests, and only real tests", async () => {
    const { programs } = await discoverPrograms([join(PROGRAMS, "modtree")], { splitTests: true });
    expect(programs.map((p) => [p.name, p.testName])).toEqual([
      ["cmd/broken", null],
      ["cmd/hello", null],
      ["tools/hello", null],
      ["work#TestSum", "TestSum"],
      ["work#TestSumZero", "TestSumZero"],
    ]);
  });

  it("reads a valid manifest and leaves programs without one unlabelled", async () => {
    const { programs } = await discoverPrograms([PROGRAMS]);
    const byName = new Map(programs.map((p) => [p.name, p]));
    expect(byName.get("leak-select")!.manifest).toMatchObject({ outcome: "leak", showsOn: "every" });
    expect(byName.get("clean")!.manifest).toBeNull();
    expect(programs.some((p) => /(^|\/)(\.hidden|vendor|testdata|node_modules)(\/|$)/.test(p.name))).toBe(false);
  });

  it("refuses a directory without Go code with a hint saying what to do", async () => {
    const error = await discoverPrograms([join(SPECIAL, "nogo")]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoGoCodeError);
    expect((error as NoGoCodeError).message).toContain("no Go program under");
    expect((error as NoGoCodeError).hint).toMatch(/directory that contains \.go files/);
  });

  it("keeps a package whose files do not parse, not even the package clause, as a program (its build will say why)", async () => {
    const { programs, warnings } = await discoverPrograms([join(SPECIAL, "unparsable")]);
    expect(programs.map((p) => [p.name, p.kind, p.goFiles])).toEqual([
      ["unparsable", "main", [join(SPECIAL, "unparsable", "main.go")]],
    ]);
    expect(warnings).toEqual([]);
  });

  it("refuses a path that does not exist", async () => {
    const error = await discoverPrograms([join(SPECIAL, "missing")]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoGoCodeError);
    expect((error as NoGoCodeError).message).toContain("is not a directory");
  });
});

describe("selectProgramsByName", () => {
  it("keeps exactly the named programs, under their names relative to the root", async () => {
    const { programs } = await discoverPrograms([PROGRAMS]);
    const picked = selectProgramsByName(programs, ["modtree/tools/hello", "clean", "modtree/cmd/hello"]);
    expect(picked.map((p) => [p.name, p.dir])).toEqual([
      ["clean", join(PROGRAMS, "clean")],
      ["modtree/cmd/hello", join(PROGRAMS, "modtree", "cmd", "hello")],
      ["modtree/tools/hello", join(PROGRAMS, "modtree", "tools", "hello")],
    ]);
    expect(picked.every((p) => p.root === PROGRAMS)).toBe(true);
  });

  it("refuses a name that is not a program under the root, suggesting the full names it may mean", async () => {
    const { programs } = await discoverPrograms([PROGRAMS]);
    const error = (() => {
      try {
        return selectProgramsByName(programs, ["clean", "hello", "nowhere"]);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ProgramNotFoundError);
    expect((error as ProgramNotFoundError).message).toBe(`no program named hello, nowhere under ${PROGRAMS}`);
    expect((error as ProgramNotFoundError).hint).toBe(
      "Name programs by their path relative to the root given, e.g. modtree/cmd/hello, modtree/tools/hello.",
    );
    expect((error as ProgramNotFoundError).exitCode).toBe(2);
  });
});
