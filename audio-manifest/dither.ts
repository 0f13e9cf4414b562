/**
 * Re-quantisation to 16-bit PCM with TPDF dither.
 *
 * Formula: q = clamp(round(x·32768 + d)), d = u₁ − u₂ with u₁, u₂ independent uniform on [0, 1):
 * triangular probability density on (−1, 1) LSB, the dither that makes the quantisation error's
 * mean and variance independent of the signal (Lipshitz, Wannamaker & Vanderkooy, "Quantization and
 * dither: a theoretical survey", JAES 40(5), 1992; also AES17). Adds 1/6 LSB² of noise over the
 * 1/12 LSB² of plain rounding: about −101 dBFS in total for 16 bits.
 *
 * Reproducible: the noise comes from mulberry32 seeded with the caller's 32-bit seed (the served
 * copy passes bits of its source's sha256), so the same source and settings give the same bytes.
 *
 * Edge cases: a clip already on the 16-bit grid at its gain (`onPcm16Grid`: a 16-bit source played
 * at unity gain) is not re-quantised at all, so the caller passes no seed and it is copied exactly.
 * Values are clamped to [−32768, 32767].
 */
const PCM_SCALE = 32768;

/** mulberry32: a small, fast, well-mixed 32-bit generator; uniform on [0, 1). Also the degraded copies' noise (degrade.ts). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Quantises channels × gain to interleaved 16-bit samples; TPDF-dithered when `seed` is given. */
export function toPcm16(channels: Float32Array[], gain: number, seed: number | null): Int16Array {
  const frames = channels[0]?.length ?? 0;
  const count = channels.length;
  const pcm = new Int16Array(frames * count);
  const random = seed === null ? null : mulberry32(seed);
  for (let i = 0; i < frames; i++) {
    for (let c = 0; c < count; c++) {
      const d = random ? random() - random() : 0;
      pcm[i * count + c] = Math.max(-PCM_SCALE, Math.min(PCM_SCALE - 1, Math.round(channels[c][i] * gain * PCM_SCALE + d)));
    }
  }
  return pcm;
}

/** True when every sample × gain lies on the 16-bit grid already, so re-quantising changes nothing. */
export function onPcm16Grid(channels: Float32Array[], gain: number): boolean {
  return channels.every((channel) => channel.every((v) => Number.isInteger(v * gain * PCM_SCALE)));
}
