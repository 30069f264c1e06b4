// A small seeded PRNG (sfc32 seeded through splitmix32) so training is reproducible
// bit for bit: the same seed and data give identical weights on every machine.

/** A source of uniform numbers in [0, 1). */
export interface Random {
  next(): number;
}

/** Returns a deterministic generator for `seed` (any finite number; the integer part is used). */
export function seededRandom(seed: number): Random {
  let s = (Math.trunc(seed) ^ 0x9e3779b9) >>> 0;
  const splitmix = (): number => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = splitmix();
  let b = splitmix();
  let c = splitmix();
  let d = splitmix();
  const next = (): number => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  return { next };
}

/** Fisher–Yates shuffle of `items` in place using `random`. */
export function shuffleInPlace<T>(items: T[] | Int32Array, random: Random): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random.next() * (i + 1));
    const t = items[i];
    items[i] = items[j];
    items[j] = t;
  }
}
