// Static features of a program's source: counts of concurrency constructs from the Go
// helper's go/ast pass (`gohelper staticfeatures DIR`), cached by a hash of the sources.

import { execa } from "execa";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SchedlabError } from "../../errors.js";
import { goHelperPath, schedlabCacheDir } from "../../gohelper/index.js";

/** The counts the helper prints, in the fixed order the feature vector uses. */
export const STATIC_FEATURE_KEYS = [
  "files",
  "lines",
  "funcs",
  "goStmts",
  "goStmtsInLoops",
  "loopsWithGo",
  "chanMakes",
  "chanMakesUnbuffered",
  "chanMakesBuffered",
  "chanBufferSizeSum",
  "chanBufferSizeMax",
  "chanBufferNonConst",
  "sends",
  "receives",
  "rangeLoops",
  "closes",
  "selects",
  "selectsWithDefault",
  "selectCases",
  "selectCasesMax",
  "emptySelects",
  "mutexLocks",
  "mutexUnlocks",
  "rwMutexLocks",
  "rwMutexRLocks",
  "rwMutexUnlocks",
  "lockUnknown",
  "waitGroupAdds",
  "waitGroupDones",
  "waitGroupWaits",
  "waitGroupGo",
  "condWaits",
  "condSignals",
  "condBroadcasts",
  "waitUnknown",
  "onces",
  "atomicOps",
  "defers",
  "deferredUnlocks",
  "timeSleeps",
  "timeAfters",
  "timeTickers",
  "timeTimers",
  "gosched",
  "gomaxprocsCalls",
  "contextWithCancel",
  "contextWithTimeout",
  "contextDone",
  "contextUses",
  "panics",
  "loops",
  "infiniteLoops",
  "testFuncs",
  "hasMain",
] as const;
export type StaticFeatureKey = (typeof STATIC_FEATURE_KEYS)[number];

/** Counts per construct; every key of STATIC_FEATURE_KEYS is present. */
export type StaticFeatures = Readonly<Record<StaticFeatureKey, number>>;

/** The helper could not analyse a program directory (missing, no Go files, unreadable). */
export class StaticFeaturesError extends SchedlabError {}

const memory = new Map<string, StaticFeatures>();

/** sha256 over the names and contents of the .go files directly in `dir`, sorted by name. */
export function goSourceHash(dir: string): string {
  if (!existsSync(dir)) {
    throw new StaticFeaturesError(
      `program directory ${dir} does not exist`,
      "Check that the program was not moved since it was collected, or re-run collect from its new place.",
    );
  }
  const hash = createHash("sha256");
  const names = readdirSync(dir)
    .filter((name) => name.endsWith(".go"))
    .sort();
  for (const name of names)
    hash
      .update(name)
      .update("\0")
      .update(readFileSync(join(dir, name)))
      .update("\0");
  return hash.digest("hex").slice(0, 24);
}

/**
 * Returns the static features of the Go package in `dir`, running the helper at most once
 * per distinct source content (memory cache, then $SCHEDLAB_CACHE/staticfeatures/HASH.json).
 */
export async function staticFeaturesOf(dir: string): Promise<StaticFeatures> {
  const hash = goSourceHash(dir);
  const cached = memory.get(hash);
  if (cached !== undefined) return cached;
  const cacheDir = join(schedlabCacheDir(), "staticfeatures");
  const cacheFile = join(cacheDir, `${hash}.json`);
  if (existsSync(cacheFile)) {
    try {
      const features = normaliseStaticFeatures(JSON.parse(readFileSync(cacheFile, "utf8")) as unknown);
      memory.set(hash, features);
      return features;
    } catch {
      // A corrupt cache entry is recomputed below.
    }
  }
  const helper = await goHelperPath();
  const result = await execa(helper, ["staticfeatures", dir], { reject: false, timeout: 60_000 });
  if (result.exitCode !== 0) {
    const detail = extractHelperError(result.stderr) ?? `exit code ${String(result.exitCode)}`;
    throw new StaticFeaturesError(
      `cannot compute static features of ${dir}: ${detail}`,
      "Point schedlab at a directory that holds a Go package (.go files); static features are then recomputed.",
    );
  }
  const features = normaliseStaticFeatures(JSON.parse(result.stdout) as unknown);
  mkdirSync(cacheDir, { recursive: true });
  const temporary = `${cacheFile}.tmp-${process.pid}`;
  writeFileSync(temporary, JSON.stringify(features));
  renameSync(temporary, cacheFile);
  memory.set(hash, features);
  return features;
}

/** Keeps exactly the known keys, as finite non-negative numbers (missing keys become 0). */
export function normaliseStaticFeatures(value: unknown): StaticFeatures {
  const source = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  const out = {} as Record<StaticFeatureKey, number>;
  for (const key of STATIC_FEATURE_KEYS) {
    const v = source[key];
    out[key] = typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0;
  }
  return out;
}

function extractHelperError(stderr: string): string | undefined {
  try {
    const parsed = JSON.parse(stderr.trim().split("\n").pop() ?? "") as { error?: unknown };
    return typeof parsed.error === "string" ? parsed.error : undefined;
  } catch {
    return stderr.trim() === "" ? undefined : stderr.trim();
  }
}
