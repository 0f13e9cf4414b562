/**
 * Whole-clip RMS level, dBFS.
 *
 * Formula: L = 10·log10( Σ_c Σ_n x_c[n]² / (C·N) ) over every sample of every channel, samples in
 * [-1, 1) — so a full-scale square wave reads 0 dBFS and a full-scale sine −3.01 dBFS (the same
 * reference as dBov, ITU-T G.100.1). No frequency weighting, no gating: pauses count, so a clip with
 * long silences reads lower than it sounds.
 *
 * Edge cases: digital silence (every sample 0) has no level — null rather than −∞. Rounded to 0.01 dB.
 */
export function rmsDbfs(channels: Float32Array[]): number | null {
  let sum = 0;
  let count = 0;
  for (const channel of channels) {
    for (let i = 0; i < channel.length; i++) sum += channel[i] * channel[i];
    count += channel.length;
  }
  if (sum === 0) return null;
  return Math.round(10 * Math.log10(sum / count) * 100) / 100;
}
