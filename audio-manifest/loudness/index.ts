/**
 * A clip's level by the measure a study chose (contract LOUDNESS_MEASURES): one module per measure,
 * each documenting its formula, source and edge cases.
 */
import { LOUDNESS_MEASURES, type LoudnessMeasure } from '../../contract/study-definition';
import { integratedLoudness } from './bs1770';
import { activeSpeechLevel } from './p56';
import { rmsDbfs } from './rms';

export { integratedLoudness } from './bs1770';
export { activeSpeechLevel } from './p56';
export { rmsDbfs } from './rms';

/** The level in the measure's unit; null for silence (or, for BS.1770, nothing above the −70 LKFS gate). */
export function measureLevel(measure: LoudnessMeasure, channels: Float32Array[], sampleRate: number): number | null {
  if (measure === 'integrated') return integratedLoudness(channels, sampleRate);
  if (measure === 'speech-level') return activeSpeechLevel(channels, sampleRate)?.level ?? null;
  return rmsDbfs(channels);
}

export const unitOf = (measure: LoudnessMeasure): string => LOUDNESS_MEASURES[measure].unit;

/** "-26 dBov active speech level (ITU-T P.56 method B)" */
export const describeTarget = (measure: LoudnessMeasure, target: number): string => `${target} ${unitOf(measure)} ${LOUDNESS_MEASURES[measure].name}`;
