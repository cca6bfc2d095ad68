/**
 * The XMLHttpRequest wrappers. Text bodies are recorded re-encoded from `responseText` as it grows;
 * arraybuffer and blob bodies once loaded.
 *
 * While the panel has an override armed for the tab, a matching request (exchange/match.ts) is answered from the recording
 * (issue #36) without being sent: the response getters of that one request say what the answer says, and
 * its events are dispatched as its chunks fall due. It is captured like any other, through the same watch.
 */
import { LIMITS, mediaType, type OverrideMatch, type PageAnswer } from '../../messages.ts';
import { PROTO_MEDIA_TYPE, SSE_MEDIA_TYPE, requestMatches, withoutUserInfo } from '../../exchange/index.ts';
import type { Bodies } from './body.ts';
import { answeredMembers } from './answered-members.ts';
import type { Disguise } from './disguise.ts';
import type { Body, RequestInfo, Sink, SinkFactory } from './sink.ts';

export interface XhrNatives {
  XMLHttpRequest: typeof XMLHttpRequest;
  /** The native EventTarget.prototype.addEventListener, from before any wrapper. */
  addEventListener: EventTarget['addEventListener'];
  ArrayBuffer: ArrayBufferConstructor;
  Blob: typeof Blob;
  TextEncoder: typeof TextEncoder;
  Promise: PromiseConstructor;
  TextDecoder: typeof TextDecoder;
  Event: typeof Event;
  ProgressEvent: typeof ProgressEvent;
  setTimeout: typeof setTimeout;
  clearTimeout: typeof clearTimeout;
}

export interface XhrDeps {
  disguise: Pick<Disguise, 'wrap'>;
  sink: SinkFactory;
  bodies: Bodies;
  now(): number;
  resolveUrl(url: unknown): string;
  /** What the tab's armed override answers, if one is armed. */
  armed(): OverrideMatch | null;
  /** The worker's answer to a matching request; null when the network is to answer it after all. */
  ask(method: string, url: string, body: string | null): Promise<PageAnswer | null>;
}

/** A request the armed override answers: what its response getters say instead of the native's. */
interface Answered {
  readyState: number;
  status: number;
  statusText: string;
  url: string;
  contentType: string;
  headers: [string, string][];
  text: string;
  bytes: Uint8Array[];
  timer: ReturnType<typeof setTimeout> | undefined;
}

interface XhrState {
  method: string;
  url: string;
  contentType: string | null;
}

const NOT_BYTES = /[^\x00-\xff]/;
/**
 * open() and setRequestHeader() take a ByteString and a string: both are converted here, once, as
 * the native would, and it gets the strings. A first one that is no ByteString the native rejects
 * before converting the second, so that one is left alone.
 */
function stringArgs(args: unknown[]): unknown[] {
  if (args.length < 2) return args;
  const first = `${args[0] as string}`;
  return NOT_BYTES.test(first) ? [first, ...args.slice(1)] : [first, `${args[1] as string}`, ...args.slice(2)];
}

/** Wraps open, setRequestHeader and send on `n.XMLHttpRequest.prototype`. */
export function wrapXhr(n: XhrNatives, deps: XhrDeps): void {
  const { apply } = Reflect;
  const { wrap } = deps.disguise;
  const { now, bodies, resolveUrl } = deps;
  const { XMLHttpRequest: NativeXhr, addEventListener: addListener, ArrayBuffer, Blob, Promise } = n;
  const blobArrayBuffer = n.Blob.prototype.arrayBuffer;
  const encoder = new n.TextEncoder();
  const xhrs = new WeakMap<XMLHttpRequest, XhrState>();
  const XHR = NativeXhr.prototype;

  XHR.open = wrap(XHR.open, {
    apply(target, self, args: unknown[]) {
      const strings = stringArgs(args);
      const result = apply(target, self, strings);
      xhrs.set(self as XMLHttpRequest, { method: String(strings[0]).toUpperCase().slice(0, 32), url: resolveUrl(strings[1]), contentType: null });
      return result;
    },
  });
  XHR.setRequestHeader = wrap(XHR.setRequestHeader, {
    apply(target, self, args: unknown[]) {
      const strings = stringArgs(args);
      const result = apply(target, self, strings);
      const state = xhrs.get(self as XMLHttpRequest);
      if (state && String(strings[0]).toLowerCase() === 'content-type') {
        state.contentType = state.contentType === null ? String(strings[1]) : `${state.contentType}, ${String(strings[1])}`;
      }
      return result;
    },
  });
  XHR.send = wrap(XHR.send, {
    apply(target, self, args: unknown[]) {
      const xhr = self as XMLHttpRequest;
      const state = xhrs.get(xhr);
      if (args.length > 0) args[0] = bodies.argument(args[0], true);
      const armed = state && !answering.has(xhr) ? deps.armed() : null;
      if (state && armed && requestMatches(armed, state.method, state.url)) return override(xhr, state, target, args);
      if (state) {
        try {
          watch(xhr, state, bodies.inspect(args[0]), args[0]);
        } catch {
          // Capture must never stand between the page and its request.
        }
      }
      return apply(target, self, args);
    },
  });

  // ── answered from a recording ─────────────────────────────────────────────
  const answering = new WeakMap<XMLHttpRequest, Answered | null>();
  const dispatch = n.XMLHttpRequest.prototype.dispatchEvent;
  const decoderDecode = n.TextDecoder.prototype.decode;
  const { setTimeout: later, clearTimeout: unlater } = n;
  const DONE = 4;

  const answers = answeredMembers<XMLHttpRequest, Answered>(wrap, XHR, (self, key) => {
    const a = answering.get(self);
    // Aborted while the worker is asked: it is answered by neither.
    if (a === null && key === 'abort') answering.delete(self);
    return a;
  });
  answers('readyState', (a) => a.readyState);
  answers('status', (a) => (a.readyState >= NativeXhr.HEADERS_RECEIVED ? a.status : 0));
  answers('statusText', (a) => (a.readyState >= NativeXhr.HEADERS_RECEIVED ? a.statusText : ''));
  answers('responseURL', (a) => (a.readyState >= NativeXhr.HEADERS_RECEIVED ? a.url : ''));
  answers('responseText', (a) => a.text);
  answers('response', (a, xhr) => {
    const type = xhr.responseType;
    if (type === '' || type === 'text') return a.text;
    if (a.readyState !== DONE) return null;
    if (type === 'json') {
      try {
        return JSON.parse(a.text) as unknown;
      } catch {
        return null;
      }
    }
    if (type === 'blob') return new Blob(a.bytes as BlobPart[], { type: a.contentType });
    if (type !== 'arraybuffer') return null;
    const all = new Uint8Array(a.bytes.reduce((n, b) => n + b.byteLength, 0));
    a.bytes.reduce((at, b) => (all.set(b, at), at + b.byteLength), 0);
    return all.buffer;
  });
  const headersOf = (a: Answered): [string, string][] => (a.readyState >= NativeXhr.HEADERS_RECEIVED ? a.headers : []);
  answers('getResponseHeader', (a, _, args) => {
    const name = `${args[0] as string}`.toLowerCase();
    const found = headersOf(a).filter(([n]) => n.toLowerCase() === name);
    return found.length === 0 ? null : found.map(([, v]) => v).join(', ');
  });
  answers('getAllResponseHeaders', (a) => headersOf(a).map(([n, v]) => `${n.toLowerCase()}: ${v}\r\n`).join(''));
  answers('abort', (a, xhr) => {
    unlater(a.timer);
    const sent = a.readyState !== DONE;
    a.readyState = DONE;
    if (sent) {
      fire(xhr, 'readystatechange');
      fire(xhr, 'abort');
      fire(xhr, 'loadend');
    }
    a.readyState = 0;
  });

  function fire(xhr: XMLHttpRequest, type: string, loaded = 0): void {
    apply(dispatch, xhr, [type === 'readystatechange' ? new n.Event(type) : new n.ProgressEvent(type, { loaded, total: 0, lengthComputable: false })]);
  }

  function override(xhr: XMLHttpRequest, state: XhrState, send: XMLHttpRequest['send'], args: unknown[]): void {
    answering.set(xhr, null);
    let bodyOrPromise: Body | Promise<Body>;
    try {
      bodyOrPromise = bodies.inspect(args[0]);
    } catch {
      bodyOrPromise = { agui: false, text: null, note: 'unreadable' };
    }
    void Promise.resolve(bodyOrPromise)
      .then(async (b) => {
        const text = b.text ?? (b.later ? await b.later() : null);
        const got = await deps.ask(state.method, withoutUserInfo(state.url), text);
        if (answering.get(xhr) !== null) return;
        if (!got) {
          answering.delete(xhr);
          watch(xhr, state, b, args[0]);
          apply(send, xhr, args);
          return;
        }
        play(xhr, state, got, { ...b, agui: true, text, note: text !== null && text.length > LIMITS.requestBody ? 'too-large' : b.note }, args[0]);
      })
      .catch(() => answering.delete(xhr));
  }

  function play(xhr: XMLHttpRequest, state: XhrState, got: PageAnswer, b: Body, bodyValue: unknown): void {
    const a: Answered = { readyState: 1, status: got.status, statusText: '', url: state.url, contentType: got.contentType, headers: [['content-type', got.contentType], ...got.headers], text: '', bytes: [], timer: undefined };
    answering.set(xhr, a);
    watch(xhr, state, b, bodyValue, got.by);
    const decoder = new n.TextDecoder();
    const start = now();
    let loaded = 0;
    fire(xhr, 'loadstart');
    a.readyState = NativeXhr.HEADERS_RECEIVED;
    fire(xhr, 'readystatechange');
    const step = (i: number): void => {
      if (answering.get(xhr) !== a) return;
      const c = got.chunks[i];
      if (!c) {
        a.text += apply(decoderDecode, decoder, []) as string;
        a.readyState = DONE;
        fire(xhr, 'readystatechange');
        fire(xhr, 'load', loaded);
        fire(xhr, 'loadend', loaded);
        return;
      }
      a.timer = later(() => {
        a.bytes.push(c.bytes);
        loaded += c.bytes.byteLength;
        a.text += apply(decoderDecode, decoder, [c.bytes, { stream: true }]) as string;
        a.readyState = NativeXhr.LOADING;
        fire(xhr, 'readystatechange');
        fire(xhr, 'progress', loaded);
        step(i + 1);
      }, c.at - (now() - start));
    };
    step(0);
  }

  function watch(xhr: XMLHttpRequest, state: XhrState, bodyOrPromise: Body | Promise<Body>, bodyValue: unknown, by?: number): void {
    const req: RequestInfo = {
      api: 'xhr', t: now(), method: state.method, url: state.url,
      contentType: () => state.contentType ?? bodies.contentType(null, bodyValue),
      ...(by === undefined ? {} : { by }),
    };
    let sink: Sink | null = null;
    let headersSeen = false;
    let sent = 0;
    const on = (type: string, fn: () => void): void => apply(addListener, xhr, [type, fn]);
    const text = (): boolean => xhr.responseType === '' || xhr.responseType === 'text';
    const flushText = (): void => {
      if (!sink?.active || !text()) return;
      const all = xhr.responseText;
      if (all.length > sent) {
        sink.chunk(encoder.encode(all.slice(sent)));
        sent = all.length;
      }
    };
    const begin = (b: Body): void => {
      sink = deps.sink(req, b);
      if (b.agui) sink.start();
    };
    if (bodyOrPromise instanceof Promise) void bodyOrPromise.then(begin);
    else begin(bodyOrPromise);
    on('readystatechange', () => {
      if (!sink) return;
      if (xhr.readyState >= NativeXhr.HEADERS_RECEIVED && !headersSeen) {
        headersSeen = true;
        const contentType = xhr.getResponseHeader('content-type');
        const type = mediaType(contentType);
        if (type === PROTO_MEDIA_TYPE) sink.start();
        else if (type === SSE_MEDIA_TYPE) sink.sniff();
        else sink.discard();
        sink.response({
          status: xhr.status, statusText: xhr.statusText.slice(0, LIMITS.text), contentType: contentType?.slice(0, LIMITS.text) ?? null,
          url: (xhr.responseURL || state.url).slice(0, LIMITS.url), redirected: xhr.responseURL !== '' && xhr.responseURL !== state.url, reconstructed: false,
        });
      }
      if (xhr.readyState >= NativeXhr.LOADING) flushText();
    });
    on('progress', flushText);
    on('load', () => {
      const s = sink;
      if (!s?.active) return;
      if (text()) {
        flushText();
        s.end('complete', undefined);
      } else if (xhr.responseType === 'arraybuffer' && xhr.response instanceof ArrayBuffer) {
        s.chunk(new Uint8Array(xhr.response));
        s.end('complete', undefined);
      } else if (xhr.responseType === 'blob' && xhr.response instanceof Blob) {
        (apply(blobArrayBuffer, xhr.response, []) as Promise<ArrayBuffer>).then((b) => {
          s.chunk(new Uint8Array(b));
          s.end('complete', undefined);
        }, (e: unknown) => s.end('error', e));
      } else {
        s.end('error', `response body not observable with responseType "${xhr.responseType}"`);
      }
    });
    on('error', () => sink?.end('error', 'network error'));
    on('timeout', () => sink?.end('error', 'timeout'));
    on('abort', () => sink?.end('aborted', undefined));
  }
}
