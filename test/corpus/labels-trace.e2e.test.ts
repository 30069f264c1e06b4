// Corpus labels against real execution traces: a sample of kernels and generated
// programs is collected with the tracer and ingested, and for every run of a program
// whose bug shows on every schedule, the goroutines whose last event is GoBlock are
// exactly the manifest's expected ones (creation site and block reason); clean
// generated programs end with no goroutine blocked. The generated sample has main and
// test-form programs, leaks and deadlocks.

import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { collect } from "../../src/collect/index.js";
import { MANIFEST_FILE, type Manifest } from "../../src/corpus/manifest.js";
import { openDatabase } from "../../src/store/index.js";
import { ingestRuns } from "../../src/trace/index.js";

const corpus = fileURLToPath(new URL("../../go-programs", import.meta.url));
const sample = [
  "kernels/doublelock/poolclose",
  "kernels/chanlock/eventbus",
  "kernels/selectnone/nilcases",
  "kernels/condmiss/signalone",
  "kernels/chanwg/batchupload",
  "kernels/chanlock/statsreporter",
  "generated/workerpool-1016",
  "generated/pipeline-1017",
  "generated/fanin-1018",
  "generated/sharedstate-1019",
  "generated/prodcons-1020",
  "generated/tickerbatch-1021",
  "generated/workerpool-1000",
  "generated/ctxcancel-1022",
  "generated/condsignal-1023",
  "generated/chanlock-1009",
  "generated/rwrecursive-1074",
  "generated/wgwait-1024",
  "generated/orderviolation-1043",
  "generated/loopvar-1012",
  "generated/timers-1077",
  "generated/selectmany-1014",
  "generated/errgroup-1031",
];

interface EndState {
  readonly program: string;
  readonly outcome: string;
  /** "site reason" of every goroutine whose last event is GoBlock; the root's site is "-". */
  readonly blocked: string[];
}

const manifestOf = (program: string): Manifest =>
  JSON.parse(readFileSync(join(corpus, program, MANIFEST_FILE), "utf8")) as Manifest;
const expectedOf = (m: Manifest): string[] =>
  [...new Set(m.expected.map((e) => `${e.site ?? "-"} ${e.reason}`))].sort();

describe("corpus labels match traced runs", () => {
  let ends: EndState[] = [];

  beforeAll(async () => {
    const scratch = mkdtempSync(join(tmpdir(), "schedlab-labels-"));
    const dbFile = join(scratch, "labels.db");
    await collect({
      paths: sample.map((p) => join(corpus, p)),
      runs: 2,
      timeoutMs: 2500,
      procs: [2],
      db: dbFile,
      traces: join(scratch, "traces"),
    });
    const db = openDatabase(dbFile);
    try {
      await ingestRuns(db);
      const runs = db
        .prepare("SELECT r.id, r.outcome, p.dir FROM runs r JOIN programs p ON p.id = r.program_id")
        .all() as { id: number; outcome: string; dir: string }[];
      const events = db.prepare("SELECT gid, kind, reason FROM events WHERE run_id = ? ORDER BY seq");
      const goroutine = db.prepare("SELECT creation_site, is_root FROM goroutines WHERE run_id = ? AND gid = ?");
      ends = runs.map((run) => {
        const last = new Map<number, { kind: string; reason: string }>();
        for (const e of events.all(run.id) as { gid: number; kind: string; reason: string }[]) last.set(e.gid, e);
        const blocked = new Set<string>();
        for (const [gid, e] of last) {
          if (e.kind !== "GoBlock") continue;
          const g = goroutine.get(run.id, gid) as { creation_site: string | null; is_root: number } | undefined;
          const site =
            g === undefined || g.is_root === 1 || g.creation_site === null
              ? "-"
              : (g.creation_site.split(" ").at(-1) ?? "").split("/").at(-1);
          blocked.add(`${site} ${e.reason}`);
        }
        const program = sample.find((p) => run.dir.endsWith(p)) ?? run.dir;
        return { program, outcome: run.outcome, blocked: [...blocked].sort() };
      });
    } finally {
      db.close();
    }
  });

  it("collected two runs of every sampled program", () => {
    for (const p of sample)
      expect(
        ends.filter((e) => e.program === p),
        p,
      ).toHaveLength(2);
  });

  it.each(sample)("%s", (program) => {
    const m = manifestOf(program);
    for (const end of ends.filter((e) => e.program === program)) {
      expect(end.outcome, program).toBe(m.outcome === "deadlock" ? "timeout" : "ok");
      if (m.showsOn === "every" || m.outcome === "clean") expect(end.blocked, program).toEqual(expectedOf(m));
    }
  });
});
