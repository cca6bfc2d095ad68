/**
 * `agui-inspector replay <recording.har>`: a local HTTP server that answers an app's AG-UI requests with
 * the recorded responses — status, content type and the recorded bytes in the recorded chunks, at the
 * recorded pace or as fast as possible, with the request's own ids and any faults asked for — so a bug
 * report reproduces without the agent behind it. Exchanges recorded on a WebSocket are answered on a
 * WebSocket at their recorded path (an HTTP Upgrade on the same server, issue #38): each input frame a
 * client sends gets its exchange's server frames. Which exchange answers which request is
 * src/recording/replay.ts's business; what the answer is, src/answer's.
 *
 * The sockets are the `ws` package's, bundled into the CLI: a hand-written RFC 6455 server would have to
 * get masking, fragmentation, control frames, UTF-8 checks and close handshakes right against hostile
 * clients, which `ws` already does; its optional native add-ons are never required (vite.cli.config.ts).
 */
import { readFileSync } from 'node:fs';
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIPv6, type AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { Duplex } from 'node:stream';
import { parseArgs } from 'node:util';
import type { WebSocket } from 'ws';
import { answer, faultName, fitsSocket, idsOf, paced, parseFault, socketPayload, type Fault, type Ids, type Pace, type TimedChunk } from '../answer/index.ts';
import { runAgentInputIn, type CapturedExchange } from '../exchange/index.ts';
import { FormatError, readExchanges } from '../formats/index.ts';
import { pathOf, ReplayPlan, servedContentType, unmatchedBody, type ReplayMatch } from '../recording/index.ts';
import { reason } from './files.ts';
import { printable } from './printable.ts';
import { REPLAY_USAGE } from './usage.ts';


export interface ReplayOptions {
  port?: number;
  host?: string;
  /** `1` plays at the recorded pace, `2` twice as fast, `max` as fast as the socket takes it. */
  speed?: Pace;
  /** Injected into every answer (`--fault`). */
  faults?: readonly Fault[];
  /** Answer with the recorded threadId and runId, not the request's (`--keep-ids`). */
  keepIds?: boolean;
  /** Origins besides the loopback ones whose pages may read the replay (`--allow-origin`), each `scheme://host[:port]`. */
  allowOrigins?: readonly string[];
  /** Told about each request, for the console. */
  log?: (line: string) => void;
}

export interface ReplayServer {
  url: string;
  /** Whether it listens on a loopback address only; otherwise anyone on the network can ask it. */
  loopback: boolean;
  close(): Promise<void>;
}

/** The largest request body read; a RunAgentInput is far smaller, and the recording answers nothing larger. */
const MAX_BODY = 16 * 1024 * 1024;

/**
 * The server's limits, set rather than left to Node's defaults (a minute for headers, five for a request,
 * no cap on sockets): an app on the same machine sends its request at once, and a replay serves one app.
 * The request limits stop at the request's end; a slow recorded stream is not cut.
 */
const LIMITS = { headersTimeout: 5_000, requestTimeout: 15_000, connectionsCheckingInterval: 1_000, keepAliveTimeout: 5_000 };
export const MAX_CONNECTIONS = 64;

/**
 * On every answer: a browser must not sniff a body into something it renders, and whatever it is shown
 * as runs nothing and loads nothing (a localhost page shares its cookies with every other localhost app).
 */
const EVERY_ANSWER = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "sandbox; default-src 'none'",
  'cache-control': 'no-store',
  vary: 'Origin',
};

const METHODS = 'POST, GET, OPTIONS';

/** The host names of this machine's loopback interface, as a URL or a Host header writes them. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

function urlOf(s: string): URL | null {
  try {
    return new URL(s);
  } catch {
    return null;
  }
}

const isWeb = (u: URL) => u.protocol === 'http:' || u.protocol === 'https:';

/** An Origin header naming a page served from this machine's loopback (http or https, any port), written as a browser writes it. */
function isLoopbackOrigin(origin: string): boolean {
  const u = urlOf(origin);
  return u !== null && isWeb(u) && u.origin === origin && LOOPBACK_NAMES.includes(u.hostname);
}

/** An `--allow-origin` value as a browser's Origin header writes it (`https://app.example:8443`), or null when it names no origin. */
function originOf(v: string): string | null {
  const u = urlOf(v);
  if (u === null || !isWeb(u) || u.username || u.password || u.pathname !== '/' || u.search || u.hash) return null;
  return u.origin;
}

const isLoopbackAddress = (a: string) => /^(::ffff:)?127\./.test(a) || a === '::1';
const asHostName = (a: string) => (isIPv6(a) ? `[${a}]` : a.toLowerCase());

/**
 * The Host headers a request may carry: the loopback names and the `--host` given, at the port listened on,
 * and this machine's addresses when it listens on all of them. A page whose own host name was made to resolve
 * to this machine (DNS rebinding) sends its name, which is none of these.
 */
function hostsFor(bound: AddressInfo, given: string | undefined): Set<string> {
  const names = new Set(LOOPBACK_NAMES);
  if (given !== undefined) names.add(asHostName(given));
  if (bound.address === '0.0.0.0' || bound.address === '::') {
    for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) names.add(asHostName(a.address));
  }
  const hosts = new Set<string>();
  for (const n of names) {
    hosts.add(`${n}:${bound.port}`);
    if (bound.port === 80) hosts.add(n);
  }
  return hosts;
}

interface Refusal {
  status: number;
  error: string;
  message: string;
}

/** An answer that carries no recorded data, and closes the connection so an unread request body ends with it. */
function refuse(res: ServerResponse, { status, error, message }: Refusal): void {
  res.writeHead(status, { 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify({ error, message }));
}

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (b: Buffer) => {
      size += b.length;
      if (size > MAX_BODY) {
        resolve(null);
        req.destroy();
      } else parts.push(b);
    });
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    // Closed before its end: the app went away mid-request (after 'end', or a body found too large, this changes nothing).
    req.on('close', () => reject(new Error('the app closed the connection before sending the whole request')));
    req.on('error', reject);
  });
}

/**
 * Resolves when `arm`'s event comes or the app has gone, whichever is first, and leaves nothing armed
 * behind: a wait on a closed connection would otherwise hold its timer or listener, and the replay, forever.
 */
function unlessGone(res: ServerResponse, arm: (done: () => void) => () => void): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) return resolve();
    let disarm = () => {};
    const done = () => {
      disarm();
      res.off('close', done);
      resolve();
    };
    res.once('close', done);
    disarm = arm(done);
  });
}

const drained = (res: ServerResponse) =>
  unlessGone(res, (done) => {
    res.once('drain', done);
    return () => res.off('drain', done);
  });

/**
 * Sends `x`'s answer to a request with `ids`; resolves to how many chunks were sent, whether the app took
 * them all, whether they are the recorded chunks as recorded, and the faults injected.
 */
async function play(x: CapturedExchange, res: ServerResponse, headers: Record<string, string>, o: { speed: Pace; ids: Ids | null; faults: readonly Fault[] }) {
  const a = answer(x, { pace: o.speed, ids: o.ids, faults: o.faults });
  res.writeHead(a.status, { ...headers, ...a.headers, 'content-type': servedContentType(a.contentType) });
  res.flushHeaders();
  const gone = new AbortController();
  const abort = () => gone.abort();
  if (res.destroyed) abort();
  else res.once('close', abort);
  let sent = 0;
  try {
    // Each chunk goes out as one write, so the app sees the answer's chunking, not one body.
    for await (const bytes of paced(a.chunks, { signal: gone.signal })) {
      if (!res.write(bytes)) await drained(res);
      if (res.destroyed) break;
      sent++;
    }
  } finally {
    res.off('close', abort);
  }
  const whole = !res.destroyed;
  if (whole) res.end();
  return { sent, whole, exact: a.exact, injected: a.injected };
}

/** A close frame's reason holds at most 123 bytes (RFC 6455 §5.5): a longer one is cut at a character. */
function closeReason(text: string): string {
  let out = text;
  while (Buffer.byteLength(out) > 123) out = out.slice(0, -1);
  return out;
}

/** Codes an endpoint may send in a close frame (RFC 6455 §7.4: 1005, 1006 and 1015 are only ever reported, never sent). */
const sendable = (code: number | null): code is number =>
  code !== null && ((code >= 1000 && code <= 1014 && ![1004, 1005, 1006].includes(code)) || (code >= 3000 && code <= 4999));

/** Resolves once `ms` after `start` has come, or at once when `signal` aborts: paced's clock, so a close keeps time with the frames before it. */
async function until(ms: number, start: number, signal: AbortSignal): Promise<void> {
  async function* due(): AsyncGenerator<TimedChunk> {
    yield { at: ms, bytes: new Uint8Array(0) };
  }
  for await (const _ of paced(due(), { signal, start })) break;
}

/** A refusal written on the raw connection of an Upgrade that is not taken, which has no ServerResponse. */
function refuseUpgrade(socket: Duplex, { status, error, message }: Refusal): void {
  const body = JSON.stringify({ error, message });
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}

interface SocketOptions {
  speed: Pace;
  keepIds: boolean;
  faults: readonly Fault[];
  log: (line: string) => void;
}

/**
 * Answers `x` on `ws` to the input frame `text` that came at `start`: each chunk of the answer one frame,
 * at its time after the input frame. The socket then closes as the recording's did when that close cut
 * the exchange (at its recorded time; a close with no code the client saw as the connection's loss), or
 * with 1011 when a cut fault ends it; otherwise it stays open for the client's next input.
 */
async function playOnSocket(ws: WebSocket, x: CapturedExchange, text: string, start: number, signal: AbortSignal, o: SocketOptions) {
  const a = answer(x, { pace: o.speed, ids: o.keepIds ? null : idsOf(text), faults: o.faults });
  const payload = socketPayload(a.contentType);
  let sent = 0;
  for await (const bytes of paced(a.chunks, { signal, start })) {
    const data = payload(bytes);
    const error = await new Promise<Error | undefined>((resolve) => ws.send(data, { binary: typeof data !== 'string' }, resolve));
    if (error || signal.aborted) break;
    sent++;
  }
  const whole = !signal.aborted && ws.readyState === ws.OPEN;
  const cut = o.faults.find((f) => f.kind === 'cut' && a.injected.includes(faultName(f)));
  const recorded = x.socket?.cutBy;
  if (whole && cut) ws.close(1011, closeReason(`${faultName(cut)} injected by AG-UI Inspector`));
  else if (whole && recorded) {
    const input = x.socket!.connection.frames[x.socket!.input]!;
    const due = ((recorded.time - input.time) * 1000) / (o.speed === 'max' ? Infinity : o.speed);
    await until(Number.isFinite(due) && due > 0 ? due : 0, start, signal);
    if (sendable(recorded.code)) ws.close(recorded.code, closeReason(recorded.reason));
    else ws.terminate();
  }
  return { sent, whole, exact: a.exact, injected: a.injected };
}

/**
 * Serves one client's socket at `path`: each text frame that is a RunAgentInput is answered by its
 * recorded exchange, several at once if the client sends them so; any other frame is told on the console
 * and left unanswered, as the reader leaves a frame that is no input to no exchange
 * (src/exchange/socket.ts). An input the recording cannot answer closes the socket with 1008, the reason
 * on the console in full.
 */
function serveSocket(ws: WebSocket, path: string, plan: ReplayPlan, o: SocketOptions): void {
  const { log } = o;
  const asked = `WebSocket ${path}`;
  const gone = new AbortController();
  ws.once('close', () => gone.abort());
  // ws closes the socket itself after an error (a malformed frame, one over maxPayload): what is left is to say why.
  ws.on('error', (e) => log(`${asked}: ${e.message}`));
  let frames = 0;
  ws.on('message', (data, isBinary) => {
    const start = performance.now();
    // Frames that arrive while a close is under way are the client's last words, not requests.
    if (ws.readyState !== ws.OPEN) return;
    const k = frames++;
    const text = isBinary ? null : (data as Buffer).toString('utf8');
    if (text === null || runAgentInputIn(text) === null) {
      return log(`${asked}: frame ${k} is no RunAgentInput (a JSON text frame): not answered`);
    }
    const m = plan.match(path, text, 'websocket');
    if (!m.ok) {
      log(`${asked} frame ${k} → closed (1008): ${m.message}${m.closest ? `; closest: recorded exchange ${m.closest.index}, which differs: ${m.closest.differences.join('; ') || 'in nothing but being served'}` : ''}`);
      return ws.close(1008, closeReason(`not in the recording: ${m.message}`));
    }
    log(`${asked} frame ${k} → recorded exchange ${m.index}${differing(m)}`);
    playOnSocket(ws, m.exchange, text, start, gone.signal, o).then(
      (played) => logPlayed(log, asked, m, o.faults, played),
      (e: unknown) => {
        log(`${asked}: ${e instanceof Error ? e.message : String(e)}`);
        ws.terminate();
      },
    );
  });
}

const differing = (m: Extract<ReplayMatch, { ok: true }>) => (m.differences.length ? `; differs: ${m.differences.join('; ')}` : '');

/** What the console says once an answer has ended: the faults it carried, and whether the app took it all. */
function logPlayed(log: (line: string) => void, asked: string, m: Extract<ReplayMatch, { ok: true }>, faults: readonly Fault[], played: { sent: number; whole: boolean; exact: boolean; injected: string[] }): void {
  if (faults.length > 0) {
    const missed = faults.map(faultName).filter((f) => !played.injected.includes(f));
    const why = missed.length ? `; not injected (the answer has no such event, or is no stream of events): ${missed.join(', ')}` : '';
    log(`${asked}: faults injected into recorded exchange ${m.index}: ${played.injected.join(', ') || 'none'}${why}`);
  }
  if (!played.whole) {
    const of = played.exact ? `${played.sent} of ${m.exchange.chunks.length} chunks of recorded exchange ${m.index}` : `${played.sent} chunks of its answer from recorded exchange ${m.index}`;
    log(`${asked}: the app went away after ${of}`);
  }
}

/**
 * Why `faults` cannot be asked of this recording, or null: a fault no socket can carry (src/answer's
 * fitsSocket) is refused when the recording holds no HTTP exchange it could reach, for it would reach
 * none; in a recording of both kinds it reaches the HTTP answers only, which the console says.
 */
export function unfitFaults(exchanges: readonly CapturedExchange[], faults: readonly Fault[]): string | null {
  const unfit = faults.filter((f) => !fitsSocket(f));
  if (unfit.length === 0 || exchanges.length === 0 || exchanges.some((x) => x.transport !== 'websocket')) return null;
  return `${unfit.map(faultName).join(', ')} cannot be injected on a WebSocket, and every exchange of this recording is on one: a socket has no HTTP status and delivers each frame whole (give stall, cut, drop, dup or error@terminal)`;
}

/** Starts serving `exchanges`; resolves once listening. Throws a FormatError, before listening, for an exchange no replay can answer. */
export async function startReplay(exchanges: readonly CapturedExchange[], o: ReplayOptions = {}): Promise<ReplayServer> {
  const plan = new ReplayPlan(exchanges);
  const speed = o.speed ?? 1;
  const faults = o.faults ?? [];
  const log = o.log ?? (() => {});
  const allowed = new Set<string>();
  for (const v of o.allowOrigins ?? []) {
    const origin = originOf(v);
    if (origin === null) throw new TypeError(`${JSON.stringify(v)} is not an origin (scheme://host[:port])`);
    allowed.add(origin);
  }
  const unfit = unfitFaults(exchanges, faults);
  if (unfit !== null) throw new TypeError(unfit);
  let hosts = new Set<string>();
  /**
   * Why a request may not ask at all, logged; null when it may. A WebSocket handshake is asked the same:
   * a browser sends its page's Origin on one, and no CORS stands between a socket and any page.
   */
  const refusal = (req: IncomingMessage, asked: string): Refusal | null => {
    const host = req.headers.host;
    if (host === undefined || !hosts.has(host.toLowerCase())) {
      log(`${asked} addressed to ${JSON.stringify(host ?? '')} → 421: not this machine's loopback or --host name`);
      return { status: 421, error: 'host-not-allowed', message: `this replay answers requests addressed to ${LOOPBACK_NAMES.join(', ')} or its --host, at its port` };
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !isLoopbackOrigin(origin) && !allowed.has(origin)) {
      log(`${asked} from ${origin} → 403: not a loopback origin (--allow-origin ${origin} lets its pages read the replay)`);
      return { status: 403, error: 'origin-not-allowed', message: 'this replay answers pages served from localhost, 127.0.0.1 or [::1] (any port) and the origins given with --allow-origin' };
    }
    return null;
  };
  const server: Server = createServer(LIMITS, (req, res) => {
    for (const [name, value] of Object.entries(EVERY_ANSWER)) res.setHeader(name, value);
    const path = pathOf(req.url);
    const asked = `${req.method} ${path}`;
    const refused = refusal(req, asked);
    if (refused) return refuse(res, refused);
    const origin = req.headers.origin;
    // The app is usually served from another port than the replay: let its page read the answers, with its credentials if it sends them.
    const cors: Record<string, string> = origin === undefined ? {} : { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true' };
    void (async () => {
      if (req.method === 'OPTIONS') {
        const preflight: Record<string, string> = { ...cors, allow: METHODS };
        if (origin !== undefined && req.headers['access-control-request-method'] !== undefined) {
          preflight['access-control-allow-methods'] = METHODS;
          const names = req.headers['access-control-request-headers'];
          if (names) preflight['access-control-allow-headers'] = names;
          // Chrome asks before a public page (one given with --allow-origin) reaches a loopback server.
          if (req.headers['access-control-request-private-network'] === 'true') preflight['access-control-allow-private-network'] = 'true';
          preflight['access-control-max-age'] = '600';
        }
        return void res.writeHead(204, preflight).end();
      }
      if (req.method !== 'POST') {
        const body = JSON.stringify({ replaying: plan.size, how: 'POST each RunAgentInput to the path it was recorded at' });
        return void res.writeHead(req.method === 'GET' ? 200 : 405, { ...cors, allow: METHODS, 'content-type': 'application/json' }).end(body);
      }
      const body = await readBody(req);
      if (body === null) return void res.writeHead(413, { ...cors, 'content-type': 'application/json' }).end('{"error":"request body too large"}');
      const m = plan.match(path, body);
      if (!m.ok) {
        log(`${asked} → 404: ${m.message}`);
        return void res.writeHead(404, { ...cors, 'content-type': 'application/json' }).end(unmatchedBody(m));
      }
      const x = m.exchange;
      const served = servedContentType(x.responseContentType);
      const as = served === x.responseContentType ? '' : `; served as ${served}, not the recorded ${JSON.stringify(x.responseContentType)}`;
      log(`${asked} → recorded exchange ${m.index} (HTTP ${x.status ?? 200})${as}${differing(m)}`);
      const played = await play(x, res, cors, { speed, ids: o.keepIds ? null : idsOf(body), faults });
      logPlayed(log, asked, m, faults, played);
    })().catch((e: unknown) => {
      log(`${asked}: ${e instanceof Error ? e.message : String(e)}`);
      if (!res.headersSent && !res.destroyed) res.writeHead(500).end();
      else res.destroy();
    });
  });
  server.maxConnections = MAX_CONNECTIONS;
  // A socket's input is a RunAgentInput, no larger than an HTTP one; ws closes with 1009 past it.
  // Loaded here, not with the module: the tool ships ws beside its bundle (vite.cli.config.ts), for replay alone.
  // From source, ws's ES wrapper names it; the shipped CommonJS index hangs it on its default export instead.
  const ws = await import('ws');
  const WebSocketServer = ws.WebSocketServer ?? (ws.default as unknown as typeof ws).WebSocketServer;
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_BODY });
  const socketOptions: SocketOptions = { speed, keepIds: o.keepIds ?? false, faults: faults.filter(fitsSocket), log };
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const path = pathOf(req.url);
    const asked = `WebSocket ${path}`;
    const refused = refusal(req, asked);
    if (refused) return refuseUpgrade(socket, refused);
    if (!plan.servesSocketAt(path)) {
      log(`${asked} → 404: the recording has no WebSocket exchange at ${path}`);
      return refuseUpgrade(socket, { status: 404, error: 'not-in-recording', message: `the recording has no WebSocket exchange at ${path}` });
    }
    sockets.handleUpgrade(req, socket, head, (ws) => serveSocket(ws, path, plan, socketOptions));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, o.host ?? '127.0.0.1', () => {
      hosts = hostsFor(server.address() as AddressInfo, o.host);
      resolve();
    });
  });
  const bound = server.address() as AddressInfo;
  return {
    url: `http://${asHostName(bound.address)}:${bound.port}`,
    loopback: isLoopbackAddress(bound.address),
    close: () =>
      new Promise((resolve) => {
        for (const ws of sockets.clients) ws.terminate();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function parseSpeed(v: string): Pace | null {
  if (v === 'max') return 'max';
  const n = Number(v);
  return Number.isFinite(n) && n > 0 ? n : null;
}

/** The `replay` command: serves until the process is stopped; resolves to an exit status only on failure to start. */
export async function replayCommand(argv: string[], io: { out: (s: string) => void; err: (s: string) => void }): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        speed: { type: 'string' },
        'allow-origin': { type: 'string', multiple: true },
        fault: { type: 'string', multiple: true },
        'keep-ids': { type: 'boolean' },
      },
    });
  } catch (e) {
    io.err(`agui-inspector: ${printable(e instanceof Error ? e.message : String(e))}\nUsage:\n${REPLAY_USAGE}\n`);
    return 2;
  }
  const [file, ...rest] = parsed.positionals;
  const port = parsed.values.port === undefined ? 8766 : Number(parsed.values.port);
  const speed = parseSpeed(parsed.values.speed ?? '1');
  const allowOrigins = parsed.values['allow-origin'] ?? [];
  const notOrigin = allowOrigins.find((v) => originOf(v) === null);
  if (notOrigin !== undefined) {
    io.err(`agui-inspector: ${printable(`--allow-origin ${JSON.stringify(notOrigin)} is not an origin: give scheme://host[:port], as a browser's Origin header names a page`)}\nUsage:\n${REPLAY_USAGE}\n`);
    return 2;
  }
  let faults: Fault[];
  try {
    faults = (parsed.values.fault ?? []).map(parseFault);
  } catch (e) {
    io.err(`agui-inspector: --fault ${printable(e instanceof Error ? e.message : String(e))}\nUsage:\n${REPLAY_USAGE}\n`);
    return 2;
  }
  if (file === undefined || rest.length > 0 || !Number.isInteger(port) || port < 0 || port > 65535 || speed === null) {
    io.err(`agui-inspector: replay takes one recording, a --port from 0 to 65535 and a --speed of max or a positive number\nUsage:\n${REPLAY_USAGE}\n`);
    return 2;
  }
  let exchanges: CapturedExchange[];
  try {
    exchanges = readExchanges(readFileSync(file), file);
  } catch (e) {
    io.err(`agui-inspector: ${printable(file)}: ${printable(e instanceof FormatError ? e.message : `cannot read file: ${reason(e)}`)}\n`);
    return 2;
  }
  const unfit = unfitFaults(exchanges, faults);
  if (unfit !== null) {
    io.err(`agui-inspector: --fault ${printable(unfit)}\n`);
    return 2;
  }
  let server: ReplayServer;
  try {
    // Request paths and recorded ids reach the terminal: escaped like every value the CLI prints.
    server = await startReplay(exchanges, { port, host: parsed.values.host, speed, faults, keepIds: parsed.values['keep-ids'], allowOrigins, log: (line) => io.out(printable(line) + '\n') });
  } catch (e) {
    // A FormatError names the exchange (file#entries/N) that cannot be replayed.
    const why = e instanceof FormatError ? e.message : `cannot listen on ${parsed.values.host ?? '127.0.0.1'}:${port}: ${e instanceof Error ? e.message : String(e)}`;
    io.err(`agui-inspector: ${printable(why)}\n`);
    return 2;
  }
  if (!server.loopback) io.err(`agui-inspector: warning: ${printable(`--host ${parsed.values.host}`)} is not a loopback address: the recording is served to the network, unauthenticated\n`);
  const with_ = [`speed ${speed}`, ...(parsed.values['keep-ids'] ? ['recorded ids'] : []), ...faults.map((f) => `fault ${faultName(f)}`)].join(', ');
  io.out(`Replaying ${exchanges.length} exchanges from ${printable(file)} on ${server.url} (${with_}). Point the app's agent URL at ${server.url}<the recorded path>; Ctrl-C stops.\n`);
  const onSockets = exchanges.filter((x) => x.transport === 'websocket').length;
  if (onSockets > 0) {
    const httpOnly = faults.filter((f) => !fitsSocket(f)).map(faultName);
    const only = httpOnly.length ? ` (${httpOnly.join(', ')} only reach the HTTP answers: a socket has no status and delivers each frame whole)` : '';
    io.out(`${onSockets} of them were recorded on a WebSocket: connect to ${server.url.replace(/^http/, 'ws')}<the recorded path> and send each input as a text frame${only}.\n`);
  }
  return new Promise<number>(() => {});
}
