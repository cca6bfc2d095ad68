/**
 * The EventSource wrapper. Its bodies are rebuilt from the delivered events (flagged
 * `reconstructed`): the bytes on the wire are not observable.
 *
 * While the panel has an override armed for the tab, an EventSource of a URL it matches (a GET,
 * exchange/match.ts) is answered from the recording (issue #36) without a connection: the page gets an
 * object of the EventSource prototype (an EventTarget underneath, so a native one could not be told from
 * the network's) whose url, withCredentials, readyState, on* handlers and close() answer as the native's
 * would, and whose open, message and named events, lastEventId and reconnection are the browser's reading of
 * the answer's bytes (event-stream.ts), each dispatched when its chunk falls due. Like an answered XHR's,
 * those events are dispatched by the page script, so their `isTrusted` is false. A status other than 200
 * or a type other than text/event-stream fails the connection (CLOSED, one error), as the native does; the
 * answer's end is a lost connection (CONNECTING, one error, then the reconnection time, then a new
 * request, which the override answers again or the network does through a native EventSource whose events
 * are dispatched on the page's object). The bytes are captured as they are, not rebuilt.
 */
import { LIMITS, mediaType, type OverrideMatch, type PageAnswer } from '../../messages.ts';
import { SSE_MEDIA_TYPE, requestMatches } from '../../exchange/index.ts';
import { answeredMembers } from './answered-members.ts';
import type { Disguise } from './disguise.ts';
import { eventStream } from './event-stream.ts';
import { NO_BODY, type Sink, type SinkFactory } from './sink.ts';

export interface EventSourceNatives {
  EventSource: typeof EventSource;
  EventTarget: typeof EventTarget;
  TextEncoder: typeof TextEncoder;
  TextDecoder: typeof TextDecoder;
  Event: typeof Event;
  MessageEvent: typeof MessageEvent;
  URL: typeof URL;
  setTimeout: typeof setTimeout;
  clearTimeout: typeof clearTimeout;
}

export interface EventSourceDeps {
  disguise: Pick<Disguise, 'wrap'>;
  sink: SinkFactory;
  now(): number;
  resolveUrl(url: unknown): string;
  /** What the tab's armed override answers, if one is armed. */
  armed(): OverrideMatch | null;
  /** The worker's answer to a matching request; null when the network is to answer it after all. */
  ask(method: string, url: string, body: string | null): Promise<PageAnswer | null>;
}

/**
 * The wait before reconnecting when the stream named none: what Chromium waits (Firefox waits 5 s; the
 * spec leaves it to the browser, HTML §9.2.2).
 */
export const RECONNECT_MS = 3000;

/** An EventSource the override answers: what its members say instead of a native's. */
interface Answered {
  url: string;
  withCredentials: boolean;
  readyState: number;
  /** The on* handlers by event type, each with the listener that calls it. */
  handlers: Map<string, { fn: unknown; listener: (ev: Event) => void }>;
  reconnectMs: number;
  lastEventId: string;
  timer: ReturnType<typeof setTimeout> | undefined;
  sink: Sink | null;
  /** The native EventSource the network answers through once the override does not; its events are dispatched on the page's object. */
  inner: EventSource | null;
  /** The event types the page listens for, dispatched from the inner's. */
  types: Set<string>;
  forwarded: Set<string>;
}

interface EsState {
  sink: Sink;
  types: Set<string>;
  lastId: string;
}

/**
 * Replaces `scope.EventSource` and wraps its close() and EventTarget.prototype.addEventListener,
 * which therefore must be the last wrapper installed that captures that method.
 */
export function wrapEventSource(scope: { EventSource: typeof EventSource }, n: EventSourceNatives, deps: EventSourceDeps): void {
  const { apply, construct } = Reflect;
  const { wrap } = deps.disguise;
  const { now } = deps;
  const NativeEventSource = n.EventSource;
  const addListener = n.EventTarget.prototype.addEventListener;
  const encoder = new n.TextEncoder();
  const sources = new WeakMap<EventSource, EsState>();
  const answering = new WeakMap<EventSource, Answered>();
  const { CONNECTING, OPEN, CLOSED } = NativeEventSource;
  const dispatch = n.EventTarget.prototype.dispatchEvent;
  const unlisten = n.EventTarget.prototype.removeEventListener;
  const readyStateOf = Object.getOwnPropertyDescriptor(NativeEventSource.prototype, 'readyState')?.get;
  const closeInner = NativeEventSource.prototype.close;
  const { setTimeout: later, clearTimeout: unlater } = n;
  let bypass = false;

  function frame(state: EsState, ev: MessageEvent): void {
    if (!state.sink.active) return;
    let text = ev.type === 'message' ? '' : `event: ${ev.type}\n`;
    if (ev.lastEventId !== state.lastId) {
      text += `id: ${ev.lastEventId}\n`;
      state.lastId = ev.lastEventId;
    }
    for (const line of String(ev.data).split('\n')) text += `data: ${line}\n`;
    state.sink.chunk(encoder.encode(`${text}\n`));
  }

  function listenFor(es: EventSource, state: EsState, type: string): void {
    if (state.types.has(type)) return;
    state.types.add(type);
    apply(addListener, es, [type, (ev: MessageEvent) => frame(state, ev)]);
  }

  const WrappedEventSource = wrap(NativeEventSource, {
    construct(target, args: unknown[], newTarget) {
      const armed = bypass ? null : deps.armed();
      bypass = false;
      if (armed && args.length > 0) {
        // Converted once, as the native would; the native gets the string.
        args[0] = `${args[0] as string}`;
        const init = args[1];
        const url = deps.resolveUrl(args[0]);
        if ((init === undefined || init === null || typeof init === 'object') && requestMatches(armed, 'GET', url)) {
          const withCredentials = init ? Boolean((init as EventSourceInit).withCredentials) : false;
          const es = construct(n.EventTarget, [], newTarget === WrappedEventSource ? target : newTarget) as EventSource;
          const a: Answered = {
            url, withCredentials, readyState: CONNECTING, handlers: new Map(), reconnectMs: RECONNECT_MS, lastEventId: '', timer: undefined,
            sink: null, inner: null, types: new Set(), forwarded: new Set(),
          };
          answering.set(es, a);
          connect(es, a);
          return es;
        }
      }
      const es = construct(target, args, newTarget === WrappedEventSource ? target : newTarget) as EventSource;
      try {
        const sink = deps.sink({ api: 'eventsource', t: now(), method: 'GET', url: es.url, contentType: () => null }, NO_BODY);
        sink.sniff();
        const state: EsState = { sink, types: new Set(), lastId: '' };
        sources.set(es, state);
        apply(addListener, es, ['open', () => sink.response({
          status: 200, statusText: '', contentType: SSE_MEDIA_TYPE, url: es.url, redirected: false, reconstructed: true,
        })]);
        listenFor(es, state, 'message');
        apply(addListener, es, ['error', () => {
          if (es.readyState === NativeEventSource.CLOSED) sink.end('error', 'connection closed');
        }]);
      } catch {
        // Capture must never stand between the page and its stream.
      }
      return es;
    },
  });
  NativeEventSource.prototype.close = wrap(NativeEventSource.prototype.close, {
    apply(target, self, args) {
      const a = answering.get(self as EventSource);
      if (a) return void closeAnswered(a);
      sources.get(self as EventSource)?.sink.end('cancelled', undefined);
      return apply(target, self, args);
    },
  });
  // Named events are observable only once someone listens for them; record each such type
  // with a listener registered just before the page's, so delivery order is unchanged.
  n.EventTarget.prototype.addEventListener = wrap(n.EventTarget.prototype.addEventListener, {
    apply(target, self, args: unknown[]) {
      const state = sources.get(self as EventSource);
      if (state && typeof args[0] === 'string') listenFor(self as EventSource, state, args[0]);
      const a = answering.get(self as EventSource);
      if (a && typeof args[0] === 'string') {
        a.types.add(args[0]);
        forward(self as EventSource, a);
      }
      return apply(target, self, args);
    },
  });
  Object.defineProperty(NativeEventSource.prototype, 'constructor', {
    ...Object.getOwnPropertyDescriptor(NativeEventSource.prototype, 'constructor'),
    value: WrappedEventSource,
  });
  scope.EventSource = WrappedEventSource;
  const listen = n.EventTarget.prototype.addEventListener;

  // ── answered from a recording ─────────────────────────────────────────────
  /** Makes the next construction a native one, for the network to answer. */
  function native(a: Answered): EventSource {
    bypass = true;
    try {
      return construct(WrappedEventSource, [a.url, { withCredentials: a.withCredentials }]) as EventSource;
    } finally {
      bypass = false;
    }
  }

  function fire(es: EventSource, a: Answered, ev: Event): void {
    if (a.readyState !== CLOSED || ev.type === 'error') apply(dispatch, es, [ev]);
  }

  function connect(es: EventSource, a: Answered): void {
    const t = now();
    deps.ask('GET', a.url, null).then((got) => {
      if (a.readyState === CLOSED) return;
      if (got) play(es, a, got, t);
      else toNetwork(es, a);
    }, () => a.readyState !== CLOSED && toNetwork(es, a));
  }

  function toNetwork(es: EventSource, a: Answered): void {
    a.inner = native(a);
    forward(es, a);
  }

  /** The inner native's events of every type the page listens for, dispatched on the page's object. */
  function forward(es: EventSource, a: Answered): void {
    const inner = a.inner;
    if (!inner) return;
    for (const type of ['open', 'message', 'error', ...a.types]) {
      if (a.forwarded.has(type)) continue;
      a.forwarded.add(type);
      apply(listen, inner, [type, (ev: Event) => {
        a.readyState = readyStateOf ? (apply(readyStateOf, inner, []) as number) : inner.readyState;
        const m = ev as MessageEvent;
        fire(es, a, type === 'open' || type === 'error' ? new n.Event(type) : new n.MessageEvent(type, { data: m.data, lastEventId: m.lastEventId, origin: m.origin }));
      }]);
    }
  }

  function play(es: EventSource, a: Answered, got: PageAnswer, t: number): void {
    const sink = deps.sink({ api: 'eventsource', t, method: 'GET', url: a.url, by: got.by, contentType: () => null }, NO_BODY);
    a.sink = sink;
    sink.start();
    sink.response({ status: got.status, statusText: '', contentType: got.contentType.slice(0, LIMITS.text), url: a.url, redirected: false, reconstructed: false });
    if (got.status !== 200 || mediaType(got.contentType) !== SSE_MEDIA_TYPE) {
      // The native fails the connection on the response's head and never reads its body; the capture keeps it.
      for (const c of got.chunks) sink.chunk(c.bytes);
      sink.end('error', `the EventSource failed the connection: HTTP ${got.status} ${got.contentType}`);
      a.readyState = CLOSED;
      fire(es, a, new n.Event('error'));
      return;
    }
    a.readyState = OPEN;
    fire(es, a, new n.Event('open'));
    const stream = eventStream(new n.TextDecoder());
    const origin = new n.URL(a.url).origin;
    const start = now();
    const step = (i: number): void => {
      if (a.sink !== sink || a.readyState === CLOSED) return;
      const c = got.chunks[i];
      if (!c) {
        sink.end('complete', undefined);
        return lost(es, a);
      }
      a.timer = later(() => {
        if (a.sink !== sink || a.readyState === CLOSED) return;
        sink.chunk(c.bytes);
        const { events, retry } = stream.push(c.bytes);
        if (retry !== null) a.reconnectMs = retry;
        a.lastEventId = stream.lastEventId;
        for (const e of events) fire(es, a, new n.MessageEvent(e.type, { data: e.data, lastEventId: e.lastEventId, origin }));
        step(i + 1);
      }, c.at - (now() - start));
    };
    step(0);
  }

  /** The stream ended: the native reconnects after the reconnection time, and the override answers that request too, or the network. */
  function lost(es: EventSource, a: Answered): void {
    a.readyState = CONNECTING;
    a.sink = null;
    fire(es, a, new n.Event('error'));
    a.timer = later(() => {
      if (a.readyState === CONNECTING) connect(es, a);
    }, a.reconnectMs);
  }

  function closeAnswered(a: Answered): void {
    a.readyState = CLOSED;
    unlater(a.timer);
    if (a.sink?.active) a.sink.end('cancelled', undefined);
    a.sink = null;
    if (a.inner) apply(closeInner, a.inner, []);
  }

  const answers = answeredMembers<EventSource, Answered>(wrap, NativeEventSource.prototype, (self) => answering.get(self));
  answers('url', (a) => a.url);
  answers('withCredentials', (a) => a.withCredentials);
  answers('readyState', (a) => a.readyState);
  for (const type of ['open', 'message', 'error']) {
    answers(`on${type}`, (a) => a.handlers.get(type)?.fn ?? null, 'get');
    // An event handler attribute: its listener is added where it is first set, and calls whatever handler is set when it runs.
    answers(`on${type}`, (a, es, [v]) => {
      const fn = typeof v === 'function' || (typeof v === 'object' && v !== null) ? v : null;
      const h = a.handlers.get(type);
      if (fn === null) {
        if (h) apply(unlisten, es, [type, h.listener]);
        a.handlers.delete(type);
      } else if (h) h.fn = fn;
      else {
        const entry = { fn, listener: (ev: Event) => void (typeof entry.fn === 'function' && apply(entry.fn, es, [ev])) };
        a.handlers.set(type, entry);
        apply(addListener, es, [type, entry.listener]);
      }
    }, 'set');
  }
}
