/**
 * The built extension + a real `ws` agent on 127.0.0.1 (#38), alike in Chromium and Firefox: a page's AG-UI
 * WebSocket is captured whole, the page receives the same frames, in the same types, as without the
 * extension, and the worker's verdicts equal `check` on the export — the socket the agent closes mid-run
 * truncated, its close named, and judges the export redacted by every group alike; protobuf events in binary frames are captured byte for byte whether the page
 * reads them as ArrayBuffers or Blobs.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { BaseEvent } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import { WebSocketServer } from 'ws';
import { readExchanges } from '../../src/formats/index.ts';
import { analyzeExchanges } from '../../src/analyzer/index.ts';
import { analysisShape, REDACTION_GROUPS } from '../../src/recording/export.ts';
import type { SessionView } from '../../src/messages.ts';
import { MEDIA_TYPES } from '../../src/wire/index.ts';
import { buildExtension, launchChromium, launchFirefox, launchWith, until, type ExtensionBrowser, type Target } from './browsers.ts';

const input = (runId: string) => JSON.stringify({ threadId: 't1', runId, protocolVersion: '1.0', state: {}, tools: [], context: [], forwardedProps: {}, messages: [] });
const run = (runId: string, finish = true) => [
  { type: 'RUN_STARTED', threadId: 't1', runId, protocolVersion: '1.0' },
  { type: 'TEXT_MESSAGE_START', messageId: `m-${runId}`, role: 'assistant' },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: `m-${runId}`, delta: 'hi' },
  { type: 'TEXT_MESSAGE_END', messageId: `m-${runId}` },
  ...(finish ? [{ type: 'RUN_FINISHED', threadId: 't1', runId }] : []),
];

/**
 * The page: `talk` opens a socket, sends its first frame on open and the next on each `"next"`, and
 * resolves at the close with what it received — text as it came, binary data as its type and base64 bytes,
 * read in order whatever the binaryType.
 */
const PAGE = `<!doctype html><script>
window.talk = ([path, sends, binaryType]) => new Promise((resolve) => {
  const ws = new WebSocket('ws://' + location.host + path);
  if (binaryType) ws.binaryType = binaryType;
  const got = [];
  let k = 0;
  const base64 = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer)));
  ws.onopen = () => ws.send(sends[k++]);
  ws.onmessage = (ev) => {
    const d = ev.data;
    got.push(typeof d === 'string' ? d : (d instanceof Blob ? d.arrayBuffer() : Promise.resolve(d)).then((b) => ({ type: d.constructor.name, bytes: base64(b) })));
    if (d === '"next"' && k < sends.length) ws.send(sends[k++]);
  };
  ws.onclose = async (ev) => resolve({ got: await Promise.all(got), code: ev.code, reason: ev.reason, wasClean: ev.wasClean });
});
</script>`;

type Got = string | { type: string; bytes: string };
interface Talk {
  got: Got[];
  code: number;
  reason: string;
  wasClean: boolean;
}

/** Both drivers' pages, as this test uses them. */
interface AnyPage {
  goto(url: string): Promise<unknown>;
  evaluate<A, T>(fn: (arg: A) => T | Promise<T>, arg: A): Promise<T>;
}
type Launched = { newPage(): Promise<unknown>; close(): Promise<void> };

/** The agent: `/agent` answers a ping and two inputs, `/cut` closes with 1011 mid-run, `/binary` answers in protobuf binary frames. */
function agent(server: Server): void {
  const encoder = new EventEncoder();
  new WebSocketServer({ server }).on('connection', (socket, req) => {
    socket.on('message', (data) => {
      const text = data.toString();
      if (text === 'ping') return socket.send('"next"');
      const runId = JSON.parse(text).runId as string;
      if (req.url === '/binary') {
        for (const e of run(runId)) socket.send(encoder.encodeProtobuf(e as BaseEvent));
        return socket.close(1000, 'done');
      }
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
}

export function websocketTests(target: Target): void {
  describe(`WebSocket capture (${target})`, () => {
    let server: Server;
    let origin: string;
    let withExt: ExtensionBrowser & Launched;
    let without: Launched;

    before(async () => {
      server = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
      agent(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const extDir = await buildExtension(target);
      [withExt, without] = await Promise.all([launchWith(target, extDir), target === 'chrome' ? launchChromium() : launchFirefox()]);
    });

    after(async () => {
      await Promise.all([withExt?.close(), without?.close()]);
      server?.close();
      server?.closeAllConnections();
    });

    /** Runs `talks` (path, frames to send, binaryType) in a fresh page of `b`, one after the other, at `path` of the origin. */
    const talking = async (b: Launched, path: string, talks: [string, string[], string?][]): Promise<Talk[]> => {
      const page = (await b.newPage()) as AnyPage;
      await page.goto(`${origin}${path}`);
      const out: Talk[] = [];
      for (const t of talks) out.push(await page.evaluate((a) => (window as unknown as { talk(a: unknown): Promise<Talk> }).talk(a), t));
      return out;
    };

    /** The page's exchanges, once `count` are there and ended; and the export, with what `check` makes of it. */
    const captured = async (path: string, count: number) => {
      const tabId = await withExt.tabIdOf(`${origin}${path}`);
      const session = await until(`${count} socket exchanges, ended`, async () => {
        const s = await withExt.request({ type: 'agui-inspector/session', tabId });
        return s && s.exchanges.length === count && s.exchanges.every((x) => x.endedAt !== null) ? s : null;
      });
      const har = await withExt.request({ type: 'agui-inspector/export', tabId, redact: [] });
      const redacted = await withExt.request({ type: 'agui-inspector/export', tabId, redact: [...REDACTION_GROUPS] });
      return {
        session, entries: JSON.parse(har).log.entries as any[], checked: analyzeExchanges(readExchanges(new TextEncoder().encode(har), 'export.har')),
        redacted: { text: redacted, entries: JSON.parse(redacted).log.entries as any[], checked: analyzeExchanges(readExchanges(new TextEncoder().encode(redacted), 'redacted.har')) },
      };
    };

    const reports = (session: SessionView) => session.exchanges.map((x) => {
      const { source: _, ...r } = x.report!;
      return r;
    });
    const checkedReports = (checked: ReturnType<typeof analyzeExchanges>) => checked.map(({ source: _, ...r }) => r);
    const frames = (entry: any, type: string) => entry._webSocketMessages.filter((m: any) => m.type === type).map((m: any) => m.data);

    test('two exchanges and a ping on one socket, a socket cut mid-run: the page unaffected, the export judged as the worker did', async () => {
      const talks: [string, string[]][] = [['/agent', ['ping', input('r1'), input('r2')]], ['/cut', [input('r3')]]];
      const [seen, reference] = await Promise.all([talking(withExt, '/', talks), talking(without, '/', talks)]);
      assert.deepEqual(seen, reference, 'the page received the same frames and closes');
      const [one, cut] = seen as [Talk, Talk];
      assert.deepEqual([cut.code, cut.reason], [1011, 'agent crashed']);

      const { session, entries, checked, redacted } = await captured('/', 3);
      assert.deepEqual(session.exchanges.map((x) => [x.api, x.outcome, x.report?.transport, x.report?.runs.map((r) => `${r.runId}:${r.outcome}`)]), [
        ['websocket', 'complete', 'websocket', ['r1:success']],
        ['websocket', 'complete', 'websocket', ['r2:success']],
        ['websocket', 'error', 'websocket', ['r3:truncated']],
      ]);
      assert.match(session.exchanges[2]!.error!, /code 1011 \("agent crashed"\)/);
      // Every frame, byte for byte, in each direction's order.
      assert.deepEqual(frames(entries[0], 'receive'), one.got);
      assert.deepEqual(frames(entries[0], 'send'), ['ping', input('r1'), input('r2')]);
      assert.deepEqual(frames(entries[1], 'receive'), cut.got);
      assert.deepEqual([entries[1]._agui.close.code, entries[1]._agui.close.wasClean], [1011, cut.wasClean], 'the close as the page saw it');
      assert.deepEqual(checkedReports(checked), reports(session));
      // Redacted by every group, the app's own frame and the close's reason are filled, and check judges the file alike.
      assert.deepEqual(frames(redacted.entries[0], 'send')[0], 'xxxx');
      assert.deepEqual(redacted.entries[1]._agui.close.reason, 'xxxxxxxxxxxxx');
      assert.ok(!redacted.text.includes('agent crashed'), 'nor does the worker\'s error for the cut exchange quote it');
      assert.deepEqual(redacted.checked.map(analysisShape), checked.map(analysisShape));
    });

    test('protobuf events in binary frames, read as ArrayBuffers and as Blobs: captured byte for byte and judged', async () => {
      const talks: [string, string[], string][] = [['/binary', [input('b1')], 'arraybuffer'], ['/binary', [input('b2')], 'blob']];
      const [seen, reference] = await Promise.all([talking(withExt, '/?binary', talks), talking(without, '/?binary', talks)]);
      assert.deepEqual(seen, reference, 'the page received the same frames, of the same types');
      assert.deepEqual(seen.map((t) => [...new Set(t.got.map((g) => (typeof g === 'string' ? 'string' : g.type)))]), [['ArrayBuffer'], ['Blob']], 'binaryType honoured');
      const encoder = new EventEncoder();
      const sent = (runId: string) => run(runId).map((e) => Buffer.from(encoder.encodeProtobuf(e as BaseEvent)).toString('base64'));
      assert.deepEqual(seen.map((t) => t.got.map((g) => (g as { bytes: string }).bytes)), [sent('b1'), sent('b2')], 'the agent\'s bytes reached the page');

      const { session, entries, checked } = await captured('/?binary', 2);
      assert.deepEqual(session.exchanges.map((x) => [x.outcome, x.report?.verdict, x.response?.contentType, x.report?.runs.map((r) => `${r.runId}:${r.outcome}`)]), [
        ['complete', 'completed', MEDIA_TYPES.protobuf, ['b1:success']],
        ['complete', 'completed', MEDIA_TYPES.protobuf, ['b2:success']],
      ]);
      entries.forEach((entry, k) => {
        assert.deepEqual(entry._webSocketMessages.filter((m: any) => m.type === 'receive').map((m: any) => m.opcode), sent(`b${k + 1}`).map(() => 2));
        assert.deepEqual(frames(entry, 'receive'), sent(`b${k + 1}`), 'every binary frame as it crossed the wire');
      });
      assert.deepEqual(checkedReports(checked), reports(session));
    });
  });
}
