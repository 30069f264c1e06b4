// Corpora: the root directories given to collect, each with a label its programs are known
// by and a role. A test corpus (collect --test-corpus) is never trained on; its programs are
// named "<label>/<path>" so they cannot collide with a training corpus's names.

import { basename, dirname } from "node:path";
import { UsageError } from "../errors.js";
import { inTransaction, type SchedlabDatabase } from "../store/index.js";

export type CorpusRole = "train" | "test";

export interface Corpus {
  readonly root: string;
  readonly label: string;
  readonly role: CorpusRole;
}

/**
 * Label candidates for a root, most readable first: its base name, then parent-base, then
 * numbered variants. Pure. @example labelCandidates("/x/gobench/kernels")[0..1] // => ["kernels", "gobench-kernels"]
 */
export function labelCandidates(root: string): string[] {
  const base = basename(root) || "root";
  const parent = basename(dirname(root));
  const candidates = [base];
  if (parent !== "" && parent !== base) candidates.push(`${parent}-${base}`);
  for (let i = 2; i < 100; i++) candidates.push(`${base}-${i}`);
  return candidates;
}

/**
 * The corpus of each absolute root if collected with `role`: its recorded label, or a new
 * free label (for a test corpus, also not the first component of a program name in the
 * database or in `reserved`). Reads only (saveCorpora records them), so a collect that fails before its
 * programs are recorded leaves no corpus behind. A root keeps the role it was first
 * recorded with; asking for the other role is a UsageError, because the role decides the
 * program names.
 */
export function resolveCorpora(db: SchedlabDatabase, roots: readonly string[], role: CorpusRole, reserved: Iterable<string> = []): Map<string, Corpus> {
  const result = new Map<string, Corpus>();
  const find = db.prepare("SELECT root, label, role FROM corpora WHERE root = ?");
  const taken = new Set((db.prepare("SELECT label FROM corpora").all() as { label: string }[]).map((r) => r.label));
  // A test corpus's label starts its program names, so it must not be the first component of
  // another program's name (its names, and its families, would mix with that program's).
  if (role === "test") {
    for (const name of db.prepare("SELECT name FROM programs").pluck().all() as string[]) taken.add(name.split(/[/#]/)[0]!);
    for (const name of reserved) taken.add(name.split(/[/#]/)[0]!);
  }
  for (const root of roots) {
    const existing = find.get(root) as Corpus | undefined;
    if (existing !== undefined) {
      if (existing.role !== role) {
        throw new UsageError(
          `${root} was collected as a ${existing.role === "test" ? "test corpus" : "training corpus"} into this database`,
          existing.role === "test"
            ? "Pass --test-corpus again to add runs to it, or collect it into another --db file to train on it."
            : "Collect it without --test-corpus to add runs, or into another --db file to use it as a test corpus (`--holdout corpus:DIR` also holds out a training corpus).",
        );
      }
      result.set(root, existing);
      continue;
    }
    const label = labelCandidates(root).find((l) => !taken.has(l));
    if (label === undefined) throw new UsageError(`no free corpus label for ${root}`, "Collect it into another --db file.");
    taken.add(label);
    result.set(root, { root, label, role });
  }
  return result;
}

/** Records the corpora (a root already recorded is left as it is). */
export function saveCorpora(db: SchedlabDatabase, corpora: Iterable<Corpus>): void {
  inTransaction(db, () => {
    const insert = db.prepare("INSERT OR IGNORE INTO corpora (root, label, role) VALUES (?, ?, ?)");
    for (const c of corpora) insert.run(c.root, c.label, c.role);
  });
}
