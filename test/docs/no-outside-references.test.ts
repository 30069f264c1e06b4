// The repository explains itself: no source file, test or doc cites "DESIGN §N", a design
// document that is not in the repository. A rule is cited by the repository doc that states it
// (docs/events.md, docs/dataset.md, docs/metrics.md, docs/leaks.md, docs/dev/architecture.md, …).

import { extname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { lineHits, ROOT, textFiles } from "../helpers/repository-files.js";

const TEXT_EXTENSIONS = new Set([".ts", ".go", ".md", ".json", ".mjs", ".js", ".mod"]);
const OUTSIDE_REFERENCE = /DESIGN\s*§/;
/** This file, which spells the citation out to test the pattern. */
const THIS_FILE = fileURLToPath(import.meta.url);

/** "path:line: text" for every line of `files` that cites the outside design document. */
function outsideReferences(files: readonly string[]): string[] {
  return lineHits(files, (line) => (OUTSIDE_REFERENCE.test(line) ? [line.trim()] : []));
}

describe("references to documents outside the repository", () => {
  const files = [
    ...textFiles(join(ROOT, "src"), TEXT_EXTENSIONS),
    ...textFiles(join(ROOT, "docs"), TEXT_EXTENSIONS),
    ...textFiles(join(ROOT, "test"), TEXT_EXTENSIONS).filter((f) => f !== THIS_FILE),
    ...textFiles(join(ROOT, "go-programs"), new Set([".md"])),
    join(ROOT, "README.md"),
  ];

  it("scans the TypeScript and Go sources, the tests and the docs", () => {
    const kinds = new Set(files.map((f) => extname(f)));
    expect([...kinds]).toEqual(expect.arrayContaining([".ts", ".go", ".md"]));
    expect(files.some((f) => relative(ROOT, f) === join("docs", "dev", "architecture.md"))).toBe(true);
    expect(files.some((f) => relative(ROOT, f) === join("go-programs", "README.md"))).toBe(true);
    expect(files.some((f) => relative(ROOT, f).startsWith(`test${sep}`))).toBe(true);
    expect(files.length).toBeGreaterThan(200);
  });

  it("finds no citation of DESIGN §N in src/, test/, docs/, the corpus's docs or the README", () => {
    expect(outsideReferences(files)).toEqual([]);
  });

  it("recognises a citation written the way the old comments wrote it", () => {
    expect(OUTSIDE_REFERENCE.test("// The ceilings of a set of states (DESIGN §5): …")).toBe(true);
    expect(OUTSIDE_REFERENCE.test("// The ceilings of a set of states (docs/dataset.md): …")).toBe(false);
  });
});
