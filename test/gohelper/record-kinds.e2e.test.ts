// The Go helper numbers the records it streams with its recordKind constants; Node decodes
// them by index into RECORD_KINDS (src/core/events.ts). The two lists must agree name for
// name: in the helper's source (the iota constants and their names) and in the built helper.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { RECORD_KINDS } from "../../src/core/index.js";
import { goHelperPath } from "../../src/gohelper/index.js";

const GO_HELPER_DIR = join(import.meta.dirname, "../../src/gohelper");

/** The Go helper's non-test sources, wherever its packages put them. */
function goSources(dir: string): { readonly path: string; readonly text: string }[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".go") && !e.name.endsWith("_test.go"))
    .map((e) => join(e.parentPath, e.name))
    .map((path) => ({ path, text: readFileSync(path, "utf8") }));
}

/**
 * The recordKind constants in declaration order ("kindGoCreate recordKind = iota" and the
 * ones after it, up to recordKindCount) without their "kind" prefix, and the strings of
 * recordKindNames; each from the one source file that declares it.
 */
function goRecordKinds(): { readonly constants: string[]; readonly names: string[] } {
  const sources = goSources(GO_HELPER_DIR);
  const withConstants = sources.filter((s) => /\bkind\w+\s+recordKind\s*=\s*iota\b/.test(s.text));
  const withNames = sources.filter((s) => /\bvar\s+recordKindNames\s*=/.test(s.text));
  expect(withConstants.map((s) => s.path)).toHaveLength(1);
  expect(withNames.map((s) => s.path)).toHaveLength(1);
  const block = /const\s*\(([^)]*\brecordKind\s*=\s*iota\b[^)]*)\)/.exec(withConstants[0].text)![1];
  const identifiers = block
    .split("\n")
    .map((line) => line.replace(/\/\/.*$/, "").trim())
    .filter((line) => line !== "")
    .map((line) => /^(\w+)/.exec(line)![1]);
  const count = identifiers.indexOf("recordKindCount");
  expect(count).toBeGreaterThan(0);
  const constants = identifiers.slice(0, count).map((name) => {
    expect(name).toMatch(/^kind[A-Z]/);
    return name.slice("kind".length);
  });
  const literal = /\bvar\s+recordKindNames\s*=\s*\[[^\]]*\]string\s*\{([^}]*)\}/.exec(withNames[0].text)![1];
  const names = [...literal.matchAll(/"([^"]*)"/g)].map((m) => m[1]);
  return { constants, names };
}

describe("record kinds", () => {
  it("are declared by the Go helper's source in RECORD_KINDS order: its iota constants and their names", () => {
    const { constants, names } = goRecordKinds();
    expect(constants).toEqual([...RECORD_KINDS]);
    expect(names).toEqual([...RECORD_KINDS]);
  });

  it("are numbered the same by the built Go helper and by RECORD_KINDS", async () => {
    const { stdout } = await execa(await goHelperPath(), ["record-kinds"]);
    expect(JSON.parse(stdout)).toEqual([...RECORD_KINDS]);
  });
});
