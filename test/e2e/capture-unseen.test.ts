/**
 * A page cannot tell the Inspector is there: the same probe runs in a browser with the extension and
 * in one without, and everything it can observe of window, of the wrapped functions, of how its
 * arguments are read, of its WebSockets (their prototype, a subclass, listener order, each event's `data`,
 * binaryType) and of the errors it gets back must be equal. The residual differences, each
 * asserted here exactly as docs/privacy.md documents it: another realm's built-in
 * Function.prototype.toString prints the wrappers as anonymous natives; in Firefox an error thrown
 * through a wrapper keeps the wrapper's `<anonymous code>` frames, and properties Firefox creates
 * lazily (the standard globals, a native function's `name` and `length`) may be listed in another
 * order, the same names.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { WebSocketServer } from 'ws';
import { buildExtension, launchChromium, launchFirefox, type ExtensionBrowser } from './browsers.ts';
import { settled } from './demo-capture.ts';

const INPUT = JSON.stringify({ threadId: 't', runId: 'r', messages: [], tools: [], context: [], state: {}, forwardedProps: {} });
const EVENTS = [
  { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
  { type: 'RUN_FINISHED', threadId: 't', runId: 'r' },
];
const SSE = EVENTS.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('');

/** Requests the probe makes that carry a RunAgentInput, so the extension records each one: five over HTTP, two on WebSockets. */
const AGUI_REQUESTS = 7;

/**
 * The probe, as source: evaluated as a string, so neither driver nor tsx rewrites it, and its stack
 * frames are the same text in both browsers. `frames(n, run)` adds n page frames below a call, to see
 * that the page keeps Error.stackTraceLimit frames of its own.
 */
const PROBE = String.raw`(async (input) => {
  const reads = [];
  const spy = (label, o) => new Proxy(o, {
    get(t, k, r) { reads.push(label + '.get ' + String(k)); return Reflect.get(t, k, r); },
    has(t, k) { reads.push(label + '.has ' + String(k)); return Reflect.has(t, k); },
    ownKeys(t) { reads.push(label + '.ownKeys'); return Reflect.ownKeys(t); },
    getOwnPropertyDescriptor(t, k) { reads.push(label + '.gopd ' + String(k)); return Reflect.getOwnPropertyDescriptor(t, k); },
    getPrototypeOf(t) { reads.push(label + '.proto'); return Reflect.getPrototypeOf(t); },
  });
  const text = (label, value) => ({ toString() { reads.push(label + '.toString'); return value; } });
  const loaded = (xhr) => new Promise((resolve) => { xhr.onloadend = () => resolve(xhr.status); });

  // Arguments: each page-supplied getter, trap and conversion runs as often as the native runs it.
  await (await fetch(text('url', '/agent'), spy('init', {
    method: text('method', 'POST'), body: input, headers: spy('headers', { 'content-type': 'application/json' }),
  }))).text();
  await (await fetch('/agent', { method: 'POST', get body() { reads.push('body getter'); return input; } })).text();
  await (await fetch('/agent', { method: 'POST', body: text('body', input) })).text();
  class PageRequest extends Request {
    get url() { reads.push('Request.url'); return super.url; }
    get method() { reads.push('Request.method'); return super.method; }
    get headers() { reads.push('Request.headers'); return super.headers; }
    get body() { reads.push('Request.body'); return super.body; }
  }
  await (await fetch(new PageRequest('/agent', { method: 'POST', body: input }))).text();
  const xhr = new XMLHttpRequest();
  xhr.open(text('xhr method', 'POST'), text('xhr url', '/agent'));
  xhr.setRequestHeader(text('header name', 'content-type'), text('header value', 'application/json'));
  xhr.send(text('xhr body', input));
  await loaded(xhr);
  new EventSource(text('es url', '/agent')).close();

  // Errors crossing a wrapper, and the page's stack trace limit.
  const frames = (n, run) => n === 0 ? run() : frames(n - 1, run);
  const failure = async (run) => {
    try { await run(); return 'no error'; } catch (e) {
      return { text: String(e), stack: e.stack, own: Object.getOwnPropertyNames(e), at: [e.fileName, e.lineNumber, e.columnNumber] };
    }
  };
  // WebSockets: what a socket, its events and a subclass look like; an AG-UI exchange on each, so both are recorded.
  const wsUrl = 'ws://' + location.host + '/ws';
  const next = (ws, type) => new Promise((resolve) => ws.addEventListener(type, resolve, { once: true }));
  const kind = (data) => typeof data === 'string' ? data : data.constructor.name;
  // The page's own accessors on what a socket and its events hand out run only when the page reads them.
  for (const [proto, key] of [[MessageEvent.prototype, 'data'], [CloseEvent.prototype, 'code'], [CloseEvent.prototype, 'reason'],
    [CloseEvent.prototype, 'wasClean'], [WebSocket.prototype, 'url'], [WebSocket.prototype, 'readyState'], [Blob.prototype, 'size']]) {
    const native = Object.getOwnPropertyDescriptor(proto, key);
    const label = proto[Symbol.toStringTag] + '.' + key;
    Object.defineProperty(proto, key, { ...native, get() { reads.push(label); return native.get.call(this); } });
  }
  const ws = new WebSocket(wsUrl);
  const constructorDescriptor = Object.getOwnPropertyDescriptor(WebSocket.prototype, 'constructor');
  const sockets = {
    identity: [ws instanceof WebSocket, Object.getPrototypeOf(ws) === WebSocket.prototype, ws.constructor === WebSocket,
      WebSocket.prototype.constructor === WebSocket, typeof constructorDescriptor.value, constructorDescriptor.writable,
      constructorDescriptor.enumerable, constructorDescriptor.configurable, Object.getOwnPropertyNames(ws), Reflect.ownKeys(WebSocket.prototype).map(String)],
    listeners: [],
  };
  let firstEvent = null;
  let firstData = null;
  ws.addEventListener('message', (ev) => { firstEvent = ev; firstData = ev.data; sockets.listeners.push('a ' + kind(ev.data)); });
  ws.onmessage = (ev) => sockets.listeners.push('on ' + (ev === firstEvent) + ' ' + (ev.data === firstData));
  ws.addEventListener('message', (ev) => sockets.listeners.push('c ' + (ev === firstEvent) + ' ' + (ev.data === firstData)
    + (typeof ev.data === 'string' ? '' : ' ' + (ev.data instanceof ArrayBuffer ? [...new Uint8Array(ev.data)] : ev.data.size))));
  await next(ws, 'open');
  const answered = next(ws, 'message').then(() => next(ws, 'message'));
  ws.send(input);
  await answered;
  ws.binaryType = 'arraybuffer';
  ws.send(new Uint8Array([1, 2, 3]));
  await next(ws, 'message');
  ws.binaryType = 'blob';
  ws.send(new Blob([new Uint8Array([4, 5])]));
  await next(ws, 'message');
  sockets.binaryType = ws.binaryType;
  ws.send('plain');
  await next(ws, 'message');
  const closed = next(ws, 'close');
  ws.close(1000, 'bye');
  const { code, reason, wasClean } = await closed;
  sockets.close = [code, reason, wasClean, ws.readyState];

  class PageSocket extends WebSocket {
    constructor(url) { super(url); this.tag = 'page'; }
    hello() { return 'hi ' + this.tag; }
  }
  const sub = new PageSocket(wsUrl);
  sockets.subclass = [sub instanceof PageSocket, sub instanceof WebSocket, Object.getPrototypeOf(sub) === PageSocket.prototype,
    sub.constructor === PageSocket, sub.hello(), Object.getOwnPropertyNames(sub), PageSocket.name, PageSocket.length];
  await next(sub, 'open');
  const subAnswered = next(sub, 'message').then(() => next(sub, 'message'));
  sub.send(input);
  sockets.subclass.push(kind((await subAnswered).data));
  sub.close();
  // Opened in the same task as its send: made earlier, a loaded machine's awaits in between let it connect (a clean-clone run read 'no error').
  let connecting;
  const closing = new WebSocket(wsUrl);
  closing.close();

  const used = await fetch('/json');
  await used.text();
  const errors = {
    badUrl: await failure(() => fetch('http://[bad')),
    refused: await failure(() => fetch('http://127.0.0.1:1/')),
    deepBadUrl: await failure(() => frames(12, () => fetch('http://[bad'))),
    bodyGetter: await failure(() => fetch('/json', { method: 'POST', get body() { throw new Error('from the page'); } })),
    badHeader: await failure(() => fetch('/json', { headers: { 'a b': 'c' } })),
    noArguments: await failure(() => fetch()),
    xhrOpen: await failure(() => new XMLHttpRequest().open('GET', 'http://[bad')),
    deepXhrOpen: await failure(() => frames(12, () => new XMLHttpRequest().open('GET', 'http://[bad'))),
    xhrMethod: await failure(() => new XMLHttpRequest().open('GÉT\u0100', text('never read', '/'))),
    xhrSend: await failure(() => new XMLHttpRequest().send()),
    xhrHeader: await failure(() => new XMLHttpRequest().setRequestHeader('a', 'b')),
    eventSource: await failure(() => new EventSource('http://[bad')),
    wsBadUrl: await failure(() => new WebSocket('http://[bad')),
    deepWsBadUrl: await failure(() => frames(12, () => new WebSocket('http://[bad'))),
    wsScheme: await failure(() => new WebSocket('ftp://127.0.0.1/')),
    wsNoArguments: await failure(() => new WebSocket()),
    wsNoNew: await failure(() => WebSocket(wsUrl)),
    wsSubclassBadUrl: await failure(() => new (class extends WebSocket {})('http://[bad')),
    wsSendConnecting: await failure(() => { connecting = new WebSocket(wsUrl); connecting.send('x'); }),
    wsSendClosed: await failure(() => closing.send('x')),
    wsSendIllegal: await failure(() => WebSocket.prototype.send.call({}, 'x')),
    toString: await failure(() => Function.prototype.toString.call({})),
    listener: await failure(() => EventTarget.prototype.addEventListener.call(window)),
    clone: await failure(() => used.clone()),
    urlGetter: await failure(() => Object.getOwnPropertyDescriptor(Response.prototype, 'url').get.call({})),
  };

  // The wrapped functions, from this realm and from another one.
  const frame = document.createElement('iframe');
  document.body.append(frame);
  const otherToString = frame.contentWindow.Function.prototype.toString;
  const getter = (k) => Object.getOwnPropertyDescriptor(Response.prototype, k).get;
  const wrapped = {
    fetch, EventSource, open: XMLHttpRequest.prototype.open, send: XMLHttpRequest.prototype.send,
    setRequestHeader: XMLHttpRequest.prototype.setRequestHeader, close: EventSource.prototype.close,
    addEventListener: EventTarget.prototype.addEventListener, toString: Function.prototype.toString,
    WebSocket, wsSend: WebSocket.prototype.send,
    url: getter('url'), redirected: getter('redirected'), type: getter('type'), clone: Response.prototype.clone,
  };
  const functions = {};
  const otherRealm = {};
  for (const [k, f] of Object.entries(wrapped)) {
    functions[k] = [f.name, f.length, Function.prototype.toString.call(f), Reflect.ownKeys(f).map(String), Object.getPrototypeOf(f) === Function.prototype];
    otherRealm[k] = otherToString.call(f);
  }
  frame.remove();
  connecting.close();
  return {
    window: { names: Object.getOwnPropertyNames(window), symbols: Object.getOwnPropertySymbols(window).map(String) },
    functions, otherRealm, reads, errors, sockets,
  };
})(${JSON.stringify(INPUT)})`;

interface View {
  window: { names: string[]; symbols: string[] };
  functions: Record<string, unknown>;
  otherRealm: Record<string, string>;
  reads: string[];
  errors: Record<string, string | { text: string; stack: string; own: string[]; at: unknown[] }>;
  sockets: unknown;
}

function startServer(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>unseen</title>');
      if (req.url === '/agent') return void res.writeHead(200, { 'content-type': 'text/event-stream' }).end(SSE);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  // A socket answers an input with the run's events, one JSON frame each, and echoes any other frame as it came.
  new WebSocketServer({ server, path: '/ws' }).on('connection', (socket) => socket.on('message', (data, binary) => {
    if (!binary && data.toString() === INPUT) for (const e of EVENTS) socket.send(JSON.stringify(e));
    else socket.send(data, { binary });
  }));
  return new Promise((r) => server.listen(0, '127.0.0.1', () => {
    const a = server.address();
    r({ url: `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}/`, server });
  }));
}

/**
 * What a browser lets through, as docs/privacy.md says: how another realm prints a
 * wrapper; Firefox's `<anonymous code>` frames; whether the order of lazily created properties (the
 * standard globals on window, `name` and `length` on a native function) may differ, the names not.
 */
interface Residual {
  anonymous: string;
  ownFrame: RegExp | null;
  lazyOrder: boolean;
}

/** Both drivers evaluate a source string the same way. */
type Evaluating = { goto(url: string): Promise<unknown>; evaluate(source: string): Promise<unknown> };

async function viewOf(b: { newPage(): Promise<unknown> }, url: string): Promise<View> {
  const page = (await b.newPage()) as Evaluating;
  await page.goto(url);
  return (await page.evaluate(PROBE)) as View;
}

/** What the extension's view must equal, once its documented residuals are taken out. */
async function compare(withExt: ExtensionBrowser & { newPage(): Promise<unknown> }, without: { newPage(): Promise<unknown> }, url: string,
  residual: Residual): Promise<void> {
  const [seen, plain] = await Promise.all([viewOf(withExt, url), viewOf(without, url)]);
  const sorted = <T>(v: T): T => (residual.lazyOrder && Array.isArray(v) ? [...(v as string[])].sort() as T : v);
  assert.deepEqual(sorted(seen.window.names), sorted(plain.window.names), 'window has the same own properties');
  assert.deepEqual(seen.window.symbols, plain.window.symbols, 'window has the same own symbols');
  const fns = (v: View): unknown => Object.fromEntries(Object.entries(v.functions).map(([k, f]) => [k, (f as unknown[]).map(sorted)]));
  assert.deepEqual(fns(seen), fns(plain), 'name, length, toString, own keys and prototype of every wrapper');
  assert.deepEqual(seen.reads, plain.reads, 'every getter, trap and conversion of the page runs as often, in the same order');
  assert.deepEqual(seen.sockets, plain.sockets, 'sockets, their events, listeners, binaryType and a subclass look the same');
  // Residual: a realm that never ran the wrapper prints a Proxy as the engine prints any Proxy.
  for (const [k, source] of Object.entries(plain.otherRealm)) {
    assert.equal(source, (plain.functions[k] as unknown[])[2], `natively, ${k} prints the same from any realm`);
    assert.notEqual(source, residual.anonymous);
    assert.equal(seen.otherRealm[k], residual.anonymous, `${k} from another realm`);
  }
  const ext = /\w+-extension:\/\//;
  for (const [k, e] of Object.entries(seen.errors)) {
    assert.doesNotMatch(JSON.stringify(e), ext, `${k}: no extension URL`);
    const own = residual.ownFrame;
    const expected = plain.errors[k]!;
    // A native reached through no trap of a wrapper (WebSocket called without `new`) throws as it would alone, Firefox too.
    if (typeof e === 'string' || typeof expected === 'string' || own === null || !own.test(e.stack)) {
      assert.deepEqual(e, expected, `${k}: the same error, message and stack`);
      continue;
    }
    // Firefox: the wrapper's frames are on top of the page's, and the error says it was thrown there.
    assert.ok(e.at[0] === expected.at[0] || e.at[0] === '<anonymous code>', `${k}: ${JSON.stringify(e.at)}`);
    const pageFrames = e.stack.split('\n').filter((line) => !own.test(line)).join('\n');
    assert.deepEqual({ ...e, stack: pageFrames, at: expected.at }, expected, `${k}: the same error, message and page frames`);
  }
  const tabId = await withExt.tabIdOf(url);
  await settled(withExt, tabId, AGUI_REQUESTS);
  const s = (await withExt.request({ type: 'agui-inspector/session', tabId }))!;
  assert.deepEqual(s.exchanges.map((x) => [x.api, x.method, x.request.body, x.request.contentType, x.outcome]), [
    ['fetch', 'POST', INPUT, 'application/json', 'complete'],
    ['fetch', 'POST', INPUT, 'text/plain;charset=UTF-8', 'complete'],
    ['fetch', 'POST', INPUT, 'text/plain;charset=UTF-8', 'complete'],
    ['fetch', 'POST', INPUT, 'text/plain;charset=UTF-8', 'complete'],
    ['xhr', 'POST', INPUT, 'application/json', 'complete'],
    ['websocket', 'GET', INPUT, null, 'complete'],
    ['websocket', 'GET', INPUT, null, 'complete'],
  ], 'the page was still recorded, from what the natives read');
}

describe('the page cannot tell the Inspector is there', () => {
  let server: Server;
  let url: string;

  before(async () => {
    ({ server, url } = await startServer());
  });
  after(() => {
    server?.close();
    server?.closeAllConnections();
  });

  test('in Chromium', async () => {
    const [withExt, without] = await Promise.all([buildExtension('chrome').then((extDir) => launchChromium({ extDir })), launchChromium()]);
    try {
      await compare(withExt, without, url, { anonymous: 'function () { [native code] }', ownFrame: null, lazyOrder: false });
    } finally {
      await Promise.all([withExt.close(), without.close()]);
    }
  });

  test('in Firefox', async () => {
    const [withExt, without] = await Promise.all([buildExtension('firefox').then((extDir) => launchFirefox({ extDir })), launchFirefox()]);
    try {
      await compare(withExt, without, url, { anonymous: 'function () {\n    [native code]\n}', ownFrame: /@<anonymous code>:/, lazyOrder: true });
    } finally {
      await Promise.all([withExt.close(), without.close()]);
    }
  });
});
