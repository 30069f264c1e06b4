// Content hashes of prefixes: what a predictor is shown of a state (program, GOMAXPROCS,
// the run's goroutine identities and records[0 .. end)), so caches and replay files can
// tell two prefixes apart even when their state ids agree (another collection, new runs).

import { createHash, type Hash } from "node:crypto";
import type { GoroutineRecord } from "../core/index.js";
import type { Prefix, RunRecords } from "./types.js";

/** Hashes growing prefixes of one run; `at(end)` calls must not move backwards. */
export interface PrefixHasher {
  at(end: number): string;
}

function recordLine(r: GoroutineRecord): string {
  return `${r.seq}\t${r.timeNs}\t${r.kind}\t${r.goroutine}\t${r.actor ?? ""}\t${r.reason}\t${r.site ?? ""}\n`;
}

/** A prefix hash fed one record at a time: add(record) appends it, digest() hashes what was added so far. */
export interface GrowingPrefixHash {
  add(record: GoroutineRecord): void;
  digest(): string;
}

/**
 * The hash of a growing prefix of a run: sha256 (hex, 16 characters) of the program, procs,
 * goroutine identities and the records added so far. digest() does not end it, so every
 * prefix of a run is hashed in one pass, whether its records are in memory or streamed.
 */
export function growingPrefixHash(run: Pick<RunRecords, "program" | "procs" | "goroutines">): GrowingPrefixHash {
  const hash: Hash = createHash("sha256").update(`${run.program}\0${run.procs}\0`);
  for (const g of run.goroutines ?? []) hash.update(`${g.goroutine}=${g.canonicalId}=${g.entry ?? ""};`);
  hash.update("\0");
  return {
    add: (record) => void hash.update(recordLine(record)),
    digest: () => hash.copy().digest("hex").slice(0, 16),
  };
}

/**
 * An incremental hasher over `run`'s records: at(end) is the growing hash after the first
 * `end` records. Each record is hashed once, however many prefixes are asked for.
 *
 * @example prefixHasher(run).at(0) === prefixHash({ ...run, end: 0 }) // => true
 */
export function prefixHasher(run: Pick<RunRecords, "program" | "procs" | "records" | "goroutines">): PrefixHasher {
  const hash = growingPrefixHash(run);
  let applied = 0;
  return {
    at(end) {
      if (end < applied) throw new RangeError(`prefix hasher moved backwards: ${end} < ${applied}`);
      const stop = Math.min(end, run.records.length);
      for (; applied < stop; applied++) hash.add(run.records[applied]);
      return hash.digest();
    },
  };
}

/** The content hash of one prefix (see prefixHasher). */
export function prefixHash(prefix: Prefix): string {
  return prefixHasher(prefix).at(prefix.end);
}
