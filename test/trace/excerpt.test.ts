import { describe, expect, it } from "vitest";
import {
  applyRecord,
  isEventType,
  newSchedulerTracker,
  snapshotCounts,
  type GoroutineRecord,
  type RecordKind,
} from "../../src/core/index.js";
import { seededRandom } from "../../src/random.js";
import { EXCERPT_WINDOWS, excerptTargets, excerptWriter, type Excerpt } from "../../src/trace/excerpt.js";
import { sampleStepper } from "../../src/dataset/sample-stepper.js";

/** A run of `n` records of goroutines that obey Go's transitions, seeded: creations, blocks with reasons, wake-ups, syscalls, ends. */
function syntheticRun(n: number, seed: number): GoroutineRecord[] {
  const random = seededRandom(seed);
  const state = new Map<number, "runnable" | "running" | "waiting" | "syscall">([[1, "running"]]);
  const records: GoroutineRecord[] = [];
  let next = 2;
  const add = (kind: RecordKind, goroutine: number, reason = "", actor: number | null = null) =>
    records.push({ seq: records.length, timeNs: records.length * 10, kind, goroutine, actor, reason, site: null });
  add("Initial", 1, "Running");
  while (records.length < n) {
    const live = [...state.keys()];
    const g = live[Math.floor(random() * live.length)];
    const r = random();
    switch (state.get(g)) {
      case "running":
        if (r < 0.2 && state.size < 40) {
          add("GoCreate", next, "", g);
          state.set(next++, "runnable");
        } else if (r < 0.5) {
          add("GoBlock", g, random() < 0.5 ? "chan receive" : "select");
          state.set(g, "waiting");
        } else if (r < 0.6) {
          add("GoSched", g, "runtime.Gosched");
          state.set(g, "runnable");
        } else if (r < 0.7) {
          add("SyscallEnter", g);
          state.set(g, "syscall");
        } else if (r < 0.8 && g !== 1) {
          add("GoEnd", g);
          state.delete(g);
        }
        break;
      case "runnable":
        add("GoStart", g);
        state.set(g, "running");
        break;
      case "waiting":
        if (r < 0.5) {
          add("GoUnblock", g, "", 1);
          state.set(g, "runnable");
        }
        break;
      case "syscall":
        add("SyscallExit", g);
        state.set(g, "running");
        break;
    }
  }
  return records;
}

function excerptOf(records: readonly GoroutineRecord[], cap: number): { stored: GoroutineRecord[]; excerpt: Excerpt } {
  const events = records.filter((r) => isEventType(r.kind)).length;
  const stored: GoroutineRecord[] = [];
  const writer = excerptWriter({ records: records.length, events }, cap, (r) => stored.push(r));
  for (const r of records) writer.push(r);
  return { stored, excerpt: writer.finish() };
}

/** For each stored record of the run, its seq in the whole run (null: an Initial record a window opened with). */
function sourcesOf(
  stored: readonly GoroutineRecord[],
  excerpt: Excerpt,
  whole: readonly GoroutineRecord[],
): (number | null)[] {
  const sources: (number | null)[] = [];
  let w = -1;
  let source = 0;
  for (const r of stored) {
    if (excerpt.windows[w + 1]?.firstSeq === r.seq) {
      w++;
      source = excerpt.windows[w].sourceSeq;
    }
    const original = whole[source];
    // Before a window's first record of the run come its Initial records.
    if (
      source === excerpt.windows[w].sourceSeq &&
      r.kind === "Initial" &&
      (original.kind !== "Initial" || original.goroutine !== r.goroutine || original.reason !== r.reason)
    ) {
      sources.push(null);
      continue;
    }
    sources.push(source++);
  }
  return sources;
}

describe("excerptWriter", () => {
  it("places the windows at the run's start and at each eighth of its events", () => {
    expect(excerptTargets(800)).toEqual([0, 100, 200, 300, 400, 500, 600, 700]);
    expect(excerptTargets(3)).toEqual([0, 1, 2]);
    expect(EXCERPT_WINDOWS).toBe(8);
  });

  it("stores about the cap, densely numbered, and every stored record of the run as it was", () => {
    const whole = syntheticRun(20_000, 7);
    const { stored, excerpt } = excerptOf(whole, 1_600);
    expect(stored.map((r) => r.seq)).toEqual(stored.map((_, i) => i));
    expect(stored.length).toBeGreaterThanOrEqual(1_600);
    // Each window after a gap opens with at most one Initial record per goroutine live at its
    // start or known live to a reader (syntheticRun keeps at most 40 live).
    expect(stored.length).toBeLessThan(1_600 + EXCERPT_WINDOWS * (2 + 2 * 40));
    expect(excerpt.records).toBe(20_000);
    expect(excerpt.events).toBe(whole.filter((r) => isEventType(r.kind)).length);
    expect(excerpt.windows).toHaveLength(EXCERPT_WINDOWS);
    expect(excerpt.windows[0]).toEqual({ firstSeq: 0, sourceSeq: 0, eventsBefore: 0 });
    const sources = sourcesOf(stored, excerpt, whole);
    stored.forEach((r, i) => {
      const source = sources[i];
      if (source !== null) expect({ ...r, seq: source }).toEqual(whole[source]);
    });
    // The windows are spread over the whole run: the last one is in its last eighth.
    expect(excerpt.windows.at(-1)!.sourceSeq).toBeGreaterThan(20_000 * 0.8);
  });

  it("opens each window after a gap with Initial records, so a reader knows every goroutine's state at every stored record", () => {
    for (const seed of [1, 2, 3]) {
      const whole = syntheticRun(12_000, seed);
      const { stored, excerpt } = excerptOf(whole, 800);
      const sources = sourcesOf(stored, excerpt, whole);
      const truth = newSchedulerTracker();
      const reader = newSchedulerTracker();
      let applied = 0;
      stored.forEach((r, i) => {
        const source = sources[i];
        if (source !== null) {
          for (; applied < source; applied++) applyRecord(truth, whole[applied]);
          expect(snapshotCounts(reader)).toEqual({
            ...snapshotCounts(truth),
            created: snapshotCounts(reader).created,
            ended: snapshotCounts(reader).ended,
          });
          for (const [gid, state] of truth.goroutines) {
            if (state.status === "ended") continue;
            expect(reader.goroutines.get(gid)?.status).toBe(state.status);
            expect(reader.goroutines.get(gid)?.reason).toBe(state.reason);
          }
        }
        applyRecord(reader, r);
      });
    }
  });

  it("gives the depth and split samples of its stored events the keys the whole run gives them", () => {
    const whole = syntheticRun(30_000, 11);
    const { stored, excerpt } = excerptOf(whole, 2_000);
    const samples = (abstraction: "depth" | "split", records: readonly GoroutineRecord[], withExcerpt: boolean) => {
      const out = new Map<string, string>();
      const eventCount = records.filter((r) => isEventType(r.kind)).length;
      const step = sampleStepper(
        abstraction,
        { eventCount, excerpt: withExcerpt ? excerpt : null },
        (key, _end, next) => out.set(key, next),
      );
      records.forEach(step);
      return out;
    };
    for (const abstraction of ["depth", "split"] as const) {
      const full = samples(abstraction, whole, false);
      const part = samples(abstraction, stored, true);
      expect(part.size).toBeGreaterThan(0);
      for (const [key, next] of part) expect(full.get(key), key).toBe(next);
      if (abstraction === "split") expect([...part.keys()].sort()).toEqual(["split=25", "split=50", "split=75"]);
    }
  });

  it("stores a run at the cap whole, with one window", () => {
    const whole = syntheticRun(500, 5);
    const { stored, excerpt } = excerptOf(whole, 10_000);
    expect(stored).toEqual(whole);
    expect(excerpt.windows).toEqual([{ firstSeq: 0, sourceSeq: 0, eventsBefore: 0 }]);
  });
});
