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
  return leaveOneRunOutCeilingOfColumns(
    {
      state: Float64Array.from(samples, (s) => s.state),
      run: Float64Array.from(samples, (s) => s.run),
      observed: Uint8Array.from(samples, (s) => s.observed),
    },
    classes,
    fallback,
  );
}

/** The samples leaveOneRunOutCeilingOfColumns reads, one entry per sample in each column. */
export interface CeilingColumns {
  readonly state: ArrayLike<number>;
  readonly run: ArrayLike<number>;
  /** Class index (< 256). */
  readonly observed: ArrayLike<number>;
}

/**
 * leaveOneRunOutCeiling of samples held as columns, in memory linear in the samples and
 * nothing per (state, run): the samples are visited in order of state and run, so a state's
 * counts and each of its runs' counts are running sums. The credits are added up in sample
 * order, so the result is the same to the last bit whatever the order of the samples.
 */
export function leaveOneRunOutCeilingOfColumns(columns: CeilingColumns, classes: number, fallback: number): number {
  const n = columns.state.length;
  if (n === 0) return NaN;
  const credit = leaveOneRunOutCredits(columns, classes, fallback);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += credit[i]!;
  return sum / n;
}

/**
 * Each sample's credit under the leave-one-run-out ceiling (its mean is the ceiling), in sample
 * order: a part of the samples (a family's, say) has its own ceiling as the mean of its credits.
 */
export function leaveOneRunOutCredits(columns: CeilingColumns, classes: number, fallback: number): Float64Array {
  const { state, run, observed } = columns;
  const n = state.length;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => state[a]! - state[b]! || run[a]! - run[b]!);
  const credit = new Float64Array(n);
  const all = new Float64Array(classes);
  const own = new Float64Array(classes);
  for (let from = 0; from < n;) {
    const s = state[order[from]!]!;
    let to = from;
    all.fill(0);
    for (; to < n && state[order[to]!] === s; to++) all[observed[order[to]!]!]! += 1;
    for (let first = from; first < to;) {
      const r = run[order[first]!]!;
      let last = first;
      own.fill(0);
      for (; last < to && run[order[last]!] === r; last++) own[observed[order[last]!]!]! += 1;
      // The mode of the other runs' counts is the same for every sample of this run in this state.
      let max = 0;
      for (let c = 0; c < classes; c++) max = Math.max(max, all[c]! - own[c]!);
      let modes = 0;
      for (let c = 0; c < classes; c++) if (all[c]! - own[c]! === max) modes++;
      for (let k = first; k < last; k++) {
        const i = order[k]!;
        const y = observed[i]!;
        credit[i] = max === 0 ? (y === fallback ? 1 : 0) : all[y]! - own[y]! === max ? 1 / modes : 0;
      }
      first = last;
    }
    from = to;
  }
  return credit;
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
