// Shared by the leaks end-to-end tests: collect and ingest the leak fixtures once per
// test file (3 runs, short deadlines) into a scratch database.

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { collect, type CollectCommonOptions, type RunsModeOptions } from "../../src/collect/index.js";
import { openDatabase, type SchedlabDatabase } from "../../src/store/index.js";
import { ingestRuns } from "../../src/trace/index.js";

export const LEAK_PROGRAMS = fileURLToPath(new URL("../fixtures/leaks/programs/", import.meta.url));

export interface Collected {
  readonly dir: string;
  readonly dbFile: string;
  readonly db: SchedlabDatabase;
}

/** Collects `paths` (default: every leak fixture) and ingests the traces. */
export async function collectFixtures(
  paths: readonly string[] = [LEAK_PROGRAMS],
  extra: Partial<CollectCommonOptions & RunsModeOptions> = {},
): Promise<Collected> {
  const dir = mkdtempSync(join(tmpdir(), "schedlab-leaks-"));
  const dbFile = join(dir, "schedlab.db");
  await collect({
    paths,
    runs: 3,
    timeoutMs: 1500,
    procs: [2],
    jobs: 2,
    db: dbFile,
    traces: join(dir, "traces"),
    ...extra,
  });
  const db = openDatabase(dbFile);
  await ingestRuns(db);
  return { dir, dbFile, db };
}
