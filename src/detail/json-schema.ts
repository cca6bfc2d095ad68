/**
 * A small JSON Schema interpreter for the `parameters` a frontend tool declares (basic/run-input#tools):
 * ajv would compile them to code, which the extension's content security policy forbids (no `eval`, no
 * `new Function`), so they are walked instead. It covers what applications send — draft 2020-12 and
 * draft-07 alike (`items` as an array is the draft-07 tuple form, `prefixItems` the 2020-12 one) — and
 * says a schema is unchecked, with the reason, rather than guess at one it cannot interpret: a keyword
 * that constrains but is not interpreted here, a `$ref` that is not a local pointer, an invalid pattern.
 * `format` is an annotation here, as it is by default in 2020-12. test/detail/json-schema.test.ts holds
 * it to ajv on generated schema/instance pairs.
 *
 * Schema and arguments both come from the page, and the check runs in the worker every tab shares, so
 * nothing here is unbounded: patterns run on a linear-time matcher (regex.ts), a `$ref`'s verdict on a
 * value is remembered for the check, `enum` and `uniqueItems` hash, and a check that would take more
 * than BUDGET steps stops and says so rather than give a verdict it did not reach.
 */
import { isObject, jsonEqual, jsonKey, pointerToken, type JsonObject } from '../json.ts';
import { compileLinear, type Compiled } from './regex.ts';

export interface SchemaError {
  /** JSON Pointer into the instance: the member a `required` or `additionalProperties` mismatch names, else the value that failed. */
  path: string;
  keyword: string;
  message: string;
}

/** `costly`: the check was given up for its cost, the schema itself being one this checker reads. */
export type SchemaCheck = { status: 'valid' } | { status: 'invalid'; errors: SchemaError[] } | { status: 'unchecked'; reason: string; costly?: true };

/** Keywords of the drafts that constrain and are not interpreted: a schema using one is unchecked. */
const UNINTERPRETED = new Set([
  'if', 'then', 'else', 'dependentRequired', 'dependentSchemas', 'dependencies', 'propertyNames', 'contains', 'minContains', 'maxContains',
  'unevaluatedProperties', 'unevaluatedItems', '$dynamicRef', '$dynamicAnchor', '$recursiveRef', '$recursiveAnchor', 'extends', 'disallow', 'divisibleBy',
]);
const TYPES = new Set(['null', 'boolean', 'object', 'array', 'number', 'integer', 'string']);
/** At most this many mismatches are reported per instance; deeper nesting of `$ref`s than this is refused. */
const MAX_ERRORS = 100;
const MAX_DEPTH = 256;
/**
 * Steps one check may take, each about a microsecond's work (measured here: a subschema visited is one,
 * a pattern's program run over a character costs 20 to 50 ns, hashing a value costs about 0.5 µs per 8
 * characters of its key): half a second at most, where a tool's real arguments take hundreds.
 */
export const BUDGET = 500_000;
const REGEX_STEPS_PER_STEP = 25;
const KEY_CHARS_PER_STEP = 8;

class Unchecked extends Error {
  constructor(message: string, readonly costly = false) {
    super(message);
  }
}

const schemaKeys = ['properties', 'patternProperties', '$defs', 'definitions'] as const;
const schemaLists = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;
const schemaSingles = ['additionalProperties', 'additionalItems', 'not'] as const;

/** Why `schema` cannot be interpreted here, or null: every subschema is looked at once, before any instance. */
function uninterpretable(root: unknown): string | null {
  const seen = new Set<unknown>();
  const stack: [unknown, string][] = [[root, '']];
  while (stack.length) {
    const [s, at] = stack.pop()!;
    if (typeof s === 'boolean') continue;
    if (!isObject(s)) return `the schema at ${at || '/'} is neither an object nor a boolean`;
    if (seen.has(s)) continue;
    seen.add(s);
    for (const k of Object.keys(s)) {
      if (UNINTERPRETED.has(k)) return `it uses ${k} (at ${at || '/'}), which this checker does not interpret`;
      if (k === '$id' && at !== '') return `it names a nested $id (at ${at}), which moves the base its $refs resolve against`;
    }
    const v = (k: string): unknown => s[k];
    if (v('type') !== undefined) {
      const ts = Array.isArray(v('type')) ? (v('type') as unknown[]) : [v('type')];
      if (!ts.every((t) => typeof t === 'string' && TYPES.has(t))) return `its type at ${at || '/'} is not a JSON Schema type`;
    }
    for (const k of ['exclusiveMinimum', 'exclusiveMaximum'] as const) if (typeof v(k) === 'boolean') return `its ${k} at ${at || '/'} is draft-04's boolean form`;
    for (const k of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'] as const) if (v(k) !== undefined && typeof v(k) !== 'number') return `its ${k} at ${at || '/'} is not a number`;
    if (v('multipleOf') !== undefined && !(typeof v('multipleOf') === 'number' && (v('multipleOf') as number) > 0)) return `its multipleOf at ${at || '/'} is not a positive number`;
    for (const k of ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'] as const) {
      const n = v(k);
      if (n !== undefined && !(typeof n === 'number' && Number.isInteger(n) && n >= 0)) return `its ${k} at ${at || '/'} is not a non-negative integer`;
    }
    if (v('required') !== undefined && !(Array.isArray(v('required')) && (v('required') as unknown[]).every((r) => typeof r === 'string'))) return `its required at ${at || '/'} is not a list of names`;
    if (v('enum') !== undefined && !Array.isArray(v('enum'))) return `its enum at ${at || '/'} is not a list`;
    if (v('uniqueItems') !== undefined && typeof v('uniqueItems') !== 'boolean') return `its uniqueItems at ${at || '/'} is not a boolean`;
    const patterns = [...(typeof v('pattern') === 'string' ? [v('pattern') as string] : []), ...(isObject(v('patternProperties')) ? Object.keys(v('patternProperties') as JsonObject) : [])];
    if (v('pattern') !== undefined && typeof v('pattern') !== 'string') return `its pattern at ${at || '/'} is not a string`;
    for (const p of patterns) {
      const r = regex(p);
      if (!r.ok) return `its pattern ${JSON.stringify(p)} (at ${at || '/'}) is refused: ${r.reason}`;
    }
    if (v('$ref') !== undefined) {
      const ref = v('$ref');
      if (typeof ref !== 'string' || (ref !== '#' && !ref.startsWith('#/'))) return `its $ref ${JSON.stringify(ref)} (at ${at || '/'}) is not a pointer into the schema itself`;
      if (resolve(root, ref) === undefined) return `its $ref ${JSON.stringify(ref)} (at ${at || '/'}) points at nothing`;
    }
    for (const k of schemaKeys) {
      const m = v(k);
      if (m === undefined) continue;
      if (!isObject(m)) return `its ${k} at ${at || '/'} is not an object`;
      for (const [name, sub] of Object.entries(m)) stack.push([sub, `${at}/${k}/${pointerToken(name)}`]);
    }
    for (const k of schemaLists) {
      const m = v(k);
      if (m === undefined) continue;
      if (!Array.isArray(m) || (k !== 'prefixItems' && m.length === 0)) return `its ${k} at ${at || '/'} is not a non-empty list of schemas`;
      m.forEach((sub, i) => stack.push([sub, `${at}/${k}/${i}`]));
    }
    for (const k of schemaSingles) if (v(k) !== undefined) stack.push([v(k), `${at}/${k}`]);
    const items = v('items');
    if (Array.isArray(items)) {
      if (v('prefixItems') !== undefined) return `it gives both prefixItems and an items list (at ${at || '/'})`;
      items.forEach((sub, i) => stack.push([sub, `${at}/items/${i}`]));
    } else if (items !== undefined) stack.push([items, `${at}/items`]);
  }
  return null;
}

const regexes = new Map<string, Compiled>();
function regex(p: string): Compiled {
  let r = regexes.get(p);
  if (r === undefined) {
    r = compileLinear(p);
    if (regexes.size > 1000) regexes.clear();
    regexes.set(p, r);
  }
  return r;
}

/**
 * Whether `x` is an integer multiple of `m`, decided on the decimal values the numbers were written as
 * (their shortest round-trip text), not in binary floating point, where 0.29 / 0.01 is 28.999999999999996.
 */
function isMultipleOf(x: number, m: number): boolean {
  const dx = decimal(x);
  const dm = decimal(m);
  const e = Math.min(dx.exp, dm.exp);
  return (dx.digits * 10n ** BigInt(dx.exp - e)) % (dm.digits * 10n ** BigInt(dm.exp - e)) === 0n;
}

/** A finite number as digits × 10^exp. */
function decimal(n: number): { digits: bigint; exp: number } {
  const [, int, frac = '', e = '0'] = /^-?(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(n))!;
  return { digits: BigInt(int! + frac), exp: Number(e) - frac.length };
}

/** The subschema a local `$ref` names: a JSON Pointer after `#`, its tokens percent-encoded as a URI fragment. */
function resolve(root: unknown, ref: string): unknown {
  let at: unknown = root;
  if (ref === '#') return root;
  for (const raw of ref.slice(2).split('/')) {
    let token: string;
    try {
      token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    } catch {
      return undefined;
    }
    if (Array.isArray(at)) at = /^(0|[1-9][0-9]*)$/.test(token) ? at[Number(token)] : undefined;
    else if (isObject(at)) at = Object.prototype.hasOwnProperty.call(at, token) ? at[token] : undefined;
    else return undefined;
  }
  return at;
}

const typeOf = (x: unknown): string => (x === null ? 'null' : Array.isArray(x) ? 'array' : typeof x === 'number' ? (Number.isInteger(x) ? 'integer' : 'number') : typeof x);
const hasType = (x: unknown, t: string): boolean => {
  const got = typeOf(x);
  return got === t || (t === 'number' && got === 'integer');
};
/** A string's length in code points, as JSON Schema counts it. */
function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}
const short = (v: unknown): string => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
};

/** A schema ready to check instances against, or why it cannot be. */
export class CheckedSchema {
  readonly unchecked: string | null;
  /** Each `enum` list as the keys of its members, made once per schema. */
  private readonly enums = new Map<unknown[], Set<string>>();
  private spent = 0;
  /**
   * Per check: what walking each `$ref` target over each value added, its paths relative to the value's;
   * one table for the first mismatch and one for all.
   */
  private memo: [Map<object, Map<unknown, SchemaError[]>>, Map<object, Map<unknown, SchemaError[]>>] = [new Map(), new Map()];

  constructor(private readonly root: unknown) {
    this.unchecked = uninterpretable(root);
  }

  check(instance: unknown): SchemaCheck {
    if (this.unchecked !== null) return { status: 'unchecked', reason: this.unchecked };
    const errors: SchemaError[] = [];
    this.spent = 0;
    this.memo = [new Map(), new Map()];
    try {
      this.walk(this.root, instance, '', errors, 0);
    } catch (e) {
      if (e instanceof Unchecked) return e.costly ? { status: 'unchecked', reason: e.message, costly: true } : { status: 'unchecked', reason: e.message };
      throw e;
    } finally {
      // The values checked are not kept past the check.
      this.memo = [new Map(), new Map()];
    }
    return errors.length === 0 ? { status: 'valid' } : { status: 'invalid', errors: errors.slice(0, MAX_ERRORS) };
  }

  private charge(steps: number): void {
    this.spent += steps;
    if (this.spent > BUDGET) throw new Unchecked(`not checked — too costly: these arguments would take this schema more than ${BUDGET.toLocaleString('en')} steps to check`, true);
  }

  /**
   * Walks the subschema a `$ref` names, or repeats what walking it on this value did before: shared
   * subschemas (two `$ref`s to one definition per level) would otherwise be walked once per path to them,
   * exponentially many. A walk stopped by the error cap is not remembered: the check ends there anyway.
   */
  private walkRef(target: unknown, x: unknown, path: string, errors: SchemaError[], depth: number, first: boolean): void {
    if (typeof target !== 'object' || target === null) return this.walk(target, x, path, errors, depth, first);
    const table = this.memo[first ? 0 : 1];
    let byValue = table.get(target);
    const known = byValue?.get(x);
    if (known) {
      this.charge(1 + known.length);
      for (const e of known) errors.push({ ...e, path: path + e.path });
      return;
    }
    const before = errors.length;
    this.walk(target, x, path, errors, depth, first);
    if (errors.length >= MAX_ERRORS && !first) return;
    if (!byValue) table.set(target, (byValue = new Map()));
    byValue.set(x, errors.slice(before).map((e) => ({ ...e, path: e.path.slice(path.length) })));
  }

  /** Whether `x` equals a member of `list`: hashed, as comparing it with each member is quadratic over many. */
  private inEnum(list: unknown[], x: unknown): boolean {
    let keys = this.enums.get(list);
    if (!keys) {
      keys = new Set();
      for (const e of list) {
        const k = jsonKey(e);
        this.charge(k.length / KEY_CHARS_PER_STEP);
        keys.add(k);
      }
      this.enums.set(list, keys);
    }
    const k = jsonKey(x);
    this.charge(k.length / KEY_CHARS_PER_STEP);
    return keys.has(k);
  }

  /** The first pair of equal items, as [earlier, later], or null. */
  private firstEqual(items: unknown[]): [number, number] | null {
    const seen = new Map<string, number>();
    for (let i = 0; i < items.length; i++) {
      const k = jsonKey(items[i]);
      this.charge(k.length / KEY_CHARS_PER_STEP);
      const j = seen.get(k);
      if (j !== undefined) return [j, i];
      seen.set(k, i);
    }
    return null;
  }

  /** `pattern` searched for in `s`, its cost charged before it runs. */
  private search(pattern: string, s: string): boolean {
    const r = regex(pattern);
    if (!r.ok) throw new Error('a pattern uninterpretable() let through');
    this.charge(r.regex.cost(s.length) / REGEX_STEPS_PER_STEP);
    return r.regex.test(s);
  }

  /** Whether `x` matches `s`, without collecting why not (a branch of anyOf, oneOf, not). */
  private matches(s: unknown, x: unknown, depth: number): boolean {
    const errors: SchemaError[] = [];
    this.walk(s, x, '', errors, depth, true);
    return errors.length === 0;
  }

  /** Adds each way `x` (at `path`) fails `s` to `errors`; `first` stops at the first. */
  private walk(s: unknown, x: unknown, path: string, errors: SchemaError[], depth: number, first = false): void {
    if (depth > MAX_DEPTH) throw new Unchecked(`its $refs nest deeper than ${MAX_DEPTH} without reaching a value`);
    this.charge(1);
    const fail = (keyword: string, message: string, at = path): boolean => {
      errors.push({ path: at, keyword, message });
      return first || errors.length >= MAX_ERRORS;
    };
    if (s === true) return;
    if (s === false) return void fail('false', 'the schema allows no value here');
    const o = s as JsonObject;
    if (o.$ref !== undefined) {
      const before = errors.length;
      this.walkRef(resolve(this.root, o.$ref as string), x, path, errors, depth + 1, first);
      if (errors.length > before && (first || errors.length >= MAX_ERRORS)) return;
    }
    if (o.type !== undefined) {
      const ts = Array.isArray(o.type) ? (o.type as string[]) : [o.type as string];
      if (!ts.some((t) => hasType(x, t)) && fail('type', `is ${x === null ? 'null' : typeOf(x) === 'integer' ? 'a number' : typeOf(x) === 'array' || typeOf(x) === 'object' ? `an ${typeOf(x)}` : `a ${typeOf(x)}`}, where the schema wants ${ts.join(' or ')}`)) return;
    }
    if (o.const !== undefined && !jsonEqual(o.const, x) && fail('const', `is ${short(x)}, not ${short(o.const)}`)) return;
    if (Array.isArray(o.enum) && !this.inEnum(o.enum, x) && fail('enum', `is ${short(x)}, not one of ${short(o.enum)}`)) return;
    if (typeof x === 'number') {
      if (typeof o.minimum === 'number' && x < o.minimum && fail('minimum', `is ${x}, less than the minimum ${o.minimum}`)) return;
      if (typeof o.maximum === 'number' && x > o.maximum && fail('maximum', `is ${x}, more than the maximum ${o.maximum}`)) return;
      if (typeof o.exclusiveMinimum === 'number' && x <= o.exclusiveMinimum && fail('exclusiveMinimum', `is ${x}, not more than ${o.exclusiveMinimum}`)) return;
      if (typeof o.exclusiveMaximum === 'number' && x >= o.exclusiveMaximum && fail('exclusiveMaximum', `is ${x}, not less than ${o.exclusiveMaximum}`)) return;
      if (typeof o.multipleOf === 'number' && !isMultipleOf(x, o.multipleOf) && fail('multipleOf', `is ${x}, not a multiple of ${o.multipleOf}`)) return;
    }
    if (typeof x === 'string') {
      const n = o.minLength !== undefined || o.maxLength !== undefined ? codePoints(x) : 0;
      if (typeof o.minLength === 'number' && n < o.minLength && fail('minLength', `has ${n} characters, fewer than ${o.minLength}`)) return;
      if (typeof o.maxLength === 'number' && n > o.maxLength && fail('maxLength', `has ${n} characters, more than ${o.maxLength}`)) return;
      if (typeof o.pattern === 'string' && !this.search(o.pattern, x) && fail('pattern', `${short(x)} does not match ${o.pattern}`)) return;
    }
    if (Array.isArray(x)) {
      if (typeof o.minItems === 'number' && x.length < o.minItems && fail('minItems', `has ${x.length} items, fewer than ${o.minItems}`)) return;
      if (typeof o.maxItems === 'number' && x.length > o.maxItems && fail('maxItems', `has ${x.length} items, more than ${o.maxItems}`)) return;
      const equal = o.uniqueItems === true ? this.firstEqual(x) : null;
      if (equal && fail('uniqueItems', `items ${equal[0]} and ${equal[1]} are equal`)) return;
      const tuple = Array.isArray(o.prefixItems) ? (o.prefixItems as unknown[]) : Array.isArray(o.items) ? (o.items as unknown[]) : null;
      const rest = tuple === null ? o.items : Array.isArray(o.items) ? o.additionalItems : o.items;
      for (let i = 0; i < x.length; i++) {
        const sub = tuple !== null && i < tuple.length ? tuple[i] : rest;
        if (sub === undefined) continue;
        if (sub === false && tuple !== null && i >= tuple.length) {
          if (fail(Array.isArray(o.items) ? 'additionalItems' : 'items', `has ${x.length} items, more than the ${tuple.length} the schema lists`)) return;
          break;
        }
        const before = errors.length;
        this.walk(sub, x[i], `${path}/${i}`, errors, depth + 1, first);
        if (errors.length > before && (first || errors.length >= MAX_ERRORS)) return;
      }
    }
    if (isObject(x)) {
      const keys = Object.keys(x);
      if (typeof o.minProperties === 'number' && keys.length < o.minProperties && fail('minProperties', `has ${keys.length} members, fewer than ${o.minProperties}`)) return;
      if (typeof o.maxProperties === 'number' && keys.length > o.maxProperties && fail('maxProperties', `has ${keys.length} members, more than ${o.maxProperties}`)) return;
      if (Array.isArray(o.required)) {
        for (const r of o.required as string[]) {
          if (!Object.prototype.hasOwnProperty.call(x, r) && fail('required', 'is required, and missing', `${path}/${pointerToken(r)}`)) return;
        }
      }
      const props = isObject(o.properties) ? o.properties : null;
      const patterns = isObject(o.patternProperties) ? Object.entries(o.patternProperties) : [];
      for (const k of keys) {
        const at = `${path}/${pointerToken(k)}`;
        let known = false;
        const subs: unknown[] = [];
        if (props && Object.prototype.hasOwnProperty.call(props, k)) {
          known = true;
          subs.push(props[k]);
        }
        for (const [p, sub] of patterns) {
          if (this.search(p, k)) {
            known = true;
            subs.push(sub);
          }
        }
        if (!known && o.additionalProperties !== undefined) {
          if (o.additionalProperties === false) {
            if (fail('additionalProperties', 'is not a member the schema allows', at)) return;
            continue;
          }
          subs.push(o.additionalProperties);
        }
        for (const sub of subs) {
          const before = errors.length;
          this.walk(sub, x[k], at, errors, depth + 1, first);
          if (errors.length > before && (first || errors.length >= MAX_ERRORS)) return;
        }
      }
    }
    if (Array.isArray(o.allOf)) {
      for (const sub of o.allOf) {
        const before = errors.length;
        this.walk(sub, x, path, errors, depth + 1, first);
        if (errors.length > before && (first || errors.length >= MAX_ERRORS)) return;
      }
    }
    if (Array.isArray(o.anyOf) && !o.anyOf.some((sub) => this.matches(sub, x, depth + 1)) && fail('anyOf', `matches none of the ${o.anyOf.length} schemas of anyOf`)) return;
    if (Array.isArray(o.oneOf)) {
      let n = 0;
      for (const sub of o.oneOf) if (this.matches(sub, x, depth + 1) && ++n > 1) break;
      if (n !== 1 && fail('oneOf', n === 0 ? `matches none of the ${o.oneOf.length} schemas of oneOf` : 'matches more than one schema of oneOf')) return;
    }
    if (o.not !== undefined && this.matches(o.not, x, depth + 1)) fail('not', 'matches the schema under not');
  }
}
