// The fidelity stage's SQLite edge: saves each `schedlab fidelity` result in fidelity_runs
// and lists stored runs for the report.

import { inTransaction, type SchedlabDatabase } from "../store/index.js";
import type { FidelityResult, FidelityThresholds } from "./types.js";
import type { VariantComparison } from "./variants.js";

/** NaN is stored as NULL (SQLite has no NaN) and read back as NaN. */
const real = (v: number): number | null => (Number.isNaN(v) ? null : v);
const fromReal = (v: number | null): number => (v === null ? NaN : v);

export interface StoredFidelityRun {
  readonly id: number;
  readonly mode: "holdout" | "variants";
  readonly teacher: string;
  readonly student: string;
  readonly abstraction: string;
  readonly holdout: string;
  readonly thresholds: FidelityThresholds;
  /** Violation rates MR1..MR4 (on the variants' matched states in variants mode); NaN when not applicable. */
  readonly rates: readonly [number, number, number, number];
  readonly teacherAccuracy: number;
  readonly studentAccuracy: number;
  /** The stored FidelityResult (holdout) or VariantComparison (variants), NaN as null. */
  readonly details: unknown;
  readonly createdAt: string;
}

/** Stores a holdout result or a variant comparison (which must carry relations); returns the row id. */
export function saveFidelityRun(
  db: SchedlabDatabase,
  run:
    | {
        readonly mode: "holdout";
        readonly holdout: string;
        readonly abstraction: string;
        readonly result: FidelityResult;
      }
    | { readonly mode: "variants"; readonly comparison: VariantComparison },
  createdAt = new Date().toISOString(),
): number {
  const result = run.mode === "holdout" ? run.result : run.comparison.relations?.variants;
  if (result === undefined)
    throw new RangeError("saveFidelityRun: a variant comparison without teacher/student relations");
  const r = result.relations;
  return inTransaction(db, () =>
    Number(
      db
        .prepare(
          "INSERT INTO fidelity_runs (mode, teacher, student, abstraction, holdout, thresholds, mr1, mr2, mr3, mr4, " +
            `teacher_accuracy, student_accuracy, details, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          run.mode,
          result.teacher.name,
          result.student.name,
          run.mode === "holdout" ? run.abstraction : run.comparison.abstraction,
          run.mode === "holdout" ? run.holdout : `variants (${run.comparison.pairs.length} pairs)`,
          JSON.stringify(result.thresholds),
          real(r.MR1.violationRate),
          real(r.MR2.violationRate),
          real(r.MR3.violationRate),
          real(r.MR4.violationRate),
          real(result.teacher.accuracy),
          real(result.student.accuracy),
          JSON.stringify(run.mode === "holdout" ? run.result : run.comparison),
          createdAt,
        ).lastInsertRowid,
    ),
  );
}

interface FidelityRow {
  id: number;
  mode: "holdout" | "variants";
  teacher: string;
  student: string;
  abstraction: string;
  holdout: string;
  thresholds: string;
  mr1: number | null;
  mr2: number | null;
  mr3: number | null;
  mr4: number | null;
  teacher_accuracy: number | null;
  student_accuracy: number | null;
  details: string;
  created_at: string;
}

/** Stored fidelity runs, newest first (at most `limit`). */
export function listFidelityRuns(db: SchedlabDatabase, limit = 20): StoredFidelityRun[] {
  const rows = db.prepare("SELECT * FROM fidelity_runs ORDER BY id DESC LIMIT ?").all(limit) as FidelityRow[];
  return rows.map((row) => ({
    id: row.id,
    mode: row.mode,
    teacher: row.teacher,
    student: row.student,
    abstraction: row.abstraction,
    holdout: row.holdout,
    thresholds: JSON.parse(row.thresholds) as FidelityThresholds,
    rates: [fromReal(row.mr1), fromReal(row.mr2), fromReal(row.mr3), fromReal(row.mr4)],
    teacherAccuracy: fromReal(row.teacher_accuracy),
    studentAccuracy: fromReal(row.student_accuracy),
    details: JSON.parse(row.details) as unknown,
    createdAt: row.created_at,
  }));
}
