/**
 * One test per classification rule. Each name ends with the one-line change to src/schema/enforce.ts
 * that would make it fail ("kill: …").
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { enforce } from '../../src/schema/enforce.ts';
import type { Enforcement } from '../../src/schema/types.ts';

const run = { type: 'RUN_STARTED', threadId: 't', runId: 'r' };

function ok(result: Enforcement): { value: Record<string, unknown>; stripped: Extract<Enforcement, { verdict: 'ok' }>['stripped'] } {
  assert.equal(result.verdict, 'ok', JSON.stringify(result));
  if (result.verdict !== 'ok') throw new Error('unreachable');
  return { value: result.value as Record<string, unknown>, stripped: result.stripped };
}

function fatal(result: Enforcement): Extract<Enforcement, { verdict: 'fatal' }> {
  assert.equal(result.verdict, 'fatal', JSON.stringify(result));
  if (result.verdict !== 'fatal') throw new Error('unreachable');
  return result;
}

test('a valid event passes untouched, as the same value — kill: return a clone on the fast path', () => {
  const { value, stripped } = ok(enforce.event(run, '1.1'));
  assert.equal(value, run);
  assert.deepEqual(stripped, []);
});

test('an event of an unknown type is dropped whole — kill: return ok when eventValidators has no entry for the type', () => {
  assert.deepEqual(enforce.event({ type: 'FUTURE_EVENT', anything: [1] }, '1.1'), { verdict: 'dropped', type: 'FUTURE_EVENT' });
});

test('"__proto__" as an event type is just an unknown type — kill: look validators up in a plain object instead of a Map', () => {
  assert.equal(enforce.event({ type: '__proto__' }, '1.1').verdict, 'dropped');
  assert.equal(enforce.event({ type: 'constructor' }, '1.1').verdict, 'dropped');
});

test('a missing or non-string type is fatal — kill: treat a non-string type as an unknown type and drop it', () => {
  assert.deepEqual(fatal(enforce.event({ threadId: 't' }, '1.1')).errors.map((e) => e.path), ['/type']);
  assert.deepEqual(fatal(enforce.event({ type: 7 }, '1.1')).errors, [{ path: '/type', message: 'expected a string, received number 7' }]);
});

test('an unknown property on a closed object is stripped, the event survives and the input is not mutated — kill: put() the member instead of pushing a strip when shape.closed', () => {
  const received = { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'hi', futureProp: { x: 1 } };
  const before = structuredClone(received);
  const { value, stripped } = ok(enforce.event(received, '1.1'));
  assert.deepEqual(value, { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'hi' });
  assert.deepEqual(stripped, [{ path: '/futureProp', trigger: '/futureProp', reason: 'unknown-property', definition: 'TextMessageContentEvent', removed: { x: 1 } }]);
  assert.deepEqual(received, before);
});

test('unknown properties are stripped at any depth, with RFC 6901 escaping — kill: build pointers without pointerToken', () => {
  const received = { ...run, input: { threadId: 't', runId: 'r', messages: [{ id: '1', role: 'user', content: 'hi', 'a/b~c': 1 }] } };
  const { value, stripped } = ok(enforce.event(received, '1.1'));
  assert.deepEqual(stripped.map((s) => s.path), ['/input/messages/0/a~1b~0c']);
  assert.deepEqual((value.input as { messages: unknown[] }).messages[0], { id: '1', role: 'user', content: 'hi' });
});

test('an unknown union member in an optional position removes that field only — kill: treat every unrecognised property value as required (shape.required.has → true)', () => {
  const { value, stripped } = ok(enforce.event({ type: 'RUN_FINISHED', threadId: 't', runId: 'r', outcome: { type: 'paused' } }, '1.1'));
  assert.deepEqual(value, { type: 'RUN_FINISHED', threadId: 't', runId: 'r' });
  assert.deepEqual(stripped, [{ path: '/outcome', trigger: '/outcome', reason: 'unknown-member', definition: 'RunFinishedOutcome', discriminator: 'type', removed: { type: 'paused' } }]);
});

test('an unknown string in a closed enum is stripped, not fatal — kill: fail() instead of returning unrecognised for a string outside schema.enum', () => {
  const { value, stripped } = ok(enforce.event({ type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'narrator' }, '1.1'));
  assert.deepEqual(value, { type: 'TEXT_MESSAGE_START', messageId: 'm' });
  assert.deepEqual(stripped.map((s) => [s.path, s.trigger, s.definition]), [['/role', '/role', 'TextMessageRole']]);
});

test('an unknown member in a required position removes its container, and a list keeps its other elements — kill: strip the field even when shape.required.has(key)', () => {
  const parts = [
    { type: 'text', text: 'before' },
    { type: 'image', source: { type: 'blob', value: 'AAAA' } },
    { type: 'text', text: 'after' },
  ];
  const { value, stripped } = ok(enforce.event({ type: 'MESSAGES_SNAPSHOT', messages: [{ id: 'm', role: 'user', content: parts }] }, '1.1'));
  assert.deepEqual((value.messages as { content: unknown[] }[])[0]?.content, [{ type: 'text', text: 'before' }, { type: 'text', text: 'after' }]);
  assert.deepEqual(stripped.map((s) => [s.path, s.trigger, s.definition]), [['/messages/0/content/1', '/messages/0/content/1/source', 'PartSource']]);
});

test('an unknown enum string in a required position removes the list element holding it — kill: keep the element in list() when its outcome is unrecognised', () => {
  const input = { threadId: 't', runId: 'r', messages: [], resume: [{ interruptId: 'a', status: 'deferred' }, { interruptId: 'b', status: 'resolved' }] };
  const { value, stripped } = ok(enforce.input(input, '1.1'));
  assert.deepEqual(value.resume, [{ interruptId: 'b', status: 'resolved' }]);
  assert.deepEqual(stripped.map((s) => [s.path, s.trigger]), [['/resume/0', '/resume/0/status']]);
});

test('an unknown list element is dropped and the list survives: unknown JSON Patch op — kill: return the unrecognised outcome from list() instead of stripping the element', () => {
  const { value, stripped } = ok(enforce.event({ type: 'STATE_DELTA', delta: [{ op: 'increment', path: '/n', value: 1 }, { op: 'replace', path: '/n', value: 5 }] }, '1.1'));
  assert.deepEqual(value.delta, [{ op: 'replace', path: '/n', value: 5 }]);
  assert.deepEqual(stripped.map((s) => [s.path, s.discriminator]), [['/delta/0', 'op']]);
});

test('unknown material in a required position of the event drops the event, naming the cause — kill: map the removed judgement to fatal in event()', () => {
  const result = enforce.event({ type: 'REASONING_ENCRYPTED_VALUE', subtype: 'future', entityId: 'e', encryptedValue: 'x' }, '1.1');
  assert.equal(result.verdict, 'dropped');
  assert.deepEqual(result.verdict === 'dropped' && result.cause && [result.cause.path, result.cause.trigger, result.cause.definition], ['', '/subtype', 'ReasoningEncryptedValueSubtype']);
});

test('a wrong-typed known field is fatal with its pointer — kill: let hasType accept a number where a string is declared (coercion)', () => {
  assert.deepEqual(fatal(enforce.event({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 42 }, '1.1')).errors, [{ path: '/delta', message: 'expected a string, received number 42' }]);
});

test('a missing required field is fatal, pointing where it belongs — kill: skip the required loop in object()', () => {
  const result = fatal(enforce.event({ type: 'SUBAGENT_STARTED', subagentRunId: 's' }, '1.1'));
  assert.deepEqual(result.errors, [{ path: '/name', message: 'missing required property "name"' }]);
  assert.equal(result.type, 'SUBAGENT_STARTED');
});

test('null in an optional field is fatal, not an absence — kill: treat null like a missing member in object()', () => {
  assert.deepEqual(fatal(enforce.event({ type: 'TEXT_MESSAGE_START', messageId: 'm', name: null }, '1.1')).errors, [{ path: '/name', message: 'expected a string, received null' }]);
  assert.deepEqual(fatal(enforce.event({ type: 'RUN_FINISHED', threadId: 't', runId: 'r', result: null }, '1.1')).errors, [{ path: '/result', message: 'must not be null' }]);
});

test('a const mismatch outside a union is malformed, not unrecognised — kill: return unrecognised for any const mismatch', () => {
  assert.deepEqual(fatal(enforce.event({ type: 'REASONING_MESSAGE_START', messageId: 'm', role: 'assistant' }, '1.1')).errors.map((e) => e.path), ['/role']);
});

test('a non-object in a union slot is malformed, never a stripped member — kill: return unrecognised from union() when the value is not an object', () => {
  const result = fatal(enforce.event({ type: 'RUN_FINISHED', threadId: 't', runId: 'r', outcome: [{ type: 'interrupt' }] }, '1.1'));
  assert.deepEqual(result.errors.map((e) => e.path), ['/outcome']);
  assert.match(result.errors[0]?.message ?? '', /expected an object.*received an array/);
});

test('a union member with a missing or non-string discriminator is malformed — kill: treat a missing discriminator as an unknown member', () => {
  assert.deepEqual(fatal(enforce.event({ type: 'RUN_FINISHED', threadId: 't', runId: 'r', outcome: {} }, '1.1')).errors.map((e) => e.path), ['/outcome/type']);
  assert.deepEqual(fatal(enforce.event({ type: 'STATE_DELTA', delta: [{ op: 1, path: '' }] }, '1.1')).errors.map((e) => e.path), ['/delta/0/op']);
});

test('malformed material and strips are reported together — kill: clear strips when a sibling is malformed', () => {
  const result = fatal(enforce.event({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 1, extra: true }, '1.1'));
  assert.deepEqual(result.stripped.map((s) => s.path), ['/extra']);
  assert.deepEqual(result.errors.map((e) => e.path), ['/delta']);
});

test('open objects keep undescribed members even on the slow path — kill: set Shape.closed true for every object, or walk additionalProperties: true objects', () => {
  // The unknown `zz` forces the walk; everything else here is open and must arrive whole.
  const event = {
    type: 'ACTIVITY_SNAPSHOT', messageId: 'a', activityType: 'PLAN', zz: 1,
    content: { anyKey: { nested: [1, null] }, type: 'whatever' },
    metadata: { future: true, 'ag-ui': null },
    rawEvent: { provider: { native: 1 } },
  };
  const { value, stripped } = ok(enforce.event(event, '1.1'));
  assert.deepEqual(stripped.map((s) => s.path), ['/zz']);
  const { zz: _zz, ...rest } = event;
  assert.deepEqual(value, rest);
});

test('a JSON Patch remove carrying a leftover value arrives whole, with no strip — kill: close the patch operation schemas (unevaluatedProperties: false)', () => {
  const event = { type: 'STATE_DELTA', delta: [{ op: 'remove', path: '/items/1', value: 'drop-me' }] };
  assert.deepEqual(enforce.event(event, '1.1'), { verdict: 'ok', value: event, stripped: [] });
  const walked = ok(enforce.event({ ...event, zz: 1 }, '1.1'));
  assert.deepEqual(walked.value.delta, event.delta);
  assert.deepEqual(walked.stripped.map((s) => s.path), ['/zz']);
});

test('input: forwardedProps, state and tool parameters are arbitrary JSON and survive stripping — kill: give forwardedProps a closed object schema', () => {
  const input = {
    threadId: 't', runId: 'r', messages: [], future: 1,
    state: { deep: { x: [1] } },
    forwardedProps: { anything: { nested: null } },
    tools: [{ name: 'f', description: 'd', parameters: { type: 'object', properties: { a: {} } } }],
  };
  const { value, stripped } = ok(enforce.input(input, '1.1'));
  assert.deepEqual(stripped.map((s) => s.path), ['/future']);
  const { future: _future, ...rest } = input;
  assert.deepEqual(value, rest);
});

test('input: a malformed known field is fatal — kill: let input() return ok whenever the walker returns ok', () => {
  assert.deepEqual(fatal(enforce.input({ threadId: 't', runId: 'r', messages: 'hi' }, '1.1')).errors.map((e) => e.path), ['/messages']);
  assert.deepEqual(fatal(enforce.input({ threadId: 't', runId: 'r', messages: [], forwardedProps: null }, '1.1')).errors.map((e) => e.path), ['/forwardedProps']);
});

test('1.0 vs 1.1: encryptedValueType validates under 1.1 and is stripped, not fatal, under 1.0 — kill: add encryptedValueType to the 1.0 schema', () => {
  const event = { type: 'REASONING_ENCRYPTED_VALUE', subtype: 'message', entityId: 'm', encryptedValue: 'x', encryptedValueType: 'anthropic/thinking' };
  assert.deepEqual(enforce.event(event, '1.1'), { verdict: 'ok', value: event, stripped: [] });
  const { value, stripped } = ok(enforce.event(event, '1.0'));
  assert.equal('encryptedValueType' in value, false);
  assert.deepEqual(stripped.map((s) => [s.path, s.reason, s.definition]), [['/encryptedValueType', 'unknown-property', 'ReasoningEncryptedValueEvent']]);

  const snapshot = { type: 'MESSAGES_SNAPSHOT', messages: [{ id: 'm', role: 'assistant', encryptedValueType: 't', toolCalls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '' }, encryptedValueType: 't' }] }] };
  assert.deepEqual(ok(enforce.event(snapshot, '1.0')).stripped.map((s) => s.path), ['/messages/0/encryptedValueType', '/messages/0/toolCalls/0/encryptedValueType']);
  assert.deepEqual(ok(enforce.event(snapshot, '1.1')).stripped, []);
});
