import type { VoteBody } from '../../../contract/listener';
import { invalidRequest } from '../../errors';

/**
 * A vote's per-stimulus listening record checked against the trial that plays `clips` clips, for
 * every kind alike: a trial of one clip sends none (its record is the totals); a trial of several
 * sends one entry per clip in screen order, and the vote's totals must be theirs (plays and seconds
 * summed — to the millisecond the browser rounds them to —, heard to end when every one was), so the export's play_count, seconds_listened and
 * heard_to_end mean the same in every kind. Throws a 400 naming `listening`.
 */
/** The browser sends secondsListened rounded to the millisecond (client/listener/players/multiPlayer.ts). */
const SECONDS_TOLERANCE = 0.001;

export function checkListening(vote: VoteBody, clips: number): void {
  const entries = vote.listening;
  if (clips <= 1) {
    if (entries) throw invalidRequest('listening', 'this trial plays one clip: send its record in playCount, secondsListened and heardToEnd, without listening');
    return;
  }
  if (!entries) throw invalidRequest('listening', `this trial plays ${clips} versions: send listening, one record for each in the order the trial lists them`);
  if (entries.length !== clips) throw invalidRequest('listening', `this trial plays ${clips} versions: send one listening record for each (${entries.length} sent)`);
  const plays = entries.reduce((n, e) => n + e.plays, 0);
  const seconds = entries.reduce((n, e) => n + e.secondsHeard, 0);
  const toEnd = entries.every((e) => e.heardToEnd);
  if (plays !== vote.playCount || Math.abs(seconds - vote.secondsListened) > SECONDS_TOLERANCE || toEnd !== vote.heardToEnd) {
    throw invalidRequest(
      'listening',
      `the totals must be the records' own: playCount ${plays}, secondsListened ${seconds}, heardToEnd ${toEnd} (sent ${vote.playCount}, ${vote.secondsListened}, ${vote.heardToEnd})`,
    );
  }
}
