// A small seeded PRNG so bootstrap intervals are reproducible run to run.

/**
 * mulberry32: a 32-bit generator, uniform in [0, 1). Same seed, same sequence.
 *
 * @example const next = seededRandom(1); next() // => 0.6270739405881613
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
