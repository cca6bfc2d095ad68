/** One exchange's report stream: what reaches the relay in each state, and when. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NO_BODY, type RequestInfo } from '../../src/capture/page/sink.ts';
import { LIMITS } from '../../src/messages.ts';
import { AGUI_SSE, RUN_INPUT, chunkBytes, kinds, relay, sse, utf8 } from './fakes.ts';

const req = (url = 'http://user:pw@127.0.0.1/agent'): RequestInfo => ({ api: 'fetch', t: 5, method: 'POST', url, contentType: () => 'application/json' });
const response = { status: 200, statusText: 'OK', contentType: 'text/event-stream', url: 'http://127.0.0.1/agent', redirected: false, reconstructed: false };
const agui = { agui: true, text: RUN_INPUT, note: null };

describe('sink', () => {
  it('records an AG-UI exchange: open, response, the bytes as read, end', () => {
    const r = relay();
    const s = r.sink(req(), agui);
    s.start();
    s.response(response);
    const bytes = utf8(AGUI_SSE);
    s.chunk(bytes.subarray(0, 10));
    s.chunk(bytes.subarray(10));
    s.end('complete', undefined);
    const msgs = r.messages();
    assert.deepEqual(kinds(msgs), ['open', 'response', 'chunk', 'chunk', 'end']);
    const open = msgs[0]!;
    assert.ok(open.k === 'open');
    assert.equal(open.url, 'http://127.0.0.1/agent', 'user-info is never recorded');
    assert.equal(open.requestBody, RUN_INPUT);
    assert.equal(open.requestContentType, 'application/json');
    assert.deepEqual(chunkBytes(msgs), bytes);
    assert.ok(msgs.every((m) => m.k === 'dropped' || m.id === s.id));
    assert.equal(s.active, false);
    s.end('aborted', undefined);
    s.chunk(utf8('late'));
    assert.equal(r.messages().length, 5, 'nothing after the end');
  });

  it('holds an SSE exchange until its first event shows it is AG-UI, then sends what it held', () => {
    const r = relay();
    const s = r.sink(req(), NO_BODY);
    s.sniff();
    s.response(response);
    const text = AGUI_SSE;
    s.chunk(utf8(text.slice(0, 12)));
    assert.deepEqual(r.messages(), [], 'undecided: nothing leaves');
    assert.equal(s.active, true);
    s.chunk(utf8(text.slice(12)));
    s.end('complete', undefined);
    const msgs = r.messages();
    assert.deepEqual(kinds(msgs), ['open', 'response', 'chunk', 'chunk', 'end']);
    assert.equal(new TextDecoder().decode(chunkBytes(msgs)), text);
  });

  it('drops an SSE exchange whose first event is not AG-UI, without a trace', () => {
    const r = relay();
    const s = r.sink(req(), NO_BODY);
    s.sniff();
    s.response(response);
    s.chunk(utf8(sse({ type: 'price', value: 3 })));
    assert.equal(s.active, false);
    s.chunk(utf8(sse({ type: 'RUN_STARTED' })));
    s.end('complete', undefined);
    assert.deepEqual(r.messages(), []);
  });

  it('decides at the end of a stream too short to decide on', () => {
    const r = relay();
    const s = r.sink(req(), NO_BODY);
    s.sniff();
    s.chunk(utf8(`data: ${JSON.stringify({ type: 'RUN_STARTED', threadId: 't', runId: 'r' })}`));
    assert.deepEqual(r.messages(), []);
    s.end('complete', undefined);
    assert.deepEqual(kinds(r.messages()), ['open', 'chunk', 'end']);
  });

  it('discards an exchange never shown to be AG-UI', () => {
    const r = relay();
    const s = r.sink(req(), NO_BODY);
    s.chunk(utf8('hello'));
    s.end('complete', undefined);
    assert.deepEqual(r.messages(), []);
  });

  it('records nothing new while capture is paused', () => {
    const r = relay();
    r.recording = false;
    const s = r.sink(req(), agui);
    s.start();
    s.chunk(utf8(AGUI_SSE));
    s.end('complete', undefined);
    assert.deepEqual(r.messages(), []);
    r.recording = true;
    r.sink(req(), agui).start();
    assert.deepEqual(kinds(r.messages()), ['open']);
  });

  it('counts exchanges beyond LIMITS.openExchanges as dropped instead of opening them', () => {
    const r = relay();
    const open = Array.from({ length: LIMITS.openExchanges }, () => r.sink(req(), agui));
    for (const s of open) s.start();
    const extra = r.sink(req(), agui);
    extra.start();
    extra.chunk(utf8('x'));
    const msgs = r.messages();
    assert.equal(msgs.filter((m) => m.k === 'open').length, LIMITS.openExchanges);
    assert.deepEqual(msgs.at(-1), { k: 'dropped', t: msgs.at(-1)!.t, id: null, exchanges: 1, chunks: 0, bytes: 0, rejected: 0 });
    // An ended exchange makes room.
    open[0]!.end('complete', undefined);
    const next = r.sink(req(), agui);
    next.start();
    assert.deepEqual(kinds(r.messages()).slice(-2), ['end', 'open']);
  });

  it('queues what arrives while the request text is still being read, and reports an unreadable one', async () => {
    const r = relay();
    let resolve!: (t: string) => void;
    const s = r.sink(req(), { agui: true, text: null, note: 'multipart-reserialized', later: () => new Promise((res) => (resolve = res)) });
    s.start();
    s.response(response);
    s.chunk(utf8('data: 1\n\n'));
    s.end('error', new TypeError('network error'));
    assert.deepEqual(r.messages(), []);
    resolve('a=1');
    await Promise.resolve();
    await Promise.resolve();
    const msgs = r.messages();
    assert.deepEqual(kinds(msgs), ['open', 'response', 'chunk', 'end']);
    assert.ok(msgs[0]!.k === 'open' && msgs[0]!.requestBody === 'a=1' && msgs[0]!.requestBodyNote === 'multipart-reserialized');
    assert.ok(msgs[3]!.k === 'end' && msgs[3]!.error === 'TypeError: network error' && msgs[3]!.outcome === 'error');

    const r2 = relay();
    r2.sink(req(), { agui: true, text: null, note: null, later: () => Promise.reject(new Error('gone')) }).start();
    await new Promise((res) => setImmediate(res));
    const open = r2.messages()[0]!;
    assert.ok(open.k === 'open' && open.requestBody === null && open.requestBodyNote === 'unreadable');
  });

  it('splits a read larger than LIMITS.chunk and copies every piece, whatever the page does to its buffer', () => {
    const r = relay({ stagingBytes: 1024 * 1024 });
    const s = r.sink(req(), agui);
    s.start();
    const big = new Uint8Array(LIMITS.chunk * 2 + 5).map((_, i) => i % 251);
    const expected = big.slice();
    s.chunk(big);
    big.fill(0);
    const msgs = r.messages();
    const chunks = msgs.filter((m) => m.k === 'chunk');
    assert.deepEqual(chunks.map((m) => m.bytes.byteLength), [LIMITS.chunk, LIMITS.chunk, 5]);
    assert.deepEqual(chunkBytes(msgs), expected);
  });

  it('keeps queued chunks out of the staging buffer, so no batch takes them along before the verdict', () => {
    const r = relay();
    const s = r.sink(req(), NO_BODY);
    s.sniff();
    s.chunk(utf8('data: {"type":"RUN_STARTED"'));
    s.chunk(utf8(',"threadId":"t","runId":"r"}\n\n'));
    const msgs = r.messages();
    const [first, second] = msgs.filter((m) => m.k === 'chunk');
    assert.notEqual(first!.bytes.buffer, second!.bytes.buffer);
    assert.equal(first!.bytes.byteLength, first!.bytes.buffer.byteLength, 'a buffer of its own');
    assert.ok(r.batches.flatMap((b) => b.transfer).includes(first!.bytes.buffer as ArrayBuffer));
  });

  it('describes whatever the page threw, even what throws on being read', () => {
    const r = relay();
    const hostile = { get name(): string { throw new Error('no'); } };
    for (const [error, expected] of [[new RangeError('bad'), 'RangeError: bad'], ['text', 'text'], [hostile, 'unknown error']] as const) {
      const s = r.sink(req(), agui);
      s.start();
      s.end('error', error);
      const end = r.messages().at(-1)!;
      assert.ok(end.k === 'end');
      assert.equal(end.error, expected);
    }
  });
});
