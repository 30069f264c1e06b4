// Discovery parity: `corpus check` and collect share one discovery (discoverPrograms), and it
// sees what the go command sees. A module of real files with build-constrained files
// (//go:build ignore, a file for another GOOS), _test.go-only packages, main packages with
// and without tests, examples and skipped directories is discovered with the real Go helper
// and compared with `go list` and with what `corpus check` counts.

import { execa } from "execa";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkCorpus, discoverPrograms, type ProgramSpec } from "../../src/corpus/index.js";

const CORPUS = fileURLToPath(new URL("../../go-programs/", import.meta.url));

const MAIN = "package main\n\nfunc main() {}\n";
const TEST = (pkg: string, name: string): string =>
  `package ${pkg}\n\nimport "testing"\n\nfunc ${name}(t *testing.T) {}\n`;
/** A GOOS that is not this machine's, so its files are left out as `go build` leaves them out. */
const OTHER_GOOS = process.platform === "win32" ? "plan9" : "windows";

const TREE: Record<string, string> = {
  "go.mod": "module fixture.example/parity\n\ngo 1.22\n",
  // A //go:build ignore file declaring a second func main is not part of the package.
  "ignored/main.go": MAIN,
  "ignored/gen.go": "//go:build ignore\n\npackage main\n\nfunc main() {}\n",
  // A directory whose only main is ignored holds no program, so its manifest labels nothing.
  "allignored/gen.go": "//go:build ignore\n\npackage main\n\nfunc main() {}\n",
  "allignored/schedlab.json": "{}",
  // A file for another GOOS (by name and by constraint) is left out; alone it makes no program.
  "goos/main.go": MAIN,
  [`goos/main_${OTHER_GOOS}.go`]: MAIN,
  "goos/tagged.go": `//go:build ${OTHER_GOOS}\n\npackage main\n\nfunc main() {}\n`,
  [`goosonly/main_${OTHER_GOOS}.go`]: MAIN,
  // A package of _test.go files only is a test program.
  "testonly/sum_test.go": TEST("testonly", "TestSum"),
  // An external test package (package x_test) counts as the package's tests.
  "xtest/x.go": "package xtest\n\nfunc X() int { return 1 }\n",
  "xtest/x_test.go": TEST("xtest_test", "TestX"),
  // A main package with tests is two programs: the binary and its tests.
  "mainandtests/main.go": MAIN,
  "mainandtests/main_test.go": TEST("main", "TestRun"),
  // A test file whose only test is ignored, and a library without tests, are no programs.
  "library/lib.go": "package library\n\nfunc F() {}\n",
  "ignoredtest/lib.go": "package ignoredtest\n\nfunc F() {}\n",
  "ignoredtest/lib_test.go": `//go:build ignore\n\n${TEST("ignoredtest", "TestF")}`,
  // Tests for another GOOS only: no program here.
  "goostest/lib.go": "package goostest\n\nfunc F() {}\n",
  [`goostest/lib_${OTHER_GOOS}_test.go`]: TEST("goostest", "TestF"),
  // An example runs (and so is a test program) only with an output comment.
  "example/ex.go": "package example\n",
  "example/ex_test.go":
    'package example\n\nimport "fmt"\n\nfunc ExampleHello() {\n\tfmt.Println("hi")\n\t// Output: hi\n}\n',
  "noexample/ex.go": "package noexample\n",
  "noexample/ex_test.go": 'package noexample\n\nimport "fmt"\n\nfunc ExampleHello() {\n\tfmt.Println("hi")\n}\n',
  // Directories the go command ignores.
  "testdata/prog/main.go": MAIN,
  "vendor/example.com/v/main.go": MAIN,
  "_scratch/main.go": MAIN,
  ".hidden/main.go": MAIN,
};

interface Listed {
  readonly Dir: string;
  readonly Name: string;
  readonly GoFiles?: string[];
  readonly TestGoFiles?: string[];
  readonly XTestGoFiles?: string[];
}

/** `go list -json ./...` in `root`: every package the go command sees, with its files after build constraints. */
async function goList(root: string): Promise<Listed[]> {
  const { stdout } = await execa("go", ["list", "-e", "-json=Dir,Name,GoFiles,TestGoFiles,XTestGoFiles", "./..."], {
    cwd: root,
    env: { GOTOOLCHAIN: "local", GOFLAGS: "" },
  });
  return stdout
    .split(/\n(?=\{)/)
    .filter((chunk) => chunk.trim() !== "")
    .map((chunk) => JSON.parse(chunk) as Listed);
}

const files = (program: ProgramSpec): { goFiles: string[]; testFiles: string[] } => ({
  goFiles: program.goFiles.map((f) => basename(f)),
  testFiles: program.testFiles.map((f) => basename(f)),
});

describe("one discovery for corpus check and collect, honouring build constraints", () => {
  let root: string;
  let programs: ProgramSpec[];

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "schedlab-discovery-parity-"));
    for (const [path, text] of Object.entries(TREE)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    ({ programs } = await discoverPrograms([root]));
  });

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("finds exactly the main packages and the packages with tests or examples with output", () => {
    expect(programs.map((p) => [p.name, p.kind])).toEqual([
      ["example", "test"],
      ["goos", "main"],
      ["ignored", "main"],
      ["mainandtests", "main"],
      ["mainandtests#test", "test"],
      ["testonly", "test"],
      ["xtest", "test"],
    ]);
  });

  it("leaves out //go:build ignore files and files for another GOOS, as go build does", () => {
    const byName = new Map(programs.map((p) => [p.name, files(p)]));
    expect(byName.get("ignored")).toEqual({ goFiles: ["main.go"], testFiles: [] });
    expect(byName.get("goos")).toEqual({ goFiles: ["main.go"], testFiles: [] });
    expect(byName.get("testonly")).toEqual({ goFiles: [], testFiles: ["sum_test.go"] });
    expect(byName.get("xtest")).toEqual({ goFiles: ["x.go"], testFiles: ["x_test.go"] });
    expect(byName.get("mainandtests#test")).toEqual({ goFiles: ["main.go"], testFiles: ["main_test.go"] });
  });

  it("gives every program the files `go list` gives its package", async () => {
    const listed = new Map((await goList(root)).map((pkg) => [pkg.Dir, pkg]));
    for (const program of programs) {
      const pkg = listed.get(program.dir);
      expect(pkg, program.name).toBeDefined();
      expect(files(program), program.name).toEqual({
        goFiles: pkg!.GoFiles ?? [],
        testFiles: [...(pkg!.TestGoFiles ?? []), ...(pkg!.XTestGoFiles ?? [])],
      });
      if (program.kind === "main") expect(pkg!.Name).toBe("main");
    }
  });

  it("is what corpus check counts and lists, program for program", async () => {
    const report = await checkCorpus({ dir: root, skipBuild: true });
    expect(report.programs).toBe(programs.length);
    expect(report.byKind).toEqual({ main: 3, test: 4 });
    expect(report.unlabelledPrograms).toEqual(programs.map((p) => p.name));
    expect(report.failures).toEqual([
      { program: "allignored", problem: "has a manifest but no main package or TestXxx function" },
    ]);
  });
});

describe("discovery on the project's corpus", () => {
  it("finds in go-programs/ what corpus check counts, every program labelled", async () => {
    const { programs, warnings } = await discoverPrograms([CORPUS]);
    expect(warnings).toEqual([]);
    const report = await checkCorpus({ dir: CORPUS, skipBuild: true });
    expect(report.programs).toBe(programs.length);
    expect(report.byKind).toEqual({
      main: programs.filter((p) => p.kind === "main").length,
      test: programs.filter((p) => p.kind === "test").length,
    });
    expect(report.unlabelledPrograms).toEqual([]);
    expect(programs.every((p) => p.manifest !== null)).toBe(true);
    expect(programs.length).toBeGreaterThanOrEqual(200);
  });
});
