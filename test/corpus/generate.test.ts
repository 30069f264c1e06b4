// The corpus generator: seeded and byte-for-byte reproducible, the committed set
// regenerates from SEEDS.json, output is gofmt-clean and vets, injected-leak manifests
// point at real `go` statements, and real runs leave exactly the labelled goroutines blocked.

import { execa } from "execa";
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  generateCorpus,
  generateProgram,
  readSeedsIndex,
  resolveMarkers,
  SEEDS_FILE,
  TEMPLATE_NAMES,
  verifyGenerated,
} from "../../src/corpus/generate.js";
import { manifestProblems, MANIFEST_FILE, type Manifest } from "../../src/corpus/manifest.js";
import { mulberry32 } from "../../src/corpus/prng.js";
import { runCli } from "../helpers/cli.js";
import { key } from "./goroutine-dump.js";
import { observeMains } from "./main-run.js";

const committed = fileURLToPath(new URL("../../go-programs/generated", import.meta.url));
const scratch = () => mkdtempSync(join(tmpdir(), "schedlab-gen-"));
const programDirs = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
const manifestIn = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, MANIFEST_FILE), "utf8")) as Manifest;

function scratchModule(): string {
  const dir = scratch();
  writeFileSync(join(dir, "go.mod"), "module schedlab.dev/scratch\n\ngo 1.22\n");
  return dir;
}

describe("mulberry32", () => {
  it("produces the reference mulberry32 sequence", () => {
    const rng = mulberry32(42);
    // Any change to these values would silently change every generated program.
    expect([rng.next(), rng.next(), rng.next()].map((x) => Math.floor(x * 2 ** 32))).toEqual(REFERENCE_42);
  });

  it("keeps int() inside its inclusive bounds and reaches both ends", () => {
    const rng = mulberry32(7);
    const draws = Array.from({ length: 2000 }, () => rng.int(3, 6));
    expect(Math.min(...draws)).toBe(3);
    expect(Math.max(...draws)).toBe(6);
  });
});

// The first three outputs for seed 42 of the published C mulberry32 (uint32 arithmetic),
// computed with an independent Python transcription of it, not with this implementation.
const REFERENCE_42 = [2581720956, 1925393290, 3661312704];

describe("resolveMarkers", () => {
  it("strips @@name@@ prefixes and reports their 1-based lines", () => {
    const { text, lines } = resolveMarkers("a\n@@x@@\tgo f()\nb\n@@y@@go g()");
    expect(text).toBe("a\n\tgo f()\nb\ngo g()");
    expect([...lines]).toEqual([["x", 2], ["y", 4]]);
  });

  it("rejects a repeated marker", () => {
    expect(() => resolveMarkers("@@x@@a\n@@x@@b")).toThrow(/twice/);
  });
});

describe("generateProgram", () => {
  it.each(TEMPLATE_NAMES)("%s: same seed, same bytes; another seed, other bytes", (template) => {
    const a = generateProgram(template, 123);
    const b = generateProgram(template, 123);
    const c = generateProgram(template, 124);
    expect([...a.files]).toEqual([...b.files]);
    expect(a.files.get("main.go")).not.toBe(c.files.get("main.go"));
    expect(a.manifest.generated).toEqual({ template, seed: 123 });
  });

  it.each(TEMPLATE_NAMES)("%s: draws both clean and leaking programs with valid manifests", (template) => {
    const outcomes = new Set<string>();
    for (let seed = 0; seed < 40; seed++) {
      const p = generateProgram(template, seed);
      expect(manifestProblems(p.manifest)).toEqual([]);
      outcomes.add(p.manifest.outcome);
      for (const e of p.manifest.expected) {
        const line = Number(e.site?.split(":")[1]);
        expect(p.files.get("main.go")?.split("\n")[line - 1]).toMatch(/^\s*go \S/);
      }
      expect(p.files.get("main.go")).not.toContain("@@");
    }
    expect([...outcomes].sort()).toEqual(["clean", "leak"]);
  });

  it("rejects unknown templates and bad seeds with a usage hint", () => {
    expect(() => generateProgram("nope", 1)).toThrow(/unknown generator template/);
    expect(() => generateProgram("pipeline", -1)).toThrow(/non-negative integer/);
  });
});

describe("the committed generated set", () => {
  const dirs = programDirs(committed);

  it("has at least 60 programs covering every template, clean and leaking", () => {
    expect(dirs.length).toBeGreaterThanOrEqual(60);
    for (const template of TEMPLATE_NAMES) {
      const outcomes = new Set(dirs.filter((d) => d.startsWith(`${template}-`)).map((d) => manifestIn(join(committed, d)).outcome));
      expect([...outcomes].sort()).toEqual(["clean", "leak"]);
    }
  });

  it("regenerates byte for byte from SEEDS.json into a temporary directory", () => {
    const seeds = readSeedsIndex(committed);
    const out = scratch();
    generateCorpus({ seed: seeds.seed, count: seeds.count, outDir: out, templates: seeds.templates });
    expect(programDirs(out)).toEqual(dirs);
    expect(readFileSync(join(out, SEEDS_FILE), "utf8")).toBe(readFileSync(join(committed, SEEDS_FILE), "utf8"));
    for (const d of dirs) {
      for (const f of readdirSync(join(committed, d))) {
        expect(readFileSync(join(out, d, f), "utf8"), `${d}/${f}`).toBe(readFileSync(join(committed, d, f), "utf8"));
      }
    }
    expect(verifyGenerated(committed)).toEqual([]);
  });

  it("has valid manifests whose injected-leak sites are real go statements", () => {
    for (const d of dirs) {
      const m = manifestIn(join(committed, d));
      expect(manifestProblems(m), d).toEqual([]);
      expect(`${m.generated?.template}-${m.generated?.seed}`).toBe(d);
      const lines = readFileSync(join(committed, d, "main.go"), "utf8").split("\n");
      for (const e of m.expected) {
        const [file, line] = (e.site ?? "").split(":");
        expect(file).toBe("main.go");
        expect(lines[Number(line) - 1], `${d} ${e.site}`).toMatch(/^\s*go \S/);
      }
    }
  });

  it("is gofmt-clean and builds with go vet in a scratch module", async () => {
    const fmt = await execa("gofmt", ["-l", committed]);
    expect(fmt.stdout).toBe("");
    const module = scratchModule();
    cpSync(committed, join(module, "generated"), { recursive: true });
    const vet = await execa("go", ["vet", "./..."], { cwd: module, reject: false, all: true });
    expect(vet.all).toBe("");
    expect(vet.exitCode).toBe(0);
  });

  it("leaves exactly the labelled goroutines blocked when main returns (one clean and one leak per template)", async () => {
    const sample: string[] = [];
    for (const template of TEMPLATE_NAMES) {
      for (const outcome of ["clean", "leak"]) {
        const d = dirs.find((x) => x.startsWith(`${template}-`) && manifestIn(join(committed, x)).outcome === outcome);
        if (d) sample.push(d);
      }
    }
    expect(sample).toHaveLength(2 * TEMPLATE_NAMES.length);
    const observed = await observeMains(sample.map((d) => join(committed, d)));
    for (const d of sample) {
      const o = observed.get(d);
      expect(o?.exitCode, d).toBe(0);
      const expected = manifestIn(join(committed, d)).expected.map(key).sort();
      expect(o?.blocked.map(key), d).toEqual(expected);
    }
  });
});

describe("fresh seeds", () => {
  it("are gofmt-clean and vet in a scratch module", async () => {
    const module = scratchModule();
    generateCorpus({ seed: 77_000, count: 36, outDir: join(module, "gen") });
    expect((await execa("gofmt", ["-l", join(module, "gen")])).stdout).toBe("");
    const vet = await execa("go", ["vet", "./..."], { cwd: module, reject: false, all: true });
    expect(vet.all).toBe("");
  });
});

describe("schedlab corpus generate", () => {
  it("writes programs and SEEDS.json, then verifies and detects drift", async () => {
    const out = join(scratch(), "gen");
    const gen = await runCli(["corpus", "generate", "--seed", "9", "--count", "7", "--out", out, "--json"]);
    expect(gen.code).toBe(0);
    const json = JSON.parse(gen.stdout) as { count: number; programs: { dir: string }[] };
    expect(json.count).toBe(7);
    expect(programDirs(out)).toEqual(json.programs.map((p) => p.dir).sort());
    expect(json.programs[0].dir).toBe(`${TEMPLATE_NAMES[0]}-9`);

    const ok = await runCli(["corpus", "generate", "--out", out, "--verify"]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain("reproduces byte for byte");

    const victim = join(out, json.programs[2].dir, "main.go");
    writeFileSync(victim, `${readFileSync(victim, "utf8")}// edited\n`);
    const drift = await runCli(["corpus", "generate", "--out", out, "--verify", "--json"]);
    expect(drift.code).toBe(1);
    expect(JSON.parse(drift.stdout)).toMatchObject({ reproduces: false, drift: [{ file: join(json.programs[2].dir, "main.go"), problem: "differs" }] });
  });

  it("restricts to named templates and rejects bad options with a hint", async () => {
    const out = join(scratch(), "gen");
    const only = await runCli(["corpus", "generate", "--seed", "1", "--count", "3", "--out", out, "--template", "fanin", "--json"]);
    expect(only.code).toBe(0);
    expect(programDirs(out)).toEqual(["fanin-1", "fanin-2", "fanin-3"]);

    const fewer = await runCli(["corpus", "generate", "--seed", "1", "--count", "1", "--out", out, "--template", "fanin", "--json"]);
    expect(JSON.parse(fewer.stdout)).toMatchObject({ count: 1, stale: ["fanin-2", "fanin-3"] });

    const badCount = await runCli(["corpus", "generate", "--count", "0", "--out", out]);
    expect(badCount.code).toBe(2);
    expect(badCount.stderr).toContain("--count must be a positive integer");
    const badTemplate = await runCli(["corpus", "generate", "--template", "spaghetti", "--out", out]);
    expect(badTemplate.code).toBe(2);
    expect(badTemplate.stderr).toMatch(/unknown generator template "spaghetti"[\s\S]*workerpool/);
  });
});
