import type { JsonSchema } from './protocol.ts';
import { DEFS, hasType, Shapes, type JsonType } from './shape.ts';

/*
 * Quick checks, compiled at build time (scripts/gen-validators.ts) from the schema-as-data into plain
 * predicates beside ajv's validators. ajv's code carries error reporting, evaluated-property bookkeeping
 * and an options object per call; a stream is nearly all well-formed events of a few types, which a
 * straight comparison of each member settles. A quick check answers true only for a value the schema
 * accepts; false means "ask ajv", which stays the judge of every verdict. What the compiler does not
 * understand compiles to false, so a schema it cannot read makes the check slower, never wrong.
 */

/** Keywords that assert nothing about a value (ajv reads contentEncoding as an annotation too). */
const ANNOTATIONS = new Set(['$schema', '$id', '$anchor', '$defs', 'title', 'description', 'default', 'contentEncoding']);
const ASSERTIONS = new Set([
  '$ref', 'type', 'const', 'enum', 'pattern', 'minimum', 'maximum', 'minItems', 'items', 'properties', 'required',
  'additionalProperties', 'unevaluatedProperties', 'allOf', 'oneOf', 'not',
]);

/** An enum longer than this is looked up in a Set rather than compared member by member. */
const INLINE_ENUM = 4;
/** A referenced definition whose check is at most this long is written out at each reference (ref). */
const INLINE_REF = 600;

function typeTest(v: string, type: JsonType): string {
  switch (type) {
    case 'object': return `(typeof ${v} === "object" && ${v} !== null && !Array.isArray(${v}))`;
    case 'array': return `Array.isArray(${v})`;
    case 'integer': return `Number.isInteger(${v})`;
    case 'string':
    case 'boolean': return `typeof ${v} === "${type}"`;
  }
}

function and(parts: string[]): string {
  if (parts.includes('false')) return 'false';
  const kept = parts.filter((p) => p !== 'true');
  return kept.length === 0 ? 'true' : kept.length === 1 ? kept[0]! : `(${kept.join(' && ')})`;
}

const member = (v: string, key: string): string => (/^[A-Za-z_$][\w$]*$/.test(key) ? `${v}.${key}` : `${v}[${JSON.stringify(key)}]`);

export interface QuickCheck {
  /** A JavaScript function expression, `(event) => boolean`, using the compiler's prelude. */
  source: string;
  /** Whether the check answers exactly as the schema does; otherwise it is false where the schema may say true. */
  exact: boolean;
}

/** Compiles the quick checks of one schema document's definitions. */
export class QuickCompiler {
  private readonly shapes: Shapes;
  private readonly declarations: string[] = [];
  private readonly named = new Map<string, string>();
  /** Each definition compiled once for a value named `v`, with whether it reads exactly and, once called, its function. */
  private readonly defs = new Map<string, { body: string; exact: boolean; fn: string | null }>();
  private exact = true;
  private items = 0;
  /**
   * Values already established where the expression being compiled runs: a member a schema both
   * requires and fixes to a constant, while the schema's $ref and allOf parts are compiled — they run
   * after that comparison, so the base event's enum of every type need not be looked up again.
   */
  private facts = new Map<string, unknown>();

  constructor(defs: Readonly<Record<string, JsonSchema>>) {
    this.shapes = new Shapes(defs);
  }

  /** The quick check of a definition, or null when the compiler can say nothing quick about it. */
  definition(name: string): QuickCheck | null {
    this.exact = true;
    const body = this.check('d', { $ref: `${DEFS}${name}` });
    if (body === 'false') return null;
    // A definition compiles to a function of its own; the check is that function.
    const own = /^(quick\d+)\(d\)$/.exec(body)?.[1];
    return { source: own ?? `(d) => ${body}`, exact: this.exact };
  }

  /** What the checks compiled so far share: patterns, enum sets, closed-object key tests and a list helper. */
  prelude(): string {
    return [
      'function quickEvery(list, check) { for (let i = 0; i < list.length; i++) if (!check(list[i])) return false; return true; }',
      ...this.declarations,
    ].join('\n');
  }

  private unsupported(): string {
    this.exact = false;
    return 'false';
  }

  /** A module-level declaration, shared by every check that needs the same one. */
  private declare(key: string, make: (name: string) => string): string {
    let name = this.named.get(key);
    if (name === undefined) {
      name = `quick${this.named.size}`;
      this.named.set(key, name);
      this.declarations.push(make(name));
    }
    return name;
  }

  /** An expression true only when the value of expression `v` (free of side effects) satisfies `schema`. */
  private check(v: string, schema: JsonSchema): string {
    const keys = Object.keys(schema);
    if (!keys.every((k) => ANNOTATIONS.has(k) || ASSERTIONS.has(k))) return this.unsupported();
    if (this.facts.has(v) && keys.every((k) => ANNOTATIONS.has(k) || k === 'type' || k === 'const' || k === 'enum')) return this.known(this.facts.get(v), schema);
    const parts: string[] = [];
    const objectOnly = (test: string): string => (schema.type === 'object' ? test : `(!${typeTest(v, 'object')} || ${test})`);
    if (schema.type !== undefined) parts.push(typeTest(v, schema.type));
    if (schema.not !== undefined) parts.push(schema.not.type === 'null' && Object.keys(schema.not).length === 1 ? `${v} !== null` : this.unsupported());
    if (schema.const !== undefined) parts.push(`${v} === ${JSON.stringify(schema.const)}`);
    if (schema.enum !== undefined) parts.push(this.oneOfValues(v, schema.enum));
    if (schema.pattern !== undefined) {
      const re = this.declare(`pattern ${schema.pattern}`, (n) => `const ${n} = new RegExp(${JSON.stringify(schema.pattern)}, "u");`);
      parts.push(`(typeof ${v} !== "string" || ${re}.test(${v}))`);
    }
    if (schema.minimum !== undefined) parts.push(`(typeof ${v} !== "number" || ${v} >= ${schema.minimum})`);
    if (schema.maximum !== undefined) parts.push(`(typeof ${v} !== "number" || ${v} <= ${schema.maximum})`);
    if (schema.minItems !== undefined) parts.push(`(!Array.isArray(${v}) || ${v}.length >= ${schema.minItems})`);
    if (schema.items !== undefined) {
      const e = `e${this.items++}`;
      const each = this.check(e, schema.items);
      parts.push(each === 'false' ? 'false' : `(!Array.isArray(${v}) || quickEvery(${v}, (${e}) => ${each}))`);
    }
    if (schema.required !== undefined) parts.push(objectOnly(and(schema.required.map((k) => `${member(v, k)} !== undefined`))));
    if (schema.properties !== undefined) {
      parts.push(objectOnly(and(Object.entries(schema.properties).map(([k, sub]) => {
        const at = member(v, k);
        const value = this.check(at, sub);
        // A member the compiler cannot judge is fine when absent.
        return value === 'true' ? 'true' : value === 'false' ? `${at} === undefined` : `(${at} === undefined || ${value})`;
      }))));
    }
    if (schema.unevaluatedProperties === false) parts.push(objectOnly(this.closed(v, schema)));
    const outer = this.facts;
    if (schema.type === 'object') {
      const fixed = (schema.required ?? []).filter((k) => schema.properties?.[k]?.const !== undefined);
      if (fixed.length > 0) this.facts = new Map([...outer, ...fixed.map((k) => [member(v, k), schema.properties![k]!.const] as const)]);
    }
    if (schema.$ref !== undefined) parts.push(this.ref(v, schema.$ref));
    for (const part of schema.allOf ?? []) parts.push(this.check(v, part));
    this.facts = outer;
    if (schema.oneOf !== undefined) parts.push(this.union(v, schema.oneOf));
    return and(parts);
  }

  /**
   * A small definition is written out where it is referenced; a larger one becomes a function its
   * references call. Written out, each use reads its members at a site of its own: the base event's
   * members, read in one shared function, would meet every event type's object shape there and make
   * each read a generic lookup, where at the event type's own site they stay of one shape.
   */
  private ref(v: string, ref: string): string {
    let def = this.defs.get(ref);
    if (def === undefined) {
      const outer = this.exact;
      const facts = this.facts;
      this.exact = true;
      // The shared body holds wherever it is called, so it assumes nothing of its caller.
      this.facts = new Map();
      def = { body: this.check('v', this.shapes.resolve(ref)), exact: this.exact, fn: null };
      this.exact = outer && def.exact;
      this.facts = facts;
      this.defs.set(ref, def);
    } else if (!def.exact) this.exact = false;
    const { body } = def;
    if (body === 'true' || body === 'false') return body;
    if (body.length <= INLINE_REF) return this.check(v, this.shapes.resolve(ref));
    def.fn ??= this.declare(`ref ${ref}`, (n) => `function ${n}(v) { return ${body}; }`);
    return `${def.fn}(${v})`;
  }

  /** A schema of type, const and enum only, judged here for a value known at compile time. */
  private known(value: unknown, schema: JsonSchema): string {
    const holds =
      (schema.type === undefined || hasType(value, schema.type)) &&
      (schema.const === undefined || schema.const === value) &&
      (schema.enum === undefined || (schema.enum as readonly unknown[]).includes(value));
    return holds ? 'true' : 'false';
  }

  private oneOfValues(v: string, values: readonly string[]): string {
    if (values.length <= INLINE_ENUM) return `(${values.map((x) => `${v} === ${JSON.stringify(x)}`).join(' || ')})`;
    const set = this.declare(`enum ${JSON.stringify(values)}`, (n) => `const ${n} = new Set(${JSON.stringify(values)});`);
    return `${set}.has(${v})`;
  }

  /** Every own and inherited enumerable key, as ajv's for-in sees them, is one the composed parts name. */
  private closed(v: string, schema: JsonSchema): string {
    const shape = this.shapes.shape(schema);
    if (shape.open) return 'true';
    if (shape.unions) return this.unsupported();
    const known = [...shape.properties.keys()];
    const test = this.declare(`closed ${JSON.stringify(known)}`, (n) =>
      `function ${n}(o) { for (const k in o) if (${known.map((k) => `k !== ${JSON.stringify(k)}`).join(' && ') || 'true'}) return false; return true; }`);
    return `${test}(${v})`;
  }

  /**
   * Exactly one arm holds when the arms are told apart — by a required constant member, or by their
   * distinct types — and the one the value selects holds; any other union is ajv's to judge.
   */
  private union(v: string, arms: readonly JsonSchema[]): string {
    const tagged = this.shapes.discriminator(arms);
    if (tagged !== null && tagged.arms.size === arms.length) {
      const tag = member(v, tagged.key);
      const choice = [...tagged.arms].map(([value, arm]) => `${tag} === ${JSON.stringify(value)} ? ${this.check(v, arm)} : `).join('');
      return `(${typeTest(v, 'object')} && (${choice}false))`;
    }
    const resolved = arms.map((arm) => (arm.$ref === undefined ? arm : this.shapes.resolve(arm.$ref)));
    const types = resolved.map((arm) => arm.type);
    if (types.every((t) => t !== undefined) && new Set(types).size === types.length) {
      return `(${resolved.map((arm) => `${typeTest(v, arm.type!)} ? ${this.check(v, arm)} : `).join('')}false)`;
    }
    return this.unsupported();
  }
}
