// What the CI formats (SARIF, JUnit, workflow annotations) need from the database beyond an
// analysis: each program's directory and kind (to place sites in the repository), the tests
// each test program ran (to list passing tests), and where a waited-for goroutine was
// created (a partner that had ended has no blocking site). Read once per `leaks` command.

import type { ProgramKind } from "../core/index.js";
import { ownerRoot } from "../model/index.js";
import type { SchedlabDatabase } from "../store/index.js";
import type { BaselineMatch } from "./baseline.js";
import { isTestName } from "./fingerprints.js";
import { sourceResolver, type ProgramSource, type SourceResolver } from "./source-paths.js";

/** Everything the CI formats read besides the analysis. */
export interface CiContext {
  readonly programs: ReadonlyMap<string, ProgramSource>;
  readonly sources: SourceResolver;
  /** Tests (top-level, as `go test -run` names them) the program's runs executed, sorted; empty for a main program. */
  testsRun(program: string): readonly string[];
  /** The `go` statement ("function file:line") that created `goroutine` in run `runId`; null for a root or when unknown. */
  creationSite(runId: number, goroutine: string): string | null;
  /** The baseline held against the analysis, when one was given. */
  readonly baseline: BaselineMatch | null;
}

/**
 * The context of `db` for paths relative to `repoRoot`. Tests run are the roots of the
 * program's recorded goroutines named like a test (TestXxx, ExampleXxx, FuzzXxx, without
 * -test.count's "#n"), and a split test's own name: tests that never appear in a trace
 * (no goroutine of theirs was recorded) are not known.
 */
export function ciContext(db: SchedlabDatabase, repoRoot: string, baseline: BaselineMatch | null = null): CiContext {
  const rows = db.prepare("SELECT id, name, kind, dir, root, test_name FROM programs ORDER BY name").all() as {
    id: number;
    name: string;
    kind: ProgramKind;
    dir: string;
    root: string;
    test_name: string | null;
  }[];
  const programs = new Map<string, ProgramSource>(
    rows.map((r) => [r.name, { name: r.name, kind: r.kind, dir: r.dir, root: r.root, testName: r.test_name }]),
  );
  const ids = new Map(rows.map((r) => [r.name, r.id]));
  const roots = db.prepare(
    "SELECT DISTINCT g.canonical_id AS id FROM runs r JOIN goroutines g ON g.run_id = r.id WHERE r.program_id = ? AND g.is_root = 1",
  );
  const created = db.prepare(
    "SELECT creation_site AS site FROM goroutines WHERE run_id = ? AND canonical_id = ? LIMIT 1",
  );
  const tests = new Map<string, readonly string[]>();
  return {
    programs,
    sources: sourceResolver(
      rows.map((r) => programs.get(r.name) as ProgramSource),
      repoRoot,
    ),
    testsRun(program) {
      const known = tests.get(program);
      if (known !== undefined) return known;
      const source = programs.get(program);
      const id = ids.get(program);
      let found: string[] = [];
      if (source !== undefined && id !== undefined && source.kind === "test") {
        const names = new Set((roots.all(id) as { id: string }[]).map((r) => ownerRoot(r.id)).filter(isTestName));
        if (source.testName !== null) names.add(source.testName);
        found = [...names].sort();
      }
      tests.set(program, found);
      return found;
    },
    creationSite(runId, goroutine) {
      const row = created.get(runId, goroutine) as { site: string | null } | undefined;
      return row?.site ?? null;
    },
    baseline,
  };
}
