// What the tests of the shipped scale-out examples share: schedlab compiled into a package-shaped
// tree with `schedlab` on PATH, and what must be equal between a merged and a single-process database.

import Database from "better-sqlite3";
import { execa } from "execa";
import { chmodSync, copyFileSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * schedlab compiled from the current sources into a tree shaped like the package (dist/, src/,
 * package.json); returns a directory whose `schedlab` runs it, to put on PATH as the examples call it.
 */
export async function buildSchedlab(into: string): Promise<string> {
  mkdirSync(join(into, "bin"), { recursive: true });
  // tsc emits even when another file has a type error; the entry point must exist.
  await execa(
    join(ROOT, "node_modules", ".bin", "tsc"),
    [
      "-p",
      join(ROOT, "tsconfig.json"),
      "--outDir",
      join(into, "dist"),
      "--declaration",
      "false",
      "--sourceMap",
      "false",
    ],
    { reject: false },
  );
  expect(existsSync(join(into, "dist", "cli", "index.js"))).toBe(true);
  symlinkSync(join(ROOT, "node_modules"), join(into, "node_modules"));
  symlinkSync(join(ROOT, "src"), join(into, "src")); // the Go helper's sources
  copyFileSync(join(ROOT, "package.json"), join(into, "package.json"));
  copyFileSync(join(ROOT, "bin", "schedlab.js"), join(into, "bin", "schedlab.js"));
  // `schedlab` on PATH, as the examples call it.
  const binDir = join(into, "path");
  mkdirSync(binDir);
  writeFileSync(
    join(binDir, "schedlab"),
    `#!/bin/sh\nexec "${process.execPath}" "${join(into, "bin", "schedlab.js")}" "$@"\n`,
  );
  chmodSync(join(binDir, "schedlab"), 0o755);
  return binDir;
}

/**
 * What must be equal between a merged database and a single-process collection; with
 * `events`, each run's event count too (equal between a merged database and its shards).
 */
export function snapshot(path: string, events = false): { programs: string[]; builds: string[]; runs: string[] } {
  const db = new Database(path, { readonly: true });
  try {
    const rows = (sql: string) =>
      (db.prepare(sql).all() as Record<string, unknown>[]).map((r) => Object.values(r).map(String).join(" "));
    const eventCount = events ? ", (SELECT count(*) FROM event_records e WHERE e.run_id = r.id) AS events" : "";
    return {
      programs: rows("SELECT name, kind, test_name, source_hash, root, dir FROM programs ORDER BY name"),
      builds: rows(
        "SELECT p.name, b.config, b.status, b.source_hash FROM builds b JOIN programs p ON p.id = b.program_id ORDER BY 1, 2",
      ),
      runs: rows(
        `SELECT p.name, r.config, r.run_index, r.procs, r.outcome, r.exit_code, r.strategy, r.seed, r.truncated, r.ingest_status,
                (SELECT count(*) FROM goroutines g WHERE g.run_id = r.id) AS goroutines${eventCount}
         FROM runs r JOIN programs p ON p.id = r.program_id ORDER BY 1, 2, 3`,
      ),
    };
  } finally {
    db.close();
  }
}
