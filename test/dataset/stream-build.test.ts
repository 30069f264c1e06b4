// The streaming build (refreshDataset → streamProgramStates) stores exactly what the pure
// in-memory core (statesFromRuns over the same runs) computes, whatever the chunk size: the
// same states with counts, runs, representatives and prefix hashes, and the same samples.

import { describe, expect, it } from "vitest";
import { statesFromRuns } from "../../src/dataset/abstractions.js";
import { ingestedPrograms, loadDataset, loadProgramRuns, programInputHash } from "../../src/dataset/store.js";
import { streamProgramStates } from "../../src/dataset/stream-build.js";
import { ABSTRACTIONS } from "../../src/dataset/types.js";
import { insertProgram, insertRun, scratchDatabase } from "./db-fixture.js";
import { records } from "./records.js";
import type { RecordSpec } from "./records.js";

const runA: RecordSpec[] = [
  ["Initial", 1, "Running"],
  ["GoCreate", 2],
  ["GoCreate", 3],
  ["GoBlock", 1, "chan receive"],
  ["GoStart", 2],
  ["GoSched", 2, "preempted"],
  ["GoStart", 3],
  ["SyscallEnter", 3],
  ["SyscallExit", 3],
  ["GoUnblock", 1],
  ["GoEnd", 3],
  ["GoStart", 2],
  ["GoEnd", 2],
  ["GoStart", 1],
  ["GoEnd", 1],
];
const runB: RecordSpec[] = [
  ["Initial", 1, "Running"],
  ["GoCreate", 2],
  ["GoStart", 2],
  ["GoBlock", 2, "select"],
  ["GoBlock", 1, "sync"],
  ["GoUnblock", 2],
  ["GoEnd", 2],
];

describe("the streaming dataset build", () => {
  for (const [chunk, cap] of [
    [1, undefined],
    [3, undefined],
    [50_000, undefined],
    [3, 7],
    [50_000, 2],
  ] as const) {
    it(`matches the in-memory core for every abstraction (chunks of ${chunk} records, cap ${cap ?? "default"})`, () => {
      const { db } = scratchDatabase();
      const p = insertProgram(db, "kernels/x/one");
      const q = insertProgram(db, "kernels/x/two");
      insertRun(db, p, 0, records(runA));
      insertRun(db, p, 1, records(runB));
      insertRun(db, p, 2, records(runA.slice(0, 9)));
      insertRun(db, q, 0, records(runB));
      for (const abstraction of ABSTRACTIONS) {
        for (const program of ingestedPrograms(db)) {
          const runs = loadProgramRuns(db, program);
          streamProgramStates(
            db,
            abstraction,
            program,
            runs.map((r) => ({ id: r.runId, procs: r.procs })),
            programInputHash(db, program.id, abstraction, "plain", cap),
            cap,
            chunk,
          );
        }
        const stored = loadDataset(db, { abstraction, samples: true, readonly: true });
        const direct = statesFromRuns(
          ingestedPrograms(db).flatMap((program) => loadProgramRuns(db, program)),
          abstraction,
          cap,
        );
        const view = (states: typeof direct.states) =>
          states
            .map((s) => [s.id, s.key, s.counts, s.runs, s.representative.runId, s.representative.end, s.prefixHash])
            .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
        expect(view(stored.states), abstraction).toEqual(view(direct.states));
        const samples = (rows: typeof direct.samples) =>
          rows.map((r) => `${r.runId}:${r.end}:${r.stateId}:${r.next}`).sort();
        expect(samples(stored.samples), abstraction).toEqual(samples(direct.samples));
      }
    });
  }
});
