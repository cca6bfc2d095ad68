/**
 * MAIN world, document_start, before any page script: wraps fetch, XMLHttpRequest and EventSource
 * and reports AG-UI exchanges (see detect.ts) to the relay.
 *
 * What the page observes must not change: the same bytes in the same chunks, the same errors, abort
 * and cancel behaviour, backpressure (the body is read only when the page reads), no extra requests.
 * Wrappers are Proxies of the originals, so name, length and prototype are the native ones, and
 * Function.prototype.toString reports the original source for them. Non-AG-UI traffic is handed back
 * untouched (the original Response object); only SSE responses get a pass-through body until their
 * first event shows whether they are AG-UI.
 *
 * Known differences on recorded responses (a new Response around the tapped body): `headers` is no
 * longer immutable. XHR text bodies are recorded re-encoded from `responseText`; EventSource bodies
 * are rebuilt from the delivered events (flagged `reconstructed`). Requests made from workers are
 * not seen.
 *
 * The page can tamper with anything in this world after we ran; that only falsifies its own capture,
 * and the relay treats everything from here as untrusted.
 */
import { HANDSHAKE, LIMITS, STAGING_BYTES, mediaType, type Api, type BodyNote, type Outcome, type PageMessage } from '../messages.ts';
import { isRunAgentInputText, PROTO_MEDIA_TYPE, SSE_MEDIA_TYPE, SsePeek } from '../formats/detect.ts';

(() => {
  const marker = Symbol.for('agui-inspector/installed');
  const g = globalThis as unknown as Record<symbol, unknown>;
  // all_frames plus dynamic registration can inject twice into one document.
  if (g[marker]) return;
  Object.defineProperty(g, marker, { value: true });

  const { apply, construct } = Reflect;
  const perf = performance;
  const now = (): number => perf.timeOrigin + perf.now();
  const encoder = new TextEncoder();
  const NativeResponse = Response;
  const NativeRequest = Request;
  const NativeReadableStream = ReadableStream;
  const headersGet = Headers.prototype.get;
  const getReader = ReadableStream.prototype.getReader;
  const readerRead = ReadableStreamDefaultReader.prototype.read;
  const readerCancel = ReadableStreamDefaultReader.prototype.cancel;
  const blobText = Blob.prototype.text;
  const blobArrayBuffer = Blob.prototype.arrayBuffer;
  const requestClone = Request.prototype.clone;
  const addListener = EventTarget.prototype.addEventListener;
  const Bytes = Uint8Array;
  const NativeArrayBuffer = ArrayBuffer;
  const typedArray = Object.getPrototypeOf(Uint8Array.prototype) as Uint8Array;
  const bytesSet = typedArray.set;
  const bytesSlice = typedArray.slice;
  const bytesSubarray = typedArray.subarray;

  // ── channel to the relay ──────────────────────────────────────────────────
  const channel = new MessageChannel();
  const port = channel.port1;
  const portPost = MessagePort.prototype.postMessage;
  // The relay takes the first handshake of the document and hides it from page listeners.
  window.postMessage({ [HANDSHAKE]: true }, '*', [channel.port2]);

  /**
   * Messages leave in batches, one per task: the page's read path only copies its chunk into a staging
   * buffer, and posting, checking and encoding happen in tasks of their own, many chunks at a time.
   * Staging buffers are transferred, never copied again; the relay returns them once it has encoded
   * their bytes, and reusing them is much cheaper than writing to freshly allocated memory.
   */
  const spare: ArrayBuffer[] = [];
  /** Off while the user has paused capture for this tab: new exchanges pass through unrecorded. */
  let recording = true;
  port.onmessage = (ev: MessageEvent) => {
    const data: unknown = ev.data;
    if (data instanceof NativeArrayBuffer) {
      if (data.byteLength === STAGING_BYTES && spare.length < 8) spare.push(data);
    } else if (typeof data === 'object' && data !== null && typeof (data as { recording?: unknown }).recording === 'boolean') {
      recording = (data as { recording: boolean }).recording;
    }
  };
  let batch: PageMessage[] = [];
  let transfer: ArrayBuffer[] = [];
  let stage: ArrayBuffer | null = null;
  let staged = 0;
  let scheduled = false;
  // A message to ourselves is a task that, unlike a timer, is not throttled in background tabs.
  const tick = new MessageChannel();
  tick.port1.onmessage = () => {
    scheduled = false;
    flush();
  };

  function flush(): void {
    if (batch.length === 0) return;
    if (staged > 0) {
      transfer.push(stage!);
      stage = null;
      staged = 0;
    }
    apply(portPost, port, [batch, transfer]);
    batch = [];
    transfer = [];
  }

  function post(msg: PageMessage): void {
    if (msg.k === 'chunk' && msg.bytes.buffer !== stage) transfer.push(msg.bytes.buffer as ArrayBuffer);
    batch.push(msg);
    if (batch.length >= LIMITS.batch) flush();
    else if (!scheduled) {
      scheduled = true;
      apply(portPost, tick.port2, [null]);
    }
  }

  /** A copy of `bytes` (at most LIMITS.chunk) in the staging buffer, which leaves with the current batch. */
  function stageCopy(bytes: Uint8Array): Uint8Array {
    if (staged + bytes.byteLength > STAGING_BYTES) flush();
    stage ??= spare.pop() ?? new NativeArrayBuffer(STAGING_BYTES);
    const copy = new Bytes(stage, staged, bytes.byteLength);
    apply(bytesSet, copy, [bytes]);
    staged += bytes.byteLength;
    return copy;
  }

  // ── native-looking wrappers ───────────────────────────────────────────────
  const originals = new WeakMap<object, object>();
  function wrap<F extends object>(original: F, handler: ProxyHandler<F>): F {
    const proxy = new Proxy(original, handler);
    originals.set(proxy, original);
    return proxy;
  }
  Function.prototype.toString = wrap(Function.prototype.toString, {
    apply(target, self, args) {
      return apply(target, (typeof self === 'function' && originals.get(self)) || self, args);
    },
  });

  // ── exchanges ─────────────────────────────────────────────────────────────
  let nextId = 1;
  let open = 0;

  interface RequestInfo {
    api: Api;
    t: number;
    method: string;
    url: string;
    contentType: () => string | null;
  }
  interface Body {
    agui: boolean;
    text: string | null;
    note: BodyNote | null;
    /** Produces the text for bodies not worth serialising unless the exchange is recorded. */
    later?: () => Promise<string>;
  }
  const NO_BODY: Body = { agui: false, text: null, note: null };

  /**
   * One exchange's report stream. Messages queue while it is undecided (its first SSE event not yet
   * seen) or opening (the request text still being read), and are discarded if it is not AG-UI.
   */
  class Sink {
    readonly id = nextId++;
    private state: 'undecided' | 'opening' | 'recording' | 'discarded' | 'ended' = 'undecided';
    private queue: PageMessage[] = [];
    private peek: SsePeek | null = null;

    constructor(private readonly req: RequestInfo, private readonly body: Body) {}

    get active(): boolean {
      return this.state === 'undecided' || this.state === 'opening' || this.state === 'recording';
    }

    start(): void {
      if (this.state !== 'undecided') return;
      this.peek = null;
      if (!recording) {
        this.state = 'discarded';
        this.queue = [];
        return;
      }
      if (open >= LIMITS.openExchanges) {
        this.state = 'discarded';
        this.queue = [];
        post({ k: 'dropped', t: now(), id: null, exchanges: 1, chunks: 0, bytes: 0, rejected: 0 });
        return;
      }
      open++;
      const later = this.body.later;
      if (!later) {
        this.flush(this.body.text, this.body.note);
        return;
      }
      this.state = 'opening';
      later().then(
        (text) => (text.length <= LIMITS.requestBody ? this.flush(text, this.body.note) : this.flush(null, 'too-large')),
        () => this.flush(null, 'unreadable'),
      );
    }

    private flush(text: string | null, note: BodyNote | null): void {
      this.state = 'recording';
      post({
        k: 'open', id: this.id, api: this.req.api, t: this.req.t, method: this.req.method, url: this.req.url,
        requestContentType: this.req.contentType()?.slice(0, LIMITS.text) ?? null, requestBody: text, requestBodyNote: note,
      });
      const queued = this.queue;
      this.queue = [];
      for (const m of queued) this.send(m);
    }

    discard(): void {
      if (this.state !== 'undecided') return;
      this.state = 'discarded';
      this.peek = null;
      this.queue = [];
    }

    /** Decide from the first SSE event; until then chunks are held (at most PEEK_LIMIT bytes). */
    sniff(): void {
      if (this.state === 'undecided') this.peek = new SsePeek();
    }

    private send(msg: PageMessage): void {
      if (this.state === 'recording') {
        post(msg);
        if (msg.k === 'end') {
          this.state = 'ended';
          open--;
        }
      } else if (this.state === 'undecided' || this.state === 'opening') {
        this.queue.push(msg);
      }
    }

    response(r: Omit<Extract<PageMessage, { k: 'response' }>, 'k' | 'id' | 't'>): void {
      this.send({ k: 'response', id: this.id, t: now(), ...r });
    }

    chunk(bytes: Uint8Array): void {
      if (!this.active) return;
      const t = now();
      // Copied now, before the page gets its chunk: the page may modify or transfer it.
      for (let at = 0; at < bytes.byteLength; at += LIMITS.chunk) {
        const piece = apply(bytesSubarray, bytes, [at, at + LIMITS.chunk]) as Uint8Array;
        // Queued pieces wait for the verdict in buffers of their own, which batches may not take along early.
        const copy = this.state === 'recording' ? stageCopy(piece) : (apply(bytesSlice, piece, []) as Uint8Array);
        this.send({ k: 'chunk', id: this.id, t, bytes: copy });
      }
      if (this.peek) {
        const verdict = this.peek.push(bytes);
        if (verdict !== undefined) this.decide(verdict);
      }
    }

    end(outcome: Outcome, error: unknown): void {
      if (this.peek) this.decide(this.peek.end());
      // Undecided without a peek: nothing ever showed this exchange to be AG-UI.
      if (this.state === 'undecided') this.discard();
      if (!this.active) return;
      this.send({ k: 'end', id: this.id, t: now(), outcome, error: error === undefined ? null : describe(error) });
      // Further calls (an abort after the error, a cancel after the end) change nothing.
      if (this.state === 'opening') this.state = 'ended';
    }

    private decide(agui: boolean): void {
      this.peek = null;
      if (agui) this.start();
      else this.discard();
    }
  }

  function describe(error: unknown): string {
    try {
      const e = error as { name?: unknown; message?: unknown };
      const text = typeof e?.name === 'string' ? `${e.name}: ${String(e.message)}` : String(error);
      return text.slice(0, LIMITS.text);
    } catch {
      return 'unknown error';
    }
  }

  const isAbort = (e: unknown): boolean => (e as { name?: unknown } | null)?.name === 'AbortError';

  function resolveUrl(url: unknown): string {
    try {
      return new URL(String(url), document.baseURI).href.slice(0, LIMITS.url);
    } catch {
      return String(url).slice(0, LIMITS.url);
    }
  }

  function textBody(text: string, note: BodyNote | null = null): Body {
    return text.length > LIMITS.requestBody
      ? { agui: false, text: null, note: 'too-large' }
      : { agui: isRunAgentInputText(text), text, note };
  }

  function bytesBody(view: ArrayBufferView | ArrayBuffer): Body {
    const bytes = view instanceof ArrayBuffer ? new Uint8Array(view) : new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
    if (bytes.byteLength > LIMITS.requestBody) return { agui: false, text: null, note: 'too-large' };
    // Only JSON can be a RunAgentInput: skip whitespace and look for '{' before copying anything.
    let i = 0;
    while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d)) i++;
    const decode = (): string => new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    if (bytes[i] !== 0x7b) {
      const copy = bytes.slice();
      return { agui: false, text: null, note: null, later: async () => new TextDecoder('utf-8', { fatal: true }).decode(copy) };
    }
    try {
      return textBody(decode());
    } catch {
      return { agui: false, text: null, note: 'unreadable' };
    }
  }

  async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
    const reader = apply(getReader, stream, []) as ReadableStreamDefaultReader<Uint8Array>;
    const parts: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const r = await (apply(readerRead, reader, []) as Promise<ReadableStreamReadResult<Uint8Array>>);
      if (r.done) break;
      size += r.value.byteLength;
      if (size > LIMITS.requestBody) {
        apply(readerCancel, reader, []);
        throw new RangeError('too large');
      }
      parts.push(r.value);
    }
    const all = new Uint8Array(size);
    let at = 0;
    for (const p of parts) {
      all.set(p, at);
      at += p.byteLength;
    }
    return new TextDecoder('utf-8', { fatal: true }).decode(all);
  }

  function asyncBody(text: Promise<string>): Promise<Body> {
    return text.then(textBody, (e: unknown) => ({ agui: false, text: null, note: e instanceof RangeError ? 'too-large' : 'unreadable' }));
  }

  /** Body of an XHR send() or a fetch init; streams are handled by the fetch wrapper. */
  function inspectBody(body: unknown): Body | Promise<Body> {
    if (body === null || body === undefined) return NO_BODY;
    if (typeof body === 'string') return textBody(body);
    if (body instanceof Blob) {
      return body.size > LIMITS.requestBody ? { agui: false, text: null, note: 'too-large' } : asyncBody(apply(blobText, body, []) as Promise<string>);
    }
    if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return bytesBody(body as ArrayBuffer);
    if (body instanceof URLSearchParams) {
      const p = body;
      return { agui: false, text: null, note: null, later: async () => p.toString() };
    }
    if (body instanceof FormData) {
      const f = body;
      return { agui: false, text: null, note: 'multipart-reserialized', later: () => new NativeResponse(f).text() };
    }
    if (body instanceof NativeReadableStream) return { agui: false, text: null, note: 'not-teeable' };
    if (body instanceof Document) return textBody(new XMLSerializer().serializeToString(body));
    return textBody(String(body));
  }

  // ── fetch ─────────────────────────────────────────────────────────────────
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

  function requestContentType(input: unknown, init: RequestInit | undefined, body: unknown): string | null {
    try {
      if (init?.headers !== undefined) {
        const h = new Headers(init.headers).get('content-type');
        if (h !== null) return h;
      } else if (input instanceof NativeRequest) {
        const h = apply(headersGet, input.headers, ['content-type']) as string | null;
        if (h !== null) return h;
      }
    } catch {
      return null;
    }
    if (typeof body === 'string') return 'text/plain;charset=UTF-8';
    if (body instanceof Blob) return body.type || null;
    if (body instanceof URLSearchParams) return 'application/x-www-form-urlencoded;charset=UTF-8';
    if (body instanceof FormData) return 'multipart/form-data';
    return null;
  }

  const nativeFetch = window.fetch;
  window.fetch = wrap(nativeFetch, {
    apply(target, self, args: [RequestInfo | URL, RequestInit?]) {
      const t = now();
      const [input, init] = args;
      let body: Body | Promise<Body> = NO_BODY;
      let bodyValue: unknown = null;
      try {
        if (init && init.body !== undefined && init.body !== null) {
          bodyValue = init.body;
          if (bodyValue instanceof NativeReadableStream && (init as { duplex?: unknown }).duplex === 'half') {
            // A streamed upload is read twice: one branch for the network, one for us.
            const [theirs, ours] = (bodyValue as ReadableStream<Uint8Array>).tee();
            args = [input, Object.create(init, { body: { value: theirs, enumerable: true } }) as RequestInit];
            body = asyncBody(readAll(ours));
          } else {
            body = inspectBody(bodyValue);
          }
        } else if (input instanceof NativeRequest && input.body !== null && !input.bodyUsed) {
          const copy = apply(requestClone, input, []) as Request;
          body = asyncBody(readAll(copy.body as ReadableStream<Uint8Array>));
        }
      } catch {
        body = NO_BODY;
      }
      const method = String(init?.method ?? (input instanceof NativeRequest ? input.method : 'GET')).toUpperCase().slice(0, 32);
      const req: RequestInfo = {
        api: 'fetch', t, method,
        url: input instanceof NativeRequest ? input.url : resolveUrl(input),
        contentType: () => requestContentType(input, init, bodyValue),
      };
      const pending = apply(target, self, args) as Promise<Response>;
      const settle = (b: Body): Promise<Response> => {
        const sink = new Sink(req, b);
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
            throw e;
          },
        );
      };
      return body instanceof Promise ? body.then(settle) : settle(body);
    },
  });

  // ── XMLHttpRequest ────────────────────────────────────────────────────────
  interface XhrState {
    method: string;
    url: string;
    contentType: string | null;
  }
  const xhrs = new WeakMap<XMLHttpRequest, XhrState>();
  const XHR = XMLHttpRequest.prototype;

  XHR.open = wrap(XHR.open, {
    apply(target, self, args: unknown[]) {
      const result = apply(target, self, args);
      xhrs.set(self as XMLHttpRequest, { method: String(args[0]).toUpperCase().slice(0, 32), url: resolveUrl(args[1]), contentType: null });
      return result;
    },
  });
  XHR.setRequestHeader = wrap(XHR.setRequestHeader, {
    apply(target, self, args: unknown[]) {
      const result = apply(target, self, args);
      const state = xhrs.get(self as XMLHttpRequest);
      if (state && String(args[0]).toLowerCase() === 'content-type') {
        state.contentType = state.contentType === null ? String(args[1]) : `${state.contentType}, ${String(args[1])}`;
      }
      return result;
    },
  });
  XHR.send = wrap(XHR.send, {
    apply(target, self, args: unknown[]) {
      const xhr = self as XMLHttpRequest;
      const state = xhrs.get(xhr);
      if (state) {
        try {
          watchXhr(xhr, state, inspectBody(args[0]), args[0]);
        } catch {
          // Capture must never stand between the page and its request.
        }
      }
      return apply(target, self, args);
    },
  });

  function watchXhr(xhr: XMLHttpRequest, state: XhrState, bodyOrPromise: Body | Promise<Body>, bodyValue: unknown): void {
    const req: RequestInfo = {
      api: 'xhr', t: now(), method: state.method, url: state.url,
      contentType: () => state.contentType ?? requestContentType(undefined, undefined, bodyValue),
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
      sink = new Sink(req, b);
      if (b.agui) sink.start();
    };
    if (bodyOrPromise instanceof Promise) void bodyOrPromise.then(begin);
    else begin(bodyOrPromise);
    on('readystatechange', () => {
      if (!sink) return;
      if (xhr.readyState >= XMLHttpRequest.HEADERS_RECEIVED && !headersSeen) {
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
      if (xhr.readyState >= XMLHttpRequest.LOADING) flushText();
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

  // ── EventSource ───────────────────────────────────────────────────────────
  interface EsState {
    sink: Sink;
    types: Set<string>;
    lastId: string;
  }
  const sources = new WeakMap<EventSource, EsState>();
  const NativeEventSource = window.EventSource;

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

  if (NativeEventSource) {
    const WrappedEventSource = wrap(NativeEventSource, {
      construct(target, args: unknown[], newTarget) {
        const es = construct(target, args, newTarget === WrappedEventSource ? target : newTarget) as EventSource;
        try {
          const sink = new Sink({ api: 'eventsource', t: now(), method: 'GET', url: es.url, contentType: () => null }, NO_BODY);
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
    EventTarget.prototype.addEventListener = wrap(EventTarget.prototype.addEventListener, {
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
    window.EventSource = WrappedEventSource;
  }
})();
