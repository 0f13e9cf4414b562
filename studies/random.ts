/**
 * Seeded pseudo-random numbers for everything a study draws (item sampling, trial order,
 * caption order): the same seed must give the same study, on any machine, forever, so the
 * generator is spelled out here rather than left to Math.random.
 *
 * sfc32 (Chris Doty-Humphrey's Small Fast Counter) seeded through a 32-bit string hash
 * (cyrb-style mixing); period ≥ 2^32, plenty for shuffles of a few thousand elements.
 */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** A new array with the elements in random order (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[];
}

function hash32(text: string, salt: number): number {
  let h = 0x9e3779b9 ^ salt;
  for (let i = 0; i < text.length; i++) {
    h = Math.imul(h ^ text.charCodeAt(i), 0x85ebca6b);
    h = (h << 13) | (h >>> 19);
  }
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A generator determined by `seed` and any further parts (e.g. a listener id). */
export function createRandom(seed: number | string, ...parts: (number | string)[]): Random {
  const key = [seed, ...parts].map(String).join('\u0000');
  let a = hash32(key, 1);
  let b = hash32(key, 2);
  let c = hash32(key, 3);
  let d = 1;
  const next = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  // The first outputs of a freshly keyed sfc32 are poorly mixed; discard them.
  for (let i = 0; i < 12; i++) next();
  const int = (n: number): number => Math.floor(next() * n);
  return {
    next,
    int,
    shuffle<T>(items: readonly T[]): T[] {
      const out = items.slice();
      for (let i = out.length - 1; i > 0; i--) {
        const j = int(i + 1);
        [out[i], out[j]] = [out[j], out[i]];
      }
      return out;
    },
  };
}
