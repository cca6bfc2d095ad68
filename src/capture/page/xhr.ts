/**
 * The XMLHttpRequest wrappers. Text bodies are recorded re-encoded from `responseText` as it grows;
 * arraybuffer and blob bodies once loaded.
 */
import { LIMITS, mediaType } from '../../messages.ts';
import { PROTO_MEDIA_TYPE, SSE_MEDIA_TYPE } from '../../exchange/index.ts';
import type { Bodies } from './body.ts';
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
}

export interface XhrDeps {
  disguise: Pick<Disguise, 'wrap'>;
  sink: SinkFactory;
  bodies: Bodies;
  now(): number;
  resolveUrl(url: unknown): string;
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

  function watch(xhr: XMLHttpRequest, state: XhrState, bodyOrPromise: Body | Promise<Body>, bodyValue: unknown): void {
    const req: RequestInfo = {
      api: 'xhr', t: now(), method: state.method, url: state.url,
      contentType: () => state.contentType ?? bodies.contentType(null, bodyValue),
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
