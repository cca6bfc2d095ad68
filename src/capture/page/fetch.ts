/**
 * The fetch wrapper. Non-AG-UI traffic is handed back untouched (the original Response object); only
 * SSE responses get a pass-through body until their first event shows whether they are AG-UI.
 * Recorded responses are a new Response around the tapped body, whose `headers` are no longer
 * immutable; `url`, `redirected` and `type` answer as the original's.
 *
 * While the panel has an override armed for the tab, a request of its method to its URL (exchange/match.ts) is answered
 * from the recording instead (issue #36): the worker computes the answer for this request's body, and the
 * wrapper returns a Response whose body enqueues its chunks when due, never touching the network. It is
 * captured like any other, opened with the worker's `by` so the worker marks it answered.
 */
import { LIMITS, mediaType, type OverrideMatch, type PageAnswer } from '../../messages.ts';
import { PROTO_MEDIA_TYPE, SSE_MEDIA_TYPE, requestMatches, urlMatches, withoutUserInfo } from '../../exchange/index.ts';
import type { Bodies } from './body.ts';
import type { Disguise } from './disguise.ts';
import type { HeaderStore } from './headers.ts';
import { NO_BODY, isAbort, type Body, type RequestInfo, type Sink, type SinkFactory } from './sink.ts';

export interface FetchNatives {
  Request: typeof Request;
  Response: typeof Response;
  Headers: typeof Headers;
  ReadableStream: typeof ReadableStream;
  ReadableStreamDefaultReader: typeof ReadableStreamDefaultReader;
  Promise: PromiseConstructor;
  AbortSignal: typeof AbortSignal;
  setTimeout: typeof setTimeout;
  clearTimeout: typeof clearTimeout;
  addEventListener: typeof EventTarget.prototype.addEventListener;
}

export interface FetchDeps {
  disguise: Pick<Disguise, 'wrap' | 'clean'>;
  sink: SinkFactory;
  bodies: Bodies;
  now(): number;
  resolveUrl(url: unknown): string;
  /** Where the headers of recorded requests are kept, in the page only, for a resend. */
  kept: HeaderStore;
  /** What the tab's armed override answers, if one is armed. */
  armed(): OverrideMatch | null;
  /** The worker's answer to a matching request; null when the network is to answer it after all. */
  ask(method: string, url: string, body: string | null): Promise<PageAnswer | null>;
}

/** What the page script sends for the Inspector goes through the wrapper, and so is captured like the page's own. */
export interface InspectorFetch {
  send(by: number, url: string, init: RequestInit): Promise<Response>;
}

/** What the native read from the page's fetch arguments (see readInit). */
interface FetchArgs {
  body: unknown;
  /** The text of our branch of a streamed upload, or of a copy of the body of the page's Request. */
  ours: Promise<string> | null;
  method: string | undefined;
  headers: Headers | null;
  credentials: unknown;
  /** `duplex`, when read early to decide whether to tee a streamed body. */
  duplex?: { value: unknown };
}

/** Replaces `scope.fetch` with a wrapper, and patches `n.Response.prototype` for the responses it makes. */
export function wrapFetch(scope: { fetch: typeof fetch }, n: FetchNatives, deps: FetchDeps): InspectorFetch {
  const { apply, construct } = Reflect;
  const { wrap, clean } = deps.disguise;
  const { now, bodies, resolveUrl } = deps;
  const getter = (proto: object, key: string): (() => unknown) => Object.getOwnPropertyDescriptor(proto, key)!.get!;
  const NativeResponse = n.Response;
  const NativeReadableStream = n.ReadableStream;
  const NativeHeaders = n.Headers;
  const NativePromise = n.Promise;
  const promiseReject = n.Promise.reject;
  const headersGet = n.Headers.prototype.get;
  const getReader = n.ReadableStream.prototype.getReader;
  const streamTee = n.ReadableStream.prototype.tee;
  const readerRead = n.ReadableStreamDefaultReader.prototype.read;
  const readerCancel = n.ReadableStreamDefaultReader.prototype.cancel;
  const requestClone = n.Request.prototype.clone;
  // Firefox's Request has no `body`.
  const requestBody = Object.getOwnPropertyDescriptor(n.Request.prototype, 'body')?.get;
  const requestText = n.Request.prototype.text;
  const requestUrl = getter(n.Request.prototype, 'url');
  const requestMethod = getter(n.Request.prototype, 'method');
  const requestHeaders = getter(n.Request.prototype, 'headers');
  const requestBodyUsed = getter(n.Request.prototype, 'bodyUsed');
  const requestCredentials = getter(n.Request.prototype, 'credentials');
  const headersForEach = n.Headers.prototype.forEach;
  const requestSignal = getter(n.Request.prototype, 'signal');
  const signalAborted = getter(n.AbortSignal.prototype, 'aborted');
  const signalReason = getter(n.AbortSignal.prototype, 'reason');
  /** The act the next call is made for: set by `send` just before it calls the wrapper, read at once. */
  let sending: number | null = null;
  /** The next call goes to the network whatever is armed: set just before the wrapper calls itself, read at once. */
  let bypass = false;

  /** Kept in the page's memory (headers.ts) for the exchange `id`, once it is recorded. */
  function keep(id: number, headers: Headers | null, credentials: unknown): void {
    const list: [string, string][] = [];
    if (headers) apply(headersForEach, headers, [(value: string, name: string) => void list.push([name, value])]);
    const mode = credentials === 'omit' || credentials === 'include' ? credentials : 'same-origin';
    deps.kept.keep(id, { headers: list, credentials: mode });
  }

  const responseMeta = new WeakMap<Response, { url: string; redirected: boolean; type: ResponseType }>();

  function track(sink: Sink, res: Response): Response {
    const source = res.body;
    if (source === null) {
      sink.end('complete', undefined);
      return res;
    }
    const reader = apply(getReader, source, []) as ReadableStreamDefaultReader<Uint8Array>;
    // A byte stream with highWaterMark 0 pulls from the network only when the page reads, and
    // still serves BYOB readers.
    const body = new NativeReadableStream({
      type: 'bytes',
      pull(controller: ReadableByteStreamController) {
        return (apply(readerRead, reader, []) as Promise<ReadableStreamReadResult<Uint8Array>>).then(
          (r) => {
            if (r.done) {
              sink.end('complete', undefined);
              controller.close();
              // A pending BYOB read must be answered even when the stream is closing.
              controller.byobRequest?.respond(0);
              return;
            }
            if (sink.active) sink.chunk(r.value);
            controller.enqueue(r.value as Uint8Array<ArrayBuffer>);
          },
          (e: unknown) => {
            sink.end(isAbort(e) ? 'aborted' : 'error', e);
            controller.error(e);
          },
        );
      },
      cancel(reason: unknown) {
        sink.end('cancelled', reason);
        return apply(readerCancel, reader, [reason]) as Promise<void>;
      },
    }, { highWaterMark: 0 });
    const out = new NativeResponse(body, { status: res.status, statusText: res.statusText, headers: res.headers });
    responseMeta.set(out, { url: res.url, redirected: res.redirected, type: res.type });
    return out;
  }

  for (const key of ['url', 'redirected', 'type'] as const) {
    const desc = Object.getOwnPropertyDescriptor(NativeResponse.prototype, key);
    if (!desc?.get) continue;
    Object.defineProperty(NativeResponse.prototype, key, {
      ...desc,
      get: wrap(desc.get, {
        apply(target, self, args) {
          const meta = responseMeta.get(self as Response);
          return meta ? meta[key] : apply(target, self, args);
        },
      }),
    });
  }
  NativeResponse.prototype.clone = wrap(NativeResponse.prototype.clone, {
    apply(target, self, args) {
      const copy = apply(target, self, args) as Response;
      const meta = responseMeta.get(self as Response);
      if (meta) responseMeta.set(copy, meta);
      return copy;
    },
  });

  /** Whether `v` is a Request, by its brand: instanceof would consult a page Proxy's traps. */
  function isRequest(v: unknown): v is Request {
    if (typeof v !== 'object' || v === null) return false;
    try {
      apply(requestUrl, v, []);
      return true;
    } catch {
      return false;
    }
  }

  /** The text of a copy of the body of the page's Request, taken before the native consumes it. */
  function copyBody(request: Request): Promise<string> | null {
    try {
      if (apply(requestBodyUsed, request, [])) return null;
      const copy = apply(requestClone, request, []) as Request;
      if (!requestBody) return apply(requestText, copy, []) as Promise<string>;
      const stream = apply(requestBody, copy, []) as ReadableStream<Uint8Array> | null;
      return stream === null ? null : bodies.readAll(stream);
    } catch {
      return null;
    }
  }

  // Whether this browser's RequestInit has `duplex` (Chrome's does, Firefox's does not).
  let readsDuplex = false;
  try {
    construct(n.Request, ['data:,', new Proxy({}, { get: (_, key) => void (readsDuplex ||= key === 'duplex') })]);
  } catch {
    // Nothing to learn.
  }

  /**
   * The page's init as the native gets it: the native reads each member once, in its own order, and
   * what we need is kept as it reads it, never read again. Values the native would convert and we
   * need converted (method, headers, a body of no body type) are converted here, once, and handed over.
   */
  function readInit(init: object, request: Request | null, seen: FetchArgs): object {
    // Over an empty target of our own: a Proxy checks each answer against its target's own
    // property, which over the page's object would be one more thing the page could observe.
    return new Proxy({}, {
      // Chromium asks whether some members are there at all (`attributionReporting`): the page's object
      // answers, as it would to the native, and not the empty target, which would say no to everything.
      has(_, key) {
        return key in init;
      },
      get(_, key) {
        if (key === 'duplex' && seen.duplex) return seen.duplex.value;
        // The page's getters see `this` as the object it passed. (Reflect.get would show as a frame
        // of its own in the page's stacks.)
        const value: unknown = (init as Record<PropertyKey, unknown>)[key];
        if (key === 'credentials') seen.credentials = value;
        if (key === 'method') return (seen.method = value === undefined ? value : `${value as string}`);
        if (key === 'headers' && value !== undefined) {
          try {
            return (seen.headers = construct(NativeHeaders, [value]) as Headers);
          } catch {
            // Invalid headers: the native converts them again and reports the error in its own words.
            return value;
          }
        }
        if (key !== 'body') return value;
        if (value === undefined || value === null) {
          if (request) seen.ours = copyBody(request);
          return value;
        }
        seen.body = bodies.argument(value, false);
        if (!(value instanceof NativeReadableStream) || !readsDuplex) return seen.body;
        // `duplex` comes after `body`: read once now, and given to the native when it asks.
        seen.duplex = { value: (init as { duplex?: unknown }).duplex };
        if (seen.duplex.value !== 'half') return value;
        // A streamed upload is read twice: one branch for the network, one for us.
        const [theirs, ours] = apply(streamTee, value, []) as [ReadableStream<Uint8Array>, ReadableStream<Uint8Array>];
        seen.ours = bodies.readAll(ours);
        return theirs;
      },
    });
  }

  /** Calls the wrapper for a request the override does not answer after all, captured as the page's own. */
  function toNetwork(self: unknown, request: Request): Promise<Response> {
    bypass = true;
    try {
      return apply(wrapped, self, [request]) as Promise<Response>;
    } finally {
      bypass = false;
    }
  }

  /**
   * A call to the armed URL: read as the native would read it (a Request made of its arguments), and answered
   * from the recording when its method matches too and the worker answers it.
   */
  function override(self: unknown, input: Request | string, init: unknown, armed: OverrideMatch, t: number): Promise<Response> {
    let request: Request;
    try {
      request = construct(n.Request, [input, init]) as Request;
    } catch (e) {
      return apply(promiseReject, NativePromise, [clean(e)]) as Promise<Response>;
    }
    const method = apply(requestMethod, request, []) as string;
    const url = apply(requestUrl, request, []) as string;
    if (!requestMatches(armed, method, url)) return toNetwork(self, request);
    const headers = apply(requestHeaders, request, []) as Headers;
    const credentials = apply(requestCredentials, request, []) as unknown;
    const signal = apply(requestSignal, request, []) as AbortSignal;
    const copy = apply(requestClone, request, []) as Request;
    return (apply(requestText, copy, []) as Promise<string>).then((text) => deps.ask(method, withoutUserInfo(url), text === '' ? null : text).then((got) => {
      if (!got) return toNetwork(self, request);
      if (apply(signalAborted, signal, [])) throw apply(signalReason, signal, []);
      const sink = deps.sink({
        api: 'fetch', t, method, url, by: got.by,
        contentType: () => apply(headersGet, headers, ['content-type']) as string | null,
        opened: (id) => keep(id, headers, credentials),
      }, text.length <= LIMITS.requestBody ? { agui: true, text, note: null } : { agui: true, text: null, note: 'too-large' });
      sink.start();
      sink.response({ status: got.status, statusText: '', contentType: got.contentType.slice(0, LIMITS.text), url: url.slice(0, LIMITS.url), redirected: false, reconstructed: false });
      const out = track(sink, answered(got, signal));
      responseMeta.set(out, { url, redirected: false, type: 'basic' });
      return out;
    }));
  }

  /** The answer as a Response whose body enqueues each chunk when due, as the page reads, and errors as the page aborts. */
  function answered(got: PageAnswer, signal: AbortSignal): Response {
    const start = now();
    let next = 0;
    const { setTimeout: later, clearTimeout: unlater } = n;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stop: ((e: unknown) => void) | null = null;
    const body = new NativeReadableStream<Uint8Array>({
      start(controller) {
        stop = (e) => {
          unlater(timer);
          controller.error(e);
        };
        apply(n.addEventListener, signal, ['abort', () => stop?.(apply(signalReason, signal, [])), { once: true }]);
      },
      pull(controller) {
        const c = got.chunks[next++];
        if (!c) return controller.close();
        return new NativePromise<void>((resolve) => {
          timer = later(() => {
            controller.enqueue(c.bytes);
            resolve();
          }, c.at - (now() - start));
        });
      },
      cancel() {
        stop = null;
        unlater(timer);
      },
    }, { highWaterMark: 0 });
    return new NativeResponse(body, { status: got.status, headers: [['content-type', got.contentType], ...got.headers] });
  }

  scope.fetch = wrap(scope.fetch, {
    apply(target, self, args: unknown[]) {
      const t = now();
      const by = sending;
      sending = null;
      const through = bypass;
      bypass = false;
      const request = isRequest(args[0]) ? args[0] : null;
      if (!request && args.length > 0) {
        // Converted once, as the native would; the native gets the string.
        try {
          args[0] = `${args[0] as string}`;
        } catch (e) {
          return apply(promiseReject, NativePromise, [clean(e)]) as Promise<Response>;
        }
      }
      const armed = by === null && !through ? deps.armed() : null;
      const input = armed && (request ?? resolveUrl(args[0]));
      if (armed && input && urlMatches(armed.url, typeof input === 'string' ? input : (apply(requestUrl, input, []) as string))) return override(self, input, args[1], armed, t);
      const seen: FetchArgs = { body: null, ours: null, method: undefined, headers: null, credentials: undefined };
      const init = args[1];
      if ((typeof init === 'object' && init !== null) || typeof init === 'function') args[1] = readInit(init, request, seen);
      else if (request) seen.ours = copyBody(request);
      const pending = apply(target, self, args) as Promise<Response>;
      let body: Body | Promise<Body>;
      try {
        body = seen.ours ? bodies.fromText(seen.ours) : bodies.inspect(seen.body);
      } catch {
        body = NO_BODY;
      }
      const method = (seen.method ?? (request ? (apply(requestMethod, request, []) as string) : 'GET')).toUpperCase().slice(0, 32);
      const headers = seen.headers ?? (request ? (apply(requestHeaders, request, []) as Headers) : null);
      const req: RequestInfo = {
        api: 'fetch', t, method,
        url: request ? (apply(requestUrl, request, []) as string) : resolveUrl(args[0]),
        contentType: () => bodies.contentType(headers, seen.body),
        opened: (id) => {
          try {
            keep(id, headers, seen.credentials ?? (request ? apply(requestCredentials, request, []) : undefined));
          } catch {
            // Headers the page made unreadable are not kept; a resend goes without them.
          }
        },
        ...(by === null ? {} : { by }),
      };
      const settle = (given: Body): Promise<Response> => {
        // What the Inspector sends is recorded whatever the user made of the body.
        const b = by === null ? given : { ...given, agui: true };
        const sink = deps.sink(req, b);
        if (b.agui) sink.start();
        return pending.then(
          (res) => {
            const type = mediaType(apply(headersGet, res.headers, ['content-type']) as string | null);
            if (!b.agui && type !== PROTO_MEDIA_TYPE && type !== SSE_MEDIA_TYPE) return res;
            if (res.type === 'opaque' || res.type === 'opaqueredirect' || res.type === 'error') return res;
            if (type === PROTO_MEDIA_TYPE) sink.start();
            else if (!b.agui) sink.sniff();
            sink.response({
              status: res.status, statusText: res.statusText.slice(0, LIMITS.text),
              contentType: (apply(headersGet, res.headers, ['content-type']) as string | null)?.slice(0, LIMITS.text) ?? null,
              url: res.url.slice(0, LIMITS.url), redirected: res.redirected, reconstructed: false,
            });
            return track(sink, res);
          },
          (e: unknown) => {
            sink.end(isAbort(e) ? 'aborted' : 'error', e);
            throw clean(e);
          },
        );
      };
      return body instanceof NativePromise ? body.then(settle) : settle(body);
    },
  });

  const wrapped = scope.fetch;
  return {
    send(ref, url, init) {
      sending = ref;
      try {
        return apply(wrapped, undefined, [url, init]) as Promise<Response>;
      } finally {
        sending = null;
      }
    },
  };
}
