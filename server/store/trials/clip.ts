import type { TrialClip } from '../../../contract/trials/clip';
import type { ServedStimulus } from '.';

/**
 * Where a listener fetches a stimulus's clip, every kind alike: by the served copy's opaque id only
 * (docs/blinding.md); `replay`: from the clip's replay, for a stimulus played again as an unknown.
 */
export function trialClip(stimulus: ServedStimulus, replay = false): TrialClip {
  const { id, duration } = (replay ? stimulus.replay : stimulus.served)!;
  const media = `/media/clips/${encodeURIComponent(id)}`;
  return { id, audioUrl: `${media}/audio`, peaksUrl: `${media}/peaks`, duration };
}
