/** The message API's runtime checks, without a browser: each accepts exactly the shapes `src/messages.ts` names. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BINARY_PROBE, LIMITS, MAX_HEADER_NAMES, checkActed, checkAnswerAsk, checkPageBatch, checkPanelMessage, checkRelayMessage, checkRequest, type Request } from '../src/messages.ts';

describe('checkRequest: what an extension page may ask the worker', () => {
  const valid: Request[] = [
    { type: 'agui-inspector/export' },
    { type: 'agui-inspector/export', tabId: 3 },
    { type: 'agui-inspector/export', tabId: 3, exchangeIds: ['doc:1', 'doc:2'] },
    { type: 'agui-inspector/export', tabId: 3, redact: ['query', 'messages'] },
    { type: 'agui-inspector/export', redact: [] },
    { type: 'agui-inspector/clear', tabId: 1 },
    { type: 'agui-inspector/session', tabId: 1 },
    { type: 'agui-inspector/sessions' },
    { type: 'agui-inspector/preserve', tabId: 1, preserve: true },
    { type: 'agui-inspector/record', tabId: 1, record: false },
    { type: 'agui-inspector/limits' },
    { type: 'agui-inspector/limits', set: { maxEvents: 10 } },
    { type: 'agui-inspector/origins' },
    { type: 'agui-inspector/detail', tabId: 1, exchangeId: 'doc:1', part: 'input' },
    { type: 'agui-inspector/detail', tabId: 1, exchangeId: 'doc:1', part: 'conversation' },
    { type: 'agui-inspector/state-at', tabId: 1, exchangeId: 'doc:1', step: 0 },
    { type: 'agui-inspector/state-diff', tabId: 1, exchangeId: 'doc:1', step: 3 },
    { type: 'agui-inspector/conversation-diff', tabId: 1, exchangeId: 'doc:1', step: 2 },
    { type: 'agui-inspector/conversation-at', tabId: 1, exchangeId: 'doc:1', step: 0 },
    { type: 'agui-inspector/override-arm', tabId: 1, exchangeId: 'doc:1', method: 'POST', url: 'http://127.0.0.1/agent', once: true, pace: 1, keepIds: false, faults: [], pinned: false },
    { type: 'agui-inspector/override-arm', tabId: 1, exchangeId: 'doc:1', method: 'POST', url: 'http://127.0.0.1/agent', once: false, pace: 'max', keepIds: true, faults: ['cut@3', 'stall:1500@2'], pinned: true },
    { ...{ type: 'agui-inspector/override-arm', tabId: 1, exchangeId: 'doc:1', method: 'POST', url: 'http://127.0.0.1/agent', once: true, pace: 1, keepIds: false, faults: [], pinned: false }, exchangeId: 'file:0', recorded: { status: 200, contentType: 'text/event-stream', requestBody: null, chunks: [{ time: 0, bytes: 'ZGF0YTogMQoK' }, { time: 12.5, bytes: '' }] } },
    { type: 'agui-inspector/override-arm', tabId: 1, exchangeId: 'doc:1', method: 'POST', url: 'http://127.0.0.1/agent', once: true, pace: 1, keepIds: false, faults: [], pinned: false, edited: '{"type":"RUN_STARTED"}' },
    { type: 'agui-inspector/check-answer', text: '{"type":"RUN_STARTED"}', contentType: 'text/event-stream', requestBody: null },
    { type: 'agui-inspector/override-disarm', tabId: 1 },
    { type: 'agui-inspector/override-status', tabId: 1 },
  ];
  it('accepts every request the map names, as it was sent', () => {
    for (const r of valid) assert.deepEqual(checkRequest(r), r, JSON.stringify(r));
  });
  it('refuses unknown types, extra or missing members and wrong types', () => {
    const bad: unknown[] = [
      null, 'agui-inspector/sessions', [], {},
      { type: 'agui-inspector/unknown' },
      { type: 'toString' },
      { type: '__proto__' },
      { type: 'agui-inspector/sessions', extra: 1 },
      { type: 'agui-inspector/clear' },
      { type: 'agui-inspector/clear', tabId: -1 },
      { type: 'agui-inspector/clear', tabId: 1.5 },
      { type: 'agui-inspector/clear', tabId: '1' },
      { type: 'agui-inspector/preserve', tabId: 1, preserve: 'yes' },
      { type: 'agui-inspector/record', tabId: 1 },
      { type: 'agui-inspector/export', exchangeIds: 'doc:1' },
      { type: 'agui-inspector/export', exchangeIds: [1] },
      { type: 'agui-inspector/export', exchangeIds: ['x'.repeat(65)] },
      { type: 'agui-inspector/export', redact: 'query' },
      { type: 'agui-inspector/export', redact: ['passwords'] },
      { type: 'agui-inspector/export', redact: Array(7).fill('query') },
      { type: 'agui-inspector/limits', set: { maxEvents: -1 } },
      { type: 'agui-inspector/limits', set: { other: 1 } },
      { type: 'agui-inspector/limits', set: [] },
      { type: 'agui-inspector/detail', tabId: 1, exchangeId: 'doc:1' },
      { type: 'agui-inspector/detail', tabId: 1, exchangeId: 'doc:1', part: 'values' },
      { type: 'agui-inspector/detail', tabId: 1, exchangeId: 'doc:1', part: 'toString' },
      { type: 'agui-inspector/detail', tabId: 1, exchangeId: 'x'.repeat(65), part: 'input' },
      { type: 'agui-inspector/state-at', tabId: 1, exchangeId: 'doc:1', step: -1 },
      { type: 'agui-inspector/state-diff', tabId: 1, exchangeId: 'doc:1', step: 1.5 },
      { type: 'agui-inspector/state-at', tabId: 1, exchangeId: 'doc:1', step: '0' },
      { type: 'agui-inspector/conversation-diff', tabId: 1, exchangeId: 'doc:1', step: -2 },
      { ...{ type: 'agui-inspector/override-arm', tabId: 1, exchangeId: 'doc:1', method: 'POST', url: 'http://127.0.0.1/agent', once: true, pace: 1, keepIds: false, faults: [], pinned: false }, pace: 0 },
      { ...{ type: 'agui-inspector/override-arm', tabId: 1, exchangeId: 'doc:1', method: 'POST', url: 'http://127.0.0.1/agent', once: true, pace: 1, keepIds: false, faults: [], pinned: false }, pace: '2' },
      { ...{ type: 'agui-inspector/override-arm', tabId: 1, exchangeId: 'doc:1', method: 'POST', url: 'http://127.0.0.1/agent', once: true, pace: 1, keepIds: false, faults: [], pinned: false }, method: '' },
      { ...{ type: 'agui-inspector/override-arm', tabId: 1, exchangeId: 'doc:1', method: 'POST', url: 'http://127.0.0.1/agent', once: true, pace: 1, keepIds: false, faults: [], pinned: false }, url: '' },
      { ...{ type: 'agui-inspector/override-arm', tabId: 1, exchangeId: 'doc:1', method: 'POST', url: 'http://127.0.0.1/agent', once: true, pace: 1, keepIds: false, faults: [], pinned: false }, faults: 'cut@3' },
      { ...{ type: 'agui-inspector/override-arm', tabId: 1, exchangeId: 'doc:1', method: 'POST', url: 'http://127.0.0.1/agent', once: true, pace: 1, keepIds: false, faults: [], pinned: false }, faults: [3] },
      { ...{ type: 'agui-inspector/override-arm', tabId: 1, exchangeId: 'doc:1', method: 'POST', url: 'http://127.0.0.1/agent', once: true, pace: 1, keepIds: false, faults: [], pinned: false }, pinned: undefined },
      { ...{ type: 'agui-inspector/override-arm', tabId: 1, exchangeId: 'doc:1', method: 'POST', url: 'http://127.0.0.1/agent', once: true, pace: 1, keepIds: false, faults: [], pinned: false }, body: 'x' },
      // An imported recording: exactly its members, a status, base64 bytes, times, and no more than a request body's bytes.
      { ...{ type: 'agui-inspector/override-arm', tabId: 1, exchangeId: 'doc:1', method: 'POST', url: 'http://127.0.0.1/agent', once: true, pace: 1, keepIds: false, faults: [], pinned: false }, recorded: { status: 200, contentType: 'text/event-stream', chunks: [] } },
      { ...{ type: 'agui-inspector/override-arm', tabId: 1, exchangeId: 'doc:1', method: 'POST', url: 'http://127.0.0.1/agent', once: true, pace: 1, keepIds: false, faults: [], pinned: false }, recorded: { status: 99, contentType: 'text/event-stream', requestBody: null, chunks: [] } },
      { ...{ type: 'agui-inspector/override-arm', tabId: 1, exchangeId: 'doc:1', method: 'POST', url: 'http://127.0.0.1/agent', once: true, pace: 1, keepIds: false, faults: [], pinned: false }, recorded: { status: 200, contentType: 'text/event-stream', requestBody: null, chunks: [{ time: -1, bytes: '' }] } },
      { ...{ type: 'agui-inspector/override-arm', tabId: 1, exchangeId: 'doc:1', method: 'POST', url: 'http://127.0.0.1/agent', once: true, pace: 1, keepIds: false, faults: [], pinned: false }, recorded: { status: 200, contentType: 'text/event-stream', requestBody: null, chunks: [{ time: 0, bytes: 'not base64!' }] } },
      { ...{ type: 'agui-inspector/override-arm', tabId: 1, exchangeId: 'doc:1', method: 'POST', url: 'http://127.0.0.1/agent', once: true, pace: 1, keepIds: false, faults: [], pinned: false }, recorded: { status: 200, contentType: 'text/event-stream', requestBody: null, chunks: [{ time: 0, bytes: 'A'.repeat(LIMITS.requestBody / 3 * 4 + 4) }] } },
      { type: 'agui-inspector/override-disarm' },
      { type: 'agui-inspector/check-answer', text: 1, contentType: 'text/event-stream', requestBody: null },
      { type: 'agui-inspector/check-answer', text: '', contentType: 'text/event-stream' },
      { type: 'agui-inspector/conversation-at', tabId: 1, exchangeId: 'doc:1' },
    ];
    for (const x of bad) assert.equal(checkRequest(x), null, JSON.stringify(x));
  });
});

describe('checkActed: what the page script answers an act', () => {
  it('copies out the three answers, bounded, and refuses anything else', () => {
    for (const x of [{ acted: 3, result: { names: ['authorization', 'x-app'] } }, { acted: 3, result: { names: null } }, { acted: 3, result: { sent: true } }, { acted: 3, result: { error: 'TypeError: Failed to fetch' } }]) {
      assert.deepEqual(checkActed(x), x);
    }
    const bad = [
      null, { acted: 3 }, { acted: -1, result: { sent: true } }, { acted: 3, result: { sent: false } }, { acted: 3, result: { sent: true, names: [] } },
      { acted: 3, result: { names: Array.from({ length: MAX_HEADER_NAMES + 1 }, (_, i) => `x-${i}`) } }, { acted: 3, result: { names: [1] } },
      { acted: 3, result: { error: 'x'.repeat(LIMITS.text + 1) } }, { acted: 3, result: { names: [] }, more: 1 },
    ];
    for (const x of bad) assert.equal(checkActed(x), null, JSON.stringify(x).slice(0, 80));
  });
});

describe('checkPanelMessage', () => {
  it('accepts a subscription to one tab, or a watch of its override, and nothing else', () => {
    assert.deepEqual(checkPanelMessage({ type: 'subscribe', tabId: 7 }), { type: 'subscribe', tabId: 7 });
    assert.deepEqual(checkPanelMessage({ type: 'watch', tabId: 7 }), { type: 'watch', tabId: 7 }, 'a file shown while inspecting the tab');
    for (const x of [null, { type: 'subscribe' }, { type: 'subscribe', tabId: -1 }, { type: 'subscribe', tabId: 7, more: true }, { type: 'unsubscribe', tabId: 7 }]) {
      assert.equal(checkPanelMessage(x), null, JSON.stringify(x));
    }
  });
});

describe('checkPageBatch and checkRelayMessage: what crosses from the page', () => {
  const open = { k: 'open', id: 1, api: 'fetch', t: 1, method: 'POST', url: 'http://127.0.0.1/agent', requestContentType: 'application/json', requestBody: '{}', requestBodyNote: null };
  const chunk = { k: 'chunk', id: 1, t: 2, bytes: new Uint8Array([100, 97]) };
  const end = { k: 'end', id: 1, t: 3, outcome: 'complete', error: null };
  it('copies out well-formed page messages and nulls malformed members', () => {
    const got = checkPageBatch([open, { ...open, extra: 1 }, chunk, { ...chunk, bytes: [1, 2] }, end, { ...end, outcome: 'done' }]);
    assert.deepEqual(got?.map((m) => m?.k ?? null), ['open', null, 'chunk', null, 'end', null]);
    assert.equal(checkPageBatch({ length: 1 }), null);
    assert.equal(checkPageBatch(Array.from({ length: LIMITS.batch + 1 }, () => end)), null);
    assert.equal(checkPageBatch([{ ...open, url: 'x'.repeat(LIMITS.url + 1) }])![0], null);
  });
  it("takes an open's act ref, but never the resent exchange only the worker may name", () => {
    assert.deepEqual(checkPageBatch([{ ...open, by: 9 }]), [{ ...open, by: 9 }]);
    assert.deepEqual(checkPageBatch([{ ...open, of: 'doc:1' }, { ...open, by: 9, of: 'doc:1' }, { ...open, by: -1 }, { ...open, by: '9' }]), [null, null, null, null]);
  });
  it('refuses a relay batch with any malformed member whole, and decodes base64 chunk bytes', () => {
    const ok = checkRelayMessage({ type: 'capture', seq: 1, msgs: [open, { ...chunk, bytes: 'ZGE=' }, end] });
    assert.ok(ok && ok.type === 'capture');
    assert.deepEqual([...(ok.msgs[1] as { bytes: Uint8Array }).bytes], [100, 97]);
    assert.equal(checkRelayMessage({ type: 'capture', seq: 1, msgs: [open, { ...chunk, bytes: '%%%' }] }), null);
    assert.equal(checkRelayMessage({ type: 'capture', seq: -1, msgs: [] }), null);
    const hello = checkRelayMessage({ type: 'hello', doc: 'd', url: 'http://127.0.0.1/', resumed: false, probe: new Uint8Array(BINARY_PROBE) });
    assert.deepEqual(hello, { type: 'hello', doc: 'd', url: 'http://127.0.0.1/', resumed: false, binary: true });
    // A probe that did not arrive as bytes: this messaging path carries binary data encoded.
    assert.deepEqual(checkRelayMessage({ type: 'hello', doc: 'd', url: 'u', resumed: true, probe: 'x' }), { type: 'hello', doc: 'd', url: 'u', resumed: true, binary: false });
    assert.equal(checkRelayMessage({ type: 'hello', doc: 'd', url: 'u', resumed: false, probe: null, more: 1 }), null);
  });
  it("takes a page script's ask for an override's answer only in its exact shape, and never an open's override mark", () => {
    const ask = { type: 'answer-for', ask: 1, method: 'POST', url: 'http://127.0.0.1/agent', body: '{}' };
    assert.deepEqual(checkRelayMessage(ask), ask);
    assert.deepEqual(checkRelayMessage({ ...ask, body: null }), { ...ask, body: null });
    for (const bad of [{ ...ask, ask: -1 }, { ...ask, method: 'X'.repeat(33) }, { ...ask, url: 'u'.repeat(LIMITS.url + 1) }, { ...ask, body: 1 }, { ...ask, answer: {} }]) {
      assert.equal(checkRelayMessage(bad), null, JSON.stringify(bad).slice(0, 80));
    }
    assert.deepEqual(checkAnswerAsk({ answerFor: 2, method: 'POST', url: 'u', body: null }), { answerFor: 2, method: 'POST', url: 'u', body: null });
    assert.equal(checkAnswerAsk({ answerFor: 2, method: 'POST', url: 'u', body: null, by: 1 }), null);
    assert.deepEqual(checkPageBatch([{ ...open, override: { from: 'doc:1', pace: 1, idsRewritten: true, faults: [] } }]), [null]);
  });
  it('accepts whether the page script reached the relay as a bare boolean, naming nothing else', () => {
    assert.deepEqual(checkRelayMessage({ type: 'page-script', reached: false }), { type: 'page-script', reached: false });
    assert.deepEqual(checkRelayMessage({ type: 'page-script', reached: true }), { type: 'page-script', reached: true });
    // The URL is the one hello gave: a relay carries nothing more of the page here.
    assert.equal(checkRelayMessage({ type: 'page-script', reached: false, url: 'http://127.0.0.1/' }), null);
    assert.equal(checkRelayMessage({ type: 'page-script', reached: 'no' }), null);
    assert.equal(checkRelayMessage({ type: 'page-script' }), null);
  });
  it('takes a socket, its text and binary frames and its close exactly, and decodes a relayed binary frame', () => {
    const socket = { k: 'socket', id: 1, t: 1, url: 'ws://127.0.0.1/agent' };
    const text = { k: 'frame', id: 1, t: 2, type: 'send', opcode: 1, data: '{"threadId":"t"}' };
    const binary = { k: 'frame', id: 1, t: 3, type: 'receive', opcode: 2, data: new Uint8Array([0, 0, 0, 1, 8]) };
    const close = { k: 'close', id: 1, t: 4, code: 1011, reason: 'agent crashed', wasClean: true };
    assert.deepEqual(checkPageBatch([socket, text, binary, close]), [socket, text, binary, close]);
    const bad: unknown[] = [
      { ...socket, url: 'x'.repeat(LIMITS.url + 1) }, { ...socket, extra: 1 }, { ...socket, id: -1 },
      { ...text, type: 'sent' }, { ...text, opcode: 2 }, { ...text, opcode: 8 }, { ...text, data: 'x'.repeat(LIMITS.frame + 1) }, { ...text, wasClean: true },
      { ...binary, opcode: 1 }, { ...binary, data: [0, 1] }, { ...binary, data: 'AAAAAQg=' }, { ...binary, data: new Uint8Array(LIMITS.frame + 1) },
      { ...close, code: 5000 }, { ...close, code: null }, { ...close, reason: 'x'.repeat(LIMITS.text + 1) }, { ...close, wasClean: 1 }, { ...close, type: 'close' },
    ];
    assert.deepEqual(checkPageBatch(bad), bad.map(() => null));
    // Where messaging is JSON the relay sends a binary frame's bytes as base64; opcode 1 keeps a string as text.
    const relayed = checkRelayMessage({ type: 'capture', seq: 1, msgs: [socket, text, { ...binary, data: 'AAAAAQg=' }, close] });
    assert.deepEqual(relayed, { type: 'capture', seq: 1, msgs: [socket, text, binary, close] });
    assert.equal(checkRelayMessage({ type: 'capture', seq: 1, msgs: [socket, { ...binary, data: '%%%' }] }), null);
    assert.equal(checkRelayMessage({ type: 'capture', seq: 1, msgs: [socket, { ...binary, data: 'A'.repeat(Math.ceil(LIMITS.frame / 3) * 4 + 4) }] }), null);
  });

  it('takes a drop report naming a socket with a hole, or none, exactly', () => {
    const dropped = { k: 'dropped', t: 1, id: null, exchanges: 0, chunks: 1, bytes: 3, rejected: 0 };
    assert.deepEqual(checkPageBatch([dropped, { ...dropped, socket: 2 }]), [dropped, { ...dropped, socket: 2 }]);
    const bad: unknown[] = [{ ...dropped, socket: -1 }, { ...dropped, socket: null }, { ...dropped, socket: '2' }, { ...dropped, socket: 2, extra: 1 }];
    assert.deepEqual(checkPageBatch(bad), bad.map(() => null));
  });
});
