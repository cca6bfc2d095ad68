/**
 * The detail the views read, without a browser: what one analysis keeps of an exchange (chunk
 * expansion, failed patches, the conversation, strips, runs, pending interrupts), and that it is plain
 * data a message can carry.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventEncoder } from '@ag-ui/encoder';
import type { BaseEvent } from '@ag-ui/core';
import { ThreadTracker } from '../../src/analyzer/index.ts';
import { DETAIL_PARTS, ExchangeReading, type ExchangeDetail } from '../../src/detail/index.ts';
import { eventView, type EventView } from '../../src/messages.ts';
import { filterRows, findingsByEvent, NO_FILTER } from '../../panel/views/timeline.tsx';

const SSE = 'text/event-stream';
const PROTO = 'application/vnd.ag-ui.event+proto';

function read(requestBody: unknown, events: object[], o: { contentType?: string; thread?: ThreadTracker; keep?: (i: number) => boolean } = {}) {
  const contentType = o.contentType ?? SSE;
  const enc = new EventEncoder();
  const bytes = contentType === SSE
    ? events.map((e) => new TextEncoder().encode(`data: ${JSON.stringify(e)}\n\n`))
    : events.map((e) => enc.encodeProtobuf(e as BaseEvent));
  const views: EventView[] = [];
  const reading = new ExchangeReading({
    source: 'x', requestBody: JSON.stringify(requestBody), contentType, status: 200, thread: o.thread, keep: o.keep,
    onEvent: (r) => views.push(eventView(r)),
  });
  bytes.forEach((b, i) => reading.push(b, i));
  reading.end(bytes.length);
  return { reading, views, detail: reading.detail() };
}

const input = { threadId: 't', runId: 'r', protocolVersion: '1.0', messages: [{ id: 'u', role: 'user', content: 'hi' }], state: { n: 1 } };
const SSE_EVENTS = [
  { type: 'RUN_STARTED', threadId: 't', runId: 'r', protocolVersion: '1.0' },
  { type: 'TEXT_MESSAGE_CHUNK', messageId: 'm', delta: 'Hel' },
  { type: 'TEXT_MESSAGE_CHUNK', messageId: 'm', delta: 'lo', extra: true },
  { type: 'STATE_DELTA', delta: [{ op: 'replace', path: '/n', value: 2 }] },
  { type: 'STATE_DELTA', delta: [{ op: 'remove', path: '/missing' }] },
  { type: 'PROGRESS', pct: 1 },
  { type: 'RUN_FINISHED', threadId: 't', runId: 'r' },
];

test('one reading keeps what the views show: expansion, failed patch, conversation, strips', () => {
  const { reading, views, detail } = read(input, SSE_EVENTS);
  assert.deepEqual(detail.states, [{ event: 3, type: 'STATE_DELTA', failed: false }, { event: 4, type: 'STATE_DELTA', failed: true }]);
  assert.deepEqual([reading.stateAt(0), reading.stateAt(1), reading.stateAt(2)], [{ state: { n: 2 } }, { state: { n: 2 } }, null]);
  assert.deepEqual(detail.conversation.map((m) => [m.role, m.content]), [['user', 'hi'], ['assistant', 'Hello']]);
  const expanded = new Map(detail.expanded);
  assert.deepEqual(expanded.get(1)?.map((e) => e.type), ['TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT']);
  assert.deepEqual(expanded.get(3)?.map((e) => e.type), ['TEXT_MESSAGE_END', 'STATE_DELTA'], 'the end a non-chunk event implies');
  assert.deepEqual([...expanded.keys()], [1, 2, 3], 'frames that are handled as they came are not listed');
  assert.deepEqual(detail.stripped.map((s) => [s.at, s.path, s.removed, s.whole]), [[2, '/extra', true, false], [5, '', { type: 'PROGRESS', pct: 1 }, true]]);
  assert.deepEqual(detail.report, reading.report(), 'the report is the one the CLI prints');

  const rows = filterRows(views, findingsByEvent(detail.report.findings), { ...NO_FILTER, expand: true }, expanded);
  assert.equal(rows.length, views.length + 5);
  const warnings = filterRows(views, findingsByEvent(detail.report.findings), { ...NO_FILTER, severity: 'warning' }, null);
  assert.deepEqual([...warnings.event.subarray(0, warnings.length)], [2, 4, 5]);
  const search = filterRows(views, new Map(), { ...NO_FILTER, text: 'REPLACE' }, null);
  assert.deepEqual([...search.event.subarray(0, search.length)], [3]);
  const within = filterRows(views, findingsByEvent(detail.report.findings), { ...NO_FILTER, severity: 'warning', range: { from: 3, to: 4, label: 'a span' } }, null);
  assert.deepEqual([...within.event.subarray(0, within.length)], [4], 'a span\'s range narrows the other filters');
  const open = filterRows(views, new Map(), { ...NO_FILTER, range: { from: views.length - 2, to: null, label: 'an open span' } }, null);
  assert.deepEqual([...open.event.subarray(0, open.length)], [views.length - 2, views.length - 1], 'an open span runs through the last frame');
});

test('the detail is plain data: a structured clone (what a message carries) gives it back whole, part by part', () => {
  const { reading, detail } = read(input, SSE_EVENTS);
  // Strict deep equality compares prototypes too: no class instance, Map or function is in it.
  assert.deepEqual(structuredClone(detail), detail);
  for (const k of DETAIL_PARTS) assert.deepEqual(reading.part(k), detail[k], k);
});

test('protobuf frames: runs carry their boundary events as received, the input its fields', () => {
  const events = [
    { type: 'RUN_STARTED', threadId: 't', runId: 'r', protocolVersion: '1.9' },
    { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'ok' },
    { type: 'TEXT_MESSAGE_END', messageId: 'm' },
    { type: 'RUN_FINISHED', threadId: 't', runId: 'r2' },
  ];
  const { detail } = read(input, events, { contentType: PROTO });
  assert.deepEqual(detail.conversation.at(-1)?.content, 'ok');
  const [run] = detail.runs;
  assert.equal(run?.run.negotiation, 'producer-newer');
  assert.equal(run?.started?.protocolVersion, '1.9');
  assert.equal(run?.finished?.runId, 'r2');
  assert.deepEqual(detail.input.fields.filter((f) => !f.present).map((f) => f.name), ['parentRunId', 'tools', 'context', 'forwardedProps', 'resume']);
  assert.deepEqual(detail.input.input, { present: true, value: input, declared: '1.0', version: '1.0' });
});

test("field status comes from the report's input findings; a pre-1.0 readiness item marks its field without faulting it", () => {
  const { detail } = read({ threadId: 't', runId: 'r', messages: [{ id: 'u', role: 'user', content: 'hi' }], tools: 'nope' }, [
    { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
    { type: 'RUN_FINISHED', threadId: 't', runId: 'r' },
  ]);
  const tools = detail.input.fields.find((f) => f.name === 'tools')!;
  assert.equal(tools.status, 'error');
  assert.ok(tools.findings.length > 0 && tools.findings.every((f) => f.path?.startsWith('/tools')));
  const version = detail.input.fields.find((f) => f.name === 'protocolVersion')!;
  assert.equal(detail.input.era, 'pre-1.0');
  assert.ok(version.findings.some((f) => f.readiness), JSON.stringify(version.findings));
  assert.equal(version.status, 'fine');
});

test('a resume list is matched against the interrupts its thread is waiting on, as the resume check saw them', () => {
  const thread = new ThreadTracker();
  read({ threadId: 't', runId: 'r1', messages: [] }, [
    { type: 'RUN_STARTED', threadId: 't', runId: 'r1' },
    { type: 'RUN_FINISHED', threadId: 't', runId: 'r1', outcome: { type: 'interrupt', interrupts: [{ id: 'a', reason: 'approval', message: 'OK?' }, { id: 'b', reason: 'input' }] } },
  ], { thread });
  read({ threadId: 'other', runId: 'r3', messages: [] }, [{ type: 'RUN_STARTED', threadId: 'other', runId: 'r3' }, { type: 'RUN_FINISHED', threadId: 'other', runId: 'r3' }], { thread });
  const resumed = read({ threadId: 't', runId: 'r2', messages: [], resume: [{ interruptId: 'a', status: 'resolved' }] }, [], { thread }).detail;
  assert.deepEqual(resumed.input.pending, [
    { id: 'a', reason: 'approval', message: 'OK?', runId: 'r1' },
    { id: 'b', reason: 'input', message: null, runId: 'r1' },
  ]);
  assert.ok(resumed.input.findings.some((f) => f.rule === 'interrupt/resume-uncovered'), 'the same pending list the resume check judged against');
  const unknown = read({ threadId: 'new', runId: 'r', messages: [] }, [], { thread }).detail;
  assert.equal(unknown.input.pending, null, 'nothing known about the thread');
  const settled = read({ threadId: 'other', runId: 'r4', messages: [] }, [], { thread }).detail;
  assert.deepEqual(settled.input.pending, [], 'its last run was not interrupted');
});

test('a holder that keeps only some frames keeps only their detail; conversation and state go on', () => {
  const { detail } = read(input, SSE_EVENTS, { keep: (i) => i < 2 });
  assert.deepEqual(detail.expanded.map(([i]) => i), [1]);
  assert.deepEqual(detail.stripped.filter((s) => s.at !== 'input'), []);
  assert.deepEqual(detail.conversation.at(-1)?.content, 'Hello');
  assert.equal(detail.states.length, 2);
  assert.equal(detail.runs[0]?.finished, null, 'a boundary past the kept frames is not held');
});

test('while a frame is being read, the parts asked for already hold what it expanded to', () => {
  const reading = new ExchangeReading({ source: 'x', requestBody: JSON.stringify(input), contentType: SSE, status: 200 });
  reading.push(new TextEncoder().encode(`data: ${JSON.stringify(SSE_EVENTS[0])}\n\ndata: ${JSON.stringify(SSE_EVENTS[1])}\n\n`), 0);
  const expanded: ExchangeDetail['expanded'] = reading.part('expanded');
  assert.deepEqual(expanded.map(([i, evs]) => [i, evs.map((e) => e.type)]), [[1, ['TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT']]]);
  assert.equal(reading.part('report').runs[0]?.outcome, 'running');
});
