/** enforce must answer, never throw, whatever JSON it is handed. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { enforce } from '../../src/schema/enforce.ts';
import { enforcementFindings } from '../../src/schema/rules.ts';
import type { Enforcement } from '../../src/schema/types.ts';
import { events, input } from './samples.ts';

const DEPTH = 10_000;

function nestedArrays(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i += 1) value = [value];
  return value;
}

function nestedObjects(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i += 1) value = { a: value, __proto__x: i };
  return value;
}

/** Judges under both versions and renders the findings, which must not throw either. */
function judge(value: unknown, kind: 'event' | 'input' = 'event'): Enforcement[] {
  return (['1.0', '1.1'] as const).map((version) => {
    const result = enforce[kind](value, version);
    for (const finding of enforcementFindings(result, version, kind === 'event' ? 0 : null)) {
      assert.ok(finding.message.length < 600, `message bounded: ${finding.message.slice(0, 80)}`);
    }
    return result;
  });
}

test('non-object values are fatal, never thrown', () => {
  for (const value of [null, undefined, 0, -0, NaN, Infinity, 'RUN_STARTED', true, [], [run()], () => 1]) {
    for (const kind of ['event', 'input'] as const) {
      for (const result of judge(value, kind)) assert.equal(result.verdict, 'fatal', String(value));
    }
  }
});

function run(): Record<string, unknown> {
  return { type: 'RUN_STARTED', threadId: 't', runId: 'r' };
}

test(`${DEPTH}-level nesting in open positions passes; in closed or unknown positions it is judged without recursion`, () => {
  for (const deep of [nestedArrays(DEPTH), nestedObjects(DEPTH)]) {
    for (const result of judge({ type: 'STATE_SNAPSHOT', snapshot: deep, metadata: { deep } })) assert.equal(result.verdict, 'ok');
    for (const result of judge({ type: 'CUSTOM', name: 'n', value: deep, zz: deep })) {
      assert.equal(result.verdict, 'ok');
      assert.deepEqual(result.verdict === 'ok' && result.stripped.map((s) => s.path), ['/zz']);
    }
    for (const result of judge({ type: 'TEXT_MESSAGE_CONTENT', messageId: deep, delta: deep })) assert.equal(result.verdict, 'fatal');
    for (const result of judge({ type: 'FUTURE', deep })) assert.equal(result.verdict, 'dropped');
    for (const result of judge({ threadId: 't', runId: 'r', messages: [], state: deep, forwardedProps: deep }, 'input')) assert.equal(result.verdict, 'ok');
    for (const result of judge({ threadId: 't', runId: 'r', messages: deep }, 'input')) assert.equal(result.verdict, 'fatal');
    assert.equal(judge(deep)[0]?.verdict, 'fatal');
  }
});

test('__proto__, constructor and other prototype names are data: stripped as unknown, never polluting', () => {
  const text = '{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"d","__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":1}},"toString":1,"hasOwnProperty":2}';
  for (const result of judge(JSON.parse(text))) {
    assert.equal(result.verdict, 'ok');
    if (result.verdict !== 'ok') continue;
    assert.deepEqual(result.stripped.map((s) => s.path), ['/__proto__', '/constructor', '/toString', '/hasOwnProperty']);
    assert.equal(Object.getPrototypeOf(result.value), Object.prototype);
    assert.deepEqual(Object.keys(result.value as object), ['type', 'messageId', 'delta']);
  }
  // In an open object the same keys are preserved as own members of the copy.
  const open = JSON.parse('{"type":"STATE_SNAPSHOT","snapshot":1,"zz":1,"metadata":{"__proto__":{"polluted":1},"constructor":2}}');
  const [, v11] = judge(open);
  assert.equal(v11?.verdict, 'ok');
  const metadata = (v11?.verdict === 'ok' ? v11.value : {}) as { metadata: object };
  assert.deepEqual(Object.keys(metadata.metadata), ['__proto__', 'constructor']);
  assert.equal(Object.getPrototypeOf(metadata.metadata), Object.prototype);
  // A missing required member is not found on the prototype either.
  assert.equal(judge(JSON.parse('{"type":"CUSTOM","value":1,"__proto__":{"name":"x"}}'))[1]?.verdict, 'fatal');
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('numbers JSON.parse turns into Infinity are malformed where an integer is declared and carried where any JSON is', () => {
  const parsed = JSON.parse('{"type":"STATE_SNAPSHOT","snapshot":{"n":1e400},"timestamp":1e400}');
  const [result] = judge(parsed);
  assert.equal(result?.verdict, 'fatal');
  assert.deepEqual(result?.verdict === 'fatal' && result.errors, [{ path: '/timestamp', message: 'expected an integer, received number Infinity' }]);
  assert.equal(judge({ type: 'STATE_SNAPSHOT', snapshot: { n: -1e400 } })[1]?.verdict, 'ok');
  assert.equal(judge({ type: 'RUN_ERROR', message: 'm', usage: [{ inputTokens: 1.5 }] })[1]?.verdict, 'fatal');
});

test('huge strings and wide values are handled and reported briefly', () => {
  const huge = 'x'.repeat(5_000_000);
  assert.equal(judge({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: huge })[1]?.verdict, 'ok');
  assert.equal(judge({ type: huge })[1]?.verdict, 'dropped');
  assert.equal(judge({ type: 'TEXT_MESSAGE_START', messageId: 'm', role: huge })[1]?.verdict, 'ok');
  assert.equal(judge({ type: 'STATE_DELTA', delta: [{ op: 'add', path: `/${huge}~2`, value: 1 }] })[1]?.verdict, 'fatal');
  const wide = Array.from({ length: 20_000 }, (_, i) => ({ id: String(i), role: i % 2 ? 'user' : 'oracle', content: 'c', extra: i }));
  const [, result] = judge({ type: 'MESSAGES_SNAPSHOT', messages: wide });
  assert.equal(result?.verdict, 'ok');
  assert.equal(result?.verdict === 'ok' && (result.value as { messages: unknown[] }).messages.length, 10_000);
});

test('random damage to valid documents never throws', () => {
  let seed = 42;
  const random = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const junk = [null, 0, -1, 1.5, 1e400, '', 'zz', true, [], {}, [null], { type: 'zz' }, { op: 'zz' }, { role: 'zz' }];
  const damage = (value: unknown): unknown => {
    if (random() < 0.08) return junk[Math.floor(random() * junk.length)];
    if (Array.isArray(value)) return value.map(damage);
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).filter(() => random() > 0.05).map(([k, v]) => [random() < 0.03 ? `${k}_` : k, damage(v)]));
    }
    return value;
  };
  for (let round = 0; round < 300; round += 1) {
    for (const event of events) judge(damage(event));
    judge(damage(input), 'input');
  }
});
