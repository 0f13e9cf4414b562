/**
 * Integrated loudness, ITU-R BS.1770-4 (also -5), in LUFS (= LKFS).
 *
 * 1. K-weighting per channel: a high-shelf "pre-filter" (+4 dB above ~1.5 kHz, the head's effect)
 *    then the RLB high-pass (~38 Hz). The standard tabulates both biquads at 48 kHz only; for other
 *    rates the same analogue prototypes are mapped with the bilinear transform (f0, gain and Q as
 *    used by libebur128 and pyloudnorm), which reproduces the 48 kHz table to ~1e-12.
 * 2. Gating blocks of 400 ms overlapping by 75 % (a new block every 100 ms); for block j and
 *    channel i, z_ij = mean of the K-weighted y_i² over the block.
 * 3. Block loudness l_j = −0.691 + 10·log10( Σ_i G_i·z_ij ), G_i = 1 for every channel here
 *    (L, R, C; the standard's 1.41 for surround channels and exclusion of LFE need a channel layout
 *    that WAV/FLAC clips of speech corpora do not declare).
 * 4. Absolute gate: keep blocks with l_j > −70 LKFS. Relative gate: Γ_r = (loudness of those
 *    blocks) − 10 LU; keep blocks with l_j > Γ_r.
 * 5. L_K = −0.691 + 10·log10( mean over kept blocks of Σ_i G_i·z_ij ).
 *
 * Known values (tests): a 0 dBFS 997 Hz sine in one channel reads −3.01 LKFS (BS.1770-4 §2.1, so a
 * −20 dBFS sine reads −23.01); EBU Tech 3341 cases 1, 2, 3 and 5 (stereo 1 kHz at −23 / −33 dBFS;
 * with −36 dBFS lead-in and -out that the relative gate drops; −26/−20/−26 dBFS) all read −23.0 or −33.0.
 *
 * Edge cases: a mono file is one channel (it is not assumed to play from two loudspeakers, which
 * would read +3 dB); a clip shorter than one 400 ms block is measured as one block over all of it;
 * digital silence, or a clip entirely below the −70 LKFS absolute gate, has no level: null.
 */
const ABSOLUTE_GATE = -70;
const RELATIVE_GATE = -10;
const BLOCK_SECONDS = 0.4;
const STEP_SECONDS = 0.1;

type Biquad = { b0: number; b1: number; b2: number; a1: number; a2: number };

/** The two K-weighting stages at `sampleRate`. */
export function kWeighting(sampleRate: number): [Biquad, Biquad] {
  let K = Math.tan((Math.PI * 1681.974450955533) / sampleRate);
  const Vh = 10 ** (3.999843853973347 / 20);
  const Vb = Vh ** 0.4996667741545416;
  let Q = 0.7071752369554196;
  let a0 = 1 + K / Q + K * K;
  const shelf = { b0: (Vh + (Vb * K) / Q + K * K) / a0, b1: (2 * (K * K - Vh)) / a0, b2: (Vh - (Vb * K) / Q + K * K) / a0, a1: (2 * (K * K - 1)) / a0, a2: (1 - K / Q + K * K) / a0 };
  K = Math.tan((Math.PI * 38.13547087602444) / sampleRate);
  Q = 0.5003270373238773;
  a0 = 1 + K / Q + K * K;
  const highPass = { b0: 1, b1: -2, b2: 1, a1: (2 * (K * K - 1)) / a0, a2: (1 - K / Q + K * K) / a0 };
  return [shelf, highPass];
}

/** K-weighted squares of one channel: y[n]² after both stages (direct form I, double precision). */
function weightedSquares(x: Float32Array, [s, h]: [Biquad, Biquad]): Float64Array {
  const out = new Float64Array(x.length);
  let x1 = 0, x2 = 0, y1 = 0, y2 = 0, z1 = 0, z2 = 0;
  for (let n = 0; n < x.length; n++) {
    const v = x[n];
    const y = s.b0 * v + s.b1 * x1 + s.b2 * x2 - s.a1 * y1 - s.a2 * y2;
    const z = h.b0 * y + h.b1 * y1 + h.b2 * y2 - h.a1 * z1 - h.a2 * z2;
    x2 = x1; x1 = v; y2 = y1; y1 = y; z2 = z1; z1 = z;
    out[n] = z * z;
  }
  return out;
}

/** Integrated loudness in LUFS, rounded to 0.01; null when nothing passes the absolute gate. */
export function integratedLoudness(channels: Float32Array[], sampleRate: number): number | null {
  const frames = channels[0]?.length ?? 0;
  if (frames === 0) return null;
  const stages = kWeighting(sampleRate);
  // Σ_i G_i·y_i² per sample, as a prefix sum so each block's mean is two lookups.
  const prefix = new Float64Array(frames + 1);
  for (const channel of channels) {
    const sq = weightedSquares(channel, stages);
    for (let n = 0; n < frames; n++) prefix[n + 1] += sq[n];
  }
  for (let n = 0; n < frames; n++) prefix[n + 1] += prefix[n];
  const block = Math.round(BLOCK_SECONDS * sampleRate);
  const step = Math.round(STEP_SECONDS * sampleRate);
  const powers: number[] = [];
  if (frames < block) powers.push(prefix[frames] / frames);
  else for (let start = 0; start + block <= frames; start += step) powers.push((prefix[start + block] - prefix[start]) / block);
  const loudness = (p: number) => -0.691 + 10 * Math.log10(p);
  const mean = (ps: number[]) => ps.reduce((a, b) => a + b, 0) / ps.length;
  const absolute = powers.filter((p) => p > 0 && loudness(p) > ABSOLUTE_GATE);
  if (absolute.length === 0) return null;
  const relativeGate = loudness(mean(absolute)) + RELATIVE_GATE;
  const gated = absolute.filter((p) => loudness(p) > relativeGate);
  return Math.round(loudness(mean(gated)) * 100) / 100;
}
