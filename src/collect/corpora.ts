// Corpora: the root directories given to collect, each with a label its programs are known
// by and a role. A test corpus (collect --test-corpus) is never trained on; its programs are
// named "<label>/<path>" so they cannot collide with a training corpus's names.

import { existsSync } from "node:fs";
import { basename, dirname } from "node:path";
import { UsageError } from "../errors.js";
import { inTransaction, openDatabase, type SchedlabDatabase } from "../store/index.js";

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

/** What a database already records that labels depend on: its corpora and program names. */
export interface RecordedCorpora {
  readonly corpora: readonly Corpus[];
  readonly programNames: readonly string[];
}

/** The corpora and program names of a database (read only). */
export function recordedCorpora(db: SchedlabDatabase): RecordedCorpora {
  return {
    corpora: db.prepare("SELECT root, label, role FROM corpora").all() as Corpus[],
    programNames: db.prepare("SELECT name FROM programs").pluck().all() as string[],
  };
}

/** The corpora and program names of the database file at `path`, or none when it does not exist yet. */
export function recordedCorporaAt(path: string): RecordedCorpora {
  if (!existsSync(path)) return { corpora: [], programNames: [] };
  const db = openDatabase(path, { readonly: true });
  try {
    return recordedCorpora(db);
  } finally {
    db.close();
  }
}

/**
 * The corpus of each absolute root if collected with `role` (pure): its recorded label, or a
 * new free label — for a test corpus also not the first component of a recorded program name
 * or of `reserved`, since the label starts its programs' names. A root keeps the role it was
 * first recorded with; asking for the other role is a UsageError, because the role decides
 * the program names. A root of `fixed` (a module's copy) takes the label given there.
 */
export function resolveCorpora(
  recorded: RecordedCorpora,
  roots: readonly string[],
  role: CorpusRole,
  reserved: Iterable<string> = [],
  fixed: ReadonlyMap<string, string> = new Map(),
): Map<string, Corpus> {
  const result = new Map<string, Corpus>();
  const taken = new Set(recorded.corpora.map((c) => c.label));
  if (role === "test") {
    for (const name of [...recorded.programNames, ...reserved]) taken.add(name.split(/[/#]/)[0]!);
  }
  for (const root of roots) {
    const existing = recorded.corpora.find((c) => c.root === root);
    if (existing !== undefined) {
      if (existing.role !== role) {
        throw new UsageError(
          `${root} was collected as a ${existing.role === "test" ? "test corpus" : "training corpus"} into this database`,
          existing.role === "test"
            ? "Pass --test-corpus again to add runs to it, or collect it into another --db file to train on it."
            : "Collect it without --test-corpus to add runs, or into another --db file to use it as a test corpus " +
                "(`--holdout corpus:DIR` also holds out a training corpus).",
        );
      }
      result.set(root, existing);
      continue;
    }
    // A module's label is module@version, unique by itself and the prefix of its programs' names.
    const label = fixed.get(root) ?? labelCandidates(root).find((l) => !taken.has(l));
    if (label === undefined)
      throw new UsageError(`no free corpus label for ${root}`, "Collect it into another --db file.");
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

/** The recorded corpus of an absolute root, or undefined. */
export function corpusOf(db: SchedlabDatabase, root: string): Corpus | undefined {
  return db.prepare("SELECT root, label, role FROM corpora WHERE root = ?").get(root) as Corpus | undefined;
}
