// A doc or comment that sends the reader to a TypeScript file names one that exists: every
// `src/….ts` and `test/….ts` path written in src/, test/, bench/, scripts/, docs/ and the
// README is a file of the repository. Placeholders (`src/predict/NAME.ts`) are not paths, and
// docs/experiments/ is a record of what was (its paths are as they were at the commit it cites).

import { existsSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { lineHits, ROOT, textFiles } from "../helpers/repository-files.js";

const TEXT_EXTENSIONS = new Set([".ts", ".go", ".md", ".mjs", ".js", ".cjs"]);
/** A repository path of a TypeScript file, not preceded by a path character (so not the tail of a longer path). */
const TS_PATH = /(?<![\w./-])(?:src|test)\/[\w./-]+\.ts\b/g;
const PLACEHOLDER = /\bNAME\b/;

/** "file:line: path" for every TypeScript path named in `files` that is not a file. */
function missingReferences(files: readonly string[]): string[] {
  return lineHits(files, (line) =>
    [...line.matchAll(TS_PATH)]
      .map(([path]) => path)
      .filter((path) => !PLACEHOLDER.test(path) && !existsSync(join(ROOT, path))),
  );
}

describe("file references in docs and comments", () => {
  const files = [
    ...["src", "test", "bench", "scripts"].flatMap((dir) => textFiles(join(ROOT, dir), TEXT_EXTENSIONS)),
    ...textFiles(join(ROOT, "docs"), TEXT_EXTENSIONS).filter(
      (f) => !relative(ROOT, f).startsWith(`docs${sep}experiments${sep}`),
    ),
    join(ROOT, "README.md"),
  ];

  it("reads the sources, tests, benchmarks, scripts and docs", () => {
    expect(files.some((f) => relative(ROOT, f) === join("docs", "dev", "architecture.md"))).toBe(true);
    expect(files.some((f) => relative(ROOT, f) === join("src", "core", "events.ts"))).toBe(true);
    expect(files.length).toBeGreaterThan(300);
  });

  it("names only TypeScript files that exist", () => {
    expect(missingReferences(files)).toEqual([]);
  });

  it("tells a path from a placeholder and from the tail of a longer path", () => {
    const found = (line: string) => [...line.matchAll(TS_PATH)].map(([path]) => path);
    expect(found("see src/trace/load.ts, and test/docs/one-home.test.ts.")).toEqual([
      "src/trace/load.ts",
      "test/docs/one-home.test.ts",
    ]);
    expect(found("/usr/local/go/src/runtime/x.ts and ../../src/core/index.ts")).toEqual([]);
    expect(PLACEHOLDER.test("src/predict/NAME.ts")).toBe(true);
  });
});
