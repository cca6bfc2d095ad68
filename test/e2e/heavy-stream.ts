/**
 * A pathological AG-UI answer and a probe of the worker's responsiveness while it analyses one, shared
 * by the e2e test (test/e2e/worker-responsive.test.ts) and `npm run bench` (bench/worker.ts).
 *
 * The answer is the one issue #10 describes: a ~450 KB STATE_SNAPSHOT followed by single-op
 * STATE_DELTAs on it. A delta once cost the analyzer ~5 ms (patch.ts copied the snapshot per
 * operation); now that it costs its own size, `DELTAS` of them keep the worker busy long enough for
 * tens of round trips to be measured while it analyses.
 */
import { createServer, type Server } from 'node:http';
import type { Page } from 'playwright-core';
import type { SessionSummary } from '../../src/messages.ts';
import type { ChromiumBrowser } from './browsers.ts';

/** Deltas in the answer the test and the bench stream. */
export const DELTAS = 40_000;

const SNAPSHOT_KEYS = 6000;
const IDS = { threadId: 'thread-heavy', runId: 'run-heavy' };
const INPUT = JSON.stringify({ ...IDS, state: {}, messages: [], tools: [], context: [], forwardedProps: {} });

const PAGE = `<!doctype html><meta charset="utf-8"><title>heavy</title><script>
  window.heavy = async () => {
    const res = await fetch('/stream', { method: 'POST', headers: { 'content-type': 'application/json' }, body: ${JSON.stringify(INPUT)} });
    return (await res.arrayBuffer()).byteLength;
  };
</script>`;

/** The body: RUN_STARTED, the snapshot, `deltas` deltas, RUN_FINISHED; `events` is how many frames that is. */
export function heavyBody(deltas: number): { body: Buffer; events: number } {
  const sse = (e: object): string => `data: ${JSON.stringify(e)}\n\n`;
  const snapshot: Record<string, string> = {};
  for (let i = 0; i < SNAPSHOT_KEYS; i++) snapshot[`key${i}`] = 'v'.repeat(60);
  const parts = [sse({ type: 'RUN_STARTED', ...IDS }), sse({ type: 'STATE_SNAPSHOT', snapshot })];
  for (let i = 0; i < deltas; i++) parts.push(sse({ type: 'STATE_DELTA', delta: [{ op: 'replace', path: `/key${i % SNAPSHOT_KEYS}`, value: `w${i}` }] }));
  parts.push(sse({ type: 'RUN_FINISHED', ...IDS }));
  return { body: Buffer.from(parts.join('')), events: parts.length };
}

export interface HeavyServer {
  url: string;
  close(): Promise<void>;
}

/** Serves the page on `/` and `body` as SSE to its POST /stream, in 64 KB writes. */
export function startHeavyServer(body: Buffer): Promise<HeavyServer> {
  const server: Server = createServer((req, res) => {
    req.resume();
    if (req.method === 'GET' && req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
      return;
    }
    if (req.method !== 'POST' || req.url !== '/stream') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    for (let at = 0; at < body.length; at += 64 * 1024) res.write(body.subarray(at, at + 64 * 1024));
    res.end();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const a = server.address();
    resolve({
      url: `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`,
      close: () => {
        server.closeAllConnections();
        return new Promise((r) => server.close(() => r()));
      },
    });
  }));
}

/** Makes `page` (on the heavy server's `/`) read the pathological answer; resolves to the bytes it read. */
export function readHeavy(page: Page): Promise<number> {
  return page.evaluate(() => (window as unknown as { heavy(): Promise<number> }).heavy());
}

/**
 * Asks the worker for its session summaries, one request every `gapMs`, from an extension page (as a
 * panel's calls are), until the summary of `tabId` holds `events` events; resolves to each request's
 * round-trip time in milliseconds. A request that starts the stopped worker counts too.
 */
/**
 * The first answer of a stopped worker: Chrome starts it, it loads its code and opens its store before it
 * answers anything. That wait is start-up, not analysis, and is measured apart from `workerResponseTimes`.
 */
export async function firstAnswer(b: ChromiumBrowser): Promise<number> {
  const t0 = performance.now();
  await b.request({ type: 'agui-inspector/sessions' });
  return performance.now() - t0;
}

export async function workerResponseTimes(b: ChromiumBrowser, tabId: number, events: number, gapMs = 10, timeoutMs = 120_000): Promise<number[]> {
  const page = await b.apiPage();
  return page.evaluate(async ({ tabId, events, gapMs, timeoutMs }) => {
    const times: number[] = [];
    const end = performance.now() + timeoutMs;
    for (;;) {
      const t0 = performance.now();
      const list = (await chrome.runtime.sendMessage({ type: 'agui-inspector/sessions' })) as SessionSummary[];
      times.push(performance.now() - t0);
      if ((list.find((s) => s.tabId === tabId)?.stats.events ?? 0) >= events) return times;
      if (performance.now() > end) throw new Error(`the worker did not analyse ${events} events in ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, gapMs));
    }
  }, { tabId, events, gapMs, timeoutMs });
}
