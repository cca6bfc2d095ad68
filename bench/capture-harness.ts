/**
 * What the capture benches share (capture.ts over HTTP, capture-socket.ts over a WebSocket): one AG-UI
 * answer and its pacing, the timed frames, the page they are read in (capture-page/index.html) in plain
 * Chromium and in Chromium with the built extension, alternating runs, the wait for the worker to hold
 * every byte, and the rows each reports against the same targets.
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { Rng } from '../test/analyzer/support/prng.ts';
import { buildExtension, launchChromium, sleep, type ChromiumBrowser } from '../test/e2e/browsers.ts';
import { median, percentile, type Measure } from './report.ts';

export const MB = 1e6;
const FRAME_MIN = 200;
const FRAME_MAX = 2000;
export const WARMUP = 1;
export const RUNS = 5;
export const PACED_MBPS = 50;
export const TIMED_FRAMES = 1000;
export const TIMED_FRAME_BYTES = 1024;
export const TIMED_GAP_MS = 2;
export const TIMED_RUNS = 3;
/** Lets the worker's persistence and both browsers' garbage settle before the next run. */
const SETTLE_MS = 300;
/** What the page sees of a stream paced at PACED_MBPS with the extension, against without. */
const TARGET_PACED_RATIO = 0.99;
const TARGET_ADDED_MS = 1;

export const IDS = { threadId: 'thread-bench', runId: 'run-bench' };
/** The request: a RunAgentInput, which is what marks the exchange as AG-UI before any byte arrives. */
export const INPUT = JSON.stringify({
  ...IDS, state: {}, tools: [], context: [], forwardedProps: {},
  messages: [{ id: 'user-1', role: 'user', content: 'Write a very long answer.' }],
});
const WORDS = 'the of and to in is that for it as with was on be by this are from at or an which have not they you were'.split(' ');

export const clock = (): number => performance.timeOrigin + performance.now();

export function prose(rng: Rng, size: number): string {
  let s = '';
  while (s.length < size) s += rng.pick(WORDS) + (rng.chance(0.08) ? '. ' : ' ');
  return s;
}

type Event = Record<string, unknown>;

/**
 * One run's events whose frames, as `frame` writes each, come to `total` bytes (less at most a frame and its
 * closing events): TEXT_MESSAGE_CONTENT frames of 200–2000 bytes.
 */
export function longAnswer(total: number, frame: (e: Event) => string): string[] {
  const rng = new Rng(11);
  // Frames are cut from one pool: generating 64 MB of fresh prose would dominate the setup time.
  const pool = prose(rng, 1 << 20);
  const parts = [frame({ type: 'RUN_STARTED', ...IDS })];
  let size = parts[0]!.length;
  const push = (f: string): void => {
    parts.push(f);
    size += f.length;
  };
  const room = (): boolean => size + FRAME_MAX + 1024 < total;
  for (let message = 1; room(); message++) {
    const messageId = `msg-${message}`;
    push(frame({ type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' }));
    const overhead = frame({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta: '' }).length;
    for (let k = rng.int(20, 200); k > 0 && room(); k--) {
      const n = rng.int(FRAME_MIN, FRAME_MAX) - overhead;
      const at = rng.int(0, pool.length - n);
      push(frame({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta: pool.slice(at, at + n) }));
    }
    push(frame({ type: 'TEXT_MESSAGE_END', messageId }));
  }
  push(frame({ type: 'RUN_FINISHED', ...IDS }));
  return parts;
}

/** The items, each sent when the bytes before it are due at `mbps`. */
export async function* paced<T extends { length: number }>(items: Iterable<T>, mbps = PACED_MBPS): AsyncGenerator<T> {
  const start = performance.now();
  let sent = 0;
  for (const item of items) {
    // Due times are absolute, so one late timer does not slow every write after it.
    const wait = start + (sent / (mbps * MB)) * 1000 - performance.now();
    if (wait > 1) await sleep(wait);
    yield item;
    sent += item.length;
  }
}

/**
 * TIMED_FRAMES frames of TIMED_FRAME_BYTES as `frame` writes each, TIMED_GAP_MS apart, each stamped with
 * its send time; before them the run's opening events, after them its closing ones, each a batch.
 */
export async function* timedFrames(frame: (e: Event) => string): AsyncGenerator<string[]> {
  const messageId = 'msg-timed';
  const padding = prose(new Rng(3), TIMED_FRAME_BYTES);
  yield [frame({ type: 'RUN_STARTED', ...IDS }), frame({ type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' })];
  const start = performance.now();
  for (let i = 0; i < TIMED_FRAMES; i++) {
    // Due times are absolute, so one late timer does not shift every frame after it.
    const wait = start + i * TIMED_GAP_MS - performance.now();
    if (wait > 0) await sleep(wait);
    const stamp = `@${clock().toFixed(3)} `;
    const n = TIMED_FRAME_BYTES - frame({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta: stamp }).length;
    yield [frame({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta: stamp + padding.slice(0, n) })];
  }
  yield [frame({ type: 'TEXT_MESSAGE_END', messageId }), frame({ type: 'RUN_FINISHED', ...IDS })];
}

export interface Server {
  url: string;
  http: HttpServer;
  close(): Promise<void>;
}

/** Serves the bench page at `/` and answers a POST to each of `routes`' paths. */
export async function startServer(routes: Record<string, (res: ServerResponse, req: IncomingMessage) => void>): Promise<Server> {
  const page = readFileSync(new URL('./capture-page/index.html', import.meta.url));
  const http = createServer((req, res) => {
    req.resume();
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (req.method === 'GET' && path === '/') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    else if (req.method === 'POST' && Object.hasOwn(routes, path)) routes[path]!(res, req);
    else res.writeHead(404).end();
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    http,
    close: () => {
      http.closeAllConnections();
      return new Promise((resolve) => http.close(() => resolve()));
    },
  };
}

/**
 * What capture-page/index.html puts on window: each reads one answer at `path` after sending `input`, over
 * fetch or a WebSocket; the throughputs answer { bytes, chunks, ms }, the latencies { delays, reads, bytes }.
 */
type BenchCall = 'throughput' | 'socketThroughput' | 'latency' | 'socketLatency';
interface BenchWindow {
  bench: Record<BenchCall, (path: string, input: string) => Promise<unknown>>;
}

export interface Side {
  browser: ChromiumBrowser;
  page: Page;
  extension: boolean;
}

let navigations = 0;

export interface Capture {
  /** How long after the page finished the worker had accounted for every byte. */
  lag: number;
  /** Share of the response bytes the worker holds; the rest was dropped (and counted) on the way. */
  held: number;
}

/**
 * Waits until the worker has accounted for every response byte the page read at `url`, held or
 * dropped, then clears that session so the next run starts from an empty worker.
 */
async function captured(b: ChromiumBrowser, url: string, bytes: number): Promise<Capture> {
  const t0 = performance.now();
  for (;;) {
    const s = (await b.request({ type: 'agui-inspector/sessions' })).find((x) => x.url === url);
    // Held bytes include the request body (a socket's input frame).
    if (s && s.stats.exchanges === 1 && s.stats.bytes > 0 && s.stats.bytes + s.stats.dropped.bytes >= INPUT.length + bytes) {
      const lag = performance.now() - t0;
      await b.request({ type: 'agui-inspector/clear', tabId: s.tabId });
      return { lag, held: 1 - s.stats.dropped.bytes / bytes };
    }
    if (performance.now() - t0 > 60_000) throw new Error(`the extension did not capture ${url}: ${JSON.stringify(s?.stats)}`);
    await sleep(25);
  }
}

/**
 * One read of the page's bench function `call` in a new document (its URL names the worker's session for
 * this run alone), with what the worker then holds of it.
 */
async function pageRun<R extends { bytes: number }>(side: Side, base: string, call: BenchCall, path: string): Promise<R & { capture: Capture | null }> {
  const url = `${base}/?run=${++navigations}`;
  await side.page.goto(url);
  const r = (await side.page.evaluate(([c, p, input]) => (window as unknown as BenchWindow).bench[c](p, input), [call, path, INPUT] as const)) as R;
  const capture = side.extension ? await captured(side.browser, url, r.bytes) : null;
  await sleep(SETTLE_MS);
  return { ...r, capture };
}

/** Plain Chromium and Chromium with the built extension, each with a page; `order(i)` alternates which goes first in run i. */
export async function withBrowsers<T>(fn: (sides: [Side, Side], order: (i: number) => Side[]) => Promise<T>): Promise<T> {
  const extDir = await buildExtension('chrome');
  const [plain, withExt] = await Promise.all([launchChromium(), launchChromium({ extDir })]);
  try {
    const sides: [Side, Side] = [
      { browser: plain, page: await plain.newPage(), extension: false },
      { browser: withExt, page: await withExt.newPage(), extension: true },
    ];
    // Opens the extension page that answers API calls now, not during the first measured run.
    await withExt.request({ type: 'agui-inspector/sessions' });
    // Alternating which browser goes first, so neither always runs in the other's wake.
    return await fn(sides, (i) => (i % 2 === 0 ? sides : [sides[1], sides[0]]));
  } finally {
    await Promise.all([plain.close(), withExt.close()]);
  }
}

export interface Throughputs {
  mbps: Map<Side, number[]>;
  captures: Capture[];
}

/** WARMUP then RUNS alternating reads of `path` by each side, expected to be `expected` bytes. */
export async function throughputRuns(sides: Side[], order: (i: number) => Side[], base: string, call: 'throughput' | 'socketThroughput', path: string, expected: number): Promise<Throughputs> {
  const mbps = new Map<Side, number[]>(sides.map((s) => [s, []]));
  const captures: Capture[] = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    for (const side of order(i)) {
      const r = await pageRun<{ bytes: number; ms: number }>(side, base, call, path);
      if (r.bytes !== expected) throw new Error(`the page read ${r.bytes} bytes of ${expected}`);
      if (i < WARMUP) continue;
      mbps.get(side)!.push(r.bytes / MB / (r.ms / 1000));
      if (r.capture) captures.push(r.capture);
    }
  }
  return { mbps, captures };
}

const round = (x: number, digits: number): number => Number(x.toFixed(digits));
const speed = (runs: Throughputs, s: Side): number => median(runs.mbps.get(s)!);
const spread = (runs: Throughputs, s: Side): string => `runs ${runs.mbps.get(s)!.map((x) => x.toFixed(x < 10 ? 2 : 0)).join(', ')}`;

/** The unpaced rows: each side's throughput, their ratio, what it costs the page's thread per MB, and what the worker held. */
export function unpacedRows(kind: string, runs: Throughputs, [off, on]: [Side, Side], what: string): Measure[] {
  const ratio = speed(runs, on) / speed(runs, off);
  return [
    { name: `${kind} throughput, no extension`, value: round(speed(runs, off), 1), unit: 'MB/s', note: `${spread(runs, off)}; ${what}` },
    { name: `${kind} throughput, with extension`, value: round(speed(runs, on), 1), unit: 'MB/s', note: spread(runs, on) },
    {
      name: 'throughput ratio with/without, unpaced', value: round(ratio, 3), unit: '×',
      note: `medians of ${RUNS} alternating runs after ${WARMUP} warm-up; a loopback read as fast as the page can take it, so it shows the cost below rather than what a user meets`,
    },
    {
      name: 'page-thread cost of capture', value: round(1000 / speed(runs, on) - 1000 / speed(runs, off), 2), unit: 'ms/MB',
      note: 'the unpaced read\'s time per MB with the extension minus without',
    },
    {
      name: 'bytes the worker holds, with extension', value: round(100 * Math.min(...runs.captures.map((c) => c.held)), 1), unit: '%', target: '100',
      note: 'worst run; anything missing was dropped (and counted) where capture fell behind the page',
    },
    { name: 'capture settled, after page done', value: round(median(runs.captures.map((c) => c.lag)), 0), unit: 'ms', note: 'median; polled every 25 ms' },
  ];
}

/** The paced rows: each side's throughput, their ratio against its target, and what the worker held. */
export function pacedRows(name: string, runs: Throughputs, [off, on]: [Side, Side], what: string): Measure[] {
  const ratio = speed(runs, on) / speed(runs, off);
  return [
    { name: `${name}, no extension`, value: round(speed(runs, off), 1), unit: 'MB/s', note: `${spread(runs, off)}; ${what}` },
    { name: `${name}, with extension`, value: round(speed(runs, on), 1), unit: 'MB/s', note: spread(runs, on) },
    {
      name: `${name}, ratio with/without`, value: round(ratio, 3), unit: '×', target: `≥ ${TARGET_PACED_RATIO}`,
      note: `${ratio >= TARGET_PACED_RATIO ? 'met' : 'MISSED'}; what the page sees of a stream faster than any model's; medians of ${RUNS} alternating runs after ${WARMUP} warm-up`,
    },
    { name: `${name}, bytes the worker holds`, value: round(100 * Math.min(...runs.captures.map((c) => c.held)), 1), unit: '%', target: '100', note: 'worst run' },
    { name: `${name}, capture settled after page done`, value: round(median(runs.captures.map((c) => c.lag)), 0), unit: 'ms', note: 'median; polled every 25 ms' },
  ];
}

/**
 * WARMUP then TIMED_RUNS alternating timed reads of `path` by each side, reported as each side's delay
 * (page receive time minus server send time) median and p95, and what the extension adds to them.
 */
export async function delayRows(sides: [Side, Side], order: (i: number) => Side[], base: string, call: 'latency' | 'socketLatency', path: string, unit: string): Promise<Measure[]> {
  const delays = new Map<Side, number[]>(sides.map((s) => [s, []]));
  const reads = new Map<Side, number>(sides.map((s) => [s, 0]));
  const held: number[] = [];
  for (let i = 0; i < WARMUP + TIMED_RUNS; i++) {
    for (const side of order(i)) {
      const r = await pageRun<{ delays: number[]; reads: number; bytes: number }>(side, base, call, path);
      if (r.delays.length !== TIMED_FRAMES) throw new Error(`the page saw ${r.delays.length} timed frames of ${TIMED_FRAMES}`);
      if (i < WARMUP) continue;
      delays.get(side)!.push(...r.delays);
      reads.set(side, reads.get(side)! + r.reads);
      if (r.capture) held.push(r.capture.held);
    }
  }
  const [off, on] = sides;
  const stat = (s: Side, p: number): number => percentile(delays.get(s)!, p);
  const rows: Measure[] = [];
  for (const [label, s] of [['no extension', off], ['with extension', on]] as const) {
    rows.push(
      { name: `per-${unit} delay, ${label}, median`, value: round(stat(s, 50), 2), unit: 'ms', note: `${delays.get(s)!.length} frames in ${reads.get(s)} reads` },
      { name: `per-${unit} delay, ${label}, p95`, value: round(stat(s, 95), 2), unit: 'ms' },
    );
  }
  const added = stat(on, 50) - stat(off, 50);
  rows.push(
    {
      name: `added per-${unit} delay, median`, value: round(added, 2), unit: 'ms', target: `< ${TARGET_ADDED_MS}`,
      note: `${added < TARGET_ADDED_MS ? 'met' : 'MISSED'}; ${TIMED_FRAMES} × ${TIMED_FRAME_BYTES} B, ${TIMED_GAP_MS} ms apart, ${TIMED_RUNS} runs each`,
    },
    { name: `added per-${unit} delay, p95`, value: round(stat(on, 95) - stat(off, 95), 2), unit: 'ms' },
    { name: 'timed bytes the worker holds', value: round(100 * Math.min(...held), 1), unit: '%', target: '100', note: 'worst run' },
  );
  return rows;
}
