/**
 * Seeded pseudo-random numbers for the simulator and the bootstrap, so a seed reproduces a run
 * exactly. sfc32 (Chris Doty-Humphrey's "small fast counter", PractRand-tested) seeded through
 * splitmix32; Math.random cannot be seeded and simple-statistics only accepts a source.
 */
export type Random = () => number;

export function seededRandom(seed: number): Random {
  let s = seed >>> 0;
  const splitmix = () => {
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
  const next = () => {
    d = (d + 1) >>> 0;
    const t = (((a + b) >>> 0) + d) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  return next;
}

/** Standard normal draw by the Box–Muller transform. */
export function normal(random: Random): number {
  let u = 0;
  while (u === 0) u = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}
