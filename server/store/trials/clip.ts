import type { TrialClip } from '../../../contract/trials/clip';

/** Where a listener fetches a trial's clip, every kind alike: by the served copy's opaque id only (docs/blinding.md). */
export function trialClip(item: { clip_id: string; duration: number }): TrialClip {
  const media = `/media/clips/${encodeURIComponent(item.clip_id)}`;
  return { id: item.clip_id, audioUrl: `${media}/audio`, peaksUrl: `${media}/peaks`, duration: item.duration };
}
