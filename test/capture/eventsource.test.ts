/**
 * An EventSource the armed override answers (#36), over a fake native whose members check their receiver
 * as a browser's do: the page's object is of the EventSource prototype, no connection is made, and its
 * readyState, handlers, events, lastEventId and reconnection are the browser's reading of the answer.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { disguise } from '../../src/capture/page/disguise.ts';
import { wrapEventSource } from '../../src/capture/page/eventsource.ts';
import type { PageAnswer } from '../../src/messages.ts';
import { chunkBytes, kinds, relay, utf8, type Relay } from './fakes.ts';

const URL_ = 'http://127.0.0.1:8000/events';
const state = new WeakMap<object, { url: string; readyState: number; handler: unknown }>();
const own = (self: object) => {
  const s = state.get(self);
  if (!s) throw new TypeError('Illegal invocation');
  return s;
};
/** As the browser's: members on the prototype, each refusing an object the constructor did not make. */
class NativeEs extends EventTarget {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 2;
  static made: NativeEs[] = [];
  constructor(url: string) {
    super();
    state.set(this, { url, readyState: 0, handler: null });
    NativeEs.made.push(this);
  }
  get url(): string { return own(this).url; }
  get withCredentials(): boolean { return own(this).url === '' ; }
  get readyState(): number { return own(this).readyState; }
  get onmessage(): unknown { return own(this).handler; }
  set onmessage(v: unknown) { own(this).handler = v; }
  close(): void { own(this).readyState = 2; }
  /** The network answering: what the browser would dispatch. */
  emit(ev: Event, readyState: number): void {
    own(this).readyState = readyState;
    this.dispatchEvent(ev);
  }
}
class Target extends EventTarget {}

function page(r: Relay, answers: (PageAnswer | null)[]) {
  NativeEs.made = [];
  const asked: string[] = [];
  const scope = { EventSource: NativeEs as unknown as typeof EventSource };
  wrapEventSource(scope, { EventSource: scope.EventSource, EventTarget: Target, TextEncoder, TextDecoder, Event, MessageEvent, URL, setTimeout, clearTimeout }, {
    disguise: disguise(Error, class {}), sink: r.sink, now: () => performance.now(), resolveUrl: (u) => new URL(String(u), 'http://127.0.0.1:8000/app/').href,
    armed: () => ({ method: 'GET', url: `${URL_}*` }),
    ask: async (method, url, body) => (asked.push(`${method} ${url} ${String(body)}`), answers.shift() ?? null),
  });
  return { EventSource: scope.EventSource, asked };
}

const sseAnswer = (by: number, parts: [number, string][], status = 200, contentType = 'text/event-stream'): PageAnswer =>
  ({ by, status, contentType, headers: [], chunks: parts.map(([at, p]) => ({ at, bytes: utf8(p) })) });
const until = async (what: string, ok: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(ok(), what);
};

describe('an EventSource the override answers (#36)', () => {
  it('opens, dispatches each message and named event when its chunk is due, with its lastEventId and origin, and reads the end as a lost connection', async () => {
    const r = relay();
    const parts: [number, string][] = [[0, 'retry: 40\ndata: {"type":"RUN_STARTED"}\nid: 1\n\n'], [60, 'event: custom\ndata: x\n\ndata: {"type":"RUN_FINISHED"}\n\n']];
    const { EventSource, asked } = page(r, [sseAnswer(9, parts)]);
    const began = performance.now();
    const es = new EventSource('/events?t=1');
    assert.equal(NativeEs.made.length, 0, 'no connection');
    assert.ok(es instanceof EventSource && es instanceof NativeEs);
    assert.equal(Object.getPrototypeOf(es), NativeEs.prototype);
    assert.equal(es.url, `${URL_}?t=1`);
    assert.equal(es.readyState, 0);
    const seen: string[] = [];
    const at: number[] = [];
    es.onmessage = (ev) => (seen.push(`message ${ev.data as string} ${ev.lastEventId} ${ev.origin}`), at.push(performance.now() - began));
    es.addEventListener('open', () => seen.push(`open ${es.readyState}`));
    // The wrapped addEventListener is on the EventTarget given; call it as the page would.
    Reflect.apply(Target.prototype.addEventListener, es, ['custom', (ev: MessageEvent) => seen.push(`custom ${ev.data as string}`)]);
    es.addEventListener('error', () => seen.push(`error ${es.readyState}`));
    await until('the end of the answer', () => seen.includes('error 0'));
    assert.deepEqual(seen, [
      'open 1',
      'message {"type":"RUN_STARTED"} 1 http://127.0.0.1:8000',
      'custom x',
      'message {"type":"RUN_FINISHED"} 1 http://127.0.0.1:8000',
      'error 0',
    ]);
    assert.ok(at[1]! >= 55, `the second chunk waited until it was due (${at[1]} ms)`);
    assert.deepEqual(asked, [`GET ${URL_}?t=1 null`]);
    const msgs = r.messages();
    assert.deepEqual(kinds(msgs), ['open', 'response', 'chunk', 'chunk', 'end']);
    assert.ok(msgs[0]!.k === 'open' && msgs[0]!.by === 9 && msgs[0]!.api === 'eventsource');
    assert.ok(msgs[1]!.k === 'response' && !msgs[1]!.reconstructed && msgs[1]!.status === 200);
    assert.equal(new TextDecoder().decode(chunkBytes(msgs)), parts.map(([, p]) => p).join(''), 'the bytes as answered, not rebuilt');
    assert.ok(msgs[4]!.k === 'end' && msgs[4]!.outcome === 'complete');

    // The stream's retry (40 ms) later it asks again; the worker no longer answers: the network does, its events on the page's object.
    await until('the reconnection through the network', () => NativeEs.made.length === 1);
    assert.equal(asked.length, 2);
    const inner = NativeEs.made[0]!;
    assert.equal(inner.url, `${URL_}?t=1`);
    inner.emit(new Event('open'), 1);
    inner.emit(new MessageEvent('custom', { data: 'from the network', lastEventId: '2' }), 1);
    assert.deepEqual(seen.slice(5), ['open 1', 'custom from the network']);
    es.close();
    assert.equal(es.readyState, 2);
    assert.equal(inner.readyState, 2, 'closing the page\'s object closes the network\'s');
  });

  it('a status other than 200 fails the connection: CLOSED and one error, no open, no reconnection; the body is captured', async () => {
    const r = relay();
    const { EventSource, asked } = page(r, [sseAnswer(4, [[0, '{"error":"injected-fault"}']], 500, 'application/json')]);
    const es = new EventSource(URL_);
    const seen: string[] = [];
    es.addEventListener('open', () => seen.push('open'));
    es.addEventListener('error', () => seen.push(`error ${es.readyState}`));
    await until('the error', () => seen.length > 0);
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(seen, ['error 2']);
    assert.equal(asked.length, 1);
    const msgs = r.messages();
    assert.deepEqual(kinds(msgs), ['open', 'response', 'chunk', 'end']);
    assert.ok(msgs[1]!.k === 'response' && msgs[1]!.status === 500);
    assert.ok(msgs[3]!.k === 'end' && msgs[3]!.outcome === 'error');
  });

  it('closed by the page mid-answer: nothing more is dispatched, the capture ends cancelled; a URL the override does not name is the native\'s', async () => {
    const r = relay();
    const { EventSource } = page(r, [sseAnswer(5, [[0, 'data: 1\n\n'], [80, 'data: 2\n\n']])]);
    const es = new EventSource(URL_);
    const seen: string[] = [];
    es.onmessage = (ev) => seen.push(ev.data as string);
    await until('the first event', () => seen.length === 1);
    es.close();
    await new Promise((r) => setTimeout(r, 120));
    assert.deepEqual(seen, ['1']);
    assert.ok(r.messages().at(-1)!.k === 'end' && (r.messages().at(-1) as { outcome: string }).outcome === 'cancelled');
    const other = new EventSource('http://127.0.0.1:8000/other');
    assert.equal(NativeEs.made.length, 1, 'constructed natively');
    assert.equal(other.url, 'http://127.0.0.1:8000/other');
  });
});
