// The top label of a probability (or count) vector: the index of its largest entry.

/**
 * Index of the largest entry; ties go to the lowest index, so the result is
 * deterministic (in EVENT_TYPES order, GoCreate wins a tie with GoStart).
 *
 * @param vector probabilities or counts, at least one entry
 * @returns index of the first maximum
 * @example topLabel([0.2, 0.5, 0.3]) // => 1
 * @example topLabel([0.5, 0.5]) // => 0
 */
export function topLabel(vector: readonly number[]): number {
  if (vector.length === 0) throw new RangeError("topLabel needs at least one entry");
  let best = 0;
  for (let k = 1; k < vector.length; k++) if (vector[k]! > vector[best]!) best = k;
  return best;
}

/**
 * Every index that attains the maximum (the modes of a count vector).
 *
 * @example modeLabels([3, 1, 3]) // => [0, 2]
 */
export function modeLabels(vector: readonly number[]): number[] {
  if (vector.length === 0) throw new RangeError("modeLabels needs at least one entry");
  const max = Math.max(...vector);
  const modes: number[] = [];
  vector.forEach((value, k) => {
    if (value === max) modes.push(k);
  });
  return modes;
}

/** Entries within this of the maximum tie with it (float rounding of equal weights). */
export const TIE_TOLERANCE = 1e-12;

/**
 * Every index whose entry ties with the maximum (within TIE_TOLERANCE): the labels a
 * prediction does not decide between. Scores give each a share 1/m of a tie of m labels.
 *
 * @example topLabels([0.4, 0.2, 0.4]) // => [0, 2]
 * @example topLabels([1 / 6, 1 / 6, 1 / 6, 1 / 6, 1 / 6, 1 / 6]).length // => 6
 */
export function topLabels(vector: readonly number[]): number[] {
  if (vector.length === 0) throw new RangeError("topLabels needs at least one entry");
  let max = vector[0]!;
  for (const v of vector) if (v > max) max = v;
  const labels: number[] = [];
  vector.forEach((v, k) => {
    if (v >= max - TIE_TOLERANCE) labels.push(k);
  });
  return labels;
}
