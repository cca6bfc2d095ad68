/**
 * Issue #33: a page that declares a tool whose schema backtracks natively (`^(a+)+$`) and calls it many
 * times with arguments built to make it backtrack. While the Tools view of that exchange is asked for,
 * the worker keeps answering other requests within a second, and the calls come out checked.
 *
 * Before, one such check froze the worker for every tab (`"a"×28+"!"`: 10 s, and each `a` more doubles
 * it); now each check runs on the linear matcher within the checker's budget, and the checks are run a
 * slice at a time before the Tools detail is answered.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createServer, type Server } from 'node:http';
import type { SessionSummary } from '../../src/messages.ts';
import { buildExtension, launchChromium, until, type ChromiumBrowser } from './browsers.ts';

const CALLS = 40;
/** Long enough that each call's check takes tens of milliseconds on the linear matcher: the checks together take seconds. */
const ARG = 'a'.repeat(100_000) + '!';
const IDS = { threadId: 'thread-hostile', runId: 'run-hostile' };
const TOOL = { name: 'hostile', description: 'backtracks', parameters: { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } } };
const INPUT = JSON.stringify({ ...IDS, state: {}, messages: [], tools: [TOOL], context: [], forwardedProps: {} });

const PAGE = `<!doctype html><meta charset="utf-8"><title>hostile tools</title><script>
  window.hostile = async () => {
    const res = await fetch('/stream', { method: 'POST', headers: { 'content-type': 'application/json' }, body: ${JSON.stringify(INPUT)} });
    return (await res.arrayBuffer()).byteLength;
  };
</script>`;

function body(): string {
  const sse = (e: object): string => `data: ${JSON.stringify(e)}\n\n`;
  const parts = [sse({ type: 'RUN_STARTED', ...IDS })];
  for (let i = 0; i < CALLS; i++) {
    const toolCallId = `call-${i}`;
    parts.push(
      sse({ type: 'TOOL_CALL_START', toolCallId, toolCallName: 'hostile' }),
      sse({ type: 'TOOL_CALL_ARGS', toolCallId, delta: JSON.stringify({ s: ARG }) }),
      sse({ type: 'TOOL_CALL_END', toolCallId }),
    );
  }
  parts.push(sse({ type: 'RUN_FINISHED', ...IDS }));
  return parts.join('');
}

describe('the worker asked for the Tools view of a hostile exchange', () => {
  let server: Server;
  let url: string;
  let b: ChromiumBrowser;

  before(async () => {
    const text = body();
    server = createServer((req, res) => {
      req.resume();
      if (req.method === 'GET' && req.url === '/') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
      if (req.method !== 'POST' || req.url !== '/stream') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' }).end(text);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const a = server.address();
    url = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
    b = await launchChromium({ extDir: await buildExtension('chrome') });
  });

  after(async () => {
    await b?.close();
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
  });

  test('keeps answering other requests within a second, and checks every call', async () => {
    const page = await b.newPage();
    await page.goto(`${url}/`);
    const tabId = await b.tabIdOf(page.url());
    await page.evaluate(() => (window as unknown as { hostile(): Promise<number> }).hostile());
    const exchangeId = await until('the exchange analysed', async () => {
      const x = (await b.request({ type: 'agui-inspector/session', tabId }))?.exchanges[0];
      return x?.outcome === 'complete' && x.report !== null ? x.id : null;
    });
    const api = await b.apiPage();
    const { times, rows, totalMs } = await api.evaluate(async ({ tabId, exchangeId }) => {
      const t0 = performance.now();
      let done = false;
      const tools = (chrome.runtime.sendMessage({ type: 'agui-inspector/detail', tabId, exchangeId, part: 'toolCalls' }) as Promise<{ args: { status: string; reason: string | null } }[] | null>).finally(() => (done = true));
      const times: number[] = [];
      while (!done) {
        const t = performance.now();
        (await chrome.runtime.sendMessage({ type: 'agui-inspector/sessions' })) as SessionSummary[];
        times.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 10));
      }
      const rows = (await tools)?.map((r) => [r.args.status, r.args.reason]) ?? null;
      return { times, rows, totalMs: performance.now() - t0 };
    }, { tabId, exchangeId });
    assert.ok(rows, 'the Tools detail was answered');
    assert.equal(rows.length, CALLS);
    assert.ok(rows.every(([status]) => status === 'invalid'), JSON.stringify(rows.slice(0, 3)));
    const slowest = Math.max(...times);
    assert.ok(slowest < 1000, `slowest round trip ${slowest.toFixed(0)} ms over ${times.length}, the Tools detail in ${totalMs.toFixed(0)} ms`);
    console.log(`Tools detail in ${totalMs.toFixed(0)} ms; ${times.length} round trips meanwhile, the slowest ${slowest.toFixed(0)} ms`);
  });
});
