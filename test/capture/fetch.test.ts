/**
 * The fetch wrapper over a fake network (Node's own Request, Response and streams): the page gets what
 * the native gave, byte for byte and error for error, at the pace it reads; the relay gets the capture.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bodies } from '../../src/capture/page/body.ts';
import { disguise } from '../../src/capture/page/disguise.ts';
import { wrapFetch, type FetchDeps } from '../../src/capture/page/fetch.ts';
import { headerStore } from '../../src/capture/page/headers.ts';
import { urlResolver } from '../../src/capture/page/url.ts';
import { concatBytes } from '../../src/bytes.ts';
import type { PageAnswer } from '../../src/messages.ts';
import { AGUI_SSE, RUN_INPUT, chunkBytes, kinds, relay, sse, utf8, type Relay } from './fakes.ts';

interface Network {
  /** What the native was given, and the Request it made of it (reading the init as a browser does). */
  calls: { args: unknown[]; request: Request }[];
  answer: (request: Request) => Promise<Response>;
}

/** A page scope whose fetch answers with `net.answer`, wrapped. */
function page(net: Network, armed: Pick<FetchDeps, 'armed' | 'ask'> = { armed: () => null, ask: () => Promise.resolve(null) }): { fetch: typeof fetch; r: Relay } {
  const r = relay();
  const native = async function fetch(this: unknown, ...args: unknown[]): Promise<Response> {
    const request = new Request(args[0] instanceof Request ? args[0] : new URL(String(args[0]), 'http://127.0.0.1:8000/app/'), args[1] as RequestInit);
    net.calls.push({ args, request });
    return net.answer(request);
  };
  const scope = { fetch: native as typeof fetch };
  const kit = bodies({ Blob, ArrayBuffer, URLSearchParams, FormData, ReadableStream, ReadableStreamDefaultReader, Response, Headers, TextDecoder });
  wrapFetch(scope, { Request, Response, Headers, ReadableStream, ReadableStreamDefaultReader, Promise, AbortSignal, setTimeout, clearTimeout, addEventListener: EventTarget.prototype.addEventListener }, {
    disguise: disguise(Error, class {}), sink: r.sink, bodies: kit, now: () => r.clock++,
    resolveUrl: urlResolver(URL, { baseURI: 'http://127.0.0.1:8000/app/' }), kept: headerStore(), ...armed,
  });
  assert.notEqual(scope.fetch, native);
  return { fetch: scope.fetch, r };
}

/** A stream that gives `parts` one per pull, counting the pulls. */
function source(parts: Uint8Array[], opts: { fail?: unknown } = {}): { stream: ReadableStream<Uint8Array>; pulls: () => number; cancelled: unknown[] } {
  let pulls = 0;
  const cancelled: unknown[] = [];
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      pulls++;
      const next = parts.shift();
      if (next) c.enqueue(next);
      else if (opts.fail !== undefined) c.error(opts.fail);
      else c.close();
    },
    cancel(reason) {
      cancelled.push(reason);
    },
  }, { highWaterMark: 0 });
  return { stream, pulls: () => pulls, cancelled };
}

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'x-custom': 'kept' };
const post = { method: 'POST', headers: { 'content-type': 'application/json' }, body: RUN_INPUT };

async function readAll(res: Response): Promise<Uint8Array[]> {
  const reader = res.body!.getReader();
  const reads: Uint8Array[] = [];
  for (;;) {
    const r = await reader.read();
    if (r.done) return reads;
    reads.push(r.value);
  }
}

describe('fetch wrapper', () => {
  it('hands back a non-AG-UI response untouched, the same object', async () => {
    const original = new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } });
    const net: Network = { calls: [], answer: async () => original };
    const { fetch, r } = page(net);
    const res = await fetch('/api', { method: 'post' });
    assert.equal(res, original);
    assert.deepEqual(r.messages(), []);
    assert.equal(net.calls[0]!.args[0], '/api', 'the native gets the URL as given, converted to a string');
  });

  it('gives the page the same status, headers and bytes in the same chunks, and records them', async () => {
    const parts = [utf8(AGUI_SSE.slice(0, 7)), utf8(AGUI_SSE.slice(7, 40)), utf8(AGUI_SSE.slice(40))];
    const expected = parts.map((p) => p.slice());
    const net: Network = { calls: [], answer: async () => new Response(source(parts).stream, { status: 201, statusText: 'Made', headers: SSE_HEADERS }) };
    const { fetch, r } = page(net);
    const res = await fetch('agent', post);
    assert.equal(res.status, 201);
    assert.equal(res.statusText, 'Made');
    assert.equal(res.headers.get('x-custom'), 'kept');
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    const reads = await readAll(res);
    assert.deepEqual(reads, expected);
    const msgs = r.messages();
    assert.deepEqual(kinds(msgs), ['open', 'response', 'chunk', 'chunk', 'chunk', 'end']);
    const open = msgs[0]!;
    assert.ok(open.k === 'open');
    assert.deepEqual([open.method, open.url, open.requestBody, open.requestContentType], ['POST', 'http://127.0.0.1:8000/app/agent', RUN_INPUT, 'application/json']);
    assert.equal(new TextDecoder().decode(chunkBytes(msgs)), AGUI_SSE);
    assert.ok(msgs[5]!.k === 'end' && msgs[5]!.outcome === 'complete');
  });

  it('reads from the network only as the page reads (backpressure)', async () => {
    const src = source([utf8(AGUI_SSE.slice(0, 20)), utf8(AGUI_SSE.slice(20))]);
    const { fetch } = page({ calls: [], answer: async () => new Response(src.stream, { headers: SSE_HEADERS }) });
    const res = await fetch('/agent', post);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(src.pulls(), 0, 'nothing read before the page reads');
    const reader = res.body!.getReader();
    await reader.read();
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(src.pulls(), 1, 'one read, one pull');
  });

  it('a rejected fetch rejects the page\'s call with the same error, and ends the capture', async () => {
    const failure = new TypeError('Failed to fetch');
    const { fetch, r } = page({ calls: [], answer: async () => { throw failure; } });
    await assert.rejects(fetch('/agent', post), (e) => e === failure);
    const msgs = r.messages();
    assert.deepEqual(kinds(msgs), ['open', 'end']);
    assert.ok(msgs[1]!.k === 'end' && msgs[1]!.outcome === 'error' && msgs[1]!.error === 'TypeError: Failed to fetch');
    const abort = new DOMException('The operation was aborted.', 'AbortError');
    const aborted = page({ calls: [], answer: async () => { throw abort; } });
    await assert.rejects(aborted.fetch('/agent', post), (e) => e === abort);
    assert.ok(aborted.r.messages().some((m) => m.k === 'end' && m.outcome === 'aborted'));
  });

  it('a body that fails midway fails the page\'s read with the same error, after the same bytes', async () => {
    const failure = new TypeError('network error');
    const first = utf8(AGUI_SSE.slice(0, 30));
    const { fetch, r } = page({ calls: [], answer: async () => new Response(source([first.slice()], { fail: failure }).stream, { headers: SSE_HEADERS }) });
    const reader = (await fetch('/agent', post)).body!.getReader();
    assert.deepEqual((await reader.read()).value, first);
    await assert.rejects(reader.read(), (e) => e === failure);
    const end = r.messages().at(-1)!;
    assert.ok(end.k === 'end' && end.outcome === 'error');
  });

  it('the page cancelling its body cancels the network\'s with the same reason', async () => {
    const src = source([utf8(AGUI_SSE.slice(0, 30)), utf8(AGUI_SSE.slice(30))]);
    const { fetch, r } = page({ calls: [], answer: async () => new Response(src.stream, { headers: SSE_HEADERS }) });
    const reader = (await fetch('/agent', post)).body!.getReader();
    await reader.read();
    const reason = new Error('enough');
    await reader.cancel(reason);
    assert.deepEqual(src.cancelled, [reason]);
    const end = r.messages().at(-1)!;
    assert.ok(end.k === 'end' && end.outcome === 'cancelled' && end.error === 'Error: enough');
  });

  it('an SSE stream of another protocol passes through whole and is not recorded', async () => {
    const text = sse({ price: 1 }) + sse({ price: 2 });
    const { fetch, r } = page({ calls: [], answer: async () => new Response(source([utf8(text)]).stream, { headers: SSE_HEADERS }) });
    const res = await fetch('/ticker');
    assert.equal(new TextDecoder().decode((await readAll(res))[0]), text);
    assert.deepEqual(r.messages(), []);
  });

  it('a recorded response answers url, redirected and type as the original, also when cloned', async () => {
    const original = new Response(source([utf8(AGUI_SSE)]).stream, { headers: SSE_HEADERS });
    Object.defineProperty(original, 'url', { value: 'http://127.0.0.1/agent' });
    const { fetch } = page({ calls: [], answer: async () => original });
    const res = await fetch('/agent', post);
    assert.notEqual(res, original);
    assert.equal(res.url, 'http://127.0.0.1/agent');
    assert.equal(res.type, original.type);
    assert.equal(res.clone().url, 'http://127.0.0.1/agent');
  });

  it('reads the page\'s init members once each, as the native does, and records a Request\'s body from a copy', async () => {
    const reads: PropertyKey[] = [];
    const init = new Proxy({ method: 'post', headers: { 'content-type': 'application/json' }, body: RUN_INPUT }, {
      get(target, key, receiver) {
        reads.push(key);
        return Reflect.get(target, key, receiver);
      },
    });
    const net: Network = { calls: [], answer: async () => new Response(source([utf8(AGUI_SSE)]).stream, { headers: SSE_HEADERS }) };
    const { fetch, r } = page(net);
    await readAll(await fetch('/agent', init));
    assert.deepEqual(reads.filter((k, i) => reads.indexOf(k) !== i), [], 'no member read twice');
    assert.ok(['body', 'headers', 'method'].every((k) => reads.includes(k)));
    const sent = net.calls[0]!.request;
    assert.equal(sent.method, 'POST');
    assert.equal(await sent.text(), RUN_INPUT);
    assert.equal(sent.headers.get('content-type'), 'application/json');
    assert.equal(r.messages()[0]!.k, 'open');

    const request = new Request('http://127.0.0.1/agent', { method: 'POST', body: RUN_INPUT });
    const secondNet: Network = { calls: [], answer: async () => new Response(source([utf8(AGUI_SSE)]).stream, { headers: SSE_HEADERS }) };
    const second = page(secondNet);
    await readAll(await second.fetch(request));
    assert.equal(await secondNet.calls[0]!.request.text(), RUN_INPUT, 'the native still gets the whole body');
    const open = second.r.messages()[0]!;
    assert.ok(open.k === 'open' && open.requestBody === RUN_INPUT && open.url === 'http://127.0.0.1/agent');
  });

  it('a URL that cannot become a string rejects as the native would, without calling it', async () => {
    const net: Network = { calls: [], answer: async () => new Response('') };
    const { fetch } = page(net);
    const bad = { toString(): string { throw new RangeError('nope'); } };
    await assert.rejects(fetch(bad as unknown as string), RangeError);
    assert.equal(net.calls.length, 0);
  });
});

describe('an armed override answers in the agent\'s place (#36)', () => {
  const URL_ = 'http://127.0.0.1:8000/app/agent';
  const answer = (by: number, parts: string[]): PageAnswer => ({ by, status: 200, contentType: 'text/event-stream', headers: [['x-agui', 'override']], chunks: parts.map((p, i) => ({ at: i * 30, bytes: utf8(p) })) });

  it('a request of the armed method to the armed URL never reaches the network: the page reads the answer\'s chunks, when due, captured with the worker\'s ref', async () => {
    const asked: { method: string; url: string; body: string | null }[] = [];
    const net: Network = { calls: [], answer: async () => { throw new Error('the network was asked'); } };
    const parts = [AGUI_SSE.slice(0, 30), AGUI_SSE.slice(30)];
    const { fetch, r } = page(net, { armed: () => ({ method: 'POST', url: URL_ }), ask: async (method, url, body) => (asked.push({ method, url, body }), answer(7, parts)) });
    const began = performance.now();
    const res = await fetch('agent', post);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    assert.equal(res.headers.get('x-agui'), 'override');
    assert.equal(res.url, URL_, 'the URL asked for, as a network answer would say');
    assert.equal(new TextDecoder().decode(concatBytes(await readAll(res))), AGUI_SSE);
    assert.ok(performance.now() - began >= 25, 'the second chunk waited until it was due');
    assert.equal(net.calls.length, 0);
    assert.deepEqual(asked, [{ method: 'POST', url: URL_, body: RUN_INPUT }]);
    const msgs = r.messages();
    assert.deepEqual(kinds(msgs), ['open', 'response', 'chunk', 'chunk', 'end']);
    assert.ok(msgs[0]!.k === 'open' && msgs[0]!.by === 7 && msgs[0]!.requestBody === RUN_INPUT && msgs[0]!.url === URL_);
    assert.equal(new TextDecoder().decode(chunkBytes(msgs)), AGUI_SSE);
  });

  it('another method, another URL, or no answer from the worker: the network answers, captured as the page\'s own', async () => {
    const net: Network = { calls: [], answer: async () => new Response(AGUI_SSE, { headers: SSE_HEADERS }) };
    const { fetch, r } = page(net, { armed: () => ({ method: 'PUT', url: URL_ }), ask: async () => null });
    await readAll(await fetch('agent', post));
    await readAll(await fetch('other', { ...post, method: 'PUT' }));
    assert.equal(net.calls.length, 2);
    const { fetch: fetch2 } = page(net, { armed: () => ({ method: 'POST', url: URL_ }), ask: async () => null });
    await readAll(await fetch2('agent', post));
    assert.equal(net.calls.length, 3, 'the worker answered null: the network answered');
    assert.equal(net.calls[2]!.request.method, 'POST');
    assert.equal(await net.calls[2]!.request.text(), RUN_INPUT, 'with the page\'s body');
    assert.ok(r.messages().every((m) => m.k !== 'open' || m.by === undefined));
  });

  it('a pattern answers every URL it names, and only those (exchange/match.ts)', async () => {
    const net: Network = { calls: [], answer: async () => new Response(AGUI_SSE, { headers: SSE_HEADERS }) };
    const asked: string[] = [];
    const { fetch } = page(net, { armed: () => ({ method: 'POST', url: 'http://127.0.0.1:8000/app/agent*' }), ask: async (_, url) => (asked.push(url), answer(5, [AGUI_SSE])) });
    for (const u of ['agent', 'agent/chat?x=1', 'http://127.0.0.1:8000/other']) await readAll(await fetch(u, post));
    assert.deepEqual(asked, ['http://127.0.0.1:8000/app/agent', 'http://127.0.0.1:8000/app/agent/chat?x=1']);
    assert.equal(net.calls.length, 1, 'the URL it does not name reached the network');
  });

  it('the page\'s abort errors the answer\'s body, as it would a network body', async () => {
    const { fetch, r } = page({ calls: [], answer: async () => { throw new Error('the network was asked'); } }, {
      armed: () => ({ method: 'POST', url: URL_ }), ask: async () => answer(3, [AGUI_SSE.slice(0, 30), AGUI_SSE.slice(30)]),
    });
    const controller = new AbortController();
    const res = await fetch('agent', { ...post, signal: controller.signal });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    await assert.rejects(reader.read(), { name: 'AbortError' });
    const end = r.messages().at(-1)!;
    assert.ok(end.k === 'end' && end.outcome === 'aborted');
  });
});
