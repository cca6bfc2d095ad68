/**
 * `agui-inspector replay <recording.har>`: a local HTTP server that answers an app's AG-UI requests with
 * the recorded responses — status, content type and the exact recorded bytes in the recorded chunks, at
 * the recorded pace or as fast as possible — so a bug report reproduces without the agent behind it.
 * Which exchange answers which request is src/recording/replay.ts's business.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import type { CapturedExchange } from '../formats/index.ts';
import { FormatError, readExchanges } from '../formats/index.ts';
import { pathOf, ReplayPlan, unmatchedBody } from '../recording/index.ts';
import { reason } from './files.ts';
import { printable } from './printable.ts';
import { REPLAY_USAGE } from './usage.ts';


/** `1` plays at the recorded pace, `2` twice as fast, `max` as fast as the socket takes it. */
export type Speed = number | 'max';

export interface ReplayOptions {
  port?: number;
  host?: string;
  speed?: Speed;
  /** Told about each request, for the console. */
  log?: (line: string) => void;
}

export interface ReplayServer {
  url: string;
  close(): Promise<void>;
}

/** The largest request body read; a RunAgentInput is far smaller, and the recording answers nothing larger. */
const MAX_BODY = 16 * 1024 * 1024;

function corsHeaders(req: IncomingMessage): Record<string, string> {
  // The app is usually served from another port than the replay: let its page read the answers.
  return {
    'access-control-allow-origin': req.headers.origin ?? '*',
    'access-control-allow-methods': 'POST, GET, OPTIONS',
    'access-control-allow-headers': req.headers['access-control-request-headers'] ?? 'content-type, accept',
    'access-control-max-age': '600',
    vary: 'Origin',
  };
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
    req.on('error', reject);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function play(x: CapturedExchange, res: ServerResponse, headers: Record<string, string>, speed: Speed): Promise<void> {
  res.writeHead(x.status ?? 200, { ...headers, 'content-type': x.responseContentType || 'application/octet-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
  const start = performance.now();
  for (const chunk of x.chunks) {
    if (res.destroyed) return;
    if (speed !== 'max') {
      const due = chunk.time / speed - (performance.now() - start);
      if (due > 0) await sleep(due);
    }
    // Each recorded chunk goes out as one write, so the app sees the recorded chunking, not one body.
    await new Promise<void>((resolve) => (res.write(chunk.bytes) ? resolve() : res.once('drain', resolve)));
  }
  res.end();
}

/** Starts serving `exchanges`; resolves once listening. */
export async function startReplay(exchanges: readonly CapturedExchange[], o: ReplayOptions = {}): Promise<ReplayServer> {
  const plan = new ReplayPlan(exchanges);
  const speed = o.speed ?? 1;
  const log = o.log ?? (() => {});
  const server: Server = createServer((req, res) => {
    void (async () => {
      const headers = corsHeaders(req);
      const path = pathOf(req.url);
      if (req.method === 'OPTIONS') return void res.writeHead(204, headers).end();
      if (req.method !== 'POST') {
        const body = JSON.stringify({ replaying: plan.size, how: 'POST each RunAgentInput to the path it was recorded at' });
        return void res.writeHead(req.method === 'GET' ? 200 : 405, { ...headers, 'content-type': 'application/json' }).end(body);
      }
      const body = await readBody(req);
      if (body === null) return void res.writeHead(413, { ...headers, 'content-type': 'application/json' }).end('{"error":"request body too large"}');
      const m = plan.match(path, body);
      if (!m.ok) {
        log(`POST ${path} → 404: ${m.message}`);
        return void res.writeHead(404, { ...headers, 'content-type': 'application/json' }).end(unmatchedBody(m));
      }
      log(`POST ${path} → recorded exchange ${m.index} (HTTP ${m.exchange.status ?? 200})${m.differences.length ? `; differs: ${m.differences.join('; ')}` : ''}`);
      await play(m.exchange, res, headers, speed);
    })().catch((e: unknown) => {
      log(`error: ${e instanceof Error ? e.message : String(e)}`);
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, o.host ?? '127.0.0.1', resolve);
  });
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function parseSpeed(v: string): Speed | null {
  if (v === 'max') return 'max';
  const n = Number(v);
  return Number.isFinite(n) && n > 0 ? n : null;
}

/** The `replay` command: serves until the process is stopped; resolves to an exit status only on failure to start. */
export async function replayCommand(argv: string[], io: { out: (s: string) => void; err: (s: string) => void }): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { port: { type: 'string' }, host: { type: 'string' }, speed: { type: 'string' } } });
  } catch (e) {
    io.err(`agui-inspector: ${printable(e instanceof Error ? e.message : String(e))}\nUsage:\n${REPLAY_USAGE}\n`);
    return 2;
  }
  const [file, ...rest] = parsed.positionals;
  const port = parsed.values.port === undefined ? 8766 : Number(parsed.values.port);
  const speed = parseSpeed(parsed.values.speed ?? '1');
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
    server = await startReplay(exchanges, { port, host: parsed.values.host, speed, log: (line) => io.out(printable(line) + '\n') });
  } catch (e) {
    io.err(`agui-inspector: ${printable(`cannot listen on ${parsed.values.host ?? '127.0.0.1'}:${port}: ${e instanceof Error ? e.message : String(e)}`)}\n`);
    return 2;
  }
  io.out(`Replaying ${exchanges.length} exchanges from ${printable(file)} on ${server.url} (speed ${speed}). Point the app's agent URL at ${server.url}<the recorded path>; Ctrl-C stops.\n`);
  return new Promise<number>(() => {});
}
