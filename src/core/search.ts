// Binary search over sorted numbers (pure): where a value would go.

/** The number of entries of the ascending `sorted` below `value` (the first index whose entry is ≥ value). */
export function lowerBound(sorted: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
