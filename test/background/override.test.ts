/** The worker's side of an armed override (background/override.ts), over a Session in Node: what arms, and what each request is answered. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answerFor, arming } from '../../background/override.ts';
import { Session } from '../../background/session.ts';
import { fromBase64 } from '../../src/base64.ts';
import { DEFAULT_LIMITS, type PageMessage, type RequestOf } from '../../src/messages.ts';

const URL_ = 'http://127.0.0.1/agent';
const sse = (e: object) => `data: ${JSON.stringify(e)}\n\n`;
const recorded = [
  sse({ type: 'RUN_STARTED', threadId: 't1', runId: 'r1' }),
  sse({ type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' }),
  sse({ type: 'TEXT_MESSAGE_END', messageId: 'm1' }),
  sse({ type: 'RUN_FINISHED', threadId: 't1', runId: 'r1' }),
];
const input = (threadId: string, runId: string) => JSON.stringify({ threadId, runId, messages: [], state: {}, tools: [], context: [], forwardedProps: {} });

function session(ended = true, contentType = 'text/event-stream'): Session {
  const s = new Session(1, 'u', false, DEFAULT_LIMITS);
  const msgs: PageMessage[] = [
    { k: 'open', id: 1, api: 'fetch', t: 1000, method: 'POST', url: URL_, requestContentType: 'application/json', requestBody: input('t1', 'r1'), requestBodyNote: null },
    { k: 'response', id: 1, t: 1001, status: 200, statusText: 'OK', contentType, url: URL_, redirected: false, reconstructed: false },
    ...recorded.map((text, i): PageMessage => ({ k: 'chunk', id: 1, t: 1010 + i * 100, bytes: new TextEncoder().encode(text) })),
    ...(ended ? [{ k: 'end', id: 1, t: 1400, outcome: 'complete', error: null } as PageMessage] : []),
  ];
  s.receive('doc', 1, msgs);
  while (s.busy) [...s.work(() => false)];
  return s;
}

const req = (o: Partial<RequestOf<'agui-inspector/override-arm'>> = {}): RequestOf<'agui-inspector/override-arm'> => ({
  type: 'agui-inspector/override-arm', tabId: 1, exchangeId: 'doc:1', method: 'post', url: URL_, once: true, pace: 10, keepIds: false, faults: [], pinned: false, ...o,
});
const text = (chunks: { bytes: string }[]) => chunks.map((c) => new TextDecoder().decode(fromBase64(c.bytes))).join('');

describe('an armed override, in the worker', () => {
  it('arms only with a complete recording of the tab, and faults that parse', () => {
    assert.deepEqual(arming(session(), req({ exchangeId: 'doc:9' })), { error: 'this tab holds no such exchange' });
    assert.match((arming(session(false), req()) as { error: string }).error, /still under way/);
    assert.match((arming(session(), req({ faults: ['cut@3', 'sideways'] })) as { error: string }).error, /"sideways" is not a fault/);
    const armed = arming(session(), req({ faults: [' cut@2 '] }));
    assert.ok(!('error' in armed));
    assert.deepEqual(armed.status, { method: 'POST', url: URL_, from: 'doc:1', once: true, pace: 10, keepIds: false, faults: ['cut@2'], pinned: false, answered: 0 });
  });

  it('arms a * pattern and answers every URL it names; refuses a URL no request can have, saying why', async () => {
    assert.match((arming(session(), req({ url: '/agent' })) as { error: string }).error, /not an absolute http\(s\) URL/);
    assert.equal('error' in arming(session(), req({ method: 'GET' })), false, 'an SSE recording answers an EventSource');
    assert.match((arming(session(true, 'application/vnd.ag-ui.event+proto'), req({ method: 'GET' })) as { error: string }).error, /EventSource .* reads only text\/event-stream/);
    const s = session();
    const armed = arming(s, req({ url: 'http://127.0.0.1/*' }));
    assert.ok(!('error' in armed));
    assert.notEqual(await answerFor(s, armed, 'POST', `${URL_}/chat?x=1`, null), null);
    assert.equal(await answerFor(s, armed, 'POST', 'http://localhost/agent', null), null, 'another host');
  });

  it('arms with an imported recording the panel sends, with no exchange of the tab', async () => {
    const s = session();
    const bytes = (t: string) => Buffer.from(t).toString('base64');
    const recorded = { status: 200, contentType: 'text/event-stream', requestBody: input('t1', 'r1'), chunks: [{ time: 0, bytes: bytes(sse({ type: 'RUN_STARTED', threadId: 't1', runId: 'r1' })) }, { time: 50, bytes: bytes(sse({ type: 'RUN_FINISHED', threadId: 't1', runId: 'r1' })) }] };
    const armed = arming(s, req({ exchangeId: 'file:3', recorded }));
    assert.ok(!('error' in armed));
    assert.equal(armed.status.from, 'file:3');
    const got = (await answerFor(s, armed, 'POST', URL_, input('t9', 'r9')))!;
    assert.deepEqual(got.chunks.map((c) => c.at), [0, 5]);
    assert.equal(text(got.chunks), [sse({ type: 'RUN_STARTED', threadId: 't9', runId: 'r9' }), sse({ type: 'RUN_FINISHED', threadId: 't9', runId: 'r9' })].join(''));
    assert.match((arming(undefined, req({ method: 'GET', recorded: { ...recorded, contentType: 'application/vnd.ag-ui.event+proto' } })) as { error: string }).error, /EventSource/);
  });

  it('arms edited events in place of the recorded ones, encoded as the recording\'s transport, all at once; refuses what the transport cannot carry', async () => {
    const s = session();
    const edited = `${JSON.stringify({ type: 'RUN_STARTED', threadId: 't1', runId: 'r1' })}\n\n{"type":"CUSTOM","name":"x","value":1}`;
    const armed = arming(s, req({ edited }));
    assert.ok(!('error' in armed));
    const got = (await answerFor(s, armed, 'POST', URL_, input('t2', 'r2')))!;
    assert.deepEqual(got.chunks.map((c) => c.at), [0, 0]);
    assert.equal(text(got.chunks), `${sse({ type: 'RUN_STARTED', threadId: 't2', runId: 'r2' })}data: {"type":"CUSTOM","name":"x","value":1}\n\n`);
    assert.match((arming(session(true, 'application/vnd.ag-ui.event+proto'), req({ edited: 'nope' })) as { error: string }).error, /line 1 cannot be sent as protobuf/);
  });

  it("answers a matching request with the recording at the pace, in the request's ids, and hands out the ref its exchange is marked by", async () => {
    const s = session();
    const armed = arming(s, req());
    assert.ok(!('error' in armed));
    assert.equal(await answerFor(s, armed, 'GET', URL_, null), null, 'another method');
    assert.equal(await answerFor(s, armed, 'POST', `${URL_}?x`, null), null, 'another URL');
    const got = (await answerFor(s, armed, 'POST', URL_, input('t2', 'r2')))!;
    assert.equal(got.status, 200);
    assert.equal(got.contentType, 'text/event-stream');
    assert.deepEqual(got.chunks.map((c) => c.at), [1, 11, 21, 31], 'the recorded times (ms after the request started), ten times as fast');
    assert.equal(text(got.chunks), recorded.join('').replaceAll('t1', 't2').replaceAll('r1', 'r2'));
    assert.deepEqual(s.answering.get(got.by), { from: 'doc:1', pace: 10, idsRewritten: true, faults: [] });

    const kept = arming(s, req({ keepIds: true, faults: ['cut@1'] }));
    assert.ok(!('error' in kept));
    const cut = (await answerFor(s, kept, 'POST', URL_, input('t3', 'r3')))!;
    assert.equal(text(cut.chunks), recorded.slice(0, 2).join(''), 'the recorded ids, cut after event 1');
    assert.deepEqual(s.answering.get(cut.by), { from: 'doc:1', pace: 10, idsRewritten: false, faults: ['cut@1'] });
  });
});
