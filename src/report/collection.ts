// What a database's collection holds, for a report without an evaluation: each program with
// its runs by strategy and outcome, how many are ingested, whether its build failed, and how
// its budgeted hunt ended. Reads the tables collect and ingest write (docs/schema.md).

import type { ProgramKind } from "../core/index.js";
import type { SchedlabDatabase } from "../store/index.js";

/** One collected program. */
export interface CollectedProgram {
  readonly name: string;
  readonly kind: ProgramKind;
  /** Runs recorded (build errors included). */
  readonly runs: number;
  readonly byStrategy: { readonly plain: number; readonly race: number; readonly perturb: number };
  /** Runs per outcome, e.g. { ok: 20, timeout: 1 }. */
  readonly outcomes: Readonly<Record<string, number>>;
  /** Runs whose trace is decoded into the database (ok or truncated). */
  readonly ingested: number;
  /** Its latest build failed and no run of it ran. */
  readonly buildFailed: boolean;
  /** Its budgeted hunt (collect --budget, hunt), or null when it was collected without one. */
  readonly hunt: {
    readonly status: string;
    readonly budgetMs: number;
    readonly spentMs: number;
    readonly runs: number;
  } | null;
}

export interface CollectionSummary {
  readonly programs: readonly CollectedProgram[];
  /** Go versions the runs were made with, in order. */
  readonly goVersions: readonly string[];
  /** When the first and the last run were recorded (ISO), or null without runs. */
  readonly firstRunAt: string | null;
  readonly lastRunAt: string | null;
}

/** The collection of `db`, programs in name order. */
export function collectionSummary(db: SchedlabDatabase): CollectionSummary {
  const programs = db.prepare("SELECT id, name, kind FROM programs ORDER BY name").all() as {
    id: number;
    name: string;
    kind: ProgramKind;
  }[];
  const runs = db.prepare("SELECT strategy, outcome, ingest_status FROM runs WHERE program_id = ?");
  const build = db.prepare("SELECT status FROM builds WHERE program_id = ? ORDER BY built_at DESC LIMIT 1");
  const hunt = db.prepare("SELECT status, budget_ms, spent_ms, runs FROM explorations WHERE program_id = ?");
  const collected = programs.map((p): CollectedProgram => {
    const rows = runs.all(p.id) as {
      strategy: "plain" | "race" | "perturb";
      outcome: string;
      ingest_status: string | null;
    }[];
    const outcomes: Record<string, number> = {};
    for (const r of rows) outcomes[r.outcome] = (outcomes[r.outcome] ?? 0) + 1;
    const latest = build.get(p.id) as { status: string } | undefined;
    const explored = hunt.get(p.id) as
      { status: string; budget_ms: number; spent_ms: number; runs: number } | undefined;
    return {
      name: p.name,
      kind: p.kind,
      runs: rows.length,
      byStrategy: {
        plain: rows.filter((r) => r.strategy === "plain" && r.outcome !== "build-error").length,
        race: rows.filter((r) => r.strategy === "race" && r.outcome !== "build-error").length,
        perturb: rows.filter((r) => r.strategy === "perturb" && r.outcome !== "build-error").length,
      },
      outcomes,
      ingested: rows.filter((r) => r.ingest_status === "ok" || r.ingest_status === "truncated").length,
      buildFailed: latest?.status === "error" && rows.every((r) => r.outcome === "build-error"),
      hunt:
        explored === undefined
          ? null
          : { status: explored.status, budgetMs: explored.budget_ms, spentMs: explored.spent_ms, runs: explored.runs },
    };
  });
  const versions = db
    .prepare("SELECT DISTINCT go_version FROM runs WHERE go_version IS NOT NULL ORDER BY go_version")
    .all() as { go_version: string }[];
  const span = db.prepare("SELECT MIN(created_at) AS first, MAX(created_at) AS last FROM runs").get() as {
    first: string | null;
    last: string | null;
  };
  return {
    programs: collected,
    goVersions: versions.map((v) => v.go_version),
    firstRunAt: span.first,
    lastRunAt: span.last,
  };
}
