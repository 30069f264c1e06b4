// package.json's public surface: "exports" has the package entry and one entry per stage
// (every folder of src/ with an index.ts, except the CLI, whose interface is the command
// line), each pointing at that stage's index in dist/ with its types; main and types name
// the package entry.

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  main: string;
  types: string;
  exports: Record<string, string | { types: string; default: string }>;
};
const stages = readdirSync(join(ROOT, "src"), { withFileTypes: true })
  .filter(
    (entry) => entry.isDirectory() && entry.name !== "cli" && existsSync(join(ROOT, "src", entry.name, "index.ts")),
  )
  .map((entry) => entry.name)
  .sort();

describe("package.json exports", () => {
  it("has the package entry and one entry per stage with an index.ts", () => {
    const expected = [".", ...stages.map((stage) => `./${stage}`), "./package.json"].sort();
    expect(Object.keys(pkg.exports).sort()).toEqual(expected);
  });

  it("points each entry at the stage's compiled index and its declarations", () => {
    for (const stage of stages) {
      expect(pkg.exports[`./${stage}`]).toEqual({
        types: `./dist/${stage}/index.d.ts`,
        default: `./dist/${stage}/index.js`,
      });
    }
    expect(pkg.exports["."]).toEqual({ types: "./dist/index.d.ts", default: "./dist/index.js" });
  });

  it("names the package entry src/index.ts as main and types", () => {
    expect(existsSync(join(ROOT, "src", "index.ts"))).toBe(true);
    expect([pkg.main, pkg.types]).toEqual(["dist/index.js", "dist/index.d.ts"]);
  });
});
