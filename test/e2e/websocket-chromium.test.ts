/**
 * Chromium + the built extension + a real `ws` agent on 127.0.0.1 (#38): a page's AG-UI WebSocket is
 * captured whole, the page receives the same frames as without the extension, and the worker's verdicts
 * equal `check` on the export — the socket the agent closes mid-run truncated, its close named.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { WebSocketServer } from 'ws';
import { readExchanges } from '../../src/formats/index.ts';
import { analyzeExchanges } from '../../src/analyzer/index.ts';
import { buildExtension, launchChromium, until, type ChromiumBrowser } from './browsers.ts';

const input = (runId: string) => JSON.stringify({ threadId: 't1', runId, protocolVersion: '1.0', state: {}, tools: [], context: [], forwardedProps: {}, messages: [] });
const run = (runId: string, finish = true) => [
  { type: 'RUN_STARTED', threadId: 't1', runId, protocolVersion: '1.0' },
  { type: 'TEXT_MESSAGE_START', messageId: `m-${runId}`, role: 'assistant' },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: `m-${runId}`, delta: 'hi' },
  { type: 'TEXT_MESSAGE_END', messageId: `m-${runId}` },
  ...(finish ? [{ type: 'RUN_FINISHED', threadId: 't1', runId }] : []),
];

/** The page: one socket with a ping and two exchanges (the second's events in a JSON array frame), one the agent cuts. */
const PAGE = `<!doctype html><script>
window.talk = (path, sends) => new Promise((resolve) => {
  const ws = new WebSocket('ws://' + location.host + path);
  const got = [];
  let k = 0;
  ws.onopen = () => ws.send(sends[k++]);
  ws.onmessage = (ev) => { got.push(ev.data); if (ev.data === '"next"' && k < sends.length) ws.send(sends[k++]); };
  ws.onclose = (ev) => resolve({ got, code: ev.code, reason: ev.reason });
});
</script>`;

describe('WebSocket capture in Chromium', () => {
  let server: Server;
  let origin: string;
  let withExt: ChromiumBrowser;
  let without: ChromiumBrowser;

  before(async () => {
    server = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
    const wss = new WebSocketServer({ server });
    wss.on('connection', (socket, req) => {
      socket.on('message', (data) => {
        const text = data.toString();
        if (text === 'ping') return socket.send('"next"');
        const runId = JSON.parse(text).runId as string;
        if (req.url === '/cut') {
          for (const e of run(runId, false)) socket.send(JSON.stringify(e));
          return socket.close(1011, 'agent crashed');
        }
        const events = run(runId);
        if (runId === 'r2') socket.send(JSON.stringify(events.slice(0, 3)));
        for (const e of runId === 'r2' ? events.slice(3) : events) socket.send(JSON.stringify(e));
        socket.send(runId === 'r2' ? '"bye"' : '"next"');
        if (runId === 'r2') socket.close(1000, 'done');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const extDir = await buildExtension('chrome');
    [withExt, without] = await Promise.all([launchChromium({ extDir }), launchChromium()]);
  });

  after(async () => {
    await Promise.all([withExt?.close(), without?.close()]);
    server?.close();
  });

  test('two exchanges and a ping on one socket, a socket cut mid-run: the page unaffected, the export judged as the worker did', async () => {
    const talks = async (b: ChromiumBrowser) => {
      const page = await b.newPage();
      await page.goto(`${origin}/`);
      const one = await page.evaluate((s) => (window as any).talk('/agent', s), ['ping', input('r1'), input('r2')]);
      const cut = await page.evaluate((s) => (window as any).talk('/cut', s), [input('r3')]);
      return { one, cut };
    };
    const seen = await talks(withExt);
    const reference = await talks(without);
    assert.deepEqual(seen, reference, 'the page received the same frames and closes');
    assert.deepEqual([seen.cut.code, seen.cut.reason], [1011, 'agent crashed']);

    const tabId = await withExt.tabIdOf(`${origin}/`);
    const session = await until('three socket exchanges, ended', async () => {
      const s = await withExt.request({ type: 'agui-inspector/session', tabId });
      return s && s.exchanges.length === 3 && s.exchanges.every((x) => x.endedAt !== null) ? s : null;
    });
    assert.deepEqual(session.exchanges.map((x) => [x.api, x.outcome, x.report?.transport, x.report?.runs.map((r) => `${r.runId}:${r.outcome}`)]), [
      ['websocket', 'complete', 'websocket', ['r1:success']],
      ['websocket', 'complete', 'websocket', ['r2:success']],
      ['websocket', 'error', 'websocket', ['r3:truncated']],
    ]);
    assert.match(session.exchanges[2]!.error!, /code 1011 \("agent crashed"\)/);

    const har = await withExt.request({ type: 'agui-inspector/export', tabId, redact: [] });
    const entries = JSON.parse(har).log.entries;
    // Every frame, byte for byte, in each direction's order.
    const frames = (entry: any, type: string) => entry._webSocketMessages.filter((m: any) => m.type === type).map((m: any) => m.data);
    assert.deepEqual(frames(entries[0], 'receive'), seen.one.got);
    assert.deepEqual(frames(entries[0], 'send'), ['ping', input('r1'), input('r2')]);
    assert.deepEqual(frames(entries[1], 'receive'), seen.cut.got);
    assert.deepEqual(entries[1]._agui.close.code, 1011);
    const checked = analyzeExchanges(readExchanges(new TextEncoder().encode(har), 'export.har'));
    assert.deepEqual(checked.map(({ source: _, ...r }) => r), session.exchanges.map((x) => {
      const { source: _, ...r } = x.report!;
      return r;
    }));
  });
});
