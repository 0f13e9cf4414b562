/**
 * MUSHRA's low-pass anchors (ITU-R BS.1534-3 §5.1, analysis-spec §5.3): the 3.5 kHz anchor
 * (`anchor35`) and the 7 kHz anchor (`anchor70`), made from the reference system's rendition.
 *
 * The filter is a linear-phase FIR, a windowed sinc with a Kaiser window (Kaiser's design formulas,
 * Oppenheim & Schafer §7.6): the ideal low-pass cut at the middle of the transition band, windowed so
 * that everything beyond the band is at least `STOPBAND_DB` down. Each anchor's band:
 *
 * | anchor | passband to | −6 dB at | stopband from | BS.1534-3's mask (3.5 kHz anchor) / its scaling ×2 (7 kHz) |
 * |---|---|---|---|---|
 * | anchor35 | 3.0 kHz | 3.5 kHz | 4.0 kHz | ≥ 25 dB at 4 kHz, ≥ 50 dB at 4.5 kHz |
 * | anchor70 | 6.0 kHz | 7.0 kHz | 8.0 kHz | ≥ 25 dB at 8 kHz, ≥ 50 dB at 9 kHz |
 *
 * With a 65 dB design the stopband is ≥ 60 dB down from its edge on, so both points of each mask are
 * met with room (anchors.test.ts measures it: white noise through the filter, Welch spectrum by FFT).
 * The passband ripple is below 0.01 dB. A window rather than cascaded IIR sections because the
 * anchors must not smear the signal's time structure differently from the reference: the FIR's delay,
 * (taps − 1)/2 samples, is the same at every frequency and is removed, so the anchor lines up with the
 * reference sample for sample (the listener switches between them at the same position).
 *
 * Level: the anchor is brought to the source's RMS (degrade.ts atLevelOf, peak ≤ −1 dBFS); served
 * copies are loudness-aligned again by the study's measure like every clip (served.ts).
 * A sample rate whose Nyquist frequency is at or below an anchor's −6 dB point has nothing there to
 * remove: that anchor is the source, re-levelled.
 */
import { atLevelOf, cleanSystemOf, type Pcm } from './degrade';

export type AnchorRole = 'anchor35' | 'anchor70';

/** Each anchor's nominal cutoff (−6 dB) and transition width, Hz. */
export const ANCHORS: Record<AnchorRole, { cutoffHz: number; transitionHz: number }> = {
  anchor35: { cutoffHz: 3500, transitionHz: 1000 },
  anchor70: { cutoffHz: 7000, transitionHz: 2000 },
};
export const ANCHOR_ROLES = Object.keys(ANCHORS) as AnchorRole[];
/** The Kaiser design's stopband attenuation, dB. */
export const STOPBAND_DB = 65;

/** The system name of a system's anchors: `anchor35:<system>` (real names hold no ':', renditions.ts). */
export const anchorSystem = (role: AnchorRole, system: string) => `${role}:${system}`;

/**
 * The system whose renditions a derived system's are made from — `degraded:<system>` (degrade.ts),
 * `anchor35:<system>`, `anchor70:<system>` — and what it is; null for a system of its own.
 */
export function derivedSystemOf(system: string): { source: string; copy: 'degraded' | AnchorRole } | null {
  const degraded = cleanSystemOf(system);
  if (degraded !== null) return { source: degraded, copy: 'degraded' };
  const role = ANCHOR_ROLES.find((r) => system.startsWith(`${r}:`));
  return role ? { source: system.slice(role.length + 1), copy: role } : null;
}

/** The zeroth-order modified Bessel function of the first kind, by its power series. */
function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  for (let k = 1; k < 60 && term > 1e-12 * sum; k++) {
    term *= (x / (2 * k)) ** 2;
    sum += term;
  }
  return sum;
}

/** The taps of a Kaiser-windowed sinc low-pass (odd length, symmetric, unit gain at 0 Hz). */
export function lowPassTaps(cutoffHz: number, transitionHz: number, sampleRate: number, stopbandDb = STOPBAND_DB): Float64Array {
  const beta = stopbandDb > 50 ? 0.1102 * (stopbandDb - 8.7) : stopbandDb >= 21 ? 0.5842 * (stopbandDb - 21) ** 0.4 + 0.07886 * (stopbandDb - 21) : 0;
  const order = Math.ceil((stopbandDb - 8) / (2.285 * ((2 * Math.PI * transitionHz) / sampleRate)));
  const m = order + (order % 2); // even order: odd length, an integer delay of m/2 samples
  const fc = cutoffHz / sampleRate;
  const taps = new Float64Array(m + 1);
  let sum = 0;
  for (let n = 0; n <= m; n++) {
    const t = n - m / 2;
    const sinc = t === 0 ? 2 * fc : Math.sin(2 * Math.PI * fc * t) / (Math.PI * t);
    const r = (2 * n) / m - 1;
    taps[n] = (sinc * besselI0(beta * Math.sqrt(1 - r * r))) / besselI0(beta);
    sum += taps[n];
  }
  for (let n = 0; n <= m; n++) taps[n] /= sum;
  return taps;
}

/** `channel` through the zero-delay FIR `taps` (odd length): same length, the filter's delay removed, zeros outside the clip. */
export function filtered(channel: Float32Array, taps: Float64Array): Float64Array {
  const half = (taps.length - 1) / 2;
  const out = new Float64Array(channel.length);
  for (let i = 0; i < channel.length; i++) {
    let acc = 0;
    const lo = Math.max(0, i + half - channel.length + 1);
    const hi = Math.min(taps.length - 1, i + half);
    for (let k = lo; k <= hi; k++) acc += taps[k] * channel[i + half - k];
    out[i] = acc;
  }
  return out;
}

/** The anchor `role` of `pcm` (file comment): low-passed, at the source's RMS. */
export function anchor(pcm: Pcm, role: AnchorRole): Float32Array[] {
  const { cutoffHz, transitionHz } = ANCHORS[role];
  if (cutoffHz >= pcm.sampleRate / 2) return atLevelOf(pcm.channels, pcm.channels.map((c) => Float64Array.from(c)));
  const taps = lowPassTaps(cutoffHz, transitionHz, pcm.sampleRate);
  return atLevelOf(pcm.channels, pcm.channels.map((c) => filtered(c, taps)));
}
