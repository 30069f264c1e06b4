// Modules of the Go module proxy as sources, end to end through the built CLI from a fresh
// module cache and schedlab cache: the module is fetched, tested from a writable copy, named
// module@version, resumed from the copy, and a corpus file's unfetchable module is skipped with why.

import Database from "better-sqlite3";
import { execa } from "execa";
import { existsSync, readdirSync, statSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { programFamily } from "../../src/dataset/index.js";

const BIN = fileURLToPath(new URL("../../bin/schedlab.js", import.meta.url));
// Small modules of /work/shared/realcode-modules.tsv: one package, tests under 3 s.
const RUN = "github.com/oklog/run@v1.2.0";
const EVENTBUS = "github.com/asaskevich/EventBus@v0.0.0-20200907212545-49d423059eef"; // pseudo-version, no go.mod

describe("collect MODULE@VERSION", () => {
  const scratch = mkdtempSync(join(tmpdir(), "schedlab-module-"));
  const env = { GOMODCACHE: join(scratch, "gomodcache"), SCHEDLAB_CACHE: join(scratch, "cache") };
  const cli = (args: string[]) =>
    execa("node", [BIN, ...args, "--jobs", "2"], { cwd: scratch, env, reject: false, all: true });
  afterAll(async () => {
    // The module cache is read-only, as the go command leaves it.
    await execa("go", ["clean", "-modcache"], { env: { ...process.env, ...env }, reject: false });
    rmSync(scratch, { recursive: true, force: true });
  });

  it("fetches a module through the proxy into a fresh cache and collects its tests from a writable copy", async () => {
    const db = join(scratch, "a.db");
    const first = await cli(["collect", `${RUN}/...`, "--runs", "5", "--db", db, "--traces", join(scratch, "t")]);
    expect(first.exitCode, first.all).toBe(0);
    expect(first.stdout).toContain(`${RUN} (test): ok 5`);
    expect(existsSync(join(env.GOMODCACHE, "cache/download/github.com/oklog/run/@v/v1.2.0.zip"))).toBe(true);
    const copy = join(env.SCHEDLAB_CACHE, "modules", RUN);
    expect(statSync(join(copy, "go.mod")).mode & 0o200).toBe(0o200); // the module cache's own copy is 0444
    const sqlite = new Database(db, { readonly: true });
    const programs = sqlite.prepare("SELECT name, root, dir FROM programs").all();
    const corpora = sqlite.prepare("SELECT root, label, role FROM corpora").all();
    const runs = sqlite.prepare("SELECT outcome, COUNT(*) AS n FROM runs GROUP BY outcome").all();
    sqlite.close();
    expect(programs).toEqual([{ name: RUN, root: copy, dir: copy }]);
    expect(corpora).toEqual([{ root: copy, label: RUN, role: "train" }]);
    expect(runs).toEqual([{ outcome: "ok", n: 5 }]);
    expect(programFamily(RUN, null)).toBe("github.com/oklog/run");

    const again = await cli(["collect", RUN, "--runs", "5", "--db", db, "--traces", join(scratch, "t")]);
    expect(again.exitCode, again.all).toBe(0);
    expect(again.stdout).toContain("0 run(s) executed, 5 already recorded");
  });

  it("collects a corpus file's modules, says what preparing a copy changed, and skips one the proxy cannot serve", async () => {
    const file = join(scratch, "corpus.tsv");
    writeFileSync(
      file,
      "module\tversion\texclude_packages\n" +
        `${EVENTBUS.replace("@", "\t")}\t-\n` +
        "github.com/oklog/run\tv9.9.9\t-\n",
    );
    const db = join(scratch, "b.db");
    const result = await cli([
      "collect",
      "--corpus-file",
      file,
      "--runs",
      "1",
      "--db",
      db,
      "--traces",
      join(scratch, "t"),
    ]);
    expect(result.exitCode, result.all).toBe(0);
    expect(result.stdout).toContain(`${EVENTBUS} (test): ok 1`);
    expect(result.stderr).toContain(
      `${EVENTBUS}: no go.mod in the module zip: the go.mod the go command synthesised was written`,
    );
    expect(result.stderr).toMatch(
      /github\.com\/oklog\/run@v9\.9\.9\/\.\.\.: skipped: github\.com\/oklog\/run@v9\.9\.9 cannot be fetched: .*(not available|unknown revision|invalid version|not found)/,
    );
  });

  it("lets shards on one machine prepare the same module at once: each collects, one copy is kept", async () => {
    const cache = join(scratch, "cache-shards");
    const shard = (index: number) =>
      execa(
        "node",
        [
          BIN,
          "collect",
          RUN,
          "--runs",
          "1",
          "--jobs",
          "1",
          "--shard",
          `${index}/2`,
          "--db",
          join(scratch, `s${index}.db`),
        ],
        { cwd: scratch, env: { ...env, SCHEDLAB_CACHE: cache }, reject: false, all: true },
      );
    const results = await Promise.all([shard(0), shard(1)]);
    for (const r of results) expect(r.exitCode, r.all).toBe(0);
    expect(results.map((r) => r.stdout).join("\n")).toContain(`${RUN} (test): ok 1`);
    expect(readdirSync(join(cache, "modules", "github.com", "oklog"))).toEqual(["run@v1.2.0"]);
  });

  it("says why a module that does not exist cannot be collected, with exit code 1 and a hint", async () => {
    const result = await cli(["collect", "github.com/oklog/run@v9.9.9", "--db", join(scratch, "c.db")]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain("schedlab: github.com/oklog/run@v9.9.9 cannot be fetched:");
    expect(result.stderr).toContain("go list -m -versions MODULE");
    expect(existsSync(join(scratch, "c.db"))).toBe(false);
  });
});
