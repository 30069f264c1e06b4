// The order in which a test binary runs its top-level tests, read from the package's
// _test.go files; names test roots whose own stacks never named them (docs/identity.md).

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const TEST_FUNC = /^func (Test(?:[^a-z\W]\w*)?)\(\w+ \*testing\.T\)/gm;
const PACKAGE = /^package (\w+)/m;

/**
 * Test functions in `go test` order: the package's own _test.go files, then the external
 * (`package x_test`) ones, each group by file name, functions in source order. Returns []
 * when the directory cannot be read. Build constraints are not evaluated, so the
 * caller must treat the list as a hint (canonicalGoroutineIds only uses it when it is
 * consistent with the trace).
 */
export function testFunctionsInOrder(dir: string): string[] {
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((f) => f.endsWith("_test.go"))
      .sort();
  } catch {
    return [];
  }
  const internal: string[] = [];
  const external: string[] = [];
  for (const file of files) {
    let source: string;
    try {
      source = readFileSync(join(dir, file), "utf8");
    } catch {
      continue;
    }
    const names = [...source.matchAll(TEST_FUNC)].map((m) => m[1]);
    (PACKAGE.exec(source)?.[1].endsWith("_test") ? external : internal).push(...names);
  }
  return [...internal, ...external];
}
