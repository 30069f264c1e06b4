// collect --shard I/N: a stable partition of programs, so N machines (an Indexed Job, an
// array job, a CI matrix) collect disjoint parts of one tree and `schedlab merge` joins
// their databases. Pure.

import { createHash } from "node:crypto";
import type { Shard } from "./types.js";

/**
 * The shard a program belongs to among `count`: the first 32 bits of the sha256 of its
 * name, modulo `count`. It depends on the name only, so it is the same on every machine
 * and for every selection of programs, and adding a program never moves another.
 */
export function shardOf(name: string, count: number): number {
  return createHash("sha256").update(name).digest().readUInt32BE(0) % count;
}

/** The programs of `shard`, in their order. */
export function selectShard<T extends { readonly name: string }>(programs: readonly T[], shard: Shard): T[] {
  return programs.filter((program) => shardOf(program.name, shard.count) === shard.index);
}
