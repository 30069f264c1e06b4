// The four state abstractions of docs/dataset.md and the pure core that turns runs into
// states (with counts) and samples: statesFromRuns(runs, abstraction).
// Invariant: every six-type event of a run stored whole is the `next` of exactly one sample
// under depth, goroutine and context; split takes three samples per non-empty run. A run stored
// as an excerpt gives depth and split samples for its stored events with the keys the whole run
// gives them, goroutine samples up to its first gap, no context sample for the two events after one.

import { EVENT_TYPES, isEventType, type EventType, type GoroutineRecord } from "../core/index.js";
import { addCounts, emptyCounts } from "./distribution.js";
import { prefixHasher } from "./prefix-hash.js";
import {
  cappedProgram,
  DEFAULT_MAX_SAMPLES_PER_PROGRAM,
  everyNthSample,
  sampleStride,
  storedPositions,
  type CappedProgram,
  type PositionRange,
} from "./sample-cap.js";
import { sampleStepper, type SampleVisitor } from "./sample-stepper.js";
import { isPooled, stateId } from "./state-id.js";
import type { Abstraction, EventCounts, Prefix, RunRecords, Sample, SampleRow, State } from "./types.js";

export type { SampleVisitor } from "./sample-stepper.js";
export { bucket, contextKey, eventLabel, SPLIT_POINTS, splitIndex } from "./sample-stepper.js";

/** Calls visit(key, end, next) for each sample of one run under `abstraction`, in record order. */
export function forEachSample(run: RunRecords, abstraction: Abstraction, visit: SampleVisitor): void {
  const step = sampleStepper(
    abstraction,
    {
      eventCount: abstraction === "split" ? eventSequence(run.records).length : 0,
      goroutines: run.goroutines,
      excerpt: run.excerpt,
    },
    visit,
  );
  run.records.forEach(step);
}

/** Runs in (program, runId) order: the order in which states take their representatives. */
export function inRunOrder<R extends Pick<RunRecords, "program" | "runId">>(runs: readonly R[]): R[] {
  return [...runs].sort((a, b) => (a.program < b.program ? -1 : a.program > b.program ? 1 : a.runId - b.runId));
}

/** The prefix of `run` before record `end`, sharing the run's records (no copy). */
export function prefixAt(run: RunRecords, end: number): Prefix {
  return {
    program: run.program,
    runId: run.runId,
    procs: run.procs,
    records: run.records,
    end,
    goroutines: run.goroutines,
  };
}

/** The record indices of a run's six-type events: its event sequence. */
export function eventSequence(records: readonly GoroutineRecord[]): number[] {
  const indices: number[] = [];
  for (let i = 0; i < records.length; i++) if (isEventType(records[i].kind)) indices.push(i);
  return indices;
}

export interface StatesAndSamples {
  readonly states: State[];
  readonly samples: SampleRow[];
  /** The programs above the cap, in name order: each kept the positions 0, s, 2s … of every run. */
  readonly capped: CappedProgram[];
}

interface Accumulator {
  readonly id: string;
  readonly key: string;
  readonly counts: number[];
  runs: number;
  lastRun: number;
  readonly representative: Prefix;
  readonly prefixHash: string;
}

/**
 * The pure core: groups every sample of `runs` by state and counts next events. Runs are
 * visited in (program, runId) order, so a state's representative prefix is its first sample
 * there — the lowest run id of the (first) program, earliest position. States come back in
 * first-seen order, samples in visit order. A program whose runs give more than `cap` samples
 * keeps the samples at the whole-run positions 0, s, 2s … of each run (sampleStride, sample-cap.ts).
 */
export function statesFromRuns(
  runs: readonly RunRecords[],
  abstraction: Abstraction,
  cap = DEFAULT_MAX_SAMPLES_PER_PROGRAM,
): StatesAndSamples {
  const ordered = inRunOrder(runs);
  const positions = programPositions(ordered, abstraction);
  const strides = new Map([...positions].map(([program, ranges]) => [program, sampleStride(ranges, cap)]));
  const accumulators = new Map<string, Accumulator>();
  const samples: SampleRow[] = [];
  const pooled = isPooled(abstraction);
  for (const run of ordered) {
    // Samples of a run come in record order, so one incremental hasher serves all its new states.
    const hasher = prefixHasher(run);
    const visit = everyNthSample(
      (key, end, next) => {
        const groupKey = pooled ? key : `${run.program}\0${key}`;
        let acc = accumulators.get(groupKey);
        if (acc === undefined) {
          const representative = prefixAt(run, end);
          acc = {
            id: stateId(abstraction, run.program, key),
            key,
            counts: [0, 0, 0, 0, 0, 0],
            runs: 0,
            lastRun: -1,
            representative,
            prefixHash: hasher.at(end),
          };
          accumulators.set(groupKey, acc);
        }
        acc.counts[EVENT_INDEX[next]]++;
        if (acc.lastRun !== run.runId) {
          acc.runs++;
          acc.lastRun = run.runId;
        }
        samples.push({ stateId: acc.id, program: run.program, runId: run.runId, end, next });
      },
      strides.get(run.program) ?? 1,
    );
    forEachSample(run, abstraction, visit);
  }
  const states: State[] = [];
  for (const acc of accumulators.values()) {
    const counts = emptyCounts();
    EVENT_TYPES.forEach((event, i) => (counts[event] = acc.counts[i]));
    states.push({
      id: acc.id,
      abstraction,
      program: acc.representative.program,
      key: acc.key,
      counts,
      runs: acc.runs,
      representative: acc.representative,
      prefixHash: acc.prefixHash,
    });
  }
  const capped = [...positions].flatMap(([program, ranges]) => cappedProgram(program, abstraction, ranges, cap) ?? []);
  return { states, samples, capped };
}

/** The positions each program's runs' samples may take (runPositions), by program, in run order. */
function programPositions(runs: readonly RunRecords[], abstraction: Abstraction): Map<string, PositionRange[][]> {
  const positions = new Map<string, PositionRange[][]>();
  for (const run of runs) {
    const list = positions.get(run.program) ?? [];
    list.push(runPositions(run, abstraction));
    positions.set(run.program, list);
  }
  return positions;
}

/** The whole-run positions the samples of `run` may take (storedPositions), counted in its records (seq = index). */
function runPositions(run: RunRecords, abstraction: Abstraction): PositionRange[] {
  const events = (from: number, to = run.records.length): number => {
    let n = 0;
    for (let i = from; i < to; i++) if (isEventType(run.records[i].kind)) n++;
    return n;
  };
  return storedPositions(abstraction, events(0), run.excerpt?.windows, events);
}

const EVENT_INDEX: Readonly<Record<EventType, number>> = {
  GoCreate: 0,
  GoStart: 1,
  GoBlock: 2,
  GoUnblock: 3,
  GoSched: 4,
  GoEnd: 5,
};

/**
 * Merges per-program state lists (each from statesFromRuns over one program's runs) into
 * what statesFromRuns over all those runs returns: identical for per-program abstractions,
 * summed counts and runs for pooled ones, with the representative of the first program by name.
 */
export function poolStates(perProgram: readonly (readonly State[])[]): State[] {
  const byId = new Map<string, State>();
  const lists = [...perProgram]
    .filter((l) => l.length > 0)
    .sort((a, b) => (a[0].program < b[0].program ? -1 : a[0].program > b[0].program ? 1 : 0));
  for (const list of lists) {
    for (const state of list) {
      const seen = byId.get(state.id);
      byId.set(
        state.id,
        seen === undefined
          ? state
          : { ...seen, counts: addCounts(seen.counts, state.counts) as EventCounts, runs: seen.runs + state.runs },
      );
    }
  }
  return [...byId.values()];
}

/** The full Sample of a SampleRow, its prefix sharing the run's records (no copy). */
export function sampleOf(row: SampleRow, run: RunRecords): Sample {
  return { stateId: row.stateId, next: row.next, prefix: prefixAt(run, row.end) };
}
