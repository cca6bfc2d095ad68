import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import { enforce } from '../../src/schema/enforce.ts';
import { enforcementFindings, SCHEMA_RULES } from '../../src/schema/rules.ts';
import { toCommonJs, toPureEsm } from '../../scripts/gen-validators.ts';

test('rule ids, categories and fatality are the stable contract', () => {
  assert.deepEqual(Object.values(SCHEMA_RULES).map((r) => [r.id, r.category, r.severity, r.fatal, r.spec]), [
    ['schema/malformed', 'schema', 'error', true, 'basic/processing#the-rule'],
    ['unrecognised/event-type', 'unrecognised', 'warning', false, 'basic/processing#what-a-consumer-does-with-unrecognised-material'],
    ['unrecognised/property', 'unrecognised', 'warning', false, 'basic/processing#what-a-consumer-does-with-unrecognised-material'],
    ['unrecognised/union-member', 'unrecognised', 'warning', false, 'basic/processing#what-a-consumer-does-with-unrecognised-material'],
  ]);
});

test('an unknown 1.0 outcome: one union-member warning naming the path removed and what absence means', () => {
  const result = enforce.event({ type: 'RUN_FINISHED', threadId: 't', runId: 'r', outcome: { type: 'paused' } }, '1.0');
  assert.deepEqual(enforcementFindings(result, '1.0', 4), [{
    rule: 'unrecognised/union-member',
    category: 'unrecognised',
    severity: 'warning',
    message: 'RUN_FINISHED.outcome.type "paused" is not a 1.0 RunFinishedOutcome: a 1.0 consumer strips /outcome (an absent outcome means success)',
    event: 4,
    path: '/outcome',
    spec: '/spec/1.0/basic/processing#what-a-consumer-does-with-unrecognised-material',
  }]);
});

test('a container removed for a required position says so', () => {
  const result = enforce.event({ type: 'MESSAGES_SNAPSHOT', messages: [{ id: 'm', role: 'user', content: [{ type: 'image', source: { type: 'blob', value: 'x' } }] }] }, '1.1');
  const [finding] = enforcementFindings(result, '1.1', 0);
  assert.equal(finding?.path, '/messages/0/content/0');
  assert.equal(finding?.message, 'MESSAGES_SNAPSHOT.messages[0].content[0].source.type "blob" is not a 1.1 PartSource: it sits in a required position, so a 1.1 consumer removes the value holding it, /messages/0/content/0');
});

test('unknown property, dropped event and dropped-with-cause findings', () => {
  const property = enforcementFindings(enforce.event({ type: 'TEXT_MESSAGE_END', messageId: 'm', 'odd key': 1 }, '1.1'), '1.1', 2);
  assert.deepEqual(property.map((f) => [f.rule, f.path, f.message]), [[
    'unrecognised/property', '/odd key', 'TEXT_MESSAGE_END["odd key"] is not a property of TextMessageEndEvent in AG-UI 1.1: a 1.1 consumer strips /odd key',
  ]]);
  const dropped = enforcementFindings(enforce.event({ type: 'FUTURE_EVENT' }, '1.1'), '1.1', 3);
  assert.deepEqual(dropped.map((f) => [f.rule, f.severity, f.path, f.message]), [[
    'unrecognised/event-type', 'warning', '', 'Event type "FUTURE_EVENT" is not described by AG-UI 1.1: a 1.1 consumer drops the event',
  ]]);
  const caused = enforcementFindings(enforce.event({ type: 'REASONING_ENCRYPTED_VALUE', subtype: 'x', entityId: 'e', encryptedValue: 'v' }, '1.1'), '1.1', 5);
  assert.deepEqual(caused.map((f) => [f.rule, f.path, f.message]), [[
    'unrecognised/union-member', '', 'REASONING_ENCRYPTED_VALUE.subtype "x" is not a 1.1 ReasoningEncryptedValueSubtype: it sits in a required position, so a 1.1 consumer drops the whole REASONING_ENCRYPTED_VALUE event',
  ]]);
});

test('malformed values give one fatal error finding each, after the strips', () => {
  const findings = enforcementFindings(enforce.event({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 42, zz: 1 }, '1.1'), '1.1', 7);
  assert.deepEqual(findings.map((f) => [f.rule, f.severity, f.path]), [['unrecognised/property', 'warning', '/zz'], ['schema/malformed', 'error', '/delta']]);
  assert.equal(findings[1]?.message, 'TEXT_MESSAGE_CONTENT.delta: expected a string, received number 42. A malformed known value is fatal: a conforming consumer fails the run');
  assert.equal(findings[1]?.spec, '/spec/1.1/basic/processing#the-rule');
});

test('input findings carry event null and name RunAgentInput', () => {
  const findings = enforcementFindings(enforce.input({ threadId: 't', runId: 1, messages: [] }, '1.1'), '1.1', null);
  assert.deepEqual(findings.map((f) => [f.rule, f.event, f.path]), [['schema/malformed', null, '/runId']]);
  assert.match(findings[0]?.message ?? '', /^RunAgentInput\.runId: expected a string, received number 1\. .*input must be rejected/);
});

test('toPureEsm turns ajv runtime requires into imports that work under Node and bundlers', () => {
  const out = toPureEsm('"use strict";const func0 = require("ajv/dist/runtime/equal").default;export const v = 1;');
  assert.doesNotMatch(out, /require\(/);
  assert.match(out, /^import \* as ajvRuntime0 from "ajv\/dist\/runtime\/equal\.js";/);
  assert.throws(() => toPureEsm('const x = require("fs");'), /still calls require/);
});

test('generated modules are pure ESM with no runtime code generation', () => {
  for (const name of ['v1_0', 'v1_0.quick', 'v1_1', 'v1_1.quick']) {
    const file = join(import.meta.dirname, '..', '..', 'src', 'schema', 'generated', `${name}.js`);
    assert.ok(existsSync(file), `${file} missing: run npx tsx scripts/gen-validators.ts`);
    const code = readFileSync(file, 'utf8');
    assert.doesNotMatch(code, /\brequire\(|new Function|\beval\(/);
    assert.match(code, name.endsWith('.quick') ? /export const quickChecks = new Map/ : /export const eventValidators = new Map/);
  }
});

test("the CLI's CommonJS validators and quick checks are the ESM ones, loadable with nothing else installed", async () => {
  const dir = join(import.meta.dirname, '..', '..', 'src', 'schema', 'generated');
  for (const name of ['v1_0', 'v1_0.quick', 'v1_1', 'v1_1.quick']) {
    const code = readFileSync(join(dir, `${name}.cjs`), 'utf8');
    assert.doesNotMatch(code, /\brequire\(|\bimport\b|new Function|\beval\(/);
    const esm = (await import(join(dir, `${name}.js`))) as Record<string, unknown>;
    const cjs = createRequire(import.meta.url)(join(dir, `${name}.cjs`)) as Record<string, unknown>;
    assert.deepEqual(Object.keys(cjs).sort(), Object.keys(esm).sort());
    const map = (cjs.eventValidators ?? cjs.quickChecks) as Map<string, (v: unknown) => boolean>;
    assert.ok(map.get('RUN_STARTED')!({ type: 'RUN_STARTED', threadId: 't', runId: 'r' }), name);
    assert.ok(!map.get('RUN_STARTED')!({ type: 'RUN_STARTED', threadId: 't' }), name);
  }
  assert.throws(() => toCommonJs('import x from "y";\nexport const a = 1;', ['a']), /imports a module/);
  assert.throws(() => toCommonJs('export const a = 1;', ['a', 'b']), /expected 2 exports/);
});
