// The --quick corpus: one program of every family (each kernel class, pattern category,
// generator template), so a short run still sees every kind of program.

import type { ProgramSpec } from "../corpus/index.js";
import { programFamily } from "../dataset/index.js";
import { contentHash } from "./store.js";

/**
 * Picks `perFamily` programs from every family (programFamily of the name and manifest), by a
 * stable hash of the name, so the same corpus always gives the same subset. Pure; sorted by name.
 */
export function stratifiedSubset(programs: readonly ProgramSpec[], perFamily = 1): ProgramSpec[] {
  const byFamily = new Map<string, ProgramSpec[]>();
  for (const program of programs) {
    const key = programFamily(program.name, program.manifest);
    byFamily.set(key, [...(byFamily.get(key) ?? []), program]);
  }
  const picked: ProgramSpec[] = [];
  for (const key of [...byFamily.keys()].sort()) {
    const ranked = [...byFamily.get(key)!].sort((a, b) => (contentHash(a.name) < contentHash(b.name) ? -1 : 1));
    picked.push(...ranked.slice(0, perFamily));
  }
  return picked.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
