// The repository explains itself: no source file, test or doc cites "DESIGN §N", a design
// document that is not in the repository. A rule is cited by the repository doc that states it
// (docs/events.md, docs/dataset.md, docs/metrics.md, docs/leaks.md, docs/dev/architecture.md, …).

import { readdirSync, readFileSync } from "node:fs";
import { extname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TEXT_EXTENSIONS = new Set([".ts", ".go", ".md", ".json", ".mjs", ".js", ".mod"]);
const OUTSIDE_REFERENCE = /DESIGN\s*§/;
/** This file, which spells the citation out to test the pattern. */
const THIS_FILE = fileURLToPath(import.meta.url);

function textFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    // Hidden folders (test/.tmp holds what running tests write) are not the repository's.
    if (entry.isDirectory()) out.push(...(entry.name.startsWith(".") ? [] : textFiles(path)));
    else if (entry.isFile() && TEXT_EXTENSIONS.has(extname(entry.name))) out.push(path);
  }
  return out;
}

/** "path:line: text" for every line of `files` that cites the outside design document. */
function outsideReferences(files: readonly string[]): string[] {
  const hits: string[] = [];
  for (const file of files) {
    readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (OUTSIDE_REFERENCE.test(line)) hits.push(`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
      });
  }
  return hits;
}

describe("references to documents outside the repository", () => {
  const files = [
    ...textFiles(join(ROOT, "src")),
    ...textFiles(join(ROOT, "docs")),
    ...textFiles(join(ROOT, "test")).filter((f) => f !== THIS_FILE),
    ...textFiles(join(ROOT, "go-programs")).filter((f) => extname(f) === ".md"),
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
