/**
 * Which requests an armed override answers (issue #36): the one rule the page script's fetch, XHR and
 * EventSource wrappers, the worker's check of each ask, and the panel's preview all apply, so what the
 * panel says will be answered is what is. A URL without `*` matches exactly; each `*` stands for any run
 * of characters, `/` and `?` included. Both sides are compared without user-info, which is never captured.
 */
import { withoutUserInfo } from './url.ts';

export interface RequestMatch {
  method: string;
  /** An exact URL, or a pattern with `*` wildcards. */
  url: string;
}

export const WILDCARD = '*';

/** Why `pattern` can match no request URL, in words for the arming form; null when it can. */
export function patternError(pattern: string): string | null {
  if (!/^https?:\/\/[^/?#\s]/i.test(pattern)) {
    return `${JSON.stringify(pattern)} is not an absolute http(s) URL: give one, each * standing for any characters (http://127.0.0.1:8000/agent*)`;
  }
  if (/\s/.test(pattern)) return 'the URL has whitespace, which no request URL holds';
  if (withoutUserInfo(pattern) !== pattern) return 'the URL has user-info (user:password@), which requests are compared without';
  return null;
}

/** Whether `url` (a request's, as the page resolved it) is one `pattern` names. */
export function urlMatches(pattern: string, url: string): boolean {
  const u = withoutUserInfo(url);
  const parts = pattern.split(WILDCARD);
  if (parts.length === 1) return u === pattern;
  const first = parts[0]!;
  const last = parts.at(-1)!;
  if (u.length < first.length + last.length || !u.startsWith(first) || !u.endsWith(last)) return false;
  // Each middle piece at its leftmost place after the one before: any later match leaves the rest less room.
  let at = first.length;
  const end = u.length - last.length;
  for (const piece of parts.slice(1, -1)) {
    const i = u.indexOf(piece, at);
    if (i < 0 || i + piece.length > end) return false;
    at = i + piece.length;
  }
  return true;
}

/** Whether a request of `method` to `url` is one `m` answers; methods compare case-folded, as the worker arms them. */
export function requestMatches(m: RequestMatch, method: string, url: string): boolean {
  return method.toUpperCase() === m.method.toUpperCase() && urlMatches(m.url, url);
}
