/**
 * Active speech level, ITU-T P.56 (12/2011) method B, in dBov — the level P.800 and P.808 listening
 * tests normalise speech to (commonly −26 dBov). Follows the reference implementation, the speech
 * voltmeter sv56 of ITU-T G.191's software tools.
 *
 * 1. Envelope: p[n] = g·p[n−1] + (1−g)·|x[n]|, q[n] = g·q[n−1] + (1−g)·p[n], g = exp(−1/(T·fs)),
 *    T = 0.03 s (two one-pole smoothers).
 * 2. Activity at each threshold c_j = 2^(j−15), j = 0…15 (every 6 dB from the 16-bit LSB to full
 *    scale): a sample counts as active for c_j when q[n] ≥ c_j, or for up to H = 0.2 s (hangover)
 *    after q last was; a_j = active samples.
 * 3. A_j = 10·log10(E / a_j) with E = Σ x² (the level over the active samples), C_j = 20·log10(c_j).
 *    The active level is where A − C = M = 15.9 dB: the first j with A_j − C_j ≤ M, linearly
 *    interpolated (in dB) between j−1 and j, as sv56's bin_interp does by bisection.
 * 4. Activity factor = E / (N·10^(A/10)), the share of the clip that is speech.
 *
 * dBov: 0 dBov is the RMS of a full-scale square wave, so for steady signals it equals this module's
 * sibling rms.ts (a full-scale sine: −3.01 dBov). Speech with pauses reads its level while talking,
 * not averaged with the pauses: a sentence with 50 % silence reads ~3 dB above its whole-clip RMS.
 *
 * Edge cases: the standard is for one channel; a multichannel clip is measured as its channels one
 * after another (energies and active samples summed). Digital silence: null. Should A − C stay above
 * M at every threshold with active samples (a clip so loud and so steady that even full scale is
 * 15.9 dB below its level cannot be made of samples in [−1, 1), so only as a guard), the level at the
 * highest such threshold is taken. Rounded to 0.01 dB.
 */
const TIME_CONSTANT = 0.03;
const HANGOVER = 0.2;
const MARGIN = 15.9;
const THRESHOLDS = Float64Array.from({ length: 16 }, (_, j) => 2 ** (j - 15));

export interface SpeechLevel {
  /** Active speech level, dBov. */
  level: number;
  /** Share of the samples counted as active speech, 0–1. */
  activity: number;
}

export function activeSpeechLevel(channels: Float32Array[], sampleRate: number): SpeechLevel | null {
  const g = Math.exp(-1 / (TIME_CONSTANT * sampleRate));
  const hangover = Math.floor(HANGOVER * sampleRate + 0.5);
  const active = new Float64Array(THRESHOLDS.length);
  let energy = 0;
  let samples = 0;
  for (const x of channels) {
    const hang = new Int32Array(THRESHOLDS.length).fill(hangover);
    let p = 0;
    let q = 0;
    for (let n = 0; n < x.length; n++) {
      const v = x[n];
      energy += v * v;
      p = g * p + (1 - g) * Math.abs(v);
      q = g * q + (1 - g) * p;
      for (let j = 0; j < THRESHOLDS.length; j++) {
        if (q >= THRESHOLDS[j]) {
          active[j]++;
          hang[j] = 0;
        } else if (hang[j] < hangover) {
          active[j]++;
          hang[j]++;
        }
      }
    }
    samples += x.length;
  }
  if (energy === 0) return null;
  const level = (j: number) => 10 * Math.log10(energy / active[j]);
  const threshold = (j: number) => 20 * Math.log10(THRESHOLDS[j]);
  let found: number | null = null;
  let last = 0;
  for (let j = 0; j < THRESHOLDS.length && active[j] > 0; j++) {
    last = j;
    const diff = level(j) - threshold(j);
    if (diff > MARGIN) continue;
    if (j === 0) found = level(0);
    else {
      const before = level(j - 1) - threshold(j - 1);
      const t = (before - MARGIN) / (before - diff);
      found = level(j - 1) + t * (level(j) - level(j - 1));
    }
    break;
  }
  const dbov = found ?? level(last);
  return { level: Math.round(dbov * 100) / 100, activity: Math.min(1, energy / (samples * 10 ** (dbov / 10))) };
}
