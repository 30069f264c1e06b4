// The repository's text as the documentation checks (test/docs/) read it: the files below a
// folder with given extensions, and the lines of files where a pattern finds something.

import { readdirSync, readFileSync } from "node:fs";
import { extname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root directory. */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Every file below `dir` whose extension is in `extensions`. Hidden folders (test/.tmp holds
 * what running tests write) and fixtures (data the tests are run on) are left out.
 */
export function textFiles(dir: string, extensions: ReadonlySet<string>): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name.startsWith(".") || entry.name === "fixtures" ? [] : textFiles(path, extensions);
    return entry.isFile() && extensions.has(extname(entry.name)) ? [path] : [];
  });
}

/** "file:line: hit" (file relative to the root) for every hit `find` returns on a line of `files`. */
export function lineHits(files: readonly string[], find: (line: string) => readonly string[]): string[] {
  return files.flatMap((file) =>
    readFileSync(file, "utf8")
      .split("\n")
      .flatMap((line, i) => find(line).map((hit) => `${relative(ROOT, file)}:${i + 1}: ${hit}`)),
  );
}
