/**
 * What capture costs the page: the same AG-UI streams read by the same page in plain Chromium and in
 * Chromium with the built extension, side by side in one run.
 *
 * 1. Throughput: a 64 MB SSE answer (TEXT_MESSAGE_CONTENT frames of 200–2000 bytes) written in
 *    16–64 KB writes as fast as the page takes them, read with fetch + getReader().
 * 2. The same answer paced by the server at 50 MB/s, far above any model's output: capture costs the
 *    page's thread several milliseconds per megabyte in Chrome (its extension messaging), which an
 *    unpaced read on loopback, done in ~100 ms, cannot absorb; a paced stream leaves the page idle time.
 * 3. Per-chunk delay: 1,000 frames of 1 KB, 2 ms apart, each stamped with its send time; the page
 *    stamps each read. Server and page read the same system clock (timeOrigin + now()).
 *
 * The with-extension figures count only if the worker then holds every byte; otherwise the
 * extension was not in the path and the comparison would be meaningless.
 *
 *   npx tsx bench/capture.ts
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { Rng } from '../test/analyzer/support/prng.ts';
import { buildExtension, launchChromium, sleep, type ChromiumBrowser } from '../test/e2e/browsers.ts';
import { formatSection, measuresSection, median, percentile, type Measure } from './report.ts';

const MB = 1e6;
/** Under the default per-tab cap of 64 MiB (request body included), so nothing is dropped. */
const STREAM_BYTES = 64 * MB;
const WRITE_MIN = 16 * 1024;
const WRITE_MAX = 64 * 1024;
const FRAME_MIN = 200;
const FRAME_MAX = 2000;
const WARMUP = 1;
const RUNS = 5;
const PACED_MBPS = 50;
const TIMED_FRAMES = 1000;
const TIMED_FRAME_BYTES = 1024;
const TIMED_GAP_MS = 2;
const TIMED_RUNS = 3;
/** Lets the worker's persistence and both browsers' garbage settle before the next run. */
const SETTLE_MS = 300;
/** What the page sees of a stream paced at PACED_MBPS with the extension, against without. */
const TARGET_PACED_RATIO = 0.99;
const TARGET_ADDED_MS = 1;

const IDS = { threadId: 'thread-bench', runId: 'run-bench' };
/** The request: a RunAgentInput, which is what marks the exchange as AG-UI before any byte arrives. */
const INPUT = JSON.stringify({
  ...IDS, state: {}, tools: [], context: [], forwardedProps: {},
  messages: [{ id: 'user-1', role: 'user', content: 'Write a very long answer.' }],
});
const WORDS = 'the of and to in is that for it as with was on be by this are from at or an which have not they you were'.split(' ');

const clock = (): number => performance.timeOrigin + performance.now();
const sse = (event: Record<string, unknown>): string => `data: ${JSON.stringify(event)}\n\n`;

function prose(rng: Rng, size: number): string {
  let s = '';
  while (s.length < size) s += rng.pick(WORDS) + (rng.chance(0.08) ? '. ' : ' ');
  return s;
}

/** One run whose answer is `total` bytes (less at most a frame and its closing events) of text deltas. */
function longAnswer(total: number): Buffer {
  const rng = new Rng(11);
  // Frames are cut from one pool: generating 64 MB of fresh prose would dominate the setup time.
  const pool = prose(rng, 1 << 20);
  const parts = [sse({ type: 'RUN_STARTED', ...IDS })];
  let size = parts[0]!.length;
  const push = (frame: string): void => {
    parts.push(frame);
    size += frame.length;
  };
  const room = (): boolean => size + FRAME_MAX + 1024 < total;
  for (let message = 1; room(); message++) {
    const messageId = `msg-${message}`;
    push(sse({ type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' }));
    const overhead = sse({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta: '' }).length;
    for (let k = rng.int(20, 200); k > 0 && room(); k--) {
      const n = rng.int(FRAME_MIN, FRAME_MAX) - overhead;
      const at = rng.int(0, pool.length - n);
      push(sse({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta: pool.slice(at, at + n) }));
    }
    push(sse({ type: 'TEXT_MESSAGE_END', messageId }));
  }
  push(sse({ type: 'RUN_FINISHED', ...IDS }));
  return Buffer.from(parts.join(''));
}

function* writes(body: Buffer): Generator<Buffer> {
  // The same seed for every request, so both browsers get the same write pattern.
  const rng = new Rng(5);
  for (let at = 0; at < body.length; ) {
    const n = rng.int(WRITE_MIN, WRITE_MAX);
    yield body.subarray(at, at + n);
    at += n;
  }
}

async function* paced(body: Buffer): AsyncGenerator<Buffer> {
  const start = performance.now();
  let sent = 0;
  for (const chunk of writes(body)) {
    // Due times are absolute, so one late timer does not slow every write after it.
    const wait = start + (sent / (PACED_MBPS * MB)) * 1000 - performance.now();
    if (wait > 1) await sleep(wait);
    yield chunk;
    sent += chunk.length;
  }
}

async function* timedFrames(): AsyncGenerator<string> {
  const messageId = 'msg-timed';
  const padding = prose(new Rng(3), TIMED_FRAME_BYTES);
  yield sse({ type: 'RUN_STARTED', ...IDS }) + sse({ type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' });
  const start = performance.now();
  for (let i = 0; i < TIMED_FRAMES; i++) {
    // Due times are absolute, so one late timer does not shift every frame after it.
    const wait = start + i * TIMED_GAP_MS - performance.now();
    if (wait > 0) await sleep(wait);
    const stamp = `@${clock().toFixed(3)} `;
    const n = TIMED_FRAME_BYTES - sse({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta: stamp }).length;
    yield sse({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta: stamp + padding.slice(0, n) });
  }
  yield sse({ type: 'TEXT_MESSAGE_END', messageId }) + sse({ type: 'RUN_FINISHED', ...IDS });
}

interface Server {
  url: string;
  close(): Promise<void>;
}

async function startServer(body: Buffer): Promise<Server> {
  const page = readFileSync(new URL('./capture-page/index.html', import.meta.url));
  const stream = (res: ServerResponse, source: Iterable<Buffer> | AsyncIterable<Buffer | string>): void => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    // pipeline writes only when the socket drained; a page that went away just ends the response.
    pipeline(Readable.from(source), res).catch(() => res.destroy());
  };
  const server = createServer((req, res) => {
    req.resume();
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (req.method === 'GET' && path === '/') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    else if (req.method === 'POST' && path === '/stream') stream(res, writes(body));
    else if (req.method === 'POST' && path === '/paced') stream(res, paced(body));
    else if (req.method === 'POST' && path === '/timed') stream(res, timedFrames());
    else res.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** What bench/capture-page/index.html puts on window. */
interface BenchWindow {
  bench: {
    throughput(path: string, input: string): Promise<{ bytes: number; chunks: number; ms: number }>;
    latency(path: string, input: string): Promise<{ delays: number[]; reads: number; bytes: number }>;
  };
}

interface Side {
  browser: ChromiumBrowser;
  page: Page;
  extension: boolean;
}

let navigations = 0;

/** A new document per run: its URL names the worker's session for this run alone. */
async function load(side: Side, base: string): Promise<string> {
  const url = `${base}/?run=${++navigations}`;
  await side.page.goto(url);
  return url;
}

interface Capture {
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
    // Held bytes include the request body.
    if (s && s.stats.exchanges === 1 && s.stats.bytes > 0 && s.stats.bytes + s.stats.dropped.bytes >= INPUT.length + bytes) {
      const lag = performance.now() - t0;
      await b.request({ type: 'agui-inspector/clear', tabId: s.tabId });
      return { lag, held: 1 - s.stats.dropped.bytes / bytes };
    }
    if (performance.now() - t0 > 60_000) throw new Error(`the extension did not capture ${url}: ${JSON.stringify(s?.stats)}`);
    await sleep(25);
  }
}

async function throughputRun(side: Side, base: string, path: string, expected: number): Promise<{ mbps: number; capture: Capture | null }> {
  const url = await load(side, base);
  const r = await side.page.evaluate((p) => (window as unknown as BenchWindow).bench.throughput(...p), [path, INPUT] as const);
  if (r.bytes !== expected) throw new Error(`the page read ${r.bytes} bytes of ${expected}`);
  const capture = side.extension ? await captured(side.browser, url, r.bytes) : null;
  await sleep(SETTLE_MS);
  return { mbps: r.bytes / MB / (r.ms / 1000), capture };
}

async function latencyRun(side: Side, base: string): Promise<{ delays: number[]; reads: number; capture: Capture | null }> {
  const url = await load(side, base);
  const r = await side.page.evaluate((p) => (window as unknown as BenchWindow).bench.latency(...p), ['/timed', INPUT] as const);
  if (r.delays.length !== TIMED_FRAMES) throw new Error(`the page saw ${r.delays.length} timed frames of ${TIMED_FRAMES}`);
  const capture = side.extension ? await captured(side.browser, url, r.bytes) : null;
  await sleep(SETTLE_MS);
  return { ...r, capture };
}

const round = (x: number, digits: number): number => Number(x.toFixed(digits));

export async function captureBench(): Promise<Measure[]> {
  const body = longAnswer(STREAM_BYTES);
  const extDir = await buildExtension('chrome');
  const server = await startServer(body);
  const [plain, withExt] = await Promise.all([launchChromium(), launchChromium({ extDir })]);
  try {
    const sides: Side[] = [
      { browser: plain, page: await plain.newPage(), extension: false },
      { browser: withExt, page: await withExt.newPage(), extension: true },
    ];
    // Opens the extension page that answers API calls now, not during the first measured run.
    await withExt.request({ type: 'agui-inspector/sessions' });
    // Alternating which browser goes first, so neither always runs in the other's wake.
    const order = (i: number): Side[] => (i % 2 === 0 ? sides : [sides[1]!, sides[0]!]);

    const throughput = async (path: string): Promise<{ mbps: Map<Side, number[]>; captures: Capture[] }> => {
      const mbps = new Map<Side, number[]>(sides.map((s) => [s, []]));
      const captures: Capture[] = [];
      for (let i = 0; i < WARMUP + RUNS; i++) {
        for (const side of order(i)) {
          const r = await throughputRun(side, server.url, path, body.length);
          if (i < WARMUP) continue;
          mbps.get(side)!.push(r.mbps);
          if (r.capture) captures.push(r.capture);
        }
      }
      return { mbps, captures };
    };
    const { mbps, captures } = await throughput('/stream');
    const pacedRuns = await throughput('/paced');

    const delays = new Map<Side, number[]>(sides.map((s) => [s, []]));
    const reads = new Map<Side, number>(sides.map((s) => [s, 0]));
    const timedHeld: number[] = [];
    for (let i = 0; i < WARMUP + TIMED_RUNS; i++) {
      for (const side of order(i)) {
        const r = await latencyRun(side, server.url);
        if (i < WARMUP) continue;
        delays.get(side)!.push(...r.delays);
        reads.set(side, reads.get(side)! + r.reads);
        if (r.capture) timedHeld.push(r.capture.held);
      }
    }

    const [off, on] = sides as [Side, Side];
    const speed = (s: Side, runs = mbps): number => median(runs.get(s)!);
    const ratio = speed(on) / speed(off);
    const spread = (s: Side, runs = mbps): string => `runs ${runs.get(s)!.map((x) => x.toFixed(0)).join(', ')}`;
    const mb = (body.length / MB).toFixed(1);
    const rows: Measure[] = [
      { name: 'SSE throughput, no extension', value: round(speed(off), 1), unit: 'MB/s', note: `${spread(off)}; ${mb} MB, ${WRITE_MIN / 1024}–${WRITE_MAX / 1024} KB writes` },
      { name: 'SSE throughput, with extension', value: round(speed(on), 1), unit: 'MB/s', note: spread(on) },
      {
        name: 'throughput ratio with/without, unpaced', value: round(ratio, 3), unit: '×',
        note: `medians of ${RUNS} alternating runs after ${WARMUP} warm-up; a loopback read as fast as the page can take it, so it shows the cost below rather than what a user meets`,
      },
      {
        name: 'page-thread cost of capture', value: round(1000 / speed(on) - 1000 / speed(off), 2), unit: 'ms/MB',
        note: 'the unpaced read\'s time per MB with the extension minus without',
      },
      {
        name: 'bytes the worker holds, with extension', value: round(100 * Math.min(...captures.map((c) => c.held)), 1), unit: '%', target: '100',
        note: 'worst run; anything missing was dropped (and counted) where capture fell behind the page',
      },
      { name: 'capture settled, after page done', value: round(median(captures.map((c) => c.lag)), 0), unit: 'ms', note: 'median; polled every 25 ms' },
    ];
    const pacedMbps = pacedRuns.mbps;
    const pacedRatio = speed(on, pacedMbps) / speed(off, pacedMbps);
    const pacedName = `SSE paced at ${PACED_MBPS} MB/s`;
    rows.push(
      { name: `${pacedName}, no extension`, value: round(speed(off, pacedMbps), 1), unit: 'MB/s', note: `${spread(off, pacedMbps)}; the same ${mb} MB and writes, sent at ${PACED_MBPS} MB/s` },
      { name: `${pacedName}, with extension`, value: round(speed(on, pacedMbps), 1), unit: 'MB/s', note: spread(on, pacedMbps) },
      {
        name: `${pacedName}, ratio with/without`, value: round(pacedRatio, 3), unit: '×', target: `≥ ${TARGET_PACED_RATIO}`,
        note: `${pacedRatio >= TARGET_PACED_RATIO ? 'met' : 'MISSED'}; what the page sees of a stream faster than any model's; medians of ${RUNS} alternating runs after ${WARMUP} warm-up`,
      },
      {
        name: `${pacedName}, bytes the worker holds`, value: round(100 * Math.min(...pacedRuns.captures.map((c) => c.held)), 1), unit: '%', target: '100',
        note: 'worst run',
      },
      { name: `${pacedName}, capture settled after page done`, value: round(median(pacedRuns.captures.map((c) => c.lag)), 0), unit: 'ms', note: 'median; polled every 25 ms' },
    );
    const stat = (s: Side, p: number): number => percentile(delays.get(s)!, p);
    const frames = (s: Side): string => `${delays.get(s)!.length} frames in ${reads.get(s)} reads`;
    for (const [label, s] of [['no extension', off], ['with extension', on]] as const) {
      rows.push(
        { name: `per-chunk delay, ${label}, median`, value: round(stat(s, 50), 2), unit: 'ms', note: frames(s) },
        { name: `per-chunk delay, ${label}, p95`, value: round(stat(s, 95), 2), unit: 'ms' },
      );
    }
    const added = stat(on, 50) - stat(off, 50);
    rows.push(
      {
        name: 'added per-chunk delay, median', value: round(added, 2), unit: 'ms', target: `< ${TARGET_ADDED_MS}`,
        note: `${added < TARGET_ADDED_MS ? 'met' : 'MISSED'}; ${TIMED_FRAMES} × ${TIMED_FRAME_BYTES} B, ${TIMED_GAP_MS} ms apart, ${TIMED_RUNS} runs each`,
      },
      { name: 'added per-chunk delay, p95', value: round(stat(on, 95) - stat(off, 95), 2), unit: 'ms' },
      { name: 'timed bytes the worker holds', value: round(100 * Math.min(...timedHeld), 1), unit: '%', target: '100', note: 'worst run' },
    );
    return rows;
  } finally {
    await Promise.all([plain.close(), withExt.close()]);
    await server.close();
  }
}

export const CAPTURE_TITLE = 'Capture overhead in Chromium: the page with and without the extension';
export const CAPTURE_NOTES = ['MB = 10^6 bytes; delays are receive time in the page minus send time stamped by the server, same system clock'];

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(formatSection(measuresSection(CAPTURE_TITLE, await captureBench(), CAPTURE_NOTES)));
}
