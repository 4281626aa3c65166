/**
 * What the query page keeps in the browser (localStorage) across reloads: JSON under a key of its
 * own per endpoint, so two servers (or base paths) on one origin keep apart. A browser that refuses
 * storage (private mode, quota) just keeps nothing: the page works the same for the session.
 */

export function savedKey(endpoint: string, name: string): string {
  return `quiver:${endpoint}:${name}`;
}

export function readSaved<T>(key: string, valid: (value: unknown) => value is T): T | undefined {
  try {
    const text = localStorage.getItem(key);
    if (text === null) return undefined;
    const value: unknown = JSON.parse(text);
    return valid(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function writeSaved(key: string, value: unknown): void {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // Storage full or refused: the state lives on in the page until it closes.
  }
}

export function forgetSaved(key: string): void {
  try {
    localStorage.removeItem(key);
  } catch {
    // Nothing was kept.
  }
}
