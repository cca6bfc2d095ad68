/**
 * Every value the CLI prints may come from the recording (ids, messages quoting payloads, URLs) or from the
 * command line (file names), so none reaches a terminal or a report raw. Escaped as `\uXXXX`:
 * - C0 and C1 controls and DEL: ESC/CSI sequences move the cursor and erase lines (a fake "completed"
 *   over a failure), OSC sequences set the window title; U+009B is CSI on its own;
 * - bidi embeddings, overrides, isolates and marks (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C),
 *   which make text read otherwise than it is stored, and the line and paragraph separators U+2028/U+2029;
 * - U+FFFE, U+FFFF and lone surrogates, which are no XML character (XML 1.0 §2.2, production [2] Char).
 */
const INVISIBLE = '\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';
// With the `u` flag a surrogate range matches only unpaired surrogates: a pair is one code point.
const UNSAFE = new RegExp(`[\\u0000-\\u001f${INVISIBLE}\\ufffe\\uffff\\ud800-\\udfff]`, 'gu');
// JSON.stringify already escapes C0 controls and lone surrogates; what it lets through is INVISIBLE.
const JSON_UNSAFE = new RegExp(`[${INVISIBLE}]`, 'g');

const escape = (ch: string): string => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** A value as one safe line of text: what pretty output, stderr and JUnit print. */
export function printable(s: string): string {
  return s.replace(UNSAFE, escape);
}

/**
 * `JSON.stringify(value, null, 2)` with the characters it leaves raw escaped too. Outside strings JSON text
 * holds only ASCII, so the escapes land inside strings, where `\uXXXX` denotes the very same character:
 * a parser reads back exactly the value serialised.
 */
export function safeJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(JSON_UNSAFE, escape) + '\n';
}
