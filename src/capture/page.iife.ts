/**
 * MAIN world, document_start, before any page script: wraps fetch, XMLHttpRequest and EventSource
 * and reports AG-UI exchanges (see detect.ts) to the relay.
 *
 * What the page observes must not change: the same bytes in the same chunks, the same errors, abort
 * and cancel behaviour, backpressure (the body is read only when the page reads), no extra requests.
 * Wrappers are Proxies of the originals, so name, length and prototype are the native ones, and
 * Function.prototype.toString reports the original source for them. The page's arguments are read as
 * the native reads them, once (readInit, stringArgs, bodyArgument), and errors reach the page without
 * our frames in their stack (clean). What remains observable is listed in the README's privacy
 * section and pinned by test/e2e/capture-unseen.test.ts. Non-AG-UI traffic is handed back
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
import { HANDSHAKE, LIMITS, STAGING_BYTES, mediaType, type Api, type BodyNote, type Outcome, type PageMessage, type RelayToPage } from '../messages.ts';
import { isRunAgentInputText, PROTO_MEDIA_TYPE, SSE_MEDIA_TYPE, SsePeek } from '../formats/detect.ts';
import { withoutUserInfo } from '../formats/url.ts';

(() => {
  // Nothing marks the page as instrumented: the dynamic registration excludes the manifest's origins
  // (background/origins.ts), and a second copy would only wrap the wrappers, its handshake ignored.
  const { apply, construct, getOwnPropertyDescriptor: ownDescriptor, defineProperty } = Reflect;
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
  const getter = (proto: object, key: string): (() => unknown) => Object.getOwnPropertyDescriptor(proto, key)!.get!;
  // Firefox's Request has no `body`.
  const requestBody = Object.getOwnPropertyDescriptor(Request.prototype, 'body')?.get;
  const requestText = Request.prototype.text;
  const requestUrl = getter(Request.prototype, 'url');
  const requestMethod = getter(Request.prototype, 'method');
  const requestHeaders = getter(Request.prototype, 'headers');
  const requestBodyUsed = getter(Request.prototype, 'bodyUsed');
  const blobSize = getter(Blob.prototype, 'size');
  const blobType = getter(Blob.prototype, 'type');
  const paramsToString = URLSearchParams.prototype.toString;
  const streamTee = ReadableStream.prototype.tee;
  const NativeHeaders = Headers;
  const NativePromise = Promise;
  const promiseReject = Promise.reject;
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
    } else if (typeof data === 'object' && data !== null && typeof (data as Partial<RelayToPage>).recording === 'boolean') {
      recording = (data as RelayToPage).recording;
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
  /**
   * Errors thrown through a wrapper carry its frames, which in Chrome name this script by its
   * chrome-extension:// URL. They reach the page with those frames cut from their stack, and while a
   * wrapper runs the page's Error.stackTraceLimit is raised by SPARE_FRAMES, so the page keeps as many
   * frames of its own as the native call alone would have captured. Firefox names the script
   * `<anonymous code>` and keeps `stack` on the prototype, where rewriting it would add an own
   * property: there errors are left as they are (see the README's privacy section).
   */
  const ErrorCtor = Error as ErrorConstructor & { stackTraceLimit?: unknown; isError?: (v: unknown) => boolean };
  const script = /(\w+-extension:\/\/[^\s)]+?):\d+:\d+/.exec(new ErrorCtor().stack ?? '')?.[1] ?? null;
  const isError = ErrorCtor.isError;
  const stackAccessors = new Set([new ErrorCtor(), new DOMException()].map((e) => ownDescriptor(e, 'stack')?.get));
  const SPARE_FRAMES = 4;
  const FRAME = /^\s+at /;
  let pageLimit = Infinity;
  let depth = 0;

  function clean(e: unknown): unknown {
    if (script === null || !isError || !apply(isError, ErrorCtor, [e])) return e;
    // A page's own Error.prepareStackTrace formats stacks its way, when it reads them.
    const prepare = ownDescriptor(ErrorCtor, 'prepareStackTrace');
    if (prepare && (prepare.get || prepare.value !== undefined)) return e;
    const desc = ownDescriptor(e as Error, 'stack');
    // Only the engine's own accessor is called: a page-defined one is page code.
    if (!desc || (desc.get ? !stackAccessors.has(desc.get) || !desc.set : !desc.writable)) return e;
    const stack: unknown = desc.get ? apply(desc.get, e, []) : desc.value;
    if (typeof stack !== 'string' || !stack.includes(script)) return e;
    const kept: string[] = [];
    let frames = 0;
    for (const line of stack.split('\n')) {
      if (!FRAME.test(line)) kept.push(line);
      else if (!line.includes(script) && frames++ < pageLimit) kept.push(line);
    }
    if (desc.set) apply(desc.set, e, [kept.join('\n')]);
    else defineProperty(e as Error, 'stack', { ...desc, value: kept.join('\n') });
    return e;
  }

  /** Runs a wrapper's trap: see clean(). */
  function guarded<R>(trap: (...args: never[]) => R, handler: object, args: unknown[]): R {
    const limit = depth++ === 0 && script !== null ? ownDescriptor(ErrorCtor, 'stackTraceLimit') : undefined;
    const raise = typeof limit?.value === 'number' && limit.writable === true && limit.value >= 0;
    if (raise) {
      pageLimit = limit.value as number;
      ErrorCtor.stackTraceLimit = pageLimit + SPARE_FRAMES;
    }
    try {
      return apply(trap, handler, args);
    } catch (e) {
      throw clean(e);
    } finally {
      depth--;
      if (raise) ErrorCtor.stackTraceLimit = pageLimit;
    }
  }

  const originals = new WeakMap<object, object>();
  function wrap<F extends object>(original: F, handler: ProxyHandler<F>): F {
    const { apply: onApply, construct: onConstruct } = handler;
    const proxy = new Proxy(original, {
      apply: onApply && ((target, self, args) => guarded(onApply, handler, [target, self, args])),
      construct: onConstruct && ((target, args, newTarget) => guarded(onConstruct, handler, [target, args, newTarget])),
    });
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
        k: 'open', id: this.id, api: this.req.api, t: this.req.t, method: this.req.method, url: withoutUserInfo(this.req.url),
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
      this.send({ k: 'response', id: this.id, t: now(), ...r, url: withoutUserInfo(r.url) });
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

  /**
   * A body as the native takes it: an object of no body type is converted to a string here, once,
   * and the native gets the string (converting it twice would call the page's toString twice).
   */
  function bodyArgument(body: unknown, acceptsDocument: boolean): unknown {
    if ((typeof body !== 'object' && typeof body !== 'function') || body === null) return body;
    if (body instanceof Blob || body instanceof ArrayBuffer || ArrayBuffer.isView(body) || body instanceof URLSearchParams
      || body instanceof FormData || body instanceof NativeReadableStream || (acceptsDocument && body instanceof Document)) return body;
    return `${body as unknown as string}`;
  }

  /** Body of an XHR send() or a fetch init, after bodyArgument(); streams are handled by the fetch wrapper. */
  function inspectBody(body: unknown): Body | Promise<Body> {
    if (body === null || body === undefined) return NO_BODY;
    if (typeof body === 'string') return textBody(body);
    if (body instanceof Blob) {
      return (apply(blobSize, body, []) as number) > LIMITS.requestBody ? { agui: false, text: null, note: 'too-large' } : asyncBody(apply(blobText, body, []) as Promise<string>);
    }
    if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return bytesBody(body as ArrayBuffer);
    if (body instanceof URLSearchParams) {
      const p = body;
      return { agui: false, text: null, note: null, later: async () => apply(paramsToString, p, []) as string };
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

  /** The request's content type: its headers', else the one its body implies. */
  function requestContentType(headers: Headers | null, body: unknown): string | null {
    const h = headers === null ? null : (apply(headersGet, headers, ['content-type']) as string | null);
    if (h !== null) return h;
    if (typeof body === 'string') return 'text/plain;charset=UTF-8';
    if (body instanceof Blob) return (apply(blobType, body, []) as string) || null;
    if (body instanceof URLSearchParams) return 'application/x-www-form-urlencoded;charset=UTF-8';
    if (body instanceof FormData) return 'multipart/form-data';
    return null;
  }

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
      return stream === null ? null : readAll(stream);
    } catch {
      return null;
    }
  }

  /** What the native read from the page's fetch arguments (see readInit). */
  interface FetchArgs {
    body: unknown;
    /** The text of our branch of a streamed upload, or of a copy of the body of the page's Request. */
    ours: Promise<string> | null;
    method: string | undefined;
    headers: Headers | null;
    /** `duplex`, when read early to decide whether to tee a streamed body. */
    duplex?: { value: unknown };
  }

  // Whether this browser's RequestInit has `duplex` (Chrome's does, Firefox's does not).
  let readsDuplex = false;
  try {
    construct(NativeRequest, ['data:,', new Proxy({}, { get: (_, key) => void (readsDuplex ||= key === 'duplex') })]);
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
      get(_, key) {
        if (key === 'duplex' && seen.duplex) return seen.duplex.value;
        // The page's getters see `this` as the object it passed. (Reflect.get would show as a frame
        // of its own in the page's stacks.)
        const value: unknown = (init as Record<PropertyKey, unknown>)[key];
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
        seen.body = bodyArgument(value, false);
        if (!(value instanceof NativeReadableStream) || !readsDuplex) return seen.body;
        // `duplex` comes after `body`: read once now, and given to the native when it asks.
        seen.duplex = { value: (init as { duplex?: unknown }).duplex };
        if (seen.duplex.value !== 'half') return value;
        // A streamed upload is read twice: one branch for the network, one for us.
        const [theirs, ours] = apply(streamTee, value, []) as [ReadableStream<Uint8Array>, ReadableStream<Uint8Array>];
        seen.ours = readAll(ours);
        return theirs;
      },
    });
  }

  const nativeFetch = window.fetch;
  window.fetch = wrap(nativeFetch, {
    apply(target, self, args: unknown[]) {
      const t = now();
      const request = isRequest(args[0]) ? args[0] : null;
      if (!request && args.length > 0) {
        // Converted once, as the native would; the native gets the string.
        try {
          args[0] = `${args[0] as string}`;
        } catch (e) {
          return apply(promiseReject, NativePromise, [clean(e)]) as Promise<Response>;
        }
      }
      const seen: FetchArgs = { body: null, ours: null, method: undefined, headers: null };
      const init = args[1];
      if ((typeof init === 'object' && init !== null) || typeof init === 'function') args[1] = readInit(init, request, seen);
      else if (request) seen.ours = copyBody(request);
      const pending = apply(target, self, args) as Promise<Response>;
      let body: Body | Promise<Body>;
      try {
        body = seen.ours ? asyncBody(seen.ours) : inspectBody(seen.body);
      } catch {
        body = NO_BODY;
      }
      const method = (seen.method ?? (request ? (apply(requestMethod, request, []) as string) : 'GET')).toUpperCase().slice(0, 32);
      const headers = seen.headers ?? (request ? (apply(requestHeaders, request, []) as Headers) : null);
      const req: RequestInfo = {
        api: 'fetch', t, method,
        url: request ? (apply(requestUrl, request, []) as string) : resolveUrl(args[0]),
        contentType: () => requestContentType(headers, seen.body),
      };
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
            throw clean(e);
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
      if (args.length > 0) args[0] = bodyArgument(args[0], true);
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
      contentType: () => state.contentType ?? requestContentType(null, bodyValue),
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
