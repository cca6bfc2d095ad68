/**
 * A small JSON Schema interpreter for the `parameters` a frontend tool declares (basic/run-input#tools):
 * ajv would compile them to code, which the extension's content security policy forbids (no `eval`, no
 * `new Function`), so they are walked instead. It covers what applications send — draft 2020-12 and
 * draft-07 alike (`items` as an array is the draft-07 tuple form, `prefixItems` the 2020-12 one) — and
 * says a schema is unchecked, with the reason, rather than guess at one it cannot interpret: a keyword
 * that constrains but is not interpreted here, a `$ref` that is not a local pointer, an invalid pattern.
 * `format` is an annotation here, as it is by default in 2020-12. test/detail/json-schema.test.ts holds
 * it to ajv on generated schema/instance pairs.
 */
import { isObject, jsonEqual, pointerToken, type JsonObject } from '../json.ts';

export interface SchemaError {
  /** JSON Pointer into the instance: the member a `required` or `additionalProperties` mismatch names, else the value that failed. */
  path: string;
  keyword: string;
  message: string;
}

export type SchemaCheck = { status: 'valid' } | { status: 'invalid'; errors: SchemaError[] } | { status: 'unchecked'; reason: string };

/** Keywords of the drafts that constrain and are not interpreted: a schema using one is unchecked. */
const UNINTERPRETED = new Set([
  'if', 'then', 'else', 'dependentRequired', 'dependentSchemas', 'dependencies', 'propertyNames', 'contains', 'minContains', 'maxContains',
  'unevaluatedProperties', 'unevaluatedItems', '$dynamicRef', '$dynamicAnchor', '$recursiveRef', '$recursiveAnchor', 'extends', 'disallow', 'divisibleBy',
]);
const TYPES = new Set(['null', 'boolean', 'object', 'array', 'number', 'integer', 'string']);
/** At most this many mismatches are reported per instance; deeper nesting of `$ref`s than this is refused. */
const MAX_ERRORS = 100;
const MAX_DEPTH = 256;

class Unchecked extends Error {}

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
    for (const p of patterns) if (regex(p) === null) return `its pattern ${JSON.stringify(p)} (at ${at || '/'}) is not a regular expression JavaScript reads`;
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

const regexes = new Map<string, RegExp | null>();
function regex(p: string): RegExp | null {
  let r = regexes.get(p);
  if (r === undefined) {
    try {
      r = new RegExp(p, 'u');
    } catch {
      r = null;
    }
    if (regexes.size > 1000) regexes.clear();
    regexes.set(p, r);
  }
  return r;
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

  constructor(private readonly root: unknown) {
    this.unchecked = uninterpretable(root);
  }

  check(instance: unknown): SchemaCheck {
    if (this.unchecked !== null) return { status: 'unchecked', reason: this.unchecked };
    const errors: SchemaError[] = [];
    try {
      this.walk(this.root, instance, '', errors, 0);
    } catch (e) {
      if (e instanceof Unchecked) return { status: 'unchecked', reason: e.message };
      throw e;
    }
    return errors.length === 0 ? { status: 'valid' } : { status: 'invalid', errors: errors.slice(0, MAX_ERRORS) };
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
    const fail = (keyword: string, message: string, at = path): boolean => {
      errors.push({ path: at, keyword, message });
      return first || errors.length >= MAX_ERRORS;
    };
    if (s === true) return;
    if (s === false) return void fail('false', 'the schema allows no value here');
    const o = s as JsonObject;
    if (o.$ref !== undefined) {
      const before = errors.length;
      this.walk(resolve(this.root, o.$ref as string), x, path, errors, depth + 1, first);
      if (errors.length > before && (first || errors.length >= MAX_ERRORS)) return;
    }
    if (o.type !== undefined) {
      const ts = Array.isArray(o.type) ? (o.type as string[]) : [o.type as string];
      if (!ts.some((t) => hasType(x, t)) && fail('type', `is ${x === null ? 'null' : typeOf(x) === 'integer' ? 'a number' : typeOf(x) === 'array' || typeOf(x) === 'object' ? `an ${typeOf(x)}` : `a ${typeOf(x)}`}, where the schema wants ${ts.join(' or ')}`)) return;
    }
    if (o.const !== undefined && !jsonEqual(o.const, x) && fail('const', `is ${short(x)}, not ${short(o.const)}`)) return;
    if (Array.isArray(o.enum) && !o.enum.some((e) => jsonEqual(e, x)) && fail('enum', `is ${short(x)}, not one of ${short(o.enum)}`)) return;
    if (typeof x === 'number') {
      if (typeof o.minimum === 'number' && x < o.minimum && fail('minimum', `is ${x}, less than the minimum ${o.minimum}`)) return;
      if (typeof o.maximum === 'number' && x > o.maximum && fail('maximum', `is ${x}, more than the maximum ${o.maximum}`)) return;
      if (typeof o.exclusiveMinimum === 'number' && x <= o.exclusiveMinimum && fail('exclusiveMinimum', `is ${x}, not more than ${o.exclusiveMinimum}`)) return;
      if (typeof o.exclusiveMaximum === 'number' && x >= o.exclusiveMaximum && fail('exclusiveMaximum', `is ${x}, not less than ${o.exclusiveMaximum}`)) return;
      if (typeof o.multipleOf === 'number') {
        const q = x / o.multipleOf;
        if (!Number.isInteger(q) && fail('multipleOf', `is ${x}, not a multiple of ${o.multipleOf}`)) return;
      }
    }
    if (typeof x === 'string') {
      const n = o.minLength !== undefined || o.maxLength !== undefined ? codePoints(x) : 0;
      if (typeof o.minLength === 'number' && n < o.minLength && fail('minLength', `has ${n} characters, fewer than ${o.minLength}`)) return;
      if (typeof o.maxLength === 'number' && n > o.maxLength && fail('maxLength', `has ${n} characters, more than ${o.maxLength}`)) return;
      if (typeof o.pattern === 'string' && !regex(o.pattern)!.test(x) && fail('pattern', `${short(x)} does not match ${o.pattern}`)) return;
    }
    if (Array.isArray(x)) {
      if (typeof o.minItems === 'number' && x.length < o.minItems && fail('minItems', `has ${x.length} items, fewer than ${o.minItems}`)) return;
      if (typeof o.maxItems === 'number' && x.length > o.maxItems && fail('maxItems', `has ${x.length} items, more than ${o.maxItems}`)) return;
      if (o.uniqueItems === true) {
        outer: for (let i = 1; i < x.length; i++) {
          for (let j = 0; j < i; j++) {
            if (jsonEqual(x[i], x[j])) {
              if (fail('uniqueItems', `items ${j} and ${i} are equal`)) return;
              break outer;
            }
          }
        }
      }
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
      const patterns = isObject(o.patternProperties) ? Object.entries(o.patternProperties).map(([p, sub]) => [regex(p)!, sub] as const) : [];
      for (const k of keys) {
        const at = `${path}/${pointerToken(k)}`;
        let known = false;
        const subs: unknown[] = [];
        if (props && Object.prototype.hasOwnProperty.call(props, k)) {
          known = true;
          subs.push(props[k]);
        }
        for (const [r, sub] of patterns) {
          if (r.test(k)) {
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
