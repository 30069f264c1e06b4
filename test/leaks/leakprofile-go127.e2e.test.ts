// The leakprofile peer on each toolchain: Go 1.26 builds with GOEXPERIMENT=goroutineleakprofile,
// Go 1.27 reads the standard goroutine leak profile (the experiment is gone and the go
// command rejects it), Go before 1.26 leaves the peer out with the reason. The Go 1.27.3
// part runs only when that toolchain is already in the module cache (~76 MB; CI must not
// download it on every run) and is skipped with the reason printed otherwise.

import { execa } from "execa";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collect, leakProfileBuildEnv, leakProfileSupport, preparePeerBuild } from "../../src/collect/index.js";
import { goToolchain } from "../../src/go/index.js";
import { compareLeaks } from "../../src/leaks/index.js";
import { openDatabase } from "../../src/store/index.js";
import { ingestRuns } from "../../src/trace/index.js";
import { LEAK_PROGRAMS } from "./collected.js";

const VERSION = "go1.27.3";
const OLD = fileURLToPath(new URL("../fixtures/gotest/old/", import.meta.url));

/** Why the Go 1.27.3 part cannot run here, or null when that toolchain answers from the module cache. */
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
if (reason !== null) console.log(`skipping the ${VERSION} leak-profile test: ${reason}`);

describe("leakProfileSupport", () => {
  it("is an experiment in Go 1.26, standard from Go 1.27, absent before", () => {
    expect(leakProfileSupport("go1.26.8")).toEqual({ kind: "experiment", goexperiment: "goroutineleakprofile" });
    expect(leakProfileSupport("go1.26rc2")).toEqual({ kind: "experiment", goexperiment: "goroutineleakprofile" });
    expect(leakProfileSupport("go1.27.3")).toEqual({ kind: "standard" });
    expect(leakProfileSupport("go1.28.0")).toEqual({ kind: "standard" });
    expect(leakProfileSupport("devel go1.28-0123abcd Tue Jan 5 2027")).toEqual({ kind: "standard" });
    const old = leakProfileSupport("go1.25.4");
    expect(old.kind).toBe("none");
    expect(old.kind === "none" ? old.why : "").toContain("go1.25.4 has no goroutine leak profile");
  });

  it("a build with the Go on PATH (1.26) gets GOEXPERIMENT; one that says Go 1.25 leaves the peer out and says why", async () => {
    const go = await goToolchain();
    const target = {
      dir: join(LEAK_PROGRAMS, "select-leak"),
      kind: "main" as const,
      goFiles: [join(LEAK_PROGRAMS, "select-leak", "main.go")],
    };
    const scratch = mkdtempSync(join(tmpdir(), "schedlab-leakprofile-"));
    try {
      // The peer reads the run agent's profile: the build environment is the agent's.
      const expected = leakProfileSupport(go.version);
      expect(leakProfileBuildEnv(go)).toEqual(
        expected.kind === "experiment" ? { GOEXPERIMENT: "goroutineleakprofile" } : {},
      );
      expect(leakProfileBuildEnv({ ...go, version: "go1.27.3" })).toEqual({});
      expect(leakProfileBuildEnv({ ...go, version: "go1.25.4" })).toEqual({});
      const now = await preparePeerBuild(target, ["leakprofile"], go, scratch);
      expect(now).toEqual({ overlay: {}, args: [], checks: [], skipped: [], inModule: true });
      const before = await preparePeerBuild(target, ["leakprofile"], { ...go, version: "go1.25.4" }, scratch);
      expect(before.overlay).toEqual({});
      expect(before.skipped).toEqual([expect.stringContaining("leakprofile: go1.25.4 has no goroutine leak profile")]);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describe.skipIf(reason !== null)(`the leakprofile peer with GOTOOLCHAIN=${VERSION}`, () => {
  const saved = process.env.GOTOOLCHAIN;
  let dir: string;
  beforeAll(() => {
    process.env.GOTOOLCHAIN = VERSION;
    dir = mkdtempSync(join(tmpdir(), "schedlab-leakprofile-127-"));
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.GOTOOLCHAIN;
    else process.env.GOTOOLCHAIN = saved;
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it("the Go 1.26 way would fail: Go 1.27's go command rejects the experiment", async () => {
    const build = await execa("go", ["build", "-o", join(dir, "old-way"), "."], {
      cwd: join(LEAK_PROGRAMS, "select-leak"),
      env: { ...process.env, GOEXPERIMENT: "goroutineleakprofile", GOPROXY: "off" },
      reject: false,
      all: true,
    });
    expect(build.exitCode).not.toBe(0);
    expect(build.all).toContain("unknown GOEXPERIMENT goroutineleakprofile");
  });

  it("builds without GOEXPERIMENT, also in a go 1.12 module, and the standard profile marks the leaked goroutines", async () => {
    const db = join(dir, "s.db");
    const paths = [join(LEAK_PROGRAMS, "select-leak"), join(LEAK_PROGRAMS, "leaky-test"), OLD];
    const result = await collect({
      paths,
      runs: 1,
      procs: [2],
      timeoutMs: 20_000,
      peers: ["leakprofile"],
      db,
      traces: join(dir, "t"),
    });
    expect(
      result.programs.map((p) => [p.name, p.build, p.buildOutput ?? "", p.runs.map((r) => r.outcome)]).sort(),
    ).toEqual([
      ["cmd/oldmain", "ok", "", ["ok"]],
      ["leaky-test", "ok", "", ["ok"]],
      ["lib", "ok", "", ["ok"]],
      ["select-leak", "ok", "", ["ok"]],
    ]);
    for (const program of result.programs) {
      const report = readFileSync(`${program.runs[0]!.trace!}.goroutineleak.txt`, "utf8");
      expect(report, program.name).toContain("runtime/pprof.writeGoroutineLeak");
      expect(report.includes("(leaked)]:"), program.name).toBe(
        program.name === "select-leak" || program.name === "leaky-test",
      );
    }
    const selectLeak = result.programs.find((p) => p.name === "select-leak")!;
    expect(readFileSync(`${selectLeak.runs[0]!.trace!}.goroutineleak.txt`, "utf8")).toMatch(
      /\[select \(leaked\)\]:\nmain\.watch\(/,
    );
    const store = openDatabase(db);
    try {
      expect(store.prepare("SELECT DISTINCT go_version AS go FROM runs").all()).toEqual([{ go: VERSION }]);
      await ingestRuns(store);
      const c = await compareLeaks(store, ["leakprofile"]);
      expect(
        c.rows.map((r) => [
          r.program,
          r.siteKey,
          r.reason,
          r.detectors.schedlab?.status,
          r.detectors.leakprofile?.status,
        ]),
      ).toEqual([
        ["leaky-test", "lookup.go:10", "chan send", "reported", "reported"],
        ["select-leak", "main.go:23", "select", "reported", "reported"],
      ]);
    } finally {
      store.close();
    }
  });
});
