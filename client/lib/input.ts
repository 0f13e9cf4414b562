/**
 * How the listener gives input. Single-key shortcuts can be turned off (WCAG 2.1.4: speech input
 * and some switch devices type letters and digits); the choice is kept for the whole browser.
 * Touch screens get touch hints instead of keyboard hints.
 */
const shortcutsKey = 'earmark:shortcuts';

export function shortcutsOn(storage: Storage = localStorage): boolean {
  return storage.getItem(shortcutsKey) !== 'off';
}

export function setShortcutsOn(on: boolean, storage: Storage = localStorage): void {
  if (on) storage.removeItem(shortcutsKey);
  else storage.setItem(shortcutsKey, 'off');
}

/** A primary pointer that is a finger: hints say "tap", not "press Space". */
export function touchFirst(): boolean {
  return typeof matchMedia === 'function' && matchMedia('(pointer: coarse)').matches;
}

/** Keys typed into a text field, a select or an editor are the user's text, never a shortcut. */
export function isTextEntry(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && !['checkbox', 'radio', 'button', 'submit', 'range'].includes(target.type);
}
