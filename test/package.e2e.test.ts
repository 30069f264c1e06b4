// The package as its users import it: schedlab compiled from the current sources into a tree
// shaped like the installed package, then `schedlab` and every `schedlab/<stage>` imported by
// name from a Node process (self-reference through package.json "exports") and type-checked
// from a consumer module; a path past a stage's entry is refused.

import { execa } from "execa";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const TSC = join(ROOT, "node_modules", ".bin", "tsc");
const entries = Object.keys(
  (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { exports: Record<string, unknown> }).exports,
)
  .filter((key) => key !== "./package.json")
  .map((key) => (key === "." ? "schedlab" : `schedlab/${key.slice(2)}`));

let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "schedlab-package-"));
  const built = await execa(
    TSC,
    ["-p", join(ROOT, "tsconfig.json"), "--outDir", join(dir, "dist"), "--sourceMap", "false"],
    { reject: false },
  );
  expect(built.stdout).toBe("");
  copyFileSync(join(ROOT, "package.json"), join(dir, "package.json"));
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  symlinkSync(join(ROOT, "src"), join(dir, "src")); // the Go helper's sources
});

afterAll(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

async function node(script: string): Promise<{ exitCode: number | undefined; stdout: string; stderr: string }> {
  const result = await execa(process.execPath, ["--input-type=module", "-e", script], { cwd: dir, reject: false });
  return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}

describe("schedlab imported by name", () => {
  it("resolves every entry of the exports map to a module with exports", async () => {
    const script = `const counts = {};
for (const entry of ${JSON.stringify(entries)}) counts[entry] = Object.keys(await import(entry)).length;
console.log(JSON.stringify(counts));`;
    const result = await node(script);
    expect(result.stderr).toBe("");
    const counts = JSON.parse(result.stdout) as Record<string, number>;
    expect(Object.keys(counts).sort()).toEqual([...entries].sort());
    for (const entry of entries) expect(counts[entry], entry).toBeGreaterThan(0);
  });

  it("gives the same library call from the package entry and from the stage", async () => {
    const result = await node(`import { collect, runPipeline, SCHEDLAB_VERSION } from "schedlab";
import * as stage from "schedlab/collect";
console.log(JSON.stringify([collect === stage.collect, typeof runPipeline, SCHEDLAB_VERSION]));`);
    expect(result.stderr).toBe("");
    const version = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
    expect(JSON.parse(result.stdout)).toEqual([true, "function", version]);
  });

  it("refuses a path past a stage's entry", async () => {
    const result = await node(`await import("schedlab/dist/collect/index.js");`);
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain("ERR_PACKAGE_PATH_NOT_EXPORTED");
  });

  it("type-checks a consumer that imports the package and a stage by name", async () => {
    expect(existsSync(join(dir, "dist", "index.d.ts"))).toBe(true);
    writeFileSync(
      join(dir, "consumer.ts"),
      `import { collect, type CollectOptions } from "schedlab";
import { collect as collectStage, parseDuration } from "schedlab/collect";
const options: CollectOptions = { paths: ["go-programs"], runs: 5, timeoutMs: parseDuration("3s") };
export const calls = [collect, collectStage, options] as const;
`,
    );
    writeFileSync(
      join(dir, "tsconfig.consumer.json"),
      JSON.stringify({
        compilerOptions: {
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ["node"],
        },
        files: ["consumer.ts"],
      }),
    );
    const checked = await execa(TSC, ["-p", join(dir, "tsconfig.consumer.json")], { cwd: dir, reject: false });
    expect(checked.stdout).toBe("");
    expect(checked.exitCode).toBe(0);
  });
});
