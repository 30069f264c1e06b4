// Where a package directory's Go module is: the one question about modules that building,
// the goleak peer and `corpus check` all ask.

import { existsSync } from "node:fs";
import { dirname, join } from "node:path";

/** The root of the Go module `dir` belongs to (nearest go.mod at or above it), or null outside any module. */
export function moduleRoot(dir: string): string | null {
  for (let current = dir; ; current = dirname(current)) {
    if (existsSync(join(current, "go.mod"))) return current;
    if (dirname(current) === current) return null;
  }
}

/** Whether `dir` is inside a Go module (a go.mod in it or an ancestor). */
export function insideModule(dir: string): boolean {
  return moduleRoot(dir) !== null;
}
