/**
 * A frame the relay drops is a hole in its socket (#38): the built extension with its relay's buffer cut
 * to a few KB, in Chromium and Firefox, and a real `ws` agent that bursts frames larger than that, then,
 * once the relay has room again, ends its run. The page receives every frame; the worker caps the socket
 * at the hole, so its exchange's analysis stops there instead of reading on to a run that seems whole.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { WebSocketServer } from 'ws';
import { LIMITS } from '../../src/messages.ts';
import { alteredExtension, inAlteredBrowser, sleep, until, type Target } from './browsers.ts';

/** The relay's buffer in the altered copy: two of the burst's frames do not fit in it together. */
const RELAY_BUFFER = 4096;
const BIG = 'x'.repeat(3000);
const BURST = 6;

const input = JSON.stringify({ threadId: 't1', runId: 'r1', protocolVersion: '1.0', state: {}, tools: [], context: [], forwardedProps: {}, messages: [] });
const head = [
  { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' },
  { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
  ...Array.from({ length: BURST }, () => ({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: BIG })),
];
const tail = [{ type: 'TEXT_MESSAGE_END', messageId: 'm1' }, { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1' }];

const PAGE = `<!doctype html><script>
window.talk = () => new Promise((resolve) => {
  const ws = new WebSocket('ws://' + location.host + '/agent');
  let got = 0;
  ws.onopen = () => ws.send(${JSON.stringify(input)});
  ws.onmessage = () => got++;
  ws.onclose = () => resolve(got);
});
</script>`;

/** A copy of the built extension whose relay keeps at most RELAY_BUFFER bytes unacknowledged. */
function withSmallRelay(target: Target): Promise<string> {
  return alteredExtension(target, 'small-relay', (dir, manifest) => {
    const relay = join(dir, manifest.content_scripts.find((c) => c.world !== 'MAIN')!.js.at(-1)!);
    const source = readFileSync(relay, 'utf8');
    const limit = `relayBuffer: ${LIMITS.relayBuffer}`;
    assert.ok(source.includes(limit), 'the built relay states its buffer');
    writeFileSync(relay, source.replace(limit, `relayBuffer: ${RELAY_BUFFER}`));
  });
}

describe('a socket frame the relay drops caps the socket', () => {
  let server: Server;
  let origin: string;

  before(async () => {
    server = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
    new WebSocketServer({ server }).on('connection', (socket) => socket.on('message', async () => {
      for (const e of head) socket.send(JSON.stringify(e));
      // Long enough for the relay's buffer to be acknowledged empty again: the tail is forwarded.
      await sleep(1000);
      for (const e of tail) socket.send(JSON.stringify(e));
      socket.close(1000);
    }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server?.close();
    server?.closeAllConnections();
  });

  for (const [target, name] of [['chrome', 'Chromium'], ['firefox', 'Firefox']] as const) {
    test(`in ${name}`, async () => {
      await inAlteredBrowser(target, await withSmallRelay(target), async (b) => {
        const page = (await b.newPage()) as { goto(u: string): Promise<unknown>; evaluate<T>(f: () => T): Promise<T> };
        await page.goto(`${origin}/`);
        const got = await page.evaluate(() => (window as unknown as { talk(): Promise<number> }).talk());
        assert.equal(got, head.length + tail.length, 'the page received every frame');
        const tabId = await b.tabIdOf(`${origin}/`);
        const s = await until('the socket exchange, ended', async () => {
          const v = await b.request({ type: 'agui-inspector/session', tabId });
          return v?.exchanges.length === 1 && v.exchanges[0]!.endedAt !== null ? v : null;
        });
        const [x] = s.exchanges;
        assert.ok(s.stats.dropped.chunks > 0, 'the relay dropped frames');
        assert.equal(x!.capped, true, 'the socket was capped at the hole');
        assert.ok(x!.events.length < head.length, `read up to the hole only: ${x!.events.length} events`);
        assert.deepEqual(x!.report?.runs.map((r) => r.outcome), ['running'], 'not read on across the hole to its RUN_FINISHED');
      });
    });
  }
});
