/**
 * The bundled demo agent: a node:http AG-UI endpoint with canned scenarios, no
 * model and no API key. Standalone: `npx tsx demo/agent.ts [--port N] [--delay MS]`.
 *
 *   POST /agent/<scenario>   the scenario's event stream: SSE, or protobuf when
 *                            Accept names application/vnd.ag-ui.event+proto and
 *                            the scenario is encodable; `?delay=MS` sets the
 *                            pause between events (the timing scenarios keep
 *                            their own schedule where it is the point)
 *   GET  /agent/<scenario>   with Upgrade: websocket, the same scenario over a WebSocket
 *                            (a custom binding, basic/transports#custom-transports): each
 *                            RunAgentInput sent as a text frame is answered with the
 *                            scenario's events, one JSON text frame an event, several
 *                            runs sharing the socket; `?delay=MS` as above, `?close=N`
 *                            closes the socket with 1011 after N events, mid-run
 *   GET  /scenarios          the scenario list as JSON
 *   GET  /                   the demo page (dist/demo, built on start if missing)
 */
import { createServer, STATUS_CODES, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Duplex } from 'node:stream';
import { pathToFileURL } from 'node:url';
import type { RunAgentInput } from '@ag-ui/core';
import { AGUI_MEDIA_TYPE, EventEncoder } from '@ag-ui/encoder';
import { WebSocketServer, type WebSocket } from 'ws';
import { buildDemoPage, demoPageIsBuilt, demoPageOutDir } from './build.ts';
import { RunEnd } from '../src/exchange/run-end.ts';
import { findScenario, scenarioInfo, type Scenario } from './scenarios.ts';

export interface DemoAgentOptions {
  /** 0 (the default) picks an ephemeral port. */
  port?: number;
  host?: '127.0.0.1';
  /** Pause between events when the request does not say (`?delay=`); default 120 ms. */
  delayMs?: number;
  /** Serve the demo page (building it if missing); default true. Tests of the stream alone turn it off. */
  page?: boolean;
  /** Told of every agent request as it arrived (tests: what a resend really carried). */
  onRequest?: (r: { path: string; headers: IncomingHttpHeaders; body: string }) => void;
}

export interface DemoAgent {
  url: string;
  close(): Promise<void>;
}

const DEFAULT_DELAY_MS = 120;
const MAX_BODY_BYTES = 1024 * 1024;

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
};

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function startDemoAgent(opts: DemoAgentOptions = {}): Promise<DemoAgent> {
  const servePage = opts.page ?? true;
  if (servePage && !demoPageIsBuilt()) await buildDemoPage();
  const defaultDelay = opts.delayMs ?? DEFAULT_DELAY_MS;
  const host = opts.host ?? '127.0.0.1';

  const server = createServer((req, res) => {
    handle(req, res, { defaultDelay, servePage, onRequest: opts.onRequest }).catch((err: unknown) => {
      const status = err instanceof HttpError ? err.status : 500;
      const message = err instanceof Error ? err.message : String(err);
      if (res.headersSent) res.destroy();
      else sendJson(res, status, { error: message });
    });
  });
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_BODY_BYTES });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    try {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      // No CORS stands between a page and a socket: the handshake's Origin is all there is to check.
      if (req.headers.origin !== undefined && !isLocalOrigin(req.headers.origin)) throw new HttpError(403, 'only pages on 127.0.0.1 or localhost may open a socket');
      const scenario = scenarioAt(url);
      const run = { scenario, delayMs: delayFrom(url, defaultDelay), closeAfter: closeFrom(url) };
      sockets.handleUpgrade(req, socket, head, (ws) => serveSocket(ws, run, (body) => opts.onRequest?.({ path: url.pathname, headers: req.headers, body })));
    } catch (err) {
      const status = err instanceof HttpError ? err.status : 500;
      const body = JSON.stringify({ error: err instanceof Error ? err.message : String(err) });
      socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    }
  });
  await listen(server, opts.port ?? 0, host);
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('demo agent: server has no TCP address');
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((done, fail) => {
        server.close((err) => (err ? fail(err) : done()));
        // Streams in flight, idle keep-alive connections and open WebSockets would otherwise hold close() open.
        for (const ws of sockets.clients) ws.terminate();
        server.closeAllConnections();
      }),
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      done();
    });
  });
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  config: { defaultDelay: number; servePage: boolean; onRequest: DemoAgentOptions['onRequest'] },
): Promise<void> {
  allowLocalOrigins(req, res);
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  if (req.method === 'OPTIONS') {
    res.writeHead(204).end();
    return;
  }
  if (url.pathname.startsWith('/agent/')) {
    if (req.method !== 'POST') throw methodNotAllowed(res, 'POST');
    const scenario = scenarioAt(url);
    const body = await readBody(req);
    config.onRequest?.({ path: url.pathname, headers: req.headers, body });
    const input = parseRunAgentInput(body);
    await stream(req, res, scenario, input, delayFrom(url, config.defaultDelay));
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') throw methodNotAllowed(res, 'GET, HEAD');
  if (url.pathname === '/scenarios') {
    sendJson(res, 200, scenarioInfo());
    return;
  }
  if (!config.servePage) throw new HttpError(404, 'this demo agent was started without the demo page');
  await serveStatic(req, res, url.pathname);
}

function methodNotAllowed(res: ServerResponse, allow: string): HttpError {
  res.setHeader('Allow', allow);
  return new HttpError(405, `method not allowed; use ${allow}`);
}

function scenarioAt(url: URL): Scenario {
  const scenario = url.pathname.startsWith('/agent/') ? findScenario(decodeURIComponent(url.pathname.slice('/agent/'.length))) : undefined;
  if (!scenario) throw new HttpError(404, `unknown scenario; see GET /scenarios`);
  return scenario;
}

/** The page may be opened from either local spelling, or from another local port (a dev server). */
const isLocalOrigin = (origin: string) => /^https?:\/\/(127\.0\.0\.1|localhost)(:\d+)?$/.test(origin);

function allowLocalOrigins(req: IncomingMessage, res: ServerResponse): void {
  const origin = req.headers.origin;
  res.setHeader('Vary', 'Origin');
  if (origin === undefined || !isLocalOrigin(origin)) return;
  res.setHeader('Access-Control-Allow-Origin', origin);
  res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
  res.setHeader('Access-Control-Allow-Headers', req.headers['access-control-request-headers'] ?? 'Content-Type, Accept');
  res.setHeader('Access-Control-Max-Age', '600');
}

function delayFrom(url: URL, fallback: number): number {
  const raw = url.searchParams.get('delay');
  if (raw === null) return fallback;
  const ms = Number(raw);
  if (!Number.isFinite(ms) || ms < 0) throw new HttpError(400, `delay must be a non-negative number of milliseconds`);
  return ms;
}

/** `?close=N`: after how many events a socket run closes the socket; null when it does not. */
function closeFrom(url: URL): number | null {
  const raw = url.searchParams.get('close');
  if (raw === null) return null;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw new HttpError(400, 'close must be a non-negative number of events');
  return n;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, 'request body too large');
    parts.push(chunk);
  }
  return Buffer.concat(parts).toString('utf8');
}

/**
 * Rejection before the run starts is an HTTP error with no stream, per the HTTP
 * binding. Only the three members every SDK agrees are required are checked;
 * the rest is the scenarios' to read.
 */
function parseRunAgentInput(body: string): RunAgentInput {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new HttpError(400, 'body is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new HttpError(400, 'body is not a RunAgentInput object');
  const input = value as Partial<RunAgentInput>;
  if (typeof input.threadId !== 'string' || typeof input.runId !== 'string' || !Array.isArray(input.messages)) {
    throw new HttpError(400, 'RunAgentInput needs string threadId, string runId and a messages array');
  }
  // Absent tools/context mean none, as the TypeScript SDK materialises them.
  return { ...input, threadId: input.threadId, runId: input.runId, messages: input.messages, tools: input.tools ?? [], context: input.context ?? [] };
}

interface Frames {
  contentType: string;
  frames: (string | Uint8Array)[];
  /** The scenario's own pause before each frame, where it has one. */
  pauses: readonly (number | undefined)[];
}

function frames(scenario: Scenario, input: RunAgentInput, accept: string | undefined): Frames {
  if (!scenario.encodable) {
    // The official encoder cannot carry off-schema material, so these bytes are written by hand, and only as SSE.
    const events = scenario.events(input);
    return { contentType: 'text/event-stream', frames: events.map((e) => `data: ${JSON.stringify(e)}\n\n`), pauses: scenario.pauses?.(events) ?? [] };
  }
  // A wildcard Accept admits protobuf too, and the binding only says SHOULD answer
  // with it; the demo waits to be asked by name, so curl and browsers read SSE.
  const named = accept?.toLowerCase().includes(AGUI_MEDIA_TYPE) ?? false;
  const encoder = new EventEncoder(named ? { accept } : {});
  const protobuf = encoder.getContentType() === AGUI_MEDIA_TYPE;
  const events = scenario.events(input);
  return {
    contentType: encoder.getContentType(),
    frames: events.map((e) => (protobuf ? encoder.encodeProtobuf(e) : encoder.encodeSSE(e))),
    pauses: scenario.pauses?.(events) ?? [],
  };
}

/**
 * Writes each frame after its pause: the scenario's own, else `delayMs` between frames. Resolves false
 * as soon as `signal` aborts — a client that hangs up, or close(), does not wait out a delay.
 */
async function sendPaced<F>(frames: readonly F[], pauses: readonly (number | undefined)[], delayMs: number, signal: AbortSignal, write: (frame: F) => void): Promise<boolean> {
  for (const [i, frame] of frames.entries()) {
    const pause = pauses[i] ?? (i > 0 ? delayMs : 0);
    if (pause > 0) await sleep(pause, undefined, { signal }).catch(() => undefined);
    if (signal.aborted) return false;
    write(frame);
  }
  return true;
}

async function stream(req: IncomingMessage, res: ServerResponse, scenario: Scenario, input: RunAgentInput, delayMs: number): Promise<void> {
  const out = frames(scenario, input, req.headers.accept);
  const gone = new AbortController();
  res.once('close', () => gone.abort());
  res.writeHead(200, { 'Content-Type': out.contentType, 'Cache-Control': 'no-cache', Vary: 'Origin, Accept' });
  res.flushHeaders();
  if (await sendPaced(out.frames, out.pauses, delayMs, gone.signal, (frame) => res.write(frame))) res.end();
}

interface SocketRun {
  scenario: Scenario;
  delayMs: number;
  closeAfter: number | null;
}

/**
 * One client's socket: each RunAgentInput text frame starts a run of the scenario, its events sent as
 * JSON text frames (every scenario can go so, the encoder's reach being protobuf's limit). An input that
 * is no RunAgentInput closes the socket, as the HTTP binding answers it with 400 and no stream.
 */
function serveSocket(ws: WebSocket, run: SocketRun, onInput: (body: string) => void): void {
  const gone = new AbortController();
  ws.once('close', () => gone.abort());
  // ws closes the socket itself after an error (a malformed frame, one over maxPayload).
  ws.on('error', () => {});
  ws.on('message', (data, isBinary) => {
    if (ws.readyState !== ws.OPEN) return;
    if (isBinary) return ws.close(1003, 'send the RunAgentInput as a JSON text frame');
    const body = (data as Buffer).toString('utf8');
    onInput(body);
    let input: RunAgentInput;
    try {
      input = parseRunAgentInput(body);
    } catch (err) {
      return ws.close(1007, err instanceof Error ? err.message : String(err));
    }
    void runOnSocket(ws, run, input, gone.signal);
  });
}

/**
 * The scenario's events on the socket. With `?close=N` the socket closes with 1011 after N events, mid-run;
 * a scenario whose stream ends before the requested run does closes it too, as the HTTP body would end
 * there — a socket left open would never tell the client the run is cut.
 */
async function runOnSocket(ws: WebSocket, { scenario, delayMs, closeAfter }: SocketRun, input: RunAgentInput, signal: AbortSignal): Promise<void> {
  const all = scenario.events(input);
  const events = closeAfter === null ? all : all.slice(0, closeAfter);
  const end = new RunEnd(input.runId);
  let ended = false;
  const whole = await sendPaced(events, scenario.pauses?.(all) ?? [], delayMs, signal, (event) => {
    ws.send(JSON.stringify(event));
    ended ||= end.endedBy(event);
  });
  if (!whole || ended || ws.readyState !== ws.OPEN) return;
  if (events.length < all.length) ws.close(1011, `demo agent: closed mid-run after ${events.length} events (?close=${closeAfter})`);
  else ws.close(1000, 'demo agent: the stream ended before the requested run did');
}

async function serveStatic(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
  const root = resolve(demoPageOutDir);
  let file = resolve(root, `.${decodeURIComponent(pathname)}`);
  if (file !== root && !file.startsWith(root + sep)) throw new HttpError(404, 'not found');
  const info = await stat(file).catch(() => undefined);
  if (info?.isDirectory()) file = resolve(file, 'index.html');
  const body = await readFile(file).catch(() => undefined);
  if (body === undefined) throw new HttpError(404, 'not found');
  res.writeHead(200, {
    'Content-Type': contentTypes[extname(file)] ?? 'application/octet-stream',
    'Content-Length': body.length,
    'Cache-Control': 'no-cache',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/** The value after `flag` as a non-negative integer, or `fallback` when the flag is absent. */
function intArg(args: readonly string[], flag: string, fallback: number): number {
  const i = args.indexOf(flag);
  if (i < 0) return fallback;
  const value = Number(args[i + 1]);
  if (!Number.isInteger(value) || value < 0) {
    console.error(`${flag} needs a non-negative integer`);
    process.exit(2);
  }
  return value;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const agent = await startDemoAgent({ port: intArg(args, '--port', 8765), delayMs: intArg(args, '--delay', DEFAULT_DELAY_MS) });
  console.log(`AG-UI demo agent on ${agent.url}`);
  console.log(`  demo page:  ${agent.url}/`);
  for (const s of scenarioInfo()) console.log(`  POST ${agent.url}/agent/${s.name.padEnd(20)} ${s.description}`);
  console.log(`  WebSocket ${agent.url.replace(/^http/, 'ws')}/agent/<scenario>[?close=N]: each scenario over a socket`);
  const stop = () => void agent.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
