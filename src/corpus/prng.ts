// The corpus generator's random draws (integers, coin flips, picks) on the one seeded source,
// so a seed gives the same sequence on every platform and generated programs reproduce byte for byte.

import { seededRandom } from "../random.js";

/** A deterministic random source. Every draw advances the one 32-bit state. */
export interface Prng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both inclusive. Requires min <= max. */
  int(min: number, max: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T;
}

/** The corpus generator's draws on the project's one seeded source (src/random.ts, mulberry32). */
export function mulberry32(seed: number): Prng {
  const next = seededRandom(seed);
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new RangeError("pick from an empty list");
      return items[Math.floor(next() * items.length)];
    },
  };
}
