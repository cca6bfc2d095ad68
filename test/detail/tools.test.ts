import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ExchangeReading, SessionReader, type ToolCallRow } from '../../src/detail/index.ts';

const SSE = 'text/event-stream';
const enc = new TextEncoder();
const frame = (ev: object): string => `data: ${JSON.stringify(ev)}\n\n`;
const T = 'thread-1';

const WEATHER = {
  name: 'show_weather',
  description: 'Shows a forecast card',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string', minLength: 1 }, days: { type: 'integer', minimum: 1, maximum: 7 }, unit: { enum: ['C', 'F'] } },
    required: ['city'],
    additionalProperties: false,
  },
};
const CONDITIONAL = { name: 'conditional', parameters: { type: 'object', if: { required: ['a'] }, then: { required: ['b'] } } };
const BARE = { name: 'bare', description: 'no parameters' };
const TOOLS = [WEATHER, CONDITIONAL, BARE];

const call = (id: string, name: string, args: string[], o: { end?: boolean; parent?: string } = {}): string =>
  frame({ type: 'TOOL_CALL_START', toolCallId: id, toolCallName: name, ...(o.parent ? { parentMessageId: o.parent } : {}) }) +
  args.map((delta) => frame({ type: 'TOOL_CALL_ARGS', toolCallId: id, delta })).join('') +
  (o.end === false ? '' : frame({ type: 'TOOL_CALL_END', toolCallId: id }));
const started = (runId: string) => frame({ type: 'RUN_STARTED', threadId: T, runId });
const finished = (runId: string, pending?: string[]) => frame({ type: 'RUN_FINISHED', threadId: T, runId, ...(pending ? { outcome: { type: 'success', pendingToolCallIds: pending } } : {}) });

function read(schedule: [number, string][], o: { input?: object; reader?: SessionReader; arrival?: boolean } = {}): ExchangeReading {
  const input = o.input ?? { threadId: T, runId: 'r1', protocolVersion: '1.1', messages: [], tools: TOOLS };
  const opts = { source: 'x', requestBody: JSON.stringify(input), contentType: SSE, status: 200, ...(o.arrival === false ? {} : { arrival: 'chunks' as const }) };
  const reading = o.reader ? o.reader.read(opts) : new ExchangeReading(opts);
  for (const [t, text] of schedule) reading.push(enc.encode(text), t);
  reading.end(schedule.at(-1)?.[0] ?? 0);
  return reading;
}
const byId = (rows: ToolCallRow[]) => new Map(rows.map((r) => [r.id, r]));

test('each call: its side, its arguments assembled from the deltas and checked against the declared schema, its result and duration', () => {
  const reading = read([
    [100, started('r1')],
    [110, call('ok', 'show_weather', ['{"city":', '"Paris","days":3}'])],
    [120, call('bad', 'show_weather', ['{"city":"","days":9,"unit":"K","wind":true}'])],
    [130, call('torn', 'show_weather', ['{"city":"Par'])],
    [140, call('cond', 'conditional', ['{"a":1}'])],
    [150, call('bare', 'bare', ['{}'])],
    [160, call('search', 'search', ['{"q":"x"}'])],
    [400, frame({ type: 'TOOL_CALL_RESULT', messageId: 'res', toolCallId: 'search', content: 'found' })],
    [410, call('mystery', 'mystery', ['{}'])],
    [420, call('open', 'show_weather', ['{"city":"Rome"}'], { end: false })],
    [430, frame({ type: 'TOOL_CALL_END', toolCallId: 'open' }) + finished('r1', ['ok', 'bad', 'torn', 'cond', 'bare', 'mystery', 'open'])],
  ]);
  const rows = byId(reading.part('toolCalls'));
  assert.deepEqual([...rows.keys()], ['ok', 'bad', 'torn', 'cond', 'bare', 'search', 'mystery', 'open']);

  const ok = rows.get('ok')!;
  assert.equal(ok.side, 'frontend');
  assert.equal(ok.arguments, '{"city":"Paris","days":3}');
  assert.deepEqual(ok.parsed, { city: 'Paris', days: 3 });
  assert.equal(ok.args.status, 'valid');
  assert.deepEqual(ok.args.spec, ['/spec/1.1/basic/run-input#tools', '/spec/1.1/events/tool-calls#security-considerations']);
  assert.equal(ok.result, 'pending');
  assert.equal(ok.listedPending, true);
  assert.equal(ok.runId, 'r1');
  assert.equal(ok.durationMs, 0, 'start and end arrived in one chunk');

  const bad = rows.get('bad')!;
  assert.equal(bad.args.status, 'invalid');
  assert.deepEqual(bad.args.errors.map((e) => [e.path, e.keyword]), [['/city', 'minLength'], ['/days', 'maximum'], ['/unit', 'enum'], ['/wind', 'additionalProperties']]);

  assert.equal(rows.get('torn')!.args.status, 'unparsed');
  assert.match(rows.get('torn')!.args.reason!, /^not JSON/);
  assert.equal(rows.get('cond')!.args.status, 'unchecked');
  assert.match(rows.get('cond')!.args.reason!, /uses if/);
  assert.equal(rows.get('bare')!.args.status, 'unchecked');
  assert.match(rows.get('bare')!.args.reason!, /without a parameters schema/);

  const search = rows.get('search')!;
  assert.equal(search.side, 'backend');
  assert.equal(search.result, 'present');
  assert.equal(search.resultMessage?.content, 'found');
  assert.equal(search.durationMs, 240);
  assert.equal(search.argsMs, 0);
  assert.equal(search.listedPending, false);
  assert.equal(search.args.status, 'unchecked');
  assert.match(search.args.reason!, /declares no tool of this name/);

  assert.equal(rows.get('mystery')!.side, 'unknown');
  assert.equal(rows.get('mystery')!.result, 'pending');

  const open = rows.get('open')!;
  assert.equal(open.args.status, 'valid', 'checked once its TOOL_CALL_END came');
  assert.equal(open.durationMs, 10);

  // One truth for the side: the timing's tool spans say the same.
  const spans = reading.part('timing')!.toolCalls!;
  for (const s of spans) assert.equal(s.side, rows.get(s.id)!.side, s.id);
});

test('a call still streaming is unchecked; a call of a failed run gets no result', () => {
  const going = new ExchangeReading({ source: 'x', requestBody: JSON.stringify({ threadId: T, runId: 'r1', messages: [], tools: TOOLS }), contentType: SSE, status: 200 });
  going.push(enc.encode(started('r1') + call('c1', 'show_weather', ['{"ci'], { end: false })), 0);
  const streaming = going.part('toolCalls');
  assert.equal(streaming[0]!.args.status, 'unchecked');
  assert.match(streaming[0]!.args.reason!, /TOOL_CALL_END has not come/);
  assert.equal(streaming[0]!.result, 'pending', 'its run is still going');
  going.end(10);
  assert.equal(going.part('toolCalls')[0]!.result, 'absent', 'a stream cut short leaves its run without an end, and the call without a result');

  const failed = read([[0, started('r1') + call('c1', 'show_weather', ['{"city":"x"}']) + frame({ type: 'RUN_ERROR', message: 'boom' })]]).part('toolCalls');
  assert.equal(failed[0]!.result, 'absent');
  assert.equal(failed[0]!.listedPending, null);
});

test('a reopened call is one row, its arguments as the consumer holds them; no timing means no durations', () => {
  const rows = read([[0, started('r1') + call('c1', 'show_weather', ['{"city":']) + call('c1', 'show_weather', ['"Oslo"}']) + finished('r1')]], { arrival: false }).part('toolCalls');
  assert.equal(rows.length, 1);
  assert.equal(rows[0]!.arguments, '{"city":"Oslo"}');
  assert.equal(rows[0]!.args.status, 'valid');
  assert.equal(rows[0]!.durationMs, null);
  assert.equal(rows[0]!.listedPending, null, 'RUN_FINISHED sent no list');
});

test('across a thread: the next request answers a pending call, or goes on without it', () => {
  const reader = new SessionReader();
  const first = read([[0, started('r1') + call('c1', 'show_weather', ['{"city":"Oslo"}'], { parent: 'a1' }) + call('c2', 'show_weather', ['{"city":"Rome"}'], { parent: 'a1' }) + finished('r1', ['c1', 'c2'])]], { reader });
  assert.deepEqual(first.part('toolCalls').map((r) => [r.result, r.later]), [['pending', null], ['pending', null]]);
  const history = first.part('conversation').map((m) => ({ id: m.id, role: m.role, content: m.content, toolCalls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) }));
  // Another thread's request changes nothing.
  read([[0, frame({ type: 'RUN_STARTED', threadId: 'other', runId: 'o1' })]], { reader, input: { threadId: 'other', runId: 'o1', messages: [] } });
  assert.equal(first.part('toolCalls')[0]!.later, null);
  read([[0, started('r2') + finished('r2')]], { reader, input: { threadId: T, runId: 'r2', messages: [...history, { id: 't1', role: 'tool', toolCallId: 'c1', content: 'shown' }], tools: TOOLS } });
  const rows = first.part('toolCalls');
  assert.deepEqual(rows.map((r) => [r.id, r.result, r.later]), [['c1', 'present', { runId: 'r2', answered: true }], ['c2', 'absent', { runId: 'r2', answered: false }]]);
});

test('bad input never crashes: odd tools, odd arguments, odd schemas', () => {
  const input = { threadId: T, runId: 'r1', messages: [], tools: [null, 3, { name: 7 }, { name: 'x', parameters: 'not a schema' }, { name: 'y', parameters: { $ref: 'http://e/x' } }, { name: 'z', parameters: false }] };
  const rows = read([[0, started('r1') + call('a', 'x', ['{}']) + call('b', 'y', ['[1]']) + call('c', 'z', ['null']) + frame({ type: 'TOOL_CALL_START', toolCallId: 'd' }) + frame({ type: 'TOOL_CALL_START', toolCallId: 7, toolCallName: 'x' }) + finished('r1')]], { input }).part('toolCalls');
  assert.deepEqual(rows.map((r) => [r.id, r.side, r.args.status]), [['a', 'frontend', 'unchecked'], ['b', 'frontend', 'unchecked'], ['c', 'frontend', 'invalid']], 'a start without a name or with a numeric id is dropped before the consumer');
  assert.match(rows[0]!.args.reason!, /neither an object nor a boolean/);
  assert.match(rows[1]!.args.reason!, /not a pointer/);
});

test('the misbehave-tool-args demo, over a real socket: the frontend call its schema rejects, the torn one, the backend one answered', async () => {
  const { startDemoAgent } = await import('../../demo/agent.ts');
  const { captureExchange, scenarioInput } = await import('../../demo/record.ts');
  const { findScenario } = await import('../../demo/scenarios.ts');
  const agent = await startDemoAgent({ port: 0, delayMs: 0 });
  try {
    for (const accept of ['text/event-stream', 'application/vnd.ag-ui.event+proto, text/event-stream']) {
      const body = JSON.stringify(scenarioInput(findScenario('misbehave-tool-args')!));
      const x = await captureExchange(`${agent.url}/agent/misbehave-tool-args`, body, accept, 'demo');
      const reading = new ExchangeReading({ source: 'demo', requestBody: body, contentType: x.responseContentType, status: x.status, arrival: x.arrival });
      for (const c of x.chunks) reading.push(c.bytes, c.time);
      reading.end(x.chunks.at(-1)?.time ?? 0);
      assert.deepEqual(reading.report().findings.filter((f) => f.severity !== 'info'), [], 'no findings');
      const rows = reading.part('toolCalls');
      assert.deepEqual(rows.map((r) => [r.name, r.side, r.args.status, r.result]), [
        ['lookup_weather', 'backend', 'unchecked', 'present'],
        ['show_weather_card', 'frontend', 'invalid', 'pending'],
        ['show_weather_card', 'frontend', 'unparsed', 'pending'],
      ], accept);
      assert.deepEqual(rows[1]!.args.errors.map((e) => [e.path, e.keyword]), [['/summary', 'required'], ['/city', 'type']]);
      assert.deepEqual(rows.map((r) => r.listedPending), [false, true, true]);
    }
  } finally {
    await agent.close();
  }
});

test('a hostile tool: each call is checked once, a call per step of toolChecks, and one past the budget says it was too costly', () => {
  // Each call may cost up to the schema checker's budget: many of them must not be checked again on every request.
  const HOSTILE = { name: 'hostile', parameters: { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } } };
  const long = JSON.stringify({ s: 'a'.repeat(2_000_000) });
  const calls = 6;
  const reading = read([[0, started('r1') + Array.from({ length: calls }, (_, i) => call(`h${i}`, 'hostile', [i === 0 ? long : JSON.stringify({ s: 'a'.repeat(20_000) + '!' })])).join('') + finished('r1')]], {
    input: { threadId: T, runId: 'r1', protocolVersion: '1.1', messages: [], tools: [HOSTILE] },
  });
  let steps = 0;
  for (const _ of reading.toolChecks()) steps++;
  assert.equal(steps, calls);
  assert.equal([...reading.toolChecks()].length, 0, 'nothing is left to check');
  const t = process.cpuUsage();
  const rows = byId(reading.part('toolCalls'));
  const { user, system } = process.cpuUsage(t);
  assert.ok((user + system) / 1000 < 100, `the rows read the verdicts: ${(user + system) / 1000} ms`);
  assert.equal(rows.get('h0')!.args.status, 'unchecked');
  assert.match(rows.get('h0')!.args.reason!, /^not checked — too costly/);
  assert.equal(rows.get('h1')!.args.status, 'invalid');
});
