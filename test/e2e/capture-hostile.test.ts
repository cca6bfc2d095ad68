/**
 * A hostile page cannot spoof the capture channel, crash the worker or push it past its caps;
 * whatever is dropped is counted, and the panel says so.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { formatBytes } from '../../panel/model.ts';
import { HANDSHAKE } from '../../src/messages.ts';
import { buildExtension, launchChromium, sleep, until, type ChromiumBrowser } from './browsers.ts';

const PAGE = `<!doctype html><html><head><script>
  window.handshakesSeen = 0;
  addEventListener('message', (e) => { if (e.data && e.data[${JSON.stringify(HANDSHAKE)}]) window.handshakesSeen++; }, true);
</script></head><body>hostile</body></html>`;

/** An AG-UI SSE stream: RUN_STARTED, `n` text deltas of `pad` characters, RUN_FINISHED. */
function* events(n: number, pad: number): Generator<string> {
  const sse = (e: object): string => `data: ${JSON.stringify(e)}\n\n`;
  yield sse({ type: 'RUN_STARTED', threadId: 't', runId: 'r' });
  yield sse({ type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' });
  const delta = 'x'.repeat(pad);
  for (let i = 0; i < n; i++) yield sse({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta });
  yield sse({ type: 'TEXT_MESSAGE_END', messageId: 'm' });
  yield sse({ type: 'RUN_FINISHED', threadId: 't', runId: 'r' });
}

function startServer(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
      return;
    }
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const n = Number(url.searchParams.get('n') ?? 3);
      const pad = Number(url.searchParams.get('pad') ?? 10);
      const it = events(n, pad);
      // Honour backpressure so a 200 MB stream does not sit in the server's memory.
      const pump = (): void => {
        for (let r = it.next(); !r.done; r = it.next()) if (!res.write(r.value)) return void res.once('drain', pump);
        res.end();
      };
      pump();
    });
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => {
    const a = server.address();
    r({ url: `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`, server });
  }));
}

describe('a hostile page', () => {
  let b: ChromiumBrowser;
  let server: Server;
  let page: Page;
  let tabId: number;
  const limits = { maxEvents: 20_000, maxBytes: 32 * 1024 * 1024 };

  before(async () => {
    const extDir = await buildExtension('chrome');
    const s = await startServer();
    server = s.server;
    b = await launchChromium({ extDir });
    await b.request({ type: 'agui-inspector/limits', set: limits });
    page = await b.newPage();
    await page.goto(`${s.url}/`);
    tabId = await b.tabIdOf(page.url());
  });

  after(async () => {
    await b?.close();
    server?.close();
    server?.closeAllConnections();
  });

  const stats = async () => (await b.request({ type: 'agui-inspector/session', tabId }))!.stats;

  test('never sees the capture handshake and cannot spoof one', async () => {
    const seen = await page.evaluate(async (key) => {
      const { port1, port2 } = new MessageChannel();
      window.postMessage({ [key]: true }, '*', [port2]);
      port1.postMessage({ k: 'open', id: 1, api: 'fetch', t: 1, method: 'POST', url: 'http://evil/', requestContentType: null, requestBody: '{}', requestBodyNote: null });
      port1.postMessage({ k: 'chunk', id: 1, t: 2, bytes: new Uint8Array(10) });
      await new Promise((r) => setTimeout(r, 300));
      return (window as unknown as { handshakesSeen: number }).handshakesSeen;
    }, HANDSHAKE);
    assert.equal(seen, 0, 'the page saw no handshake, not even its own');
    await sleep(300);
    assert.equal((await stats()).exchanges, 0);
  });

  test('a 200 MB request body and a 200 MB response stay within the cap', async () => {
    const result = await page.evaluate(async () => {
      const pad = 'y'.repeat(200 * 1024 * 1024);
      const body = `{"threadId":"t","runId":"r","messages":[],"pad":"${pad}"}`;
      const res = await fetch('/sse?n=20000&pad=10000', { method: 'POST', body });
      let bytes = 0;
      const reader = res.body!.getReader();
      for (;;) {
        const r = await reader.read();
        if (r.done) break;
        bytes += r.value.byteLength;
      }
      return bytes;
    });
    assert.ok(result > 200 * 1000 * 1000, 'the page got the whole response');
    await until('the drops counted', async () => (await stats()).dropped.chunks > 0, 30_000);
    const s = await stats();
    assert.ok(s.bytes <= limits.maxBytes, `${s.bytes} bytes held`);
    assert.ok(s.events <= limits.maxEvents);
    assert.ok(s.dropped.chunks > 0 && s.dropped.bytes > 0, 'drops are counted');
    const x = (await b.request({ type: 'agui-inspector/session', tabId }))!.exchanges[0]!;
    assert.equal(x.request.body, null);
    assert.equal(x.request.note, 'too-large');
    assert.equal(x.capped, true);
  });

  test('the panel says what the cap dropped, in the worker\'s own figures', async () => {
    const s = await stats();
    const panel = await b.newPage();
    try {
      await panel.goto(`${b.base}panel/index.html?tabId=${tabId}`);
      const notice = await until('the drop notice', () => panel.evaluate(() => document.querySelector('[data-testid=drop-notice]')?.textContent ?? null));
      assert.match(notice, new RegExp(`dropped: ${s.dropped.exchanges} exchanges, ${s.dropped.chunks} chunks, ${formatBytes(s.dropped.bytes).replace('.', '\\.')}, ${s.dropped.events} events`));
      const title = await panel.evaluate(() => document.querySelector('[data-testid=drop-notice]')!.getAttribute('title'));
      assert.match(title ?? '', new RegExp(`at most ${formatBytes(limits.maxBytes).replace('.', '\\.')} and ${limits.maxEvents} events`), 'the cap that was hit');
    } finally {
      await panel.close();
    }
  });

  test('1,000 concurrent streams leave the worker alive and counting', async () => {
    await b.request({ type: 'agui-inspector/clear', tabId });
    const done = await page.evaluate(async () => {
      const body = JSON.stringify({ threadId: 't', runId: 'r', messages: [] });
      const runs = Array.from({ length: 1000 }, async () => (await fetch('/sse?n=3', { method: 'POST', body })).text());
      return (await Promise.all(runs)).filter((t) => t.includes('RUN_FINISHED')).length;
    });
    assert.equal(done, 1000, 'every stream reached the page intact');
    await until('every exchange held or counted as dropped', async () => {
      const now = await stats();
      return now.exchanges + now.dropped.exchanges === 1000;
    }, 30_000);
    const s = await stats();
    assert.ok(s.exchanges > 0);
    assert.equal(s.exchanges + s.dropped.exchanges, 1000, 'every exchange is either held or counted as dropped');
    assert.ok(s.bytes <= limits.maxBytes);
    assert.deepEqual(await b.request({ type: 'agui-inspector/limits' }), limits, 'the worker still answers');
  });
});
