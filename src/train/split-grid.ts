// Training rows for the `split` abstraction at more points than it is scored at (pure). A
// split state is (program, p %): each run's prefix before its event ⌊n·p/100⌋, p̂ pooled over
// the program's runs. Scored at 25/50/75 % only, it gives three rows per program; the same
// question asked at 5, 10, …, 95 % gives nineteen, with exactly the same meaning (one prompt
// per group from the lowest run id, p̂ from every run), so the student learns what pooling runs
// at a relative position does to p̂ from six times the rows.

import {
  emptyCounts,
  eventSequence,
  inRunOrder,
  prefixAt,
  splitIndex,
  type Prefix,
  type RunRecords,
  type Sample,
  type State,
} from "../dataset/index.js";
import type { EventType } from "../core/index.js";

/** The points split states are trained at: every 5 % from 5 to 95 (25, 50 and 75 among them). */
export const SPLIT_GRID_POINTS: readonly number[] = Array.from({ length: 19 }, (_, i) => 5 * (i + 1));

/** The distinct runs behind `samples` (a prefix shares its run's records array). */
export function runsOfSamples(samples: readonly Sample[]): RunRecords[] {
  const byRecords = new Map<Prefix["records"], RunRecords>();
  for (const s of samples) {
    const p = s.prefix;
    if (!byRecords.has(p.records))
      byRecords.set(p.records, {
        program: p.program,
        runId: p.runId,
        procs: p.procs,
        records: p.records,
        goroutines: p.goroutines,
      });
  }
  return inRunOrder([...byRecords.values()]);
}

/**
 * States and samples of `runs` at every point of `points` (percent): per program and point,
 * counts over its runs, the representative from the lowest run id. Ids are "grid:" + program +
 * point; these states are training rows only, never stored or scored.
 */
export function splitGridStates(
  runs: readonly RunRecords[],
  points: readonly number[] = SPLIT_GRID_POINTS,
): { states: State[]; samples: Sample[] } {
  const ordered = inRunOrder(runs);
  const states = new Map<
    string,
    { counts: Record<EventType, number>; runs: number; representative: Prefix; key: string; program: string }
  >();
  const samples: Sample[] = [];
  for (const run of ordered) {
    const events = eventSequence(run.records);
    if (events.length === 0) continue;
    for (const percent of points) {
      const end = events[splitIndex(events.length, percent)];
      const next = run.records[end].kind as EventType;
      const id = `grid:${run.program}\0${percent}`;
      const prefix = prefixAt(run, end);
      let state = states.get(id);
      if (state === undefined)
        states.set(
          id,
          (state = {
            counts: emptyCounts(),
            runs: 0,
            representative: prefix,
            key: `split=${percent}`,
            program: run.program,
          }),
        );
      state.counts[next]++;
      state.runs++;
      samples.push({ stateId: id, prefix, next });
    }
  }
  return {
    states: [...states].map(([id, s]) => ({
      id,
      abstraction: "split",
      program: s.program,
      key: s.key,
      counts: s.counts,
      runs: s.runs,
      representative: s.representative,
      prefixHash: "",
    })),
    samples,
  };
}
