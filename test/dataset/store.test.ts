import { describe, expect, it } from "vitest";
import { statesFromRuns } from "../../src/dataset/abstractions.js";
import { ingestedPrograms, loadDataset, refreshDataset } from "../../src/dataset/store.js";
import {
  loadSide,
  programSides,
  samplesWithPrefixes,
  sideSampleCounts,
  storedSamplesWithPrefixes,
} from "../../src/dataset/split-data.js";
import { UsageError } from "../../src/errors.js";
import { EVENT_TYPES } from "../../src/core/index.js";
import { insertProgram, insertRun, scratchDatabase } from "./db-fixture.js";
import { records, run1, run2 } from "./records.js";

function fixture() {
  const { db } = scratchDatabase();
  const p = insertProgram(db, "patterns/a");
  const q = insertProgram(db, "patterns/b");
  const r1 = insertRun(db, p, 0, records(run1));
  const r2 = insertRun(db, p, 1, records(run2));
  insertRun(db, q, 0, records(run1));
  insertRun(db, q, 1, records(run2.slice(0, 3)), "error"); // not ingested: ignored
  return { db, p, q, r1, r2 };
}

describe("dataset store", () => {
  it("stores states and samples and rebuilds only programs whose runs changed", () => {
    const { db, p } = fixture();
    expect(refreshDataset(db, { abstraction: "depth" })).toEqual({
      rebuilt: ["patterns/a", "patterns/b"],
      unchanged: [],
      capped: [],
    });
    expect(refreshDataset(db, { abstraction: "depth" })).toEqual({
      rebuilt: [],
      unchanged: ["patterns/a", "patterns/b"],
      capped: [],
    });
    const n = db.prepare("SELECT count(*) AS n FROM samples WHERE abstraction = 'depth'").get() as { n: number };
    expect(n.n).toBe(4 + 4 + 4);
    insertRun(db, p, 2, records(run1));
    expect(refreshDataset(db, { abstraction: "depth" })).toEqual({
      rebuilt: ["patterns/a"],
      unchanged: ["patterns/b"],
      capped: [],
    });
    const row = db
      .prepare(
        "SELECT n_gostart, n_goblock, runs FROM states s JOIN programs p ON p.id = s.program_id WHERE p.name = 'patterns/a' AND key = 'depth=1'",
      )
      .get();
    expect(row).toEqual({ n_gostart: 1, n_goblock: 2, runs: 3 });
    const m = db.prepare("SELECT count(*) AS n FROM samples WHERE abstraction = 'depth'").get() as { n: number };
    expect(m.n).toBe(16);
  });

  it("caps a program's samples by keeping every s-th position of each run, and rebuilds when the cap changes", () => {
    const { db } = fixture();
    // patterns/a: two runs of 4 events (8 samples), patterns/b: one run of 4; cap 3 → strides 4
    // (stride 3 would keep depths 0 and 3 of both runs: 4 samples) and 2.
    expect(refreshDataset(db, { abstraction: "depth", maxSamplesPerProgram: 3 })).toEqual({
      rebuilt: ["patterns/a", "patterns/b"],
      unchanged: [],
      capped: [
        { program: "patterns/a", samples: 8, stride: 4, kept: 2, states: { total: 4, kept: 1 } },
        { program: "patterns/b", samples: 4, stride: 2, kept: 2, states: { total: 4, kept: 2 } },
      ],
    });
    const kept = db
      .prepare(
        "SELECT p.name, s.key FROM states s JOIN programs p ON p.id = s.program_id WHERE s.abstraction = 'depth' ORDER BY 1, 2",
      )
      .all();
    // Spread along each run, first sample kept: depth 0 of a, 0 and 2 of b.
    expect(kept).toEqual([
      { name: "patterns/a", key: "depth=0" },
      { name: "patterns/b", key: "depth=0" },
      { name: "patterns/b", key: "depth=2" },
    ]);
    const depth0 = db
      .prepare(
        "SELECT runs FROM states s JOIN programs p ON p.id = s.program_id WHERE p.name = 'patterns/a' AND key = 'depth=0'",
      )
      .get();
    expect(depth0).toEqual({ runs: 2 }); // one stride for all the program's runs: a depth keeps every run
    expect(refreshDataset(db, { abstraction: "depth", maxSamplesPerProgram: 3 }).rebuilt).toEqual([]);
    expect(refreshDataset(db, { abstraction: "depth" })).toMatchObject({
      rebuilt: ["patterns/a", "patterns/b"],
      capped: [],
    });
  });

  it("loads exactly what the pure core computes, representatives included", () => {
    const { db, r1 } = fixture();
    for (const abstraction of ["split", "depth", "goroutine", "context"] as const) {
      const built = loadSide(
        db,
        abstraction,
        ingestedPrograms(db).map((p) => p.name),
      );
      const loaded = loadDataset(db, { abstraction, samples: true });
      const view = (states: typeof built.states) =>
        states.map((s) => [s.id, s.program, s.key, s.counts, s.runs, s.representative.runId, s.representative.end]);
      expect(view(loaded.states)).toEqual(view(built.states));
      expect(loaded.samples.length).toBe(built.samples.length);
      expect(new Set(loaded.samples.map((s) => s.stateId))).toEqual(new Set(built.states.map((s) => s.id)));
      const direct = statesFromRuns([...built.runs.values()], abstraction);
      expect(view(direct.states)).toEqual(view(built.states));
    }
    const ctx = loadDataset(db, { abstraction: "context" });
    const first = ctx.states[0];
    expect(first.counts.GoCreate).toBe(3);
    expect(first.runs).toBe(3);
    expect(first.representative.runId).toBe(r1);
    expect(first.representative.records[1].kind).toBe("GoCreate");
  });

  it("counts each program's samples and fingerprints the side as loadSide does, one program at a time", () => {
    for (const abstraction of ["split", "depth", "goroutine", "context"] as const) {
      const { db } = fixture();
      const names = ingestedPrograms(db).map((p) => p.name);
      // First with nothing stored (the counts come from the states it stores), then from the stored states.
      const fresh = sideSampleCounts(db, abstraction, names);
      expect(refreshDataset(db, { abstraction }).rebuilt).toEqual([]);
      const stored = sideSampleCounts(db, abstraction, names);
      const side = loadSide(db, abstraction, names);
      const perProgram = names.map((name) => {
        const samples = side.samples.filter((s) => s.program === name);
        return {
          name,
          samples: samples.length,
          events: EVENT_TYPES.map((e) => samples.filter((s) => s.next === e).length),
        };
      });
      expect(fresh).toEqual({ fingerprint: side.fingerprint, capped: [], programs: perProgram });
      expect(stored).toEqual(fresh);
      expect(perProgram.every((p) => p.samples > 0)).toBe(true);
    }
  });

  it("loads a side program by program: loadSide's states and samples, in its order, unless the abstraction pools programs", () => {
    for (const abstraction of ["split", "depth", "goroutine", "context"] as const) {
      const { db } = fixture();
      const names = ["patterns/b", "patterns/a"];
      const side = loadSide(db, abstraction, names);
      const sides = [...programSides(db, abstraction, names)];
      expect(sides.map((s) => s.programs)).toEqual([["patterns/a"], ["patterns/b"]]);
      const samples = sides.flatMap((s) => s.samples);
      if (abstraction === "context") {
        // Pooled: the same samples (states merge across programs), state ids aside.
        const strip = ({ stateId: _, ...rest }: (typeof samples)[number]) => rest;
        expect(samples.map(strip)).toEqual(side.samples.map(strip));
      } else {
        expect(samples).toEqual(side.samples);
        expect(sides.flatMap((s) => s.states)).toEqual(side.states);
      }
    }
  });

  it("reads a side's samples run by run from the stored samples: loadSide's, in its order, rebuilt first when stale", () => {
    for (const abstraction of ["split", "depth", "goroutine", "context"] as const) {
      const { db, p } = fixture();
      const names = ["patterns/b", "patterns/a"];
      // Nothing stored yet: the read builds and stores both programs' states first.
      expect([...storedSamplesWithPrefixes(db, abstraction, names)]).toEqual(
        samplesWithPrefixes(loadSide(db, abstraction, names)),
      );
      insertRun(db, p, 2, records(run1));
      const stale = [...storedSamplesWithPrefixes(db, abstraction, names)];
      expect(stale).toEqual(samplesWithPrefixes(loadSide(db, abstraction, names)));
      expect(new Set(stale.map((s) => s.prefix.runId)).size).toBe(4); // a: three runs now; b: one usable
    }
  });

  it("filters programs and rejects unknown ones with a hint", () => {
    const { db } = fixture();
    const only = loadDataset(db, { abstraction: "split", programs: ["patterns/b"] });
    expect(only.programs).toEqual(["patterns/b"]);
    expect(only.states.every((s) => s.program === "patterns/b")).toBe(true);
    expect(() => loadDataset(db, { abstraction: "split", programs: ["nope"] })).toThrow(UsageError);
  });
});
