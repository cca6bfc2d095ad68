/**
 * `agui-inspector replay <recording.har>`: a local HTTP server that answers an app's AG-UI requests with
 * the recorded responses — status, content type and the recorded bytes in the recorded chunks, at the
 * recorded pace or as fast as possible, with the request's own ids and any faults asked for — so a bug
 * report reproduces without the agent behind it. Which exchange answers which request is
 * src/recording/replay.ts's business; what the answer is, src/answer's.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIPv6, type AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { parseArgs } from 'node:util';
import { answer, faultName, idsOf, paced, parseFault, type Fault, type Ids, type Pace } from '../answer/index.ts';
import type { CapturedExchange } from '../exchange/index.ts';
import { FormatError, readExchanges } from '../formats/index.ts';
import { pathOf, ReplayPlan, servedContentType, unmatchedBody } from '../recording/index.ts';
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

/** An answer that carries no recorded data, and closes the connection so an unread request body ends with it. */
function refuse(res: ServerResponse, status: number, error: string, message: string): void {
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
  let hosts = new Set<string>();
  const server: Server = createServer(LIMITS, (req, res) => {
    for (const [name, value] of Object.entries(EVERY_ANSWER)) res.setHeader(name, value);
    const path = pathOf(req.url);
    const asked = `${req.method} ${path}`;
    const host = req.headers.host;
    if (host === undefined || !hosts.has(host.toLowerCase())) {
      log(`${asked} addressed to ${JSON.stringify(host ?? '')} → 421: not this machine's loopback or --host name`);
      return refuse(res, 421, 'host-not-allowed', `this replay answers requests addressed to ${LOOPBACK_NAMES.join(', ')} or its --host, at its port`);
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !isLoopbackOrigin(origin) && !allowed.has(origin)) {
      log(`${asked} from ${origin} → 403: not a loopback origin (--allow-origin ${origin} lets its pages read the replay)`);
      return refuse(res, 403, 'origin-not-allowed', 'this replay answers pages served from localhost, 127.0.0.1 or [::1] (any port) and the origins given with --allow-origin');
    }
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
      log(`${asked} → recorded exchange ${m.index} (HTTP ${x.status ?? 200})${as}${m.differences.length ? `; differs: ${m.differences.join('; ')}` : ''}`);
      const played = await play(x, res, cors, { speed, ids: o.keepIds ? null : idsOf(body), faults });
      if (faults.length > 0) {
        const missed = faults.map(faultName).filter((f) => !played.injected.includes(f));
        const why = missed.length ? `; not injected (the answer has no such event, or is no stream of events): ${missed.join(', ')}` : '';
        log(`${asked}: faults injected into recorded exchange ${m.index}: ${played.injected.join(', ') || 'none'}${why}`);
      }
      if (!played.whole) {
        const of = played.exact ? `${played.sent} of ${x.chunks.length} chunks of recorded exchange ${m.index}` : `${played.sent} chunks of its answer from recorded exchange ${m.index}`;
        log(`${asked}: the app went away after ${of}`);
      }
    })().catch((e: unknown) => {
      log(`${asked}: ${e instanceof Error ? e.message : String(e)}`);
      if (!res.headersSent && !res.destroyed) res.writeHead(500).end();
      else res.destroy();
    });
  });
  server.maxConnections = MAX_CONNECTIONS;
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
  return new Promise<number>(() => {});
}
