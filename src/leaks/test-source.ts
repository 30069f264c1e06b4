// The edge of test placement: reads the t.Run call lines of a test package's own _test.go
// files, so placeInTest can name subtests. Files are read once per program.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { subtestNameInSource, tableSubtestNames, type SubtestNaming } from "./test-path.js";

/** Lines read from a call on: enough for `t.Run(` with its name on the next line. */
const CALL_LINES = 3;

/**
 * The subtests named at "file_test.go:LINE" of the package in `dir` (one name, or a table's
 * row names for `t.Run(tt.name, …)`), or null when that
 * line is not a t.Run call of a _test.go file there (or the file cannot be read, e.g. the
 * tree moved since collection: subtests then go unnamed and stay in the goroutine chain).
 */
export function subtestLookup(dir: string): (siteKey: string) => SubtestNaming | null {
  const files = new Map<string, readonly string[] | null>();
  const names = new Map<string, SubtestNaming | null>();
  const linesOf = (file: string): readonly string[] | null => {
    if (!files.has(file)) {
      let lines: readonly string[] | null;
      try {
        lines = readFileSync(join(dir, file), "utf8").split("\n");
      } catch {
        lines = null;
      }
      files.set(file, lines);
    }
    return files.get(file) ?? null;
  };
  return (siteKey) => {
    const known = names.get(siteKey);
    if (known !== undefined) return known;
    const m = /^(.+_test\.go):(\d+)$/.exec(siteKey);
    const lines = m === null ? null : linesOf(m[1]);
    const line = m === null ? 0 : Number(m[2]);
    const name =
      lines === null || !(lines[line - 1] ?? "").includes(".Run(")
        ? null
        : subtestNameInSource(lines.slice(line - 1, line - 1 + CALL_LINES).join("\n"));
    // An expression (`tt.name`): the names of the table its loop ranges over, when the source has them.
    const naming =
      name !== null && lines !== null && name.startsWith("{")
        ? (tableSubtestNames(lines, line, name.slice(1, -1)) ?? name)
        : name;
    names.set(siteKey, naming);
    return naming;
  };
}
