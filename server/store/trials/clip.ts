import type { TrialClip } from '../../../contract/trials/clip';
import type { ServedStimulus } from '.';

/** Where a listener fetches a stimulus's clip, every kind alike: by the served copy's opaque id only (docs/blinding.md). */
export function trialClip(stimulus: ServedStimulus): TrialClip {
  const { id, duration } = stimulus.served!;
  const media = `/media/clips/${encodeURIComponent(id)}`;
  return { id, audioUrl: `${media}/audio`, peaksUrl: `${media}/peaks`, duration };
}
