/**
 * The EventSource wrapper. Its bodies are rebuilt from the delivered events (flagged
 * `reconstructed`): the bytes on the wire are not observable.
 */
import { SSE_MEDIA_TYPE } from '../../exchange/index.ts';
import type { Disguise } from './disguise.ts';
import { NO_BODY, type Sink, type SinkFactory } from './sink.ts';

export interface EventSourceNatives {
  EventSource: typeof EventSource;
  EventTarget: typeof EventTarget;
  TextEncoder: typeof TextEncoder;
}

export interface EventSourceDeps {
  disguise: Pick<Disguise, 'wrap'>;
  sink: SinkFactory;
  now(): number;
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
      return apply(target, self, args);
    },
  });
  Object.defineProperty(NativeEventSource.prototype, 'constructor', {
    ...Object.getOwnPropertyDescriptor(NativeEventSource.prototype, 'constructor'),
    value: WrappedEventSource,
  });
  scope.EventSource = WrappedEventSource;
}
