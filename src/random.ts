// The one seeded random source of schedlab (mulberry32): bootstrap and permutation draws,
// rollouts, training shuffles and initial weights, and the corpus generator all take it, so
// the same seed gives the same numbers on every platform and Node version. Randomness is
// injected as a `() => number`, as simple-statistics does; its shuffle is the one used.

export { shuffleInPlace } from "simple-statistics";

/** A source of uniform numbers in [0, 1). */
export type RandomSource = () => number;

/**
 * mulberry32 seeded with the low 32 bits of `seed` (its integer part): a 32-bit generator,
 * uniform in [0, 1). Same seed, same sequence.
 *
 * @example const next = seededRandom(1); next() // => 0.6270739405881613
 */
export function seededRandom(seed: number): RandomSource {
  let state = Math.trunc(seed) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
