import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventDefinitions, JSON_POINTER, schemaFor, type JsonSchema } from '../../src/schema/protocol.ts';
import { ENCRYPTED_VALUE_TYPE_DEFS, referenceSchema, skipReason } from './reference.ts';

/** Prose is the reference's, not ours: every structural keyword is compared, descriptions are not. */
function structure(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(structure);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value)
    .filter(([key, v]) => !(key === 'description' && typeof v === 'string'))
    .map(([key, v]) => [key, structure(v)]));
}

/** The one documented difference: JsonPointer's pattern, restated for a bounded stack (see JSON_POINTER). */
const REFERENCE_JSON_POINTER = '^(/([^/~]|~[01])*)*$';

function ourStructure(name: string, def: unknown): unknown {
  const shape = structure(def) as Record<string, unknown>;
  return name === 'JsonPointer' ? { ...shape, pattern: shape.pattern === JSON_POINTER ? REFERENCE_JSON_POINTER : shape.pattern } : shape;
}

const defsOf = (schema: unknown): Record<string, unknown> => (schema as { $defs: Record<string, unknown> }).$defs;

for (const version of ['1.1', '1.0'] as const) {
  test(`${version}: every $def matches the reference structurally (properties, required, enums, consts, open/closed)`, { skip: skipReason }, () => {
    const reference = defsOf(referenceSchema(version));
    const ours = defsOf(schemaFor(version));
    assert.deepEqual(Object.keys(ours).sort(), Object.keys(reference).sort());
    for (const name of Object.keys(reference)) {
      assert.deepStrictEqual(ourStructure(name, ours[name]), structure(reference[name]), `$defs/${name}`);
    }
  });

  test(`${version}: the document is rooted at Event like the reference, under our own $id`, { skip: skipReason }, () => {
    const reference = referenceSchema(version);
    const ours = schemaFor(version);
    assert.equal(ours.$ref, reference.$ref);
    assert.equal(ours.$schema, reference.$schema);
    assert.equal(ours.$id, `urn:agui-inspector:schema:${version}`);
  });
}

test('1.0 differs from 1.1 only by encryptedValueType', () => {
  const v10 = defsOf(schemaFor('1.0'));
  const v11 = defsOf(schemaFor('1.1'));
  for (const name of Object.keys(v11)) {
    const props = (v11[name] as JsonSchema).properties ?? {};
    if (ENCRYPTED_VALUE_TYPE_DEFS.includes(name)) {
      assert.ok('encryptedValueType' in props, name);
      const { encryptedValueType: _dropped, ...rest } = props;
      assert.deepStrictEqual((v10[name] as JsonSchema).properties, rest, name);
    } else {
      assert.deepStrictEqual(v10[name], v11[name], name);
    }
  }
});

test('eventDefinitions reads all 31 event types off the Event union', () => {
  const events = eventDefinitions('1.1');
  assert.equal(events.size, 31);
  assert.equal(events.get('RUN_FINISHED'), 'RunFinishedEvent');
  assert.equal(events.get('REASONING_ENCRYPTED_VALUE'), 'ReasoningEncryptedValueEvent');
  assert.deepEqual([...eventDefinitions('1.0')], [...events]);
});

test('the walker understands every keyword the schema uses (an unknown one would be judged by ajv only)', () => {
  const known = new Set(['$schema', '$id', '$anchor', '$ref', '$defs', 'title', 'description', 'type', 'const', 'enum', 'pattern',
    'contentEncoding', 'minimum', 'maximum', 'minItems', 'items', 'properties', 'required', 'additionalProperties',
    'unevaluatedProperties', 'allOf', 'oneOf', 'not', 'default']);
  const visit = (node: unknown, inProperties: boolean): void => {
    if (Array.isArray(node)) return node.forEach((n) => visit(n, false));
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (!inProperties) assert.ok(known.has(key), `unknown keyword ${key}`);
      visit(value, !inProperties && (key === 'properties' || key === '$defs'));
    }
  };
  visit(schemaFor('1.1'), false);
});

test('JsonPointer: our pattern accepts exactly the strings the reference pattern does', { skip: skipReason }, () => {
  const referencePattern = (defsOf(referenceSchema('1.1')).JsonPointer as { pattern: string }).pattern;
  assert.equal(referencePattern, REFERENCE_JSON_POINTER);
  const reference = new RegExp(referencePattern, 'u');
  const ours = new RegExp(JSON_POINTER, 'u');
  // Every string up to length 5 over an alphabet holding each character class the grammar distinguishes.
  const alphabet = ['/', '~', '0', '1', '2', 'a', '\n', '\u2028', '\ud800', '😀'];
  let layer = [''];
  for (let length = 0; length <= 5; length += 1) {
    for (const text of layer) assert.equal(ours.test(text), reference.test(text), JSON.stringify(text));
    if (length < 5) layer = layer.flatMap((text) => alphabet.map((c) => text + c));
  }
});

test('JsonPointer: a 20-million-character pointer is judged without exhausting the stack', () => {
  const ours = new RegExp(JSON_POINTER, 'u');
  assert.equal(ours.test('/a~0'.repeat(5_000_000)), true);
  assert.equal(ours.test('/'.repeat(20_000_000) + '~'), false);
});
