/**
 * The vote ids each listener has used, remembered by the vote writer: "a vote id names one answer
 * of one listener" (issue 20.7) is checked for every new vote, and a vote's id is in no index of
 * `votes` (migration 11 keeps one index per vote, the trial's), so asking the database means
 * reading every stored vote of the listener — 24 µs of the writer's CPU per vote in the ingest
 * bench, growing with the session's length (bench/README.md, "Round 4").
 *
 * What is remembered for a listener is a superset of the ids the database holds for it: it is read
 * from the database (inside the vote's transaction) the first time the listener is asked about, and
 * every vote the writer stores afterwards is added. Only the vote writer stores votes, so nothing
 * stored is missing from it; what may be in it and not in the database is a vote whose transaction
 * was rolled back (a failed commit). So "not remembered" is final, and "remembered" is confirmed by
 * the database before a vote is refused — the rare case of a vote id really sent twice.
 *
 * At most `maxIds` ids are kept, the listeners asked about least recently forgotten first; a
 * forgotten listener is read again on its next vote.
 */
export class UsedVoteIds {
  private readonly byListener = new Map<string, Set<string>>();
  private size = 0;

  constructor(
    /** The ids of every vote stored for the listener. */
    private readonly stored: (listenerId: string) => string[],
    /** Whether a vote of the listener is stored under this id. */
    private readonly isStored: (listenerId: string, voteId: string) => boolean,
    private readonly maxIds = 200_000,
  ) {}

  /** Whether the listener has a vote stored under `voteId`, as the database says. */
  used(listenerId: string, voteId: string): boolean {
    const ids = this.idsOf(listenerId);
    if (!ids.has(voteId)) return false;
    if (this.isStored(listenerId, voteId)) return true;
    // Added by a vote whose transaction did not commit.
    ids.delete(voteId);
    this.size--;
    return false;
  }

  /** Called after storing a vote under `voteId`. */
  add(listenerId: string, voteId: string): void {
    const ids = this.idsOf(listenerId);
    if (ids.has(voteId)) return;
    ids.add(voteId);
    this.size++;
  }

  private idsOf(listenerId: string): Set<string> {
    let ids = this.byListener.get(listenerId);
    if (ids) {
      // Most recently asked about last, so the Map's order is the order to forget in.
      this.byListener.delete(listenerId);
    } else {
      ids = new Set(this.stored(listenerId));
      this.size += ids.size;
    }
    this.byListener.set(listenerId, ids);
    for (const [oldest, forgotten] of this.byListener) {
      if (this.size <= this.maxIds || oldest === listenerId) break;
      this.byListener.delete(oldest);
      this.size -= forgotten.size;
    }
    return ids;
  }
}
