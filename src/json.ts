/** Small JSON helpers shared by every stage; values are what JSON.parse or a proto decode produce. */

export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * `v` when it is a string. Called on a member as read (`asString(ev.runId)`), each load is one of its own
 * name at its own site, where a shared keyed load would see every event's shape and every key.
 */
export function asString(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** RFC 6901 reference token escaping. */
export function pointerToken(key: string | number): string {
  return String(key).replace(/~/g, '~0').replace(/\//g, '~1');
}

export function pointer(...keys: (string | number)[]): string {
  return keys.map((k) => '/' + pointerToken(k)).join('');
}

/** Structural equality of JSON values; iterative so hostile nesting cannot overflow the stack. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const stack: [unknown, unknown][] = [[a, b]];
  while (stack.length) {
    const [x, y] = stack.pop()!;
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    if (Array.isArray(x)) {
      const ya = y as unknown[];
      if (x.length !== ya.length) return false;
      for (let i = 0; i < x.length; i++) stack.push([x[i], ya[i]]);
      continue;
    }
    const xk = Object.keys(x);
    const yo = y as JsonObject;
    if (xk.length !== Object.keys(yo).length) return false;
    for (const k of xk) {
      if (!Object.prototype.hasOwnProperty.call(yo, k)) return false;
      stack.push([(x as JsonObject)[k], yo[k]]);
    }
  }
  return true;
}

/**
 * A text two JSON values share exactly when `jsonEqual` holds between them: members sorted (objects are
 * unordered), numbers by value (so 0 and -0 agree). Hashing by it makes set membership linear where pairwise
 * `jsonEqual` is quadratic. Iterative, so hostile nesting cannot overflow the stack.
 */
export function jsonKey(v: unknown): string {
  const parts: string[] = [];
  // Text on the stack is output as it is; a container is wrapped, to be opened when it is reached.
  const stack: (string | { v: object })[] = [leafOrContainer(v)];
  while (stack.length) {
    const top = stack.pop()!;
    if (typeof top === 'string') {
      parts.push(top);
      continue;
    }
    const x = top.v;
    if (Array.isArray(x)) {
      parts.push('[');
      stack.push(']');
      for (let i = x.length - 1; i >= 0; i--) stack.push(leafOrContainer(x[i]), i > 0 ? ',' : '');
    } else {
      const o = x as JsonObject;
      const keys = Object.keys(o).sort();
      parts.push('{');
      stack.push('}');
      for (let i = keys.length - 1; i >= 0; i--) stack.push(leafOrContainer(o[keys[i]!]), `${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:`);
    }
  }
  return parts.join('');
}

const leafOrContainer = (x: unknown): string | { v: object } => (typeof x === 'object' && x !== null ? { v: x } : typeof x === 'string' ? JSON.stringify(x) : String(x));

/** A copy sharing no container with `v`; iterative so hostile nesting cannot overflow the stack. */
export function jsonClone(v: unknown): unknown {
  const copyOf = (x: unknown): unknown => (Array.isArray(x) ? x.slice() : isObject(x) ? { ...x } : x);
  const root = copyOf(v);
  const stack: unknown[] = [root];
  while (stack.length) {
    const c = stack.pop();
    if (Array.isArray(c)) {
      for (let i = 0; i < c.length; i++) if (typeof c[i] === 'object' && c[i] !== null) stack.push((c[i] = copyOf(c[i])));
    } else if (isObject(c)) {
      // Spread made every member an own data property, `__proto__` included, so assignment cannot reach the prototype.
      for (const k of Object.keys(c)) if (typeof c[k] === 'object' && c[k] !== null) stack.push((c[k] = copyOf(c[k])));
    }
  }
  return root;
}

/** Whether `v` nests containers more than `max` deep; iterative, so it can be asked of any parsed value. */
export function deeperThan(v: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[v, 0]];
  while (stack.length) {
    const [x, depth] = stack.pop()!;
    if (typeof x !== 'object' || x === null) continue;
    if (depth >= max) return true;
    for (const member of Array.isArray(x) ? x : Object.values(x)) if (typeof member === 'object' && member !== null) stack.push([member, depth + 1]);
  }
  return false;
}

/** A short, bounded rendering of a value for messages. */
export function preview(v: unknown, max = 60): string {
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    s = String(v);
  }
  return s.length > max ? s.slice(0, max - 1) + '…' : s;
}
