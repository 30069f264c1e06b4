// The ceilings of a set of states (docs/dataset.md): what always predicting each state's mode of p̂
// would score, in-sample and leave-one-run-out, and how many states were seen only once.
// Pure: counts in, numbers out; an empty input gives NaN, never a guess.

/**
 * The in-sample ceiling: Σ_states max(counts) / Σ_states Σ counts, the accuracy of always
 * predicting each state's mode on the samples that built its counts. No predictor that gives
 * one label per state can beat it there, but it is optimistic: a state seen once scores 1.
 *
 * @param counts empirical next-event counts per state
 * @example ceilingAccuracy([[3, 1], [0, 2]]) // => 5 / 6
 */
export function ceilingAccuracy(counts: readonly (readonly number[])[]): number {
  let top = 0;
  let total = 0;
  for (const row of counts) {
    top += row.length === 0 ? 0 : Math.max(...row);
    for (const c of row) total += c;
  }
  return total === 0 ? NaN : top / total;
}

/** One sample as the leave-one-run-out ceiling needs it. */
export interface CeilingSample {
  /** Index of the sample's state. */
  readonly state: number;
  /** The run the sample came from. */
  readonly run: number;
  /** Class index of its next event. */
  readonly observed: number;
}

/**
 * The leave-one-run-out ceiling: the mean credit, over samples, of predicting the mode of the
 * sample's state counted without the sample's own run (a tie of m modes earns 1/m), and
 * `fallback` (the training majority class) for a state no other run reached. It estimates
 * what a predictor that knew each state's distribution only from other runs could score, so
 * it is not inflated by states seen once (in-sample ceiling 1) or by few runs (a 50/50 state
 * seen 5 times has in-sample ceiling ≥ 0.6).
 *
 * Example: a state seen as Start in runs 1 and 2 and as Block in run 3 gives run 1 the
 * others' {Start: 1, Block: 1} (a tie, credit ½), run 2 likewise ½, run 3 {Start: 2} (credit 0):
 * (½ + ½ + 0) / 3 = 1/3, where the in-sample ceiling is 2/3.
 *
 * @param samples every sample, with its state, run and observed class
 * @param classes number of classes
 * @param fallback class predicted when no other run saw the state
 * @example leaveOneRunOutCeiling([{state: 0, run: 1, observed: 0}, {state: 0, run: 2, observed: 0}, {state: 0, run: 3, observed: 1}], 2, 0) // => 1 / 3
 */
export function leaveOneRunOutCeiling(samples: readonly CeilingSample[], classes: number, fallback: number): number {
  if (samples.length === 0) return NaN;
  const totals = new Map<number, Float64Array>();
  const perRun = new Map<string, Float64Array>();
  const tally = (map: Map<number | string, Float64Array>, key: number | string, observed: number): void => {
    let v = map.get(key);
    if (v === undefined) map.set(key, (v = new Float64Array(classes)));
    v[observed]! += 1;
  };
  for (const s of samples) {
    tally(totals as Map<number | string, Float64Array>, s.state, s.observed);
    tally(perRun as Map<number | string, Float64Array>, `${s.state}:${s.run}`, s.observed);
  }
  const others = new Float64Array(classes);
  let credit = 0;
  for (const s of samples) {
    const all = totals.get(s.state)!;
    const own = perRun.get(`${s.state}:${s.run}`)!;
    let max = 0;
    for (let c = 0; c < classes; c++) {
      others[c] = all[c]! - own[c]!;
      if (others[c]! > max) max = others[c]!;
    }
    if (max === 0) {
      credit += s.observed === fallback ? 1 : 0;
      continue;
    }
    let modes = 0;
    for (let c = 0; c < classes; c++) if (others[c] === max) modes++;
    if (others[s.observed] === max) credit += 1 / modes;
  }
  return credit / samples.length;
}

/** How sparse the counts are: states with exactly one sample, and the samples they hold. */
export interface SeenOnce {
  /** Share of the states (with at least one sample) that have exactly one sample. */
  readonly states: number;
  /** Share of all samples that are in such states. */
  readonly samples: number;
}

/**
 * The share of states seen once, and of samples in them; NaN for no samples.
 *
 * @example seenOnceShare([[1, 0], [2, 1], [0, 1]]) // => { states: 2 / 3, samples: 2 / 5 }
 */
export function seenOnceShare(counts: readonly (readonly number[])[]): SeenOnce {
  let states = 0;
  let once = 0;
  let samples = 0;
  for (const row of counts) {
    const n = row.reduce((a, b) => a + b, 0);
    if (n === 0) continue;
    states++;
    samples += n;
    if (n === 1) once++;
  }
  return states === 0 ? { states: NaN, samples: NaN } : { states: once / states, samples: once / samples };
}
