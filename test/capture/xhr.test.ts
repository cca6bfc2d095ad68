/** The XMLHttpRequest and EventSource wrappers over fakes that fire events as the browser's do. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bodies } from '../../src/capture/page/body.ts';
import { disguise } from '../../src/capture/page/disguise.ts';
import { wrapEventSource } from '../../src/capture/page/eventsource.ts';
import { urlResolver } from '../../src/capture/page/url.ts';
import { wrapXhr } from '../../src/capture/page/xhr.ts';
import { AGUI_SSE, RUN_INPUT, chunkBytes, kinds, relay } from './fakes.ts';

/** What the page script needs of an XMLHttpRequest: a response written by the test, event by event. */
class FakeXhr extends EventTarget {
  static HEADERS_RECEIVED = 2;
  static LOADING = 3;
  static DONE = 4;
  calls: unknown[][] = [];
  readyState = 0;
  status = 0;
  statusText = '';
  responseType = '';
  responseText = '';
  responseURL = '';
  response: unknown = '';
  headers: Record<string, string> = {};
  open(...args: unknown[]): string { this.calls.push(['open', ...args]); this.readyState = 1; return 'opened'; }
  setRequestHeader(...args: unknown[]): void { this.calls.push(['setRequestHeader', ...args]); }
  send(...args: unknown[]): void { this.calls.push(['send', ...args]); }
  getResponseHeader(name: string): string | null { return this.headers[name.toLowerCase()] ?? null; }
  fire(type: string): void { this.dispatchEvent(new Event(type)); }
  /** Headers, then the text in `parts`, one progress event each, then load. */
  respond(headers: Record<string, string>, parts: string[]): void {
    Object.assign(this, { headers, status: 200, statusText: 'OK', responseURL: 'http://127.0.0.1/agent', readyState: 2 });
    this.fire('readystatechange');
    for (const p of parts) {
      this.readyState = 3;
      this.responseText += p;
      this.fire('readystatechange');
      this.fire('progress');
    }
    this.readyState = 4;
    this.fire('readystatechange');
    this.fire('load');
  }
}

function wrapped(): { Xhr: typeof FakeXhr; r: ReturnType<typeof relay> } {
  const r = relay();
  class Xhr extends FakeXhr {}
  // The wrappers patch the prototype they are given: a fresh subclass per test.
  Object.assign(Xhr.prototype, { open: FakeXhr.prototype.open, setRequestHeader: FakeXhr.prototype.setRequestHeader, send: FakeXhr.prototype.send });
  const kit = bodies({ Blob, ArrayBuffer, URLSearchParams, FormData, ReadableStream, ReadableStreamDefaultReader, Response, Headers, TextDecoder });
  wrapXhr(
    { XMLHttpRequest: Xhr as unknown as typeof XMLHttpRequest, addEventListener: EventTarget.prototype.addEventListener, ArrayBuffer, Blob, TextEncoder, Promise, TextDecoder, Event, ProgressEvent: Event as unknown as typeof ProgressEvent, setTimeout, clearTimeout },
    {
      disguise: disguise(Error, class {}), sink: r.sink, bodies: kit, now: () => r.clock++, resolveUrl: urlResolver(URL, { baseURI: 'http://127.0.0.1/' }),
      armed: () => null, ask: () => Promise.resolve(null),
    },
  );
  return { Xhr, r };
}

describe('XMLHttpRequest wrapper', () => {
  it('passes the page\'s calls to the native as strings, with their results, and records the exchange', () => {
    const { Xhr, r } = wrapped();
    const xhr = new Xhr();
    const heard: string[] = [];
    xhr.addEventListener('load', () => heard.push('load'));
    assert.equal(xhr.open('post', { toString: () => '/agent' }), 'opened');
    xhr.setRequestHeader('Content-Type', 'application/json');
    xhr.send(RUN_INPUT);
    assert.deepEqual(xhr.calls, [['open', 'post', '/agent'], ['setRequestHeader', 'Content-Type', 'application/json'], ['send', RUN_INPUT]]);
    xhr.respond({ 'content-type': 'text/event-stream' }, [AGUI_SSE.slice(0, 9), AGUI_SSE.slice(9)]);
    assert.deepEqual(heard, ['load'], 'the page\'s own listeners still hear');
    const msgs = r.messages();
    assert.deepEqual(kinds(msgs), ['open', 'response', 'chunk', 'chunk', 'end']);
    assert.ok(msgs[0]!.k === 'open' && msgs[0]!.method === 'POST' && msgs[0]!.url === 'http://127.0.0.1/agent' && msgs[0]!.requestContentType === 'application/json');
    assert.equal(new TextDecoder().decode(chunkBytes(msgs)), AGUI_SSE);
  });

  it('records nothing of an exchange that is not AG-UI', () => {
    const { Xhr, r } = wrapped();
    const xhr = new Xhr();
    xhr.open('GET', '/data');
    xhr.send();
    xhr.respond({ 'content-type': 'application/json' }, ['{"a":1}']);
    assert.deepEqual(r.messages(), []);
  });

  it('a throwing native throws at the page, the same error, and capture stays out of the way', () => {
    const { Xhr } = wrapped();
    const xhr = new Xhr();
    const failure = new DOMException('not opened', 'InvalidStateError');
    Xhr.prototype.send = function send(): void { throw failure; };
    assert.throws(() => xhr.send('x'), (e) => e === failure);
  });
});

class FakeEventSource extends EventTarget {
  static CLOSED = 2;
  readyState = 0;
  closed = 0;
  constructor(public url: string) {
    super();
  }
  close(): void {
    this.closed++;
    this.readyState = 2;
  }
  emit(type: string, data: string, lastEventId = ''): void {
    this.dispatchEvent(new MessageEvent(type, { data, lastEventId }));
  }
}

describe('EventSource wrapper', () => {
  it('is constructed like the native, delivers the same events, and records them rebuilt as SSE', () => {
    const r = relay();
    class Es extends FakeEventSource {}
    Object.assign(Es.prototype, { close: FakeEventSource.prototype.close });
    class Target extends EventTarget {}
    const scope = { EventSource: Es as unknown as typeof EventSource };
    wrapEventSource(scope, { EventSource: scope.EventSource, EventTarget: Target, TextEncoder, TextDecoder, Event, MessageEvent, URL, setTimeout, clearTimeout }, {
      disguise: disguise(Error, class {}), sink: r.sink, now: () => r.clock++, resolveUrl: String, armed: () => null, ask: () => Promise.resolve(null),
    });
    const Wrapped = scope.EventSource as unknown as typeof Es;
    assert.notEqual(Wrapped, Es);
    const es = new Wrapped('http://127.0.0.1/events');
    assert.ok(es instanceof Es);
    assert.equal(Es.prototype.constructor, Wrapped, 'the prototype names the wrapper as its constructor');
    const got: string[] = [];
    // The wrapped addEventListener is on the EventTarget given; call it as the page would.
    Reflect.apply(Target.prototype.addEventListener, es, ['message', (ev: MessageEvent) => got.push(ev.data as string)]);
    Reflect.apply(Target.prototype.addEventListener, es, ['custom', (ev: MessageEvent) => got.push(`custom:${ev.data as string}`)]);
    es.dispatchEvent(new Event('open'));
    es.emit('message', JSON.stringify({ type: 'RUN_STARTED', threadId: 't', runId: 'r' }), '1');
    es.emit('custom', 'a\nb', '1');
    es.close();
    assert.equal(es.closed, 1);
    assert.deepEqual(got, [JSON.stringify({ type: 'RUN_STARTED', threadId: 't', runId: 'r' }), 'custom:a\nb']);
    const msgs = r.messages();
    assert.deepEqual(kinds(msgs), ['open', 'response', 'chunk', 'chunk', 'end']);
    assert.ok(msgs[1]!.k === 'response' && msgs[1]!.reconstructed === true);
    assert.equal(
      new TextDecoder().decode(chunkBytes(msgs)),
      `id: 1\ndata: ${JSON.stringify({ type: 'RUN_STARTED', threadId: 't', runId: 'r' })}\n\nevent: custom\ndata: a\ndata: b\n\n`,
    );
    assert.ok(msgs[4]!.k === 'end' && msgs[4]!.outcome === 'cancelled');
  });
});
