/**
 * What an item is made of, for every trial kind alike (db migration 15): a list of stimuli in the
 * item's own order. A stimulus fills a slot of its kind's trial (a caption pair's `a` and `b`, a
 * rating's `a`, an A/B's two renditions) with a role the kind names, the clip it plays (null for a
 * text-only stimulus), the system it stands for and the text it shows (null: none). The core
 * stores, serves and exports stimuli without knowing what any role means.
 */
export interface Stimulus {
  slot: string;
  role: string;
  clip: string | null;
  system: string | null;
  text: string | null;
}

/** One stimulus, keys in the stored order (a rebuild compares stored and planned items as JSON). */
export const stimulus = (slot: string, role: string, clip: string | null, system: string | null, text: string | null): Stimulus => ({
  slot, role, clip, system, text,
});

/** The clips an item plays, each once, in slot order. */
export function clipsOf(stimuli: readonly Stimulus[]): string[] {
  return [...new Set(stimuli.map((s) => s.clip).filter((c): c is string => c !== null))];
}

/** The systems an item stands for, in slot order. */
export function systemsOf(stimuli: readonly Stimulus[]): string[] {
  return stimuli.map((s) => s.system).filter((s): s is string => s !== null);
}
