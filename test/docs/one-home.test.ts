// Shared vocabulary and helpers have one home each (docs/dev/architecture.md, "Where each rule
// lives"). The duplicate-finding tool sees repeated lines, not a second definition written
// differently, so this test reads src/ and checks that each of these is defined in exactly the
// file that owns it. The record-kind order shared with the Go helper and the program discovery
// shared by corpus and collect are checked by their own tests (test/gohelper/record-kinds,
// test/corpus/discover).

import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "..", "..", "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

const FILES = sourceFiles(SRC).map((path) => ({ path: relative(SRC, path), text: readFileSync(path, "utf8") }));

/** The files of src/ whose text matches `pattern`, as paths relative to src/. */
function filesMatching(pattern: RegExp): string[] {
  return FILES.filter((f) => pattern.test(f.text)).map((f) => f.path);
}

const HOMES: readonly { readonly what: string; readonly pattern: RegExp; readonly home: string }[] = [
  { what: "the event types", pattern: /\bEVENT_TYPES\s*(:[^=\n]+)?=/, home: "core/events.ts" },
  { what: "the record-kind order", pattern: /\bRECORD_KINDS\s*(:[^=\n]+)?=/, home: "core/events.ts" },
  { what: "the rare events", pattern: /\bRARE_EVENTS\s*(:[^=\n]+)?=/, home: "core/events.ts" },
  { what: "the sign of negative numbers", pattern: /"(−|\\u2212)"|\? "\+" : "-"/, home: "core/format.ts" },
  {
    what: "the (program, run) order of runs",
    pattern: /a\.program < b\.program \? -1/,
    home: "dataset/abstractions.ts",
  },
  { what: "a dense output head", pattern: /function\s+\w*[hH]ead\(\s*params/, home: "predict/student/model.ts" },
  { what: "percent formatting", pattern: /\b(function\s+pct|const\s+pct\s*=)/, home: "core/format.ts" },
  {
    what: "the split of programs into train, validation and holdout",
    pattern: /\b(function\s+splitPrograms|const\s+splitPrograms\s*=)/,
    home: "dataset/split.ts",
  },
  { what: "batched multi-row INSERT statements", pattern: /VALUES \$\{/, home: "store/insert.ts" },
  { what: "reading the Go toolchain (go env)", pattern: /\[\s*"env"\s*,/, home: "go/toolchain.ts" },
];

describe("one home per shared rule", () => {
  for (const { what, pattern, home } of HOMES) {
    it(`${what} is defined in src/${home} only`, () => {
      expect(filesMatching(pattern)).toEqual([home]);
    });
  }

  it("no benchmark spells out the event types instead of importing them", () => {
    const BENCH = join(SRC, "..", "bench");
    const copies = readdirSync(BENCH).filter((name) =>
      /\[\s*"GoCreate",\s*"GoStart"/.test(readFileSync(join(BENCH, name), "utf8")),
    );
    expect(copies).toEqual([]);
  });

  it("no file asks the go command for its version other than through go env", () => {
    expect(filesMatching(/\[\s*"version"\s*\]/)).toEqual([]);
  });
});
