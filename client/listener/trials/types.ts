/**
 * One interface for every trial type (the jsPsych plugin idea): the session flow hands a trial
 * its `spec` and an environment, and the trial calls `finish` exactly once with the listener's
 * response. `finish` resolves with feedback to show (practice) or null; the trial then calls
 * `advance` when the listener may move on. A new kind (a 1–5 rating, an audio A/B) is one more
 * component with this signature plus one entry in the registry.
 */
import type { ComponentType } from 'react';
import type { VoteAck } from '../../../contract/listener';
import type { ListeningRequirement } from '../../../contract/study-definition';
import type { ListenerTrialSettings as TrialSettings } from '../../../contract/trials';
import type { ClipCache } from '../../lib/media';

/** Practice feedback as the server acknowledges it (a rating's also names the intended score). */
export type TrialFeedback = NonNullable<VoteAck['feedback']>;

export interface TrialEnv {
  /** Created and resumed on the listener's Start press (browsers keep audio silent until a gesture). */
  audio: AudioContext;
  clips: ClipCache;
  listening: ListeningRequirement;
  /** The study's question, in Markdown. */
  question: string;
  /** The study's `trial:` settings (for ratings: the scale every trial shows). */
  trial: TrialSettings;
  /** Offer an optional comment box on the trial (study.yaml trialComments); sent with the vote. */
  trialComments?: boolean;
}

export interface TrialProps<Spec, Response> {
  spec: Spec;
  env: TrialEnv;
  finish(response: Response): Promise<TrialFeedback | null>;
  advance(): void;
  /** What a screen reader says when the trial takes focus, e.g. "Trial 5 of 20" (the question follows). */
  label?: string;
  /**
   * The clip would not load or play even after "Try again": report it and move on (never a vote).
   * Absent where nothing is recorded (the studio's preview).
   */
  skip?(problem: TrialProblem): Promise<void>;
}

export interface TrialProblem {
  problem: 'load_failed' | 'play_failed';
  detail: string | null;
}

export type TrialComponent<Spec, Response> = ComponentType<TrialProps<Spec, Response>>;
