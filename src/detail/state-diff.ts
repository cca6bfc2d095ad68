/**
 * What one state step changed: the paths added, removed and replaced against the step before, with old
 * and new values, and for a delta each RFC 6902 operation as it went (events/state, basic/patterns/snapshots).
 *
 * It costs what the change costs, not what the state weighs: a delta is diffed only under the paths its
 * operations touch, and unchanged subtrees are skipped by identity (a delta's state shares every branch
 * it did not write with the state before, see PatchTarget). A snapshot is a whole new state, so its
 * diff costs its size. Arrays are compared position by position after their common ends are trimmed:
 * linear, never the quadratic longest common subsequence.
 */
import { PatchTarget, type StateStep } from '../analyzer/index.ts';
import { isObject, jsonEqual, pointerToken } from '../json.ts';

export type ChangeKind = 'add' | 'remove' | 'replace';

/** One path whose value differs between the step before and this one. */
export interface StateChange {
  op: ChangeKind;
  /** JSON Pointer: in the state before for a removal, in this step's state otherwise. */
  path: string;
  /** Absent for an addition. */
  old?: unknown;
  /** Absent for a removal. */
  value?: unknown;
}

/** How one operation of a delta went: a failing patch is undone whole (RFC 6902 §5). */
export type OpOutcome = 'applied' | 'failed' | 'undone' | 'not-reached';

export interface DeltaOp {
  /** The operation's `op` as sent (an unknown one fails, and is shown as sent). */
  op: string;
  path: string;
  from?: string;
  /** The value the operation carries (add, replace, test) or takes (move, copy). */
  value?: unknown;
  /** What was at `path` just before the operation ran, when something was. */
  old?: unknown;
  outcome: OpOutcome;
  /** Why it failed. */
  error?: string;
}

export interface StateDiff {
  /** Index into the exchange's `states` part. */
  step: number;
  event: number;
  kind: 'snapshot' | 'delta';
  /** Against the step before (the input's state before the first step). */
  changes: StateChange[];
  /** More changes than `changes` holds were found; the rest are left out. */
  truncated: boolean;
  /** A delta's operations; null for a snapshot. */
  ops: DeltaOp[] | null;
  failed: boolean;
}

/** Most change rows one diff carries: a view lists them, and a snapshot rewriting everything must not send a million. */
export const MAX_CHANGES = 2000;

type Found = { found: true; value: unknown } | { found: false };

/** The value a JSON Pointer names in `doc`; a pointer that is not one, or names nothing, finds nothing. */
export function valueAt(doc: unknown, path: unknown): Found {
  if (typeof path !== 'string' || (path !== '' && path[0] !== '/')) return { found: false };
  let cur = doc;
  for (const raw of path === '' ? [] : path.slice(1).split('/')) {
    const t = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur) && /^(0|[1-9]\d*)$/.test(t) && Number(t) < cur.length) cur = cur[Number(t)];
    else if (isObject(cur) && Object.prototype.hasOwnProperty.call(cur, t)) cur = cur[t];
    else return { found: false };
  }
  return { found: true, value: cur };
}

/** A string's or number's hash, FNV-1a over its characters. */
function hashText(t: string, h = 0x811c9dc5): number {
  for (let i = 0; i < t.length; i++) h = Math.imul(h ^ t.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const hashLeaf = (v: unknown): number => hashText(typeof v === 'string' ? `s${v}` : String(v));

/**
 * A structural hash of each container, worked out once (post-order, iteratively) and remembered, so that
 * comparing many nested elements costs each node once: deep equality at every level would cost depth².
 */
function hasher(): (v: object) => number {
  // A Map, not a WeakMap: it lives for one diff, and weak tables cost the collector far more.
  const memo = new Map<object, number>();
  const of = (v: unknown): number => (typeof v === 'object' && v !== null ? memo.get(v)! : hashLeaf(v));
  return (root) => {
    const stack: object[] = [root];
    while (stack.length) {
      const node = stack[stack.length - 1]!;
      if (memo.has(node)) {
        stack.pop();
        continue;
      }
      const before = stack.length;
      const values: unknown[] = Array.isArray(node) ? node : Object.values(node);
      for (const v of values) if (typeof v === 'object' && v !== null && !memo.has(v)) stack.push(v);
      if (stack.length > before) continue;
      stack.pop();
      let h = Array.isArray(node) ? 0x9e3779b9 : 0x85ebca6b;
      if (Array.isArray(node)) for (const v of node) h = Math.imul(h ^ of(v), 0x01000193);
      // Members are unordered (RFC 8259 §4): their hashes are combined by a sum, elements in order.
      else for (const k in node) h = (h + hashText(k, of((node as Record<string, unknown>)[k]))) | 0;
      memo.set(node, h >>> 0);
    }
    return memo.get(root)!;
  };
}

/**
 * Appends the changes from `a` to `b` under `base` to `out`, up to `limit` rows (true when more were
 * left out). Iterative, so hostile nesting cannot overflow the stack.
 */
export function diffValues(a: unknown, b: unknown, base: string, out: StateChange[], limit = MAX_CHANGES): boolean {
  const stack: [unknown, unknown, string][] = [[a, b, base]];
  const push = (c: StateChange): boolean => (out.length < limit ? (out.push(c), true) : false);
  const hash = hasher();
  // Equal subtrees are skipped, never descended into, so each is compared in full at most once.
  const same = (p: unknown, q: unknown): boolean =>
    p === q || (typeof p === 'object' && typeof q === 'object' && p !== null && q !== null && hash(p) === hash(q) && jsonEqual(p, q));
  while (stack.length) {
    const [x, y, at] = stack.pop()!;
    if (x === y) continue;
    if (Array.isArray(x) && Array.isArray(y)) {
      // Equal lengths are compared by position; otherwise elements came or went, and the equal ends say where.
      let lo = 0;
      let hi = 0;
      const min = Math.min(x.length, y.length);
      if (x.length !== y.length) {
        while (lo < min && same(x[lo], y[lo])) lo++;
        while (hi < min - lo && same(x[x.length - 1 - hi], y[y.length - 1 - hi])) hi++;
      }
      const xs = x.length - lo - hi;
      const ys = y.length - lo - hi;
      const pairs = Math.min(xs, ys);
      // Pushed in reverse so the rows come out in order; removals name positions before, additions after.
      for (let k = ys - 1; k >= pairs; k--) stack.push([undefined, y[lo + k], `${at}/${lo + k}`]);
      for (let k = xs - 1; k >= pairs; k--) stack.push([x[lo + k], undefined, `${at}/${lo + k}`]);
      for (let k = pairs - 1; k >= 0; k--) stack.push([x[lo + k], y[lo + k], `${at}/${lo + k}`]);
      continue;
    }
    if (isObject(x) && isObject(y)) {
      const added: string[] = [];
      for (const k of Object.keys(y)) if (!Object.prototype.hasOwnProperty.call(x, k)) added.push(k);
      for (let i = added.length - 1; i >= 0; i--) stack.push([undefined, y[added[i]!], `${at}/${token(added[i]!)}`]);
      const keys = Object.keys(x);
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i]!;
        const had = Object.prototype.hasOwnProperty.call(y, k);
        // Most members of a large state are the very values they were: nothing to visit.
        if (had && x[k] === y[k]) continue;
        stack.push([x[k], had ? y[k] : undefined, `${at}/${token(k)}`]);
      }
      continue;
    }
    // JSON has no undefined: it marks a side that has nothing at this path.
    if (x !== undefined && y !== undefined && x === y) continue;
    const row: StateChange = x === undefined ? { op: 'add', path: at, value: y } : y === undefined ? { op: 'remove', path: at, old: x } : { op: 'replace', path: at, old: x, value: y };
    if (!push(row)) return true;
  }
  return false;
}

const isArrayAt = (doc: unknown, path: string): boolean => {
  const at = valueAt(doc, path);
  return at.found && Array.isArray(at.value);
};

/** RFC 6901 escaping, without a copy for the usual key that needs none. */
const token = (k: string): string => (k.includes('~') || k.includes('/') ? pointerToken(k) : k);

const parentOf = (p: string): string => p.slice(0, Math.max(0, p.lastIndexOf('/')));

/** The containers a delta's operations write under: an array element's array, since inserting or removing shifts its neighbours. */
function touched(before: unknown, ops: readonly unknown[]): string[] {
  const roots = new Set<string>();
  for (const op of ops) {
    if (!isObject(op)) continue;
    for (const p of op.op === 'move' ? [op.from, op.path] : op.op === 'test' ? [] : [op.path]) {
      if (typeof p !== 'string') continue;
      roots.add(p !== '' && isArrayAt(before, parentOf(p)) ? parentOf(p) : p);
    }
  }
  // A path under another touched path is diffed with it.
  const under = (p: string): boolean => {
    for (let q = p; q !== ''; ) if (roots.has((q = parentOf(q)))) return true;
    return false;
  };
  return [...roots].filter((p) => !under(p));
}

/** Each operation of a delta replayed on the state before, to say what was at its path and how it went. */
function replayOps(before: unknown, step: StateStep): DeltaOp[] {
  const target = new PatchTarget(before);
  const failedAt = step.error?.op ?? -1;
  return (step.ops ?? []).map((raw, i) => {
    const op = isObject(raw) ? raw : {};
    const row: DeltaOp = { op: typeof op.op === 'string' ? op.op : String(op.op), path: typeof op.path === 'string' ? op.path : String(op.path), outcome: 'applied' };
    if (typeof op.from === 'string') row.from = op.from;
    if (failedAt >= 0 && i > failedAt) return { ...row, outcome: 'not-reached' };
    // add, move and copy insert into an array, and overwrite an object's member or the whole document.
    const inserts = (op.op === 'add' || op.op === 'move' || op.op === 'copy') && row.path !== '' && isArrayAt(target.doc, parentOf(row.path));
    const at = valueAt(target.doc, op.path);
    if (at.found && !inserts) row.old = at.value;
    if ('value' in op) row.value = op.value;
    else if (row.from !== undefined) {
      const from = valueAt(target.doc, row.from);
      if (from.found) row.value = from.value;
    }
    if (i === failedAt) return { ...row, outcome: 'failed', error: step.error!.error };
    target.apply([raw]);
    return failedAt >= 0 ? { ...row, outcome: 'undone' } : row;
  });
}

/** What step `index` (`step`) changed against the step before it. */
export function stateDiff(index: number, step: StateStep): StateDiff {
  const before = step.previous ? step.previous.state : undefined;
  const changes: StateChange[] = [];
  let truncated = false;
  if (step.ops === null) {
    truncated = diffValues(before, step.state, '', changes);
    return { step: index, event: step.event, kind: 'snapshot', changes, truncated, ops: null, failed: false };
  }
  const after = step.state;
  if (!step.failed) {
    for (const root of touched(before, step.ops)) {
      const a = valueAt(before, root);
      const b = valueAt(after, root);
      truncated = diffValues(a.found ? a.value : undefined, b.found ? b.value : undefined, root, changes);
      if (truncated) break;
    }
  }
  return { step: index, event: step.event, kind: 'delta', changes, truncated, ops: replayOps(before, step), failed: step.failed };
}
