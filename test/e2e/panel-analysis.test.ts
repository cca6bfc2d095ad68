/**
 * The panel's reading of one exchange, without a browser: what the worker's frames rebuild to, and what
 * the detailed views derive from them (chunk expansion, failed patches, the conversation, strips, runs).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EventEncoder } from '@ag-ui/encoder';
import type { BaseEvent } from '@ag-ui/core';
import { ExchangeAnalyzer } from '../../src/analyzer/exchange.ts';
import { eventView, type EventView } from '../../src/messages.ts';
import { fullOf, inputOf, pendingInterruptsFor, runsOf } from '../../panel/analysis.ts';
import { rebuildChunks } from '../../panel/frames.ts';
import type { PanelExchange } from '../../panel/model.ts';
import { filterRows, findingsByEvent, NO_FILTER } from '../../panel/views/timeline.tsx';

const SSE = 'text/event-stream';
const PROTO = 'application/vnd.ag-ui.event+proto';

/** An exchange as the worker would hand it over: frames and report, no bytes. */
function live(requestBody: unknown, events: object[], contentType = SSE): PanelExchange {
  const enc = new EventEncoder();
  const bytes = contentType === SSE
    ? events.map((e) => new TextEncoder().encode(`data: ${JSON.stringify(e)}\n\n`))
    : events.map((e) => enc.encodeProtobuf(e as BaseEvent));
  const views: EventView[] = [];
  const body = JSON.stringify(requestBody);
  const a = new ExchangeAnalyzer({ source: 'x', requestBody: body, contentType, status: 200, onEvent: (r) => views.push(eventView(r)) });
  bytes.forEach((b, i) => a.push(b, i));
  a.end(bytes.length);
  return {
    id: 'x', url: 'http://127.0.0.1/agent', method: 'POST', startedAt: 0, endedAt: bytes.length, outcome: 'complete', error: null,
    status: 200, contentType, requestBody: body, requestNote: null, report: a.report(), analysisError: null, capped: false,
    events: views, chunks: null, rev: 1,
  };
}

const input = { threadId: 't', runId: 'r', protocolVersion: '1.0', messages: [{ id: 'u', role: 'user', content: 'hi' }], state: { n: 1 } };

test('the detailed reading of rebuilt SSE frames: expansion, failed patch, conversation, strips', () => {
  const x = live(input, [
    { type: 'RUN_STARTED', threadId: 't', runId: 'r', protocolVersion: '1.0' },
    { type: 'TEXT_MESSAGE_CHUNK', messageId: 'm', delta: 'Hel' },
    { type: 'TEXT_MESSAGE_CHUNK', messageId: 'm', delta: 'lo', extra: true },
    { type: 'STATE_DELTA', delta: [{ op: 'replace', path: '/n', value: 2 }] },
    { type: 'STATE_DELTA', delta: [{ op: 'remove', path: '/missing' }] },
    { type: 'PROGRESS', pct: 1 },
    { type: 'RUN_FINISHED', threadId: 't', runId: 'r' },
  ]);
  const full = fullOf(x);
  assert.deepEqual(full.states.map((s) => [s.event, s.failed, s.state]), [[3, false, { n: 2 }], [4, true, { n: 2 }]]);
  assert.deepEqual(full.conversation.map((m) => [m.role, m.content]), [['user', 'hi'], ['assistant', 'Hello']]);
  assert.deepEqual(full.expanded.get(1)?.map((e) => e.type), ['TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT']);
  assert.deepEqual(full.expanded.get(3)?.map((e) => e.type), ['TEXT_MESSAGE_END', 'STATE_DELTA'], 'the end a non-chunk event implies');
  assert.deepEqual(full.stripped.map((s) => [s.at, s.path, s.removed]), [[2, '/extra', true], [5, '', { type: 'PROGRESS', pct: 1 }]]);
  assert.equal(fullOf(x), full, 'cached while the exchange is unchanged');

  const rows = filterRows(x.events, findingsByEvent(x.report!.findings), { ...NO_FILTER, expand: true }, full.expanded);
  assert.equal(rows.length, x.events.length + 5);
  const warnings = filterRows(x.events, findingsByEvent(x.report!.findings), { ...NO_FILTER, severity: 'warning' }, null);
  assert.deepEqual([...warnings.event.subarray(0, warnings.length)], [2, 4, 5]);
  const search = filterRows(x.events, new Map(), { ...NO_FILTER, text: 'REPLACE' }, null);
  assert.deepEqual([...search.event.subarray(0, search.length)], [3]);
});

test('protobuf frames rebuild to the same events; runs read only their boundary frames', () => {
  const events = [
    { type: 'RUN_STARTED', threadId: 't', runId: 'r', protocolVersion: '1.9' },
    { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'ok' },
    { type: 'TEXT_MESSAGE_END', messageId: 'm' },
    { type: 'RUN_FINISHED', threadId: 't', runId: 'r2' },
  ];
  const x = live(input, events, PROTO);
  assert.equal(rebuildChunks(x.events, PROTO).length, events.length);
  assert.deepEqual(fullOf(x).conversation.at(-1)?.content, 'ok');
  const [run] = runsOf(x);
  assert.equal(run?.run.negotiation, 'producer-newer');
  assert.equal(run?.finished?.runId, 'r2');
  assert.deepEqual(inputOf(x).fields.map((f) => [f.name, f.present]).filter(([, p]) => !p).map(([n]) => n), ['parentRunId', 'tools', 'context', 'forwardedProps', 'resume']);
});

test('a resume list is matched against the interrupts its thread is waiting on', () => {
  const interrupted = live({ threadId: 't', runId: 'r1', messages: [] }, [
    { type: 'RUN_STARTED', threadId: 't', runId: 'r1' },
    { type: 'RUN_FINISHED', threadId: 't', runId: 'r1', outcome: { type: 'interrupt', interrupts: [{ id: 'a', reason: 'approval', message: 'OK?' }, { id: 'b', reason: 'input' }] } },
  ]);
  const resumed = live({ threadId: 't', runId: 'r2', messages: [], resume: [{ interruptId: 'a', status: 'resolved' }] }, []);
  resumed.id = 'y';
  const other = live({ threadId: 'other', runId: 'r3', messages: [] }, []);
  assert.deepEqual(pendingInterruptsFor([interrupted, other, resumed], resumed)?.map((p) => [p.id, p.message]), [['a', 'OK?'], ['b', null]]);
  assert.equal(pendingInterruptsFor([resumed], resumed), null, 'nothing known about the thread');
});
