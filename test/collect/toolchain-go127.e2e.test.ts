// Go 1.27 selected by GOTOOLCHAIN, end to end: build, run and ingest with that one
// toolchain. Runs only when the toolchain is already in the module cache (it is ~76 MB:
// CI must not download it on every run); skipped with the reason printed otherwise.

import { execa } from "execa";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { goToolchain } from "../../src/go/index.js";
import { openDatabase } from "../../src/store/index.js";
import { runCli } from "../helpers/cli.js";
import { scratch } from "./helpers.js";

const VERSION = "go1.27.3";
const MULTI = fileURLToPath(new URL("../fixtures/gotest/multi/", import.meta.url));
const HUNTMOD = fileURLToPath(new URL("../fixtures/huntmod/", import.meta.url));

/** Why the test cannot run here, or null when Go 1.27.3 answers from the module cache. */
async function unavailable(): Promise<string | null> {
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  const { stdout: modcache } = await execa("go", ["env", "GOMODCACHE"], {
    env: { ...process.env, GOTOOLCHAIN: "local" },
  });
  const dir = join(modcache.trim(), "golang.org", `toolchain@v0.0.1-${VERSION}.${process.platform}-${arch}`);
  if (!existsSync(dir)) return `${dir} is missing (run \`GOTOOLCHAIN=${VERSION} go version\` once to download it)`;
  // GOPROXY=off: answer from the cache or fail, never download.
  const check = await execa("go", ["version"], {
    env: { ...process.env, GOTOOLCHAIN: VERSION, GOPROXY: "off" },
    reject: false,
    timeout: 20_000,
  });
  return check.exitCode === 0 && check.stdout.includes(VERSION)
    ? null
    : `GOTOOLCHAIN=${VERSION} go version failed from the cache: ${check.all ?? check.stderr}`;
}

const reason = await unavailable();
if (reason !== null) console.log(`skipping the ${VERSION} toolchain test: ${reason}`);

describe.skipIf(reason !== null)(`GOTOOLCHAIN=${VERSION}`, () => {
  const saved = process.env.GOTOOLCHAIN;
  beforeAll(() => {
    process.env.GOTOOLCHAIN = VERSION;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.GOTOOLCHAIN;
    else process.env.GOTOOLCHAIN = saved;
  });

  it("selects that toolchain: version, GOROOT and go binary agree", async () => {
    const go = await goToolchain(MULTI);
    expect(go.version).toBe(VERSION);
    expect(go.goBinary).toBe(join(go.goroot, "bin", "go"));
    expect(go.goroot).toContain(VERSION);
  });

  it("collects a module (tests, an example, a main package) and ingests its traces", async () => {
    const dir = scratch("go127");
    const db = join(dir, "s.db");
    const result = await runCli([
      "collect",
      join(MULTI, "alpha"),
      join(MULTI, "cmd"),
      "--split-tests",
      "--runs",
      "1",
      "--procs",
      "1",
      "--timeout",
      "60s",
      "--db",
      db,
      "--traces",
      join(dir, "t"),
    ]);
    expect(result.stderr).not.toContain("does not match go tool version");
    expect(result.code).toBe(0);
    const store = openDatabase(db);
    try {
      const rows = store
        .prepare(
          "SELECT p.name, r.outcome, r.go_version AS go, r.ingest_status AS ingest FROM runs r JOIN programs p ON p.id = r.program_id ORDER BY p.name",
        )
        .all();
      expect(rows).toEqual([
        { name: "alpha#ExampleAdd", outcome: "ok", go: VERSION, ingest: "ok" },
        { name: "alpha#TestAlphaOne", outcome: "ok", go: VERSION, ingest: "ok" },
        { name: "alpha#TestAlphaTwo", outcome: "ok", go: VERSION, ingest: "ok" },
        { name: "hello", outcome: "ok", go: VERSION, ingest: "ok" },
      ]);
    } finally {
      store.close();
    }
  });

  it(
    "hunts the build-tagged module of the hunt test (`hunt ./... --run 'Test(A|B)' --tags integration`) " +
      "and finds its leak, every run on that toolchain",
    async () => {
      const dir = scratch("go127-hunt");
      const db = join(dir, "h.db");
      const cwd = process.cwd();
      process.chdir(HUNTMOD);
      let result: Awaited<ReturnType<typeof runCli>>;
      try {
        result = await runCli([
          "hunt",
          "./...",
          "--run",
          "Test(A|B)",
          "--tags",
          "integration",
          "--budget",
          "2s",
          "--format",
          "json",
          "--fail-on",
          "leak",
          "--db",
          db,
          "--traces",
          join(dir, "t"),
        ]);
      } finally {
        process.chdir(cwd);
      }
      expect(result.stderr).not.toContain("does not match go tool version");
      expect(result.code).toBe(3);
      const analysis = JSON.parse(result.stdout) as { bugs: { program: string; gating: boolean }[] };
      expect(analysis.bugs.filter((b) => b.gating).map((b) => b.program)).toContain("fetch");
      const store = openDatabase(db);
      try {
        const versions = store
          .prepare("SELECT DISTINCT go_version FROM runs WHERE outcome <> 'build-error'")
          .pluck()
          .all();
        expect(versions).toEqual([VERSION]);
      } finally {
        store.close();
      }
    },
    900_000,
  );
});
