/**
 * Unsaved edits kept in this browser (localStorage), so a reload, a crash or a closed tab does
 * not lose a definition being written. A draft is only text: Save still validates it.
 */
export interface Draft {
  yaml: string;
  /** the saved definition the edits started from; when it has changed since, the studio says so */
  base: string;
  /** for a new study: the name typed so far */
  name?: string;
  at: string;
}

const key = (id: string) => `earmark:draft:${id}`;
/** The key of the new-study form's draft (no study is named that: ids have no colon). */
export const NEW_STUDY = ':new';

export function loadDraft(id: string): Draft | null {
  try {
    const text = localStorage.getItem(key(id));
    return text ? (JSON.parse(text) as Draft) : null;
  } catch {
    return null;
  }
}

/** Keeps the draft, or forgets it (null). Storage full or blocked: the edits just stay in the page. */
export function keepDraft(id: string, draft: Omit<Draft, 'at'> | null): void {
  try {
    if (draft) localStorage.setItem(key(id), JSON.stringify({ ...draft, at: new Date().toISOString() }));
    else localStorage.removeItem(key(id));
  } catch {
    // nothing to do: a private window may refuse storage
  }
}
