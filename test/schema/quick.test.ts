import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as v1_0 from '../../src/schema/generated/v1_0.js';
import * as quick1_0 from '../../src/schema/generated/v1_0.quick.js';
import * as v1_1 from '../../src/schema/generated/v1_1.js';
import * as quick1_1 from '../../src/schema/generated/v1_1.quick.js';
import { eventDefinitions, schemaFor, type JsonSchema } from '../../src/schema/protocol.ts';
import { QuickCompiler } from '../../src/schema/quick.ts';
import { corpus, skipReason } from './reference.ts';
import { mutations } from './mutate.ts';
import * as extra from './samples.ts';

const generated = { '1.0': { ...v1_0, ...quick1_0 }, '1.1': { ...v1_1, ...quick1_1 } };

/** Values no JSON text yields but a caller may still hand over, and JSON's own corner: a `__proto__` member. */
function oddities(event: Record<string, unknown>): unknown[] {
  const keys = Object.keys(event).filter((k) => k !== 'type');
  return [
    JSON.parse(JSON.stringify(event).replace(/^\{/, '{"__proto__":1,')),
    { ...event, timestamp: Number.NaN },
    { ...event, timestamp: 2 ** 53 },
    { ...event, timestamp: 1.5 },
    { ...event, timestamp: -(2 ** 53 - 1) },
    { ...event, rawEvent: null },
    { ...event, metadata: [] },
    Object.assign(Object.create({ inherited: 1 }), event),
    ...keys.map((k) => ({ ...event, [k]: undefined })),
    ...keys.map((k) => ({ ...event, [k]: [] })),
    ...keys.map((k) => ({ ...event, [k]: {} })),
  ];
}

/** Each document, every one-change variant of it, and the oddities. */
function variants(documents: unknown[]): unknown[] {
  return documents.flatMap((d) => [d, ...mutations(d).map((m) => m.value), ...(typeof d === 'object' && d !== null ? oddities(d as Record<string, unknown>) : [])]);
}

const samples = (): unknown[] => variants([...corpus(), { stream: extra.events }].flatMap((f) => f.stream));
const inputs = (): unknown[] => variants([...corpus().map((f) => f.input), extra.input].filter((i) => i !== undefined));

for (const version of ['1.1', '1.0'] as const) {
  test(`${version}: a quick check accepts only what the event's validator accepts, and exactly that where it reads the whole schema`, { skip: skipReason }, () => {
    const compiler = new QuickCompiler(schemaFor(version).$defs ?? {});
    const exact = new Set([...eventDefinitions(version)].filter(([, name]) => compiler.definition(name)?.exact).map(([type]) => type));
    let accepted = 0;
    let rejected = 0;
    for (const value of samples()) {
      const type = (value as { type?: unknown }).type;
      if (typeof type !== 'string') continue;
      const quick = generated[version].quickChecks.get(type);
      const validator = generated[version].eventValidators.get(type);
      if (quick === undefined || validator === undefined) continue;
      const valid = validator(value);
      const fast = quick(value);
      if (fast) assert.ok(valid, `quick accepts what the validator rejects: ${JSON.stringify(value)}`);
      if (exact.has(type)) assert.equal(fast, valid, `exact quick check disagrees: ${JSON.stringify(value)}`);
      if (fast) accepted++;
      else if (!valid) rejected++;
    }
    // The schema uses nothing the compiler cannot read, so every check is exact.
    for (const type of eventDefinitions(version).keys()) assert.ok(exact.has(type), type);
    assert.ok(accepted > 1000 && rejected > 1000, `accepted ${accepted}, rejected ${rejected}`);
  });

  test(`${version}: the input's quick check answers exactly as the RunAgentInput validator`, { skip: skipReason }, () => {
    assert.ok(new QuickCompiler(schemaFor(version).$defs ?? {}).definition('RunAgentInput')?.exact);
    const answers = inputs().map((value) => {
      const valid = generated[version].RunAgentInput(value);
      assert.equal(generated[version].quickInput(value), valid, JSON.stringify(value));
      return valid;
    });
    assert.ok(answers.some(Boolean) && answers.filter((a) => !a).length > 100, `${answers.filter(Boolean).length} valid of ${answers.length}`);
  });
}

test('what the compiler cannot read compiles to false, never to true', () => {
  const email = { type: 'string', format: 'email' } as unknown as JsonSchema;
  const compiler = new QuickCompiler({
    Odd: { type: 'object', properties: { a: email, b: { oneOf: [{ type: 'string' }, { type: 'string', const: 'x' }] } }, required: ['a'] },
    Loose: { type: 'object', properties: { a: email, b: { oneOf: [{ type: 'string' }, { type: 'string', const: 'x' }] } } },
  });
  const compile = (name: string): ((v: unknown) => boolean) => {
    const quick = compiler.definition(name);
    assert.equal(quick?.exact ?? false, false, name);
    return quick === null ? () => false : (new Function(`${compiler.prelude()}\nreturn ${quick.source};`)() as (v: unknown) => boolean);
  };
  const odd = compile('Odd');
  for (const v of [{ a: 'a@b.c' }, { a: 'a@b.c', b: 'y' }, {}]) assert.equal(odd(v), false, JSON.stringify(v));
  const loose = compile('Loose');
  // Only an absent member is beyond doubt.
  assert.equal(loose({}), true);
  assert.equal(loose({ a: 'a@b.c' }), false);
  assert.equal(loose({ b: 'x' }), false);
});
