import { isObject, jsonEqual, type JsonObject } from '../json.ts';

/**
 * RFC 6902 JSON Patch, applied without mutating anything: each operation copies only the containers on
 * its path and shares the rest, so a failed patch leaves the document exactly as it was, earlier states
 * stay valid for the panel's history, and a deep document costs its depth, not its size. Iterative
 * throughout, so hostile nesting cannot overflow the stack.
 */

export type PatchResult = { ok: true; doc: unknown } | { ok: false; op: number; error: string };

class PatchError extends Error {}

/** RFC 6901: '' is the whole document; otherwise '/'-separated tokens with ~1 → '/' and ~0 → '~'. */
function parsePointer(p: unknown): string[] {
  if (typeof p !== 'string') throw new PatchError('path is not a string');
  if (p === '') return [];
  if (p[0] !== '/') throw new PatchError(`${JSON.stringify(p)} is not a JSON Pointer (no leading "/")`);
  return p
    .slice(1)
    .split('/')
    .map((t) => {
      if (/~[^01]|~$/.test(t)) throw new PatchError(`${JSON.stringify(p)} has an invalid "~" escape`);
      return t.replace(/~1/g, '/').replace(/~0/g, '~');
    });
}

/** An array index token: digits without leading zeros, within bounds (`end` admits the length, for add). */
function arrayIndex(arr: unknown[], token: string, end: boolean): number {
  if (!/^(0|[1-9]\d*)$/.test(token)) throw new PatchError(`"${token}" is not an array index`);
  const i = Number(token);
  if (i > arr.length || (!end && i === arr.length)) throw new PatchError(`index ${i} is out of bounds (length ${arr.length})`);
  return i;
}

function has(o: JsonObject, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}

function get(doc: unknown, tokens: string[]): unknown {
  let cur = doc;
  for (const t of tokens) {
    if (Array.isArray(cur)) cur = cur[arrayIndex(cur, t, false)];
    else if (isObject(cur) && has(cur, t)) cur = cur[t];
    else throw new PatchError(`nothing at ${pointerOf(tokens)}`);
  }
  return cur;
}

function pointerOf(tokens: string[]): string {
  return tokens.map((t) => '/' + t.replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

/** Defines a member without touching the prototype, even for a key named `__proto__`. */
function setOwn(o: JsonObject, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

/**
 * Rebuilds `doc` with the container at `tokens[..-1]` replaced by `change(container, lastToken)`'s result,
 * copying each container on the way down.
 */
function edit(doc: unknown, tokens: string[], change: (parent: unknown, last: string) => unknown): unknown {
  const chain: unknown[] = [doc];
  for (let i = 0; i < tokens.length - 1; i++) chain.push(get(chain[i], [tokens[i]!]));
  let replaced = change(chain[tokens.length - 1], tokens[tokens.length - 1]!);
  for (let i = tokens.length - 2; i >= 0; i--) {
    const parent = chain[i];
    const t = tokens[i]!;
    if (Array.isArray(parent)) {
      const copy = parent.slice();
      copy[arrayIndex(parent, t, false)] = replaced;
      replaced = copy;
    } else {
      const copy = { ...(parent as JsonObject) };
      setOwn(copy, t, replaced);
      replaced = copy;
    }
  }
  return replaced;
}

function add(doc: unknown, tokens: string[], value: unknown): unknown {
  if (tokens.length === 0) return value;
  return edit(doc, tokens, (parent, last) => {
    if (Array.isArray(parent)) {
      const copy = parent.slice();
      copy.splice(last === '-' ? parent.length : arrayIndex(parent, last, true), 0, value);
      return copy;
    }
    if (!isObject(parent)) throw new PatchError(`cannot add to ${parent === null ? 'null' : typeof parent} at ${pointerOf(tokens.slice(0, -1))}`);
    const copy = { ...parent };
    setOwn(copy, last, value);
    return copy;
  });
}

function remove(doc: unknown, tokens: string[]): unknown {
  if (tokens.length === 0) throw new PatchError('cannot remove the whole document');
  return edit(doc, tokens, (parent, last) => {
    if (Array.isArray(parent)) {
      const copy = parent.slice();
      copy.splice(arrayIndex(parent, last, false), 1);
      return copy;
    }
    if (!isObject(parent) || !has(parent, last)) throw new PatchError(`nothing to remove at ${pointerOf(tokens)}`);
    const copy = { ...parent };
    delete copy[last];
    return copy;
  });
}

/** In place of the old value, so an object keeps its key order. */
function replace(doc: unknown, tokens: string[], value: unknown): unknown {
  get(doc, tokens);
  if (tokens.length === 0) return value;
  return edit(doc, tokens, (parent, last) => {
    if (Array.isArray(parent)) {
      const copy = parent.slice();
      copy[arrayIndex(parent, last, false)] = value;
      return copy;
    }
    const copy = { ...(parent as JsonObject) };
    setOwn(copy, last, value);
    return copy;
  });
}

function applyOne(doc: unknown, op: unknown): unknown {
  if (!isObject(op)) throw new PatchError('operation is not an object');
  const path = parsePointer(op.path);
  switch (op.op) {
    case 'add':
      if (!has(op, 'value')) throw new PatchError('add without a value');
      return add(doc, path, op.value);
    case 'remove':
      return remove(doc, path);
    case 'replace':
      if (!has(op, 'value')) throw new PatchError('replace without a value');
      return replace(doc, path, op.value);
    case 'move': {
      const from = parsePointer(op.from);
      if (from.length < path.length && pointerOf(path).startsWith(pointerOf(from) + '/')) throw new PatchError('cannot move a value into itself');
      const value = get(doc, from);
      return add(remove(doc, from), path, value);
    }
    case 'copy':
      return add(doc, path, get(doc, parsePointer(op.from)));
    case 'test':
      if (!jsonEqual(get(doc, path), op.value)) throw new PatchError(`test failed at ${pointerOf(path)}`);
      return doc;
    default:
      throw new PatchError(`unknown op ${JSON.stringify(op.op)}`);
  }
}

export function applyPatch(doc: unknown, ops: readonly unknown[]): PatchResult {
  let cur = doc;
  for (let i = 0; i < ops.length; i++) {
    try {
      cur = applyOne(cur, ops[i]);
    } catch (e) {
      if (!(e instanceof PatchError)) throw e;
      return { ok: false, op: i, error: e.message };
    }
  }
  return { ok: true, doc: cur };
}
