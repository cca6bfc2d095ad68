/**
 * A JSON reader over UTF-8 bytes that remembers where every string and number
 * sits, so a value can be overwritten in place without re-serialising (which
 * would move every later byte, and with them frame offsets and chunk sizes).
 */

export interface StrNode {
  t: 'str';
  value: string;
  /** Byte span of the contents, quotes excluded; -1 for a value that came from no JSON text. */
  start: number;
  end: number;
}
export interface NumNode {
  t: 'num';
  raw: string;
  start: number;
  end: number;
}
export interface BoolNode {
  t: 'bool';
  value: boolean;
  start: number;
  end: number;
}
export interface ObjNode {
  t: 'obj';
  /** In text order, duplicates kept: every copy of a key is redacted, whichever one JSON.parse keeps. */
  members: { key: string; value: JNode }[];
}
export interface ArrNode {
  t: 'arr';
  items: JNode[];
}
/** `null`: the one value that carries nothing. */
export type JNode = StrNode | NumNode | BoolNode | ObjNode | ArrNode | { t: 'null' };
export type Leaf = StrNode | NumNode | BoolNode;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** Replacement decoding, as the wire readers decode frames, so a value reads here as the analyzer read it. */
const lenient = new TextDecoder('utf-8', { ignoreBOM: true });

export function isSpace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

export function skipSpace(b: Uint8Array, i: number, end: number): number {
  while (i < end && isSpace(b[i])) i++;
  return i;
}

/** Index just past the closing quote of the string opening at `i`, or -1 when it is not closed before `end`. */
function stringEnd(b: Uint8Array, i: number, end: number): number {
  for (let k = i + 1; k < end; k++) {
    const c = b[k]!;
    if (c === QUOTE) return k + 1;
    if (c === BACKSLASH) k++;
  }
  return -1;
}

function readString(b: Uint8Array, i: number, end: number): { node: StrNode; next: number } | null {
  const close = stringEnd(b, i, end);
  if (close === -1) return null;
  let value: unknown;
  try {
    value = JSON.parse(lenient.decode(b.subarray(i, close)));
  } catch {
    return null;
  }
  return typeof value === 'string' ? { node: { t: 'str', value, start: i + 1, end: close - 1 }, next: close } : null;
}

/** End of a run of bytes that could belong to a number or literal token. */
function atomEnd(b: Uint8Array, i: number, end: number): number {
  let k = i;
  while (k < end) {
    const c = b[k]!;
    if (isSpace(c) || c === COMMA || c === COLON || c === QUOTE || c === OPEN_OBJECT || c === CLOSE_OBJECT || c === OPEN_ARRAY || c === CLOSE_ARRAY) break;
    k++;
  }
  return k;
}

function ascii(b: Uint8Array, s: number, e: number): string {
  return String.fromCharCode(...b.subarray(s, e));
}

function readAtom(b: Uint8Array, i: number, end: number): { node: JNode; next: number } | null {
  const e = atomEnd(b, i, end);
  if (e === i || e - i > 4096) return null;
  const raw = ascii(b, i, e);
  if (raw === 'null') return { node: { t: 'null' }, next: e };
  if (raw === 'true' || raw === 'false') return { node: { t: 'bool', value: raw === 'true', start: i, end: e }, next: e };
  return NUMBER.test(raw) ? { node: { t: 'num', raw, start: i, end: e }, next: e } : null;
}

function readKey(b: Uint8Array, i: number, end: number): { key: string; next: number } | null {
  if (b[i] !== QUOTE) return null;
  const s = readString(b, i, end);
  if (!s) return null;
  const colon = skipSpace(b, s.next, end);
  return b[colon] === COLON ? { key: s.node.value, next: colon + 1 } : null;
}

/**
 * One JSON value starting at `i` (leading whitespace allowed), with the index after it; null when the
 * bytes up to `end` are not one. Iterative, so hostile nesting cannot exhaust the stack.
 */
export function parseValue(b: Uint8Array, i: number, end: number): { node: JNode; next: number } | null {
  const stack: (ObjNode | ArrNode)[] = [];
  const keys: string[] = [];
  for (;;) {
    i = skipSpace(b, i, end);
    if (i >= end) return null;
    let value: JNode;
    const c = b[i];
    if (c === OPEN_OBJECT) {
      const o: ObjNode = { t: 'obj', members: [] };
      i = skipSpace(b, i + 1, end);
      if (b[i] === CLOSE_OBJECT) {
        i++;
        value = o;
      } else {
        const k = readKey(b, i, end);
        if (!k) return null;
        stack.push(o);
        keys.push(k.key);
        i = k.next;
        continue;
      }
    } else if (c === OPEN_ARRAY) {
      const a: ArrNode = { t: 'arr', items: [] };
      i = skipSpace(b, i + 1, end);
      if (b[i] === CLOSE_ARRAY) {
        i++;
        value = a;
      } else {
        stack.push(a);
        keys.push('');
        continue;
      }
    } else {
      const leaf = c === QUOTE ? readString(b, i, end) : readAtom(b, i, end);
      if (!leaf) return null;
      value = leaf.node;
      i = leaf.next;
    }
    for (;;) {
      const top = stack.at(-1);
      if (!top) return { node: value, next: i };
      if (top.t === 'obj') top.members.push({ key: keys.at(-1)!, value });
      else top.items.push(value);
      i = skipSpace(b, i, end);
      if (b[i] === COMMA) {
        i++;
        if (top.t === 'obj') {
          const k = readKey(b, skipSpace(b, i, end), end);
          if (!k) return null;
          keys[keys.length - 1] = k.key;
          i = k.next;
        }
        break;
      }
      if (b[i] !== (top.t === 'obj' ? CLOSE_OBJECT : CLOSE_ARRAY)) return null;
      i++;
      stack.pop();
      keys.pop();
      value = top;
    }
  }
}

/** The whole of [from, end) as one JSON value with nothing but whitespace after it, as JSON.parse reads it. */
export function parseWhole(b: Uint8Array, from: number, end: number): JNode | null {
  const r = parseValue(b, from, end);
  return r && skipSpace(b, r.next, end) === end ? r.node : null;
}

/**
 * What text that is not (entirely) JSON holds that could be data: every string not followed by a colon,
 * and every other token but `null` (a bare word, `true` and `false` included, is reported as `num` with its raw text).
 * Nothing structural can be known of such text, so it is handed over whole.
 */
export function looseLeaves(b: Uint8Array, from: number, end: number): (StrNode | NumNode)[] {
  const out: (StrNode | NumNode)[] = [];
  let i = from;
  while (i < end) {
    const c = b[i]!;
    if (c === QUOTE) {
      const close = stringEnd(b, i, end);
      const stop = close === -1 ? end : close - 1;
      const after = close === -1 ? end : skipSpace(b, close, end);
      if (b[after] !== COLON && stop > i + 1) {
        out.push({ t: 'str', value: lenient.decode(b.subarray(i + 1, stop)), start: i + 1, end: stop });
      }
      i = close === -1 ? end : close;
      continue;
    }
    const e = atomEnd(b, i, end);
    if (e === i) {
      i++;
      continue;
    }
    const raw = lenient.decode(b.subarray(i, e));
    if (raw !== 'null') out.push({ t: 'num', raw, start: i, end: e });
    i = e;
  }
  return out;
}
