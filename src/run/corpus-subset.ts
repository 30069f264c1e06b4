// The --quick corpus: a subset of the discovered programs stratified by category, so a
// short run still sees every kind of program (each kernel class, pattern family, template).

import type { ProgramSpec } from "../collect/index.js";
import { contentHash } from "./stages.js";

/**
 * The category of a program name: its first two path segments for nested programs
 * ("kernels/abba/abba-mutex" → "kernels/abba"), otherwise the folder plus the name without
 * a numeric suffix ("generated/fanin-1002" → "generated/fanin").
 */
export function programCategory(name: string): string {
  const segments = name.split("#")[0]!.split("/");
  if (segments.length >= 3) return `${segments[0]}/${segments[1]}`;
  const last = segments[segments.length - 1]!.replace(/-\d+$/, "");
  return segments.length === 2 ? `${segments[0]}/${last}` : last;
}

/**
 * Picks `perCategory` programs from every category (by a stable hash of the name, so the
 * same corpus always gives the same subset). Pure; the result is sorted by name.
 */
export function stratifiedSubset(programs: readonly ProgramSpec[], perCategory = 1): ProgramSpec[] {
  const byCategory = new Map<string, ProgramSpec[]>();
  for (const program of programs) {
    const key = programCategory(program.name);
    byCategory.set(key, [...(byCategory.get(key) ?? []), program]);
  }
  const picked: ProgramSpec[] = [];
  for (const key of [...byCategory.keys()].sort()) {
    const ranked = [...byCategory.get(key)!].sort((a, b) => (contentHash(a.name) < contentHash(b.name) ? -1 : 1));
    picked.push(...ranked.slice(0, perCategory));
  }
  return picked.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
