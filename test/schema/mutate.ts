/** Variants of a valid document, each one change away from it, named by what changed. */
import { pointerToken } from '../../src/json.ts';

export type MutationKind = 'drop' | 'wrong-type' | 'null' | 'extra-property' | 'unknown-tag';

export interface Mutation {
  kind: MutationKind;
  /** Pointer of the member that changed (for extra-property: the object it was added to). */
  at: string;
  value: unknown;
}

type Json = Record<string, unknown>;

const TAGS = new Set(['type', 'role', 'op', 'status', 'subtype']);

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Rebuilds `root` with the member at `path` replaced (or removed, for `undefined`). */
function edit(root: unknown, path: (string | number)[], replace: (parent: Json | unknown[], key: string | number) => void): unknown {
  const copy = structuredClone(root);
  let node: unknown = copy;
  for (const key of path.slice(0, -1)) node = (node as Json)[key as string];
  replace(node as Json | unknown[], path[path.length - 1] as string | number);
  return copy;
}

export function mutations(root: unknown, maxDepth = 6): Mutation[] {
  const out: Mutation[] = [];
  const visit = (node: unknown, path: (string | number)[]): void => {
    if (path.length > maxDepth) return;
    const at = path.map((k) => '/' + pointerToken(k)).join('');
    if (isObject(node)) {
      out.push({ kind: 'extra-property', at, value: edit(root, [...path, 'zzFuture'], (p) => { (p as Json).zzFuture = 1; }) });
      for (const [key, child] of Object.entries(node)) {
        const here = [...path, key];
        const ptr = at + '/' + pointerToken(key);
        out.push({ kind: 'drop', at: ptr, value: edit(root, here, (p, k) => { delete (p as Json)[k as string]; }) });
        out.push({ kind: 'wrong-type', at: ptr, value: edit(root, here, (p, k) => { (p as Json)[k as string] = typeof child === 'string' ? 42 : 'x'; }) });
        out.push({ kind: 'null', at: ptr, value: edit(root, here, (p, k) => { (p as Json)[k as string] = null; }) });
        if (TAGS.has(key) && typeof child === 'string') {
          out.push({ kind: 'unknown-tag', at: ptr, value: edit(root, here, (p, k) => { (p as Json)[k as string] = 'zzUnknown'; }) });
        }
        visit(child, here);
      }
    } else if (Array.isArray(node)) {
      node.forEach((child, index) => visit(child, [...path, index]));
    }
  };
  visit(root, []);
  return out;
}
