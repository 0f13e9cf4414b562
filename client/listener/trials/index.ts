import type { Trial } from '../../../contract/listener';
import { PairTrial, type PairResponse } from './PairTrial';
import { ScreeningTrial } from './ScreeningTrial';
import type { TrialComponent } from './types';

/**
 * Trial kinds the server can send, each mapped to its component. Attention checks arrive as
 * 'pair' (the listener must not be able to tell them apart); practice is a pair with feedback.
 */
export const trialTypes: { [K in Trial['kind']]: TrialComponent<Trial, PairResponse> } = {
  pair: PairTrial,
  practice: PairTrial,
};

export { ScreeningTrial };
export type { PairResponse };
