import { perConnection, type Db } from '../db/open';

/** One rendition: system `system`'s audio of utterance `utteranceId`, played from clip `clipId`. */
export interface Rendition {
  utteranceId: string;
  system: string;
  clipId: string;
}

/**
 * The SQL of renditions (system audio of an utterance), all of it. A rendition's clip is an ordinary
 * clips row (corpus 'rendition', or a corpus clip a system folder points to), so it is decoded,
 * served and blinded like every clip; this table only says whose audio of which utterance it is.
 * A system's degraded copies (`degraded:<system>`, degrade.ts) and MUSHRA anchors (`anchor35:<system>`,
 * anchors.ts) are renditions too: `find` and `ofSystem`
 * answer for them; `systemsOf`, `perSystem` and `count` list the systems that were imported, not them.
 */
function createRenditionStore(db: Db) {
  // Systems whose audio was imported: not the derived `degraded:<system>`, `anchor35:<system>`, … (real names hold no ':').
  const imported = `instr(system, ':') = 0`;
  const find = db.prepare<[string, string], string>('SELECT clip_id FROM renditions WHERE utterance_id = ? AND system = ?').pluck();
  const systemsOf = db.prepare<[string], string>(`SELECT system FROM renditions WHERE utterance_id = ? AND ${imported} ORDER BY system`).pluck();
  const ofSystem = db.prepare<[string], Rendition>(
    'SELECT utterance_id AS utteranceId, system, clip_id AS clipId FROM renditions WHERE system = ? ORDER BY utterance_id',
  );
  const ofClip = db.prepare<[string], Rendition>(
    'SELECT utterance_id AS utteranceId, system, clip_id AS clipId FROM renditions WHERE clip_id = ? ORDER BY system, utterance_id',
  );
  const perSystem = db.prepare<[], { system: string; renditions: number }>(
    `SELECT system, count(*) AS renditions FROM renditions WHERE ${imported} GROUP BY system ORDER BY system`,
  );
  const upsert = db.prepare<[string, string, string]>(`
    INSERT INTO renditions (utterance_id, system, clip_id) VALUES (?, ?, ?)
    ON CONFLICT (utterance_id, system) DO UPDATE SET clip_id = excluded.clip_id`);
  // What a rendition file may be matched to: every utterance, with the file name of its own clip.
  const utterances = db.prepare<[], { id: string; clipPath: string | null }>(
    'SELECT u.id, c.path AS clipPath FROM utterances u LEFT JOIN clips c ON c.id = u.clip_id ORDER BY u.id',
  );
  const clipAtPath = db.prepare<[string], { id: string; corpus: string }>('SELECT id, corpus FROM clips WHERE abs_path = ?');

  return {
    /** The clip of system's rendition of the utterance, or null when it has none. */
    find: (utteranceId: string, system: string): string | null => find.get(utteranceId, system) ?? null,
    /** The (imported) systems that have a rendition of the utterance. */
    systemsOf: (utteranceId: string): string[] => systemsOf.all(utteranceId),
    /** Every rendition of a system, by utterance id. */
    ofSystem: (system: string): Rendition[] => ofSystem.all(system),
    /** The renditions a clip plays (for `show`). */
    ofClip: (clipId: string): Rendition[] => ofClip.all(clipId),
    /** How many renditions each imported system has (the manifest report). */
    perSystem: () => perSystem.all(),
    /** Renditions of imported systems in all, and over how many systems. */
    count(): { renditions: number; systems: number } {
      const rows = perSystem.all();
      return { renditions: rows.reduce((n, r) => n + r.renditions, 0), systems: rows.length };
    },
    /** Writes (or repoints) system's rendition of the utterance; true when the row is new or changed. */
    upsert(utteranceId: string, system: string, clipId: string): boolean {
      if (find.get(utteranceId, system) === clipId) return false;
      upsert.run(utteranceId, system, clipId);
      return true;
    },
    utterances: () => utterances.all(),
    /** The clip already imported from this file, if any (a corpus clip may be a system's rendition too). */
    clipAtPath: (absPath: string) => clipAtPath.get(absPath),
  };
}
export type RenditionStore = ReturnType<typeof createRenditionStore>;

/** The renditions repository on this connection. */
export const renditionStore: (db: Db) => RenditionStore = perConnection(createRenditionStore);
