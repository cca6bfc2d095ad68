import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Ajv from 'ajv/dist/ajv.js';
import Ajv2020 from 'ajv/dist/2020.js';
import { BUDGET, CheckedSchema } from '../../src/detail/json-schema.ts';
import { prng } from '../wire/helpers.ts';

const check = (schema: unknown, x: unknown) => new CheckedSchema(schema).check(x);
const paths = (schema: unknown, x: unknown): [string, string][] => {
  const r = check(schema, x);
  assert.equal(r.status, 'invalid', JSON.stringify(r));
  return r.status === 'invalid' ? r.errors.map((e) => [e.path, e.keyword]) : [];
};

test('each keyword, valid and each kind of mismatch, with the JSON Pointer of what failed', () => {
  assert.deepEqual(check({ type: 'object' }, {}), { status: 'valid' });
  assert.deepEqual(paths({ type: ['string', 'null'] }, 1), [['', 'type']]);
  assert.deepEqual(paths({ type: 'integer' }, 1.5), [['', 'type']]);
  assert.equal(check({ type: 'number' }, 2).status, 'valid', 'an integer is a number');
  assert.deepEqual(paths({ properties: { a: { type: 'string' } }, required: ['a', 'b~/'] }, { a: 1 }), [['/b~0~1', 'required'], ['/a', 'type']]);
  assert.deepEqual(paths({ properties: { a: true }, additionalProperties: false }, { a: 1, z: 2 }), [['/z', 'additionalProperties']]);
  assert.deepEqual(paths({ additionalProperties: { type: 'number' } }, { z: 'x' }), [['/z', 'type']]);
  assert.deepEqual(paths({ patternProperties: { '^x-': { type: 'string' } }, additionalProperties: false }, { 'x-a': 1, b: 1 }), [['/x-a', 'type'], ['/b', 'additionalProperties']]);
  assert.deepEqual(paths({ items: { type: 'string' } }, ['a', 2]), [['/1', 'type']]);
  assert.deepEqual(paths({ prefixItems: [{ type: 'string' }], items: false }, ['a', 2]), [['', 'items']]);
  assert.deepEqual(paths({ items: [{ type: 'string' }], additionalItems: false }, ['a', 2]), [['', 'additionalItems']]);
  assert.deepEqual(paths({ enum: ['a', { b: [1] }] }, { b: [2] }), [['', 'enum']]);
  assert.equal(check({ enum: ['a', { b: [1], c: 1 }] }, { c: 1, b: [1] }).status, 'valid', 'members in any order');
  assert.deepEqual(paths({ const: 0 }, false), [['', 'const']]);
  assert.deepEqual(paths({ minimum: 1, maximum: 3 }, 0), [['', 'minimum']]);
  assert.deepEqual(paths({ maximum: 3 }, 4), [['', 'maximum']]);
  assert.deepEqual(paths({ exclusiveMinimum: 1 }, 1), [['', 'exclusiveMinimum']]);
  assert.deepEqual(paths({ exclusiveMaximum: 1 }, 1), [['', 'exclusiveMaximum']]);
  assert.deepEqual(paths({ multipleOf: 0.5 }, 0.7), [['', 'multipleOf']]);
  assert.equal(check({ minLength: 2, maxLength: 2 }, '😀😀').status, 'valid', 'lengths count code points');
  assert.deepEqual(paths({ minLength: 3 }, '😀😀'), [['', 'minLength']]);
  assert.deepEqual(paths({ maxLength: 1 }, 'ab'), [['', 'maxLength']]);
  assert.deepEqual(paths({ pattern: '^\\p{Lu}' }, 'abc'), [['', 'pattern']]);
  assert.deepEqual(paths({ minItems: 1 }, []), [['', 'minItems']]);
  assert.deepEqual(paths({ maxItems: 1 }, [1, 2]), [['', 'maxItems']]);
  assert.deepEqual(paths({ uniqueItems: true }, [{ a: 1 }, { a: 1 }]), [['', 'uniqueItems']]);
  assert.deepEqual(paths({ minProperties: 1 }, {}), [['', 'minProperties']]);
  assert.deepEqual(paths({ maxProperties: 0 }, { a: 1 }), [['', 'maxProperties']]);
  assert.deepEqual(paths({ anyOf: [{ type: 'string' }, { type: 'number' }] }, null), [['', 'anyOf']]);
  assert.deepEqual(paths({ oneOf: [{ type: 'number' }, { type: 'integer' }] }, 1), [['', 'oneOf']]);
  assert.deepEqual(paths({ allOf: [{ type: 'number' }, { minimum: 2 }] }, 1), [['', 'minimum']]);
  assert.deepEqual(paths({ not: { type: 'null' } }, null), [['', 'not']]);
  assert.deepEqual(paths(false, 1), [['', 'false']]);
  assert.deepEqual(paths({ $defs: { s: { type: 'string' } }, properties: { a: { $ref: '#/$defs/s' } } }, { a: 1 }), [['/a', 'type']]);
  assert.deepEqual(paths({ definitions: { 'a/b': { type: 'string' } }, items: { $ref: '#/definitions/a~1b' } }, [1]), [['/0', 'type']]);
  // A recursive schema: a tree of nodes.
  const tree = { $defs: { node: { type: 'object', properties: { kids: { type: 'array', items: { $ref: '#/$defs/node' } } }, required: ['v'] } }, $ref: '#/$defs/node' };
  assert.deepEqual(paths(tree, { v: 1, kids: [{ v: 2 }, { kids: [] }] }), [['/kids/1/v', 'required']]);
  assert.equal(check({ type: 'string', format: 'email', title: 't', 'x-custom': 1 }, 'not an email').status, 'valid', 'format and annotations do not constrain');
});

test('a schema it cannot interpret is unchecked, with the reason', () => {
  const reason = (schema: unknown): string => {
    const r = check(schema, {});
    assert.equal(r.status, 'unchecked');
    return r.status === 'unchecked' ? r.reason : '';
  };
  assert.match(reason({ properties: { a: { if: { type: 'string' }, then: { minLength: 1 } } } }), /uses if \(at \/properties\/a\)/);
  assert.match(reason({ $ref: 'https://example.com/schema.json' }), /not a pointer into the schema itself/);
  assert.match(reason({ $ref: '#/$defs/missing' }), /points at nothing/);
  assert.match(reason({ $ref: '#anchor' }), /not a pointer/);
  assert.match(reason({ pattern: '(' }), /not a regular expression/);
  assert.match(reason({ pattern: '(a)\\1' }), /its pattern "\(a\)\\\\1" \(at \/\) is refused: it uses a backreference/);
  assert.match(reason({ properties: { a: { patternProperties: { '^x(?=y)': true } } } }), /its pattern "\^x\(\?=y\)" \(at \/properties\/a\) is refused: it uses lookaround/);
  assert.match(reason({ type: 'date' }), /not a JSON Schema type/);
  assert.match(reason({ exclusiveMinimum: true, minimum: 1 }), /draft-04/);
  assert.match(reason({ properties: 1 }), /not an object/);
  assert.match(reason('string'), /neither an object nor a boolean/);
  assert.match(reason({ properties: { a: { $id: 'other.json' } } }), /nested \$id/);
  assert.match(reason({ $defs: { a: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' }), /nest deeper/);
});

// ---- Page-controlled input: every check is bounded ----

const cpuMs = (f: () => void): number => {
  const t = process.cpuUsage();
  f();
  const d = process.cpuUsage(t);
  return (d.user + d.system) / 1000;
};
/** Asserts `f` takes under `ms` of CPU time, and returns what it returned. */
const fast = <T,>(ms: number, f: () => T): T => {
  let out!: T;
  const took = cpuMs(() => (out = f()));
  assert.ok(took < ms, `took ${took.toFixed(0)} ms`);
  return out;
};

describe('bounded on hostile schemas and arguments', () => {
  test('a pattern that backtracks natively: ^(a+)+$ against a×28 and a×40, then !', () => {
    for (const n of [28, 40]) {
      assert.deepEqual(fast(200, () => paths({ type: 'string', pattern: '^(a+)+$' }, 'a'.repeat(n) + '!')), [['', 'pattern']]);
      assert.deepEqual(check({ patternProperties: { '^(a+)+$': false } }, { ['a'.repeat(n) + '!']: 1, ['a'.repeat(n)]: 1 }).status, 'invalid');
    }
  });

  test('24 levels of allOf and anyOf, each of two $refs to the next level, walk each level once', () => {
    const levels = 24;
    const nested = (kind: (i: number) => string) => {
      const $defs: Record<string, unknown> = { [`d${levels}`]: { type: 'string', minLength: 2 } };
      for (let i = 0; i < levels; i++) {
        const next = { $ref: `#/$defs/d${i + 1}` };
        $defs[`d${i}`] = { [kind(i)]: [next, { ...next }] };
      }
      return { $defs, properties: { a: { $ref: '#/$defs/d0' }, b: { $ref: '#/$defs/d0' } } };
    };
    // Every allOf branch is walked when the value is valid; every anyOf branch when it is not: 2^24 walks each, unremembered.
    assert.deepEqual(fast(500, () => check(nested(() => 'allOf'), { a: 'xy' })), { status: 'valid' });
    assert.deepEqual(fast(500, () => paths(nested(() => 'anyOf'), { a: 'x' })), [['/a', 'anyOf']]);
    const mixed = nested((i) => (i % 2 ? 'anyOf' : 'allOf'));
    assert.deepEqual(fast(500, () => check(mixed, { a: 'xy', b: 'zw' })), { status: 'valid' });
    // The same value at two paths: each mismatch is named at its own path, once per allOf branch.
    assert.deepEqual(fast(500, () => paths(mixed, { a: 'x', b: 'x' })), [['/a', 'anyOf'], ['/a', 'anyOf'], ['/b', 'anyOf'], ['/b', 'anyOf']]);
  });

  test('uniqueItems and enum over 20,000 items, and four times the items about four times the time', () => {
    const items = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i, tags: [`t${i}`, { z: i % 7, a: null }] }));
    const list = items(20_000);
    assert.deepEqual(fast(1000, () => check({ uniqueItems: true }, list)), { status: 'valid' });
    assert.deepEqual(fast(1000, () => check({ uniqueItems: true }, [...list, { tags: ['t5', { a: null, z: 5 }], id: 5 }])), {
      status: 'invalid', errors: [{ path: '', keyword: 'uniqueItems', message: 'items 5 and 20000 are equal' }],
    });
    const e = new CheckedSchema({ items: { enum: list } });
    assert.deepEqual(fast(1000, () => e.check(list.slice().reverse())), { status: 'valid' });
    assert.deepEqual(fast(1000, () => paths({ items: { enum: list } }, [{ id: 1, tags: ['t1', { z: 1, a: 0 }] }])), [['/0', 'enum']]);
    const at = (n: number): number => {
      const x = items(n);
      return Math.min(...[0, 1, 2, 3, 4].map(() => cpuMs(() => assert.equal(check({ uniqueItems: true, items: { enum: x } }, x).status, 'valid'))));
    };
    // Both sizes warm first; the least of five samples each. Linear reads about 4 here and quadratic 16: a
    // collection landing in one sample made 2n ÷ n read 3.6 in a clean-clone run, so the sizes are 4n and n.
    at(2_500);
    at(10_000);
    const [one, four] = [at(2_500), at(10_000)];
    assert.ok(four / one < 8, `n: ${one.toFixed(1)} ms, 4n: ${four.toFixed(1)} ms`);
  });

  test('multipleOf is decided on the decimal values', () => {
    for (const [x, m] of [[0.29, 0.01], [19.99, 0.01], [1.1, 0.1], [4.35, 0.05], [-0.3, 0.1], [1e21, 1e-7], [0, 0.3], [123456789012345680000, 10]]) {
      assert.equal(check({ multipleOf: m }, x).status, 'valid', `${x} of ${m}`);
    }
    for (const [x, m] of [[0.291, 0.01], [1e308, 3], [5e-324, 1e-323], [0.3, 0.2]]) {
      assert.equal(check({ multipleOf: m }, x).status, 'invalid', `${x} of ${m}`);
    }
  });

  test('a check beyond its budget is unchecked, as too costly, never a verdict', () => {
    const long = 'a'.repeat(1_000_000);
    const r = fast(1000, () => check({ items: { pattern: '^([a-z]|\\d)+$' } }, [long]));
    assert.equal(r.status, 'unchecked');
    assert.match(r.status === 'unchecked' ? r.reason : '', new RegExp(`^not checked — too costly: .* more than ${BUDGET.toLocaleString('en')} steps`));
    assert.equal(r.status === 'unchecked' && r.costly, true);
    // The schema is not spoiled for the next, affordable, arguments.
    const s = new CheckedSchema({ items: { pattern: '^([a-z]|\\d)+$' } });
    assert.equal(s.check([long]).status, 'unchecked');
    assert.equal(s.check(['ok']).status, 'valid');
    // Walking many subschemas over many values counts too.
    const wide = { items: { anyOf: Array.from({ length: 50 }, (_, i) => ({ type: 'object', required: [`k${i}`] })) } };
    assert.equal(fast(1500, () => check(wide, Array.from({ length: 200_000 }, () => ({ k49: 1 })))).status, 'unchecked');
  });
});

// ---- Differential against ajv: generated schemas and instances ----

const NAMES = ['a', 'b', 'c', 'x-y', 'd/e'];
const PATTERNS = ['^a', 'b$', '^[a-c]*$', '\\d', '^\\p{L}+$'];
const STRINGS = ['', 'a', 'ab', 'abc', 'b', 'c1', '😀', '😀a', 'Ünï', '123', 'x-y'];
const NUMBERS = [0, 1, -1, 2, 2.5, 3, 10, -0.5, 100, 7];

function gen(draft: '07' | '2020', seed: number) {
  const r = prng(seed);
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const chance = (p: number) => r() < p;
  const defs: Record<string, unknown> = {};
  let defCount = 0;
  const value = (depth: number): unknown => {
    const k = Math.floor(r() * (depth > 2 ? 5 : 7));
    switch (k) {
      case 0: return null;
      case 1: return chance(0.5);
      case 2: return pick(NUMBERS);
      case 3: case 4: return pick(STRINGS);
      case 5: return Array.from({ length: Math.floor(r() * 4) }, () => value(depth + 1));
      default: return Object.fromEntries(Array.from({ length: Math.floor(r() * 4) }, () => [pick(NAMES), value(depth + 1)]));
    }
  };
  const schema = (depth: number): unknown => {
    if (depth > 3 || chance(0.08)) return chance(0.8);
    const s: Record<string, unknown> = {};
    const type = pick(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null', 'multi', 'none']);
    if (type === 'multi') s.type = [pick(['string', 'number']), pick(['null', 'object', 'array'])];
    else if (type !== 'none') s.type = type;
    if (type === 'object' || type === 'none' || chance(0.15)) {
      if (chance(0.8)) s.properties = Object.fromEntries(NAMES.filter(() => chance(0.4)).map((n) => [n, schema(depth + 1)]));
      if (chance(0.5)) s.required = NAMES.filter(() => chance(0.3));
      if (chance(0.4)) s.additionalProperties = chance(0.5) ? false : schema(depth + 1);
      if (chance(0.15)) s.patternProperties = { [pick(PATTERNS)]: schema(depth + 1) };
      if (chance(0.1)) s.minProperties = Math.floor(r() * 3);
      if (chance(0.1)) s.maxProperties = Math.floor(r() * 3);
    }
    if (type === 'array' || type === 'none' || chance(0.15)) {
      if (chance(0.3)) {
        const tuple = Array.from({ length: 1 + Math.floor(r() * 2) }, () => schema(depth + 1));
        if (draft === '2020') {
          s.prefixItems = tuple;
          if (chance(0.5)) s.items = chance(0.5) ? false : schema(depth + 1);
        } else {
          s.items = tuple;
          if (chance(0.5)) s.additionalItems = chance(0.5) ? false : schema(depth + 1);
        }
      } else if (chance(0.7)) s.items = schema(depth + 1);
      if (chance(0.2)) s.minItems = Math.floor(r() * 3);
      if (chance(0.2)) s.maxItems = Math.floor(r() * 3);
      if (chance(0.2)) s.uniqueItems = chance(0.7);
    }
    if (['string', 'none', 'multi'].includes(type) || chance(0.1)) {
      if (chance(0.3)) s.minLength = Math.floor(r() * 3);
      if (chance(0.3)) s.maxLength = Math.floor(r() * 3);
      if (chance(0.3)) s.pattern = pick(PATTERNS);
      if (chance(0.1)) s.format = pick(['email', 'date-time', 'uri']);
    }
    if (['number', 'integer', 'none', 'multi'].includes(type) || chance(0.1)) {
      if (chance(0.3)) s.minimum = pick(NUMBERS);
      if (chance(0.3)) s.maximum = pick(NUMBERS);
      if (chance(0.2)) s.exclusiveMinimum = pick(NUMBERS);
      if (chance(0.2)) s.exclusiveMaximum = pick(NUMBERS);
      if (chance(0.15)) s.multipleOf = pick([0.5, 2, 3]);
    }
    if (chance(0.1)) s.enum = [...new Map(Array.from({ length: 1 + Math.floor(r() * 3) }, () => value(2)).map((v) => [JSON.stringify(v), v])).values()];
    if (chance(0.06)) s.const = value(2);
    if (chance(0.08)) s.anyOf = Array.from({ length: 1 + Math.floor(r() * 3) }, () => schema(depth + 1));
    if (chance(0.08)) s.oneOf = Array.from({ length: 1 + Math.floor(r() * 3) }, () => schema(depth + 1));
    if (chance(0.08)) s.allOf = Array.from({ length: 1 + Math.floor(r() * 2) }, () => schema(depth + 1));
    if (chance(0.05)) s.not = schema(depth + 1);
    if (chance(0.08)) {
      const name = `d${defCount++}`;
      defs[name] = schema(depth + 1);
      s.$ref = `#/${draft === '2020' ? '$defs' : 'definitions'}/${name}`;
    }
    if (chance(0.05)) s.description = 'annotation';
    return s;
  };
  /** An instance shaped after the schema most of the time, so that both verdicts are common. */
  const near = (s: unknown, depth: number): unknown => {
    if (typeof s !== 'object' || s === null || depth > 5 || chance(0.1)) return value(depth);
    const o = s as Record<string, unknown>;
    const t = Array.isArray(o.type) ? pick(o.type as string[]) : (o.type as string | undefined);
    if (t === 'object' || (!t && (o.properties || o.required))) {
      const out: Record<string, unknown> = {};
      for (const [k, sub] of Object.entries((o.properties as object) ?? {})) if (chance(0.7)) out[k] = near(sub, depth + 1);
      for (const k of (o.required as string[]) ?? []) if (chance(0.8) && !(k in out)) out[k] = value(depth + 1);
      if (chance(0.2)) out[pick(NAMES)] = value(depth + 1);
      return out;
    }
    if (t === 'array' || (!t && (o.items || o.prefixItems))) {
      const tuple = (Array.isArray(o.prefixItems) ? o.prefixItems : Array.isArray(o.items) ? o.items : []) as unknown[];
      const rest = Array.isArray(o.items) ? o.additionalItems : o.prefixItems ? o.items : o.items;
      return Array.from({ length: Math.floor(r() * 4) }, (_, i) => near(i < tuple.length ? tuple[i] : rest, depth + 1));
    }
    if (t === 'string') return pick(STRINGS);
    if (t === 'number' || t === 'integer') return pick(NUMBERS);
    if (t === 'boolean') return chance(0.5);
    if (t === 'null') return null;
    return value(depth);
  };
  const root = schema(0) as Record<string, unknown> | boolean;
  const full = typeof root === 'object' && defCount > 0 ? { ...root, [draft === '2020' ? '$defs' : 'definitions']: defs } : root;
  if (typeof full === 'object' && chance(0.3)) full.$schema = draft === '2020' ? 'https://json-schema.org/draft/2020-12/schema' : 'http://json-schema.org/draft-07/schema#';
  return { schema: full, instances: Array.from({ length: 16 }, () => (chance(0.8) ? near(full, 0) : value(0))) };
}

const has = (s: unknown, keys: string[]): boolean => JSON.stringify(s).match(new RegExp(`"(${keys.join('|')})":`)) !== null;

/** ajv's errors as this checker's pointers: a missing or extra member is named by its own path. */
function ajvPaths(errors: { instancePath: string; keyword: string; params: Record<string, unknown> }[]): string[] {
  return errors
    .map((e) => {
      const member = e.keyword === 'required' ? e.params.missingProperty : e.keyword === 'additionalProperties' ? e.params.additionalProperty : undefined;
      const path = member === undefined ? e.instancePath : `${e.instancePath}/${String(member).replace(/~/g, '~0').replace(/\//g, '~1')}`;
      return `${path} ${e.keyword === 'false schema' ? 'false' : e.keyword}`;
    })
    .sort();
}

test('differential: the verdict and mismatches of ajv on generated schemas and instances, draft-07 and 2020-12', () => {
  const opts = { strict: false, allErrors: true, validateFormats: false } as const;
  const counts = { schemas: 0, instances: 0, valid: 0, invalid: 0, errorSetsCompared: 0 };
  for (const draft of ['07', '2020'] as const) {
    for (let seed = 1; seed <= 500; seed++) {
      const { schema, instances } = gen(draft, seed * (draft === '07' ? 7 : 13));
      const ajv = draft === '07' ? new Ajv(opts) : new Ajv2020(opts);
      const validate = ajv.compile(schema as object);
      const mine = new CheckedSchema(schema);
      assert.equal(mine.unchecked, null, JSON.stringify(schema));
      counts.schemas++;
      // Combinators report their branches' errors in ajv; only the verdict is compared for them.
      const compareErrors = !has(schema, ['anyOf', 'oneOf', 'not']);
      for (const x of instances) {
        counts.instances++;
        const ok = validate(x) as boolean;
        const got = mine.check(x);
        const where = `draft ${draft}, seed ${seed}: ${JSON.stringify(schema)} against ${JSON.stringify(x)} (ajv: ${JSON.stringify(validate.errors)}; mine: ${JSON.stringify(got)})`;
        assert.equal(got.status, ok ? 'valid' : 'invalid', where);
        if (ok) counts.valid++;
        else counts.invalid++;
        if (!ok && compareErrors && got.status === 'invalid') {
          counts.errorSetsCompared++;
          assert.deepEqual(got.errors.map((e) => `${e.path} ${e.keyword}`).sort(), ajvPaths(validate.errors as never), where);
        }
      }
    }
  }
  console.log(`differential vs ajv: ${JSON.stringify(counts)}`);
  assert.ok(counts.valid > counts.instances * 0.2 && counts.invalid > counts.instances * 0.2, JSON.stringify(counts));
});
