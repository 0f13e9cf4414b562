/**
 * Seeded pseudo-random numbers: the one generator of the project. A seed must reproduce a study
 * (item sampling, trial order, caption orientation) and an analysis (simulator, bootstrap) exactly,
 * on any machine, forever, so the generator is spelled out here rather than left to Math.random
 * (which cannot be seeded). It lives in analysis/ because analysis/ imports nothing; studies/ may
 * import it.
 *
 * sfc32 (Chris Doty-Humphrey's Small Fast Counter, PractRand-tested; period ≥ 2^32, plenty for
 * shuffles and bootstraps of millions of draws). Two ways to key it: a number through splitmix32
 * (seededRandom), or a seed plus any parts such as a listener id through a 32-bit string hash
 * (keyedRandom). The first outputs of a freshly keyed sfc32 are poorly mixed; both discard 12.
 */

/** Uniform in [0, 1). */
export type Random = () => number;

/** A keyed generator with the draws a study needs. */
export interface StudyRandom {
  /** Uniform in [0, 1). */
  next: Random;
  /** Uniform integer in [0, n). */
  int(n: number): number;
  /** A new array with the elements in random order (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[];
}

function sfc32(a: number, b: number, c: number, d: number): Random {
  const next = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  return next;
}

/** A generator determined by one number (the simulator's and the bootstrap's `--seed`). */
export function seededRandom(seed: number): Random {
  let s = seed >>> 0;
  const splitmix = () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  const a = splitmix();
  const b = splitmix();
  const c = splitmix();
  // The counter steps before its first use here, after it in sfc32(): start it one further on.
  return sfc32(a, b, c, (splitmix() + 1) | 0);
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

/** A generator determined by `seed` and any further parts (e.g. a listener id): a study's draws. */
export function keyedRandom(seed: number | string, ...parts: (number | string)[]): StudyRandom {
  const key = [seed, ...parts].map(String).join('\u0000');
  const next = sfc32(hash32(key, 1), hash32(key, 2), hash32(key, 3), 1);
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

/** Standard normal draw by the Box–Muller transform. */
export function normal(random: Random): number {
  let u = 0;
  while (u === 0) u = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}
