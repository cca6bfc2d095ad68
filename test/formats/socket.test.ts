/**
 * AG-UI on a WebSocket, read from a HAR in Chromium's convention (`_resourceType: "websocket"`,
 * `_webSocketMessages`), judged by `check`, and written back by the Inspector's export.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { BaseEvent } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import { encode } from '@ag-ui/proto';
import { analyzeSession } from '../../src/detail/index.ts';
import { bytesOnlyAnalysis, type CapturedExchange } from '../../src/exchange/index.ts';
import { toBase64 } from '../../src/base64.ts';
import { run } from '../../src/cli/main.ts';
import { readExchanges, writeHar } from '../../src/formats/index.ts';
import { exportSession } from '../../src/recording/index.ts';

const T0 = 1764000000;
const encoder = new EventEncoder();
const utf8 = new TextEncoder();

const inputOf = (threadId: string, runId: string, content: string) => ({
  threadId, runId, protocolVersion: '1.0', state: {}, tools: [], context: [], forwardedProps: {},
  messages: [{ id: `u-${runId}`, role: 'user', content }],
});

function runEvents(threadId: string, runId: string, text: string): BaseEvent[] {
  const messageId = `m-${runId}`;
  return [
    { type: 'RUN_STARTED', threadId, runId, protocolVersion: '1.0' },
    { type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId, delta: text },
    { type: 'TEXT_MESSAGE_END', messageId },
    { type: 'RUN_FINISHED', threadId, runId },
  ] as BaseEvent[];
}

type Message = { type: 'send' | 'receive'; time: number; opcode: 1 | 2; data: string };

/** Messages as Chromium's HAR writes them, a 50 ms tick apart. */
function messages(frames: ({ send: unknown } | { receive: unknown } | { binary: Uint8Array })[], from = T0): Message[] {
  return frames.map((f, k) => {
    const time = from + k * 0.05;
    if ('binary' in f) return { type: 'receive', time, opcode: 2, data: toBase64(f.binary) };
    return 'send' in f ? { type: 'send', time, opcode: 1, data: JSON.stringify(f.send) } : { type: 'receive', time, opcode: 1, data: JSON.stringify(f.receive) };
  });
}

function socketEntry(url: string, msgs: Message[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    _resourceType: 'websocket',
    _fromCache: null,
    _initiator: { type: 'script' },
    _priority: 'Low',
    cache: {},
    connection: '443',
    pageref: 'page_1',
    request: { method: 'GET', url, httpVersion: 'HTTP/1.1', headers: [{ name: 'Upgrade', value: 'websocket' }], queryString: [], cookies: [], headersSize: 400, bodySize: 0 },
    response: {
      status: 101, statusText: 'Switching Protocols', httpVersion: 'HTTP/1.1', headers: [{ name: 'Upgrade', value: 'websocket' }], cookies: [],
      content: { size: 0, mimeType: 'x-unknown' }, redirectURL: '', headersSize: 200, bodySize: 0, _transferSize: 0, _error: null,
    },
    serverIPAddress: '127.0.0.1',
    startedDateTime: new Date(msgs[0]!.time * 1000 - 20).toISOString(),
    time: 1200,
    timings: { blocked: 1, dns: -1, ssl: -1, connect: -1, send: 0, wait: 20, receive: 0 },
    _webSocketMessages: msgs,
    ...extra,
  };
}

const first = runEvents('t1', 'r1', 'Hello over a socket');
const second = runEvents('t1', 'r2', 'Now in protobuf');
const cut = runEvents('t2', 'r3', 'This run never ends');

/**
 * Socket 1: a ping, then two exchanges one after another — the first's events as a JSON array frame then one
 * event per frame, the second (sent in CopilotKit's envelope) as protobuf, prefixed as `@ag-ui/encoder` writes
 * it and bare as `@ag-ui/proto` does. Socket 2: an exchange whose socket closed mid-run.
 */
const har = {
  log: {
    version: '1.2',
    creator: { name: 'WebInspector', version: '537.36' },
    pages: [{ startedDateTime: new Date(T0 * 1000 - 500).toISOString(), id: 'page_1', title: 'https://app.example/', pageTimings: {} }],
    entries: [
      socketEntry('wss://agent.example/ws', messages([
        { receive: { type: 'ping', at: 1 } },
        { send: inputOf('t1', 'r1', 'hi') },
        { receive: first.slice(0, 2) },
        { receive: first[2] },
        { send: { type: 'pong', at: 1 } },
        { receive: first[3] },
        { receive: first[4] },
        { send: { method: 'agent/run', params: { agentId: 'default' }, body: inputOf('t1', 'r2', 'again') } },
        ...second.slice(0, 3).map((e) => ({ binary: encoder.encodeProtobuf(e) })),
        ...second.slice(3).map((e) => ({ binary: encode(e) })),
      ])),
      socketEntry('wss://agent.example/ws?session=2', messages([
        { send: inputOf('t2', 'r3', 'go') },
        ...cut.slice(0, 3).map((e) => ({ receive: e })),
      ], T0 + 10), { _agui: { close: { code: 1011, reason: 'agent crashed', time: T0 + 11, wasClean: false }, exchanges: [] } }),
    ],
  },
};

const dir = mkdtempSync(join(tmpdir(), 'agui-socket-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function checkJson(doc: unknown): { status: number; exchanges: any[] } {
  const file = join(dir, 'socket.har');
  writeFileSync(file, JSON.stringify(doc));
  let out = '';
  let err = '';
  const status = run(['check', file, '--format', 'json'], { out: (s) => (out += s), err: (s) => (err += s), colour: false });
  assert.equal(err, '');
  return { status, exchanges: JSON.parse(out).exchanges };
}

const HTTP_BINDING = /^\/spec\/1\.0\/basic\/transports\/http-|transport\/http-error-status/;

describe('AG-UI on a WebSocket, from a Chromium HAR', () => {
  it('check judges each exchange on the sockets, with no HTTP-binding finding', () => {
    const { status, exchanges } = checkJson(har);
    // A truncated run has no outcome: the consumer must reject it (basic/transports#truncation).
    assert.equal(status, 1);
    assert.deepEqual(
      exchanges.map((x) => [x.source, x.transport, x.verdict, x.runs.map((r: any) => `${r.runId}:${r.outcome}`)]),
      [
        [`${join(dir, 'socket.har')}#entries/0/socket/0`, 'websocket', 'completed', ['r1:success']],
        [`${join(dir, 'socket.har')}#entries/0/socket/1`, 'websocket', 'completed', ['r2:success']],
        [`${join(dir, 'socket.har')}#entries/1/socket/0`, 'websocket', 'failed', ['r3:truncated']],
      ],
    );
    for (const x of exchanges) {
      assert.deepEqual(x.findings.filter((f: any) => HTTP_BINDING.test(f.spec) || HTTP_BINDING.test(f.rule)), []);
      const binding = x.findings.filter((f: any) => f.rule === 'transport/custom-binding');
      assert.equal(binding.length, 1);
      assert.equal(binding[0].severity, 'info');
      assert.equal(binding[0].spec, '/spec/1.0/basic/transports#custom-transports');
    }
    // Only the cut run is truncated, and its note names the close that cut it.
    assert.deepEqual(exchanges.map((x) => x.findings.filter((f: any) => f.severity !== 'info').map((f: any) => f.rule)), [[], [], ['lifecycle/truncated']]);
    assert.match(exchanges[2].findings.find((f: any) => f.rule === 'transport/custom-binding').message, /closed with code 1011 \("agent crashed"\)/);
    // The envelope is unwrapped as on HTTP.
    assert.deepEqual(exchanges[1].input.findings.map((f: any) => f.rule), ['input/enveloped']);
    // Times come from the frames: the first event 50 ms after the input, the last 250 ms.
    assert.equal(exchanges[0].timing.ttfbMs, 50);
    assert.equal(exchanges[0].timing.durationMs, 250);
  });

  it('keeps the frames that are no exchange\'s on the socket, unjudged', () => {
    const [x] = readExchanges(utf8.encode(JSON.stringify(har)), 'socket.har');
    assert.equal(x!.socket!.connection.frames.length, 13);
    assert.deepEqual(x!.chunks.map((c) => c.time), [50, 50, 100, 200, 250]);
    assert.equal(x!.responseContentType, 'application/x-ndjson');
  });

  it('reads exchanges interleaved on one socket apart, by run and by message', () => {
    const a = runEvents('tA', 'rA', 'for A');
    const b = runEvents('tB', 'rB', 'for B');
    const order = [a[0], a[1], b[0], b[1], a[2], b[2], a[3], a[4], b[3], b[4]];
    const doc = { log: { version: '1.2', creator: { name: 'WebInspector', version: '537.36' }, entries: [
      socketEntry('wss://agent.example/multi', messages([{ send: inputOf('tA', 'rA', 'a') }, { send: inputOf('tB', 'rB', 'b') }, ...order.map((e) => ({ receive: e }))])),
    ] } };
    const exchanges = readExchanges(utf8.encode(JSON.stringify(doc)), 'multi.har');
    const text = (x: CapturedExchange) => x.chunks.map((c) => JSON.parse(new TextDecoder().decode(c.bytes)));
    assert.deepEqual(text(exchanges[0]!), a);
    assert.deepEqual(text(exchanges[1]!), b);
    const { exchanges: judged } = checkJson(doc);
    assert.deepEqual(judged.map((x) => [x.verdict, x.runs[0].outcome, x.findings.filter((f: any) => f.severity !== 'info').length]), [['completed', 'success', 0], ['completed', 'success', 0]]);
  });

  it('export → import gives the same exchanges, the close and the analysis records included', () => {
    const read = readExchanges(utf8.encode(JSON.stringify(har)), 'socket.har');
    const analysed = analyzeSession(read);
    const withRecords = read.map((x, i) => ({ ...x, analysis: bytesOnlyAnalysis(analysed[i]!.report, null) }));
    const meta = { creator: { name: 'agui-inspector', version: '0.1.0' } };
    const written = writeHar(withRecords, meta);
    const back = readExchanges(utf8.encode(written), 'socket.har');
    assert.deepEqual(back, withRecords);
    assert.equal(writeHar(back, meta), written);
    const entries = JSON.parse(written).log.entries;
    assert.deepEqual(entries.map((e: any) => [e._resourceType, e._webSocketMessages.length, e._agui.exchanges.map((r: any) => r.input)]), [['websocket', 13, [1, 7]], ['websocket', 4, [0]]]);
    assert.deepEqual(entries[1]._agui.close, { code: 1011, reason: 'agent crashed', time: T0 + 11, wasClean: false });
  });

  it('reads a close that does not say whether it was clean as not known', () => {
    const doc = structuredClone(har);
    delete (doc.log.entries[1] as { _agui: { close: { wasClean?: boolean } } })._agui.close.wasClean;
    const [, , cut] = readExchanges(utf8.encode(JSON.stringify(doc)), 'socket.har');
    assert.deepEqual(cut!.socket!.connection.close, { code: 1011, reason: 'agent crashed', time: T0 + 11 });
  });

  it('the session export writes the sockets, by default with their URL\'s query filled, and reads back to the same file', () => {
    const read = readExchanges(utf8.encode(JSON.stringify(har)), 'socket.har');
    for (const redact of [undefined, []]) {
      const written = exportSession(read, { redact });
      assert.equal(exportSession(readExchanges(utf8.encode(written), 'export.har'), { redact }), written);
    }
    assert.deepEqual(JSON.parse(exportSession(read)).log.entries.map((e: any) => e.request.url), ['wss://agent.example/ws', 'wss://agent.example/ws?session=x']);
  });
});

describe('the socket beside an exchange, as the panel lists it', () => {
  it("marks each frame as the exchange's input or stream, another exchange's, or no exchange's, timed from the input", async () => {
    const { socketExchanges, socketView } = await import('../../src/exchange/index.ts');
    const text = (data: unknown, type: 'send' | 'receive', k: number) => ({ type, time: T0 + k * 0.05, opcode: 1, data: JSON.stringify(data) });
    const frames = [
      text({ type: 'hello' }, 'receive', 0),
      text(inputOf('t', 'r1', 'one'), 'send', 1),
      ...runEvents('t', 'r1', 'first').map((ev, k) => text(ev, 'receive', 2 + k)),
      text({ op: 'ping' }, 'send', 7),
      text(inputOf('t', 'r2', 'two'), 'send', 8),
      ...runEvents('t', 'r2', 'second').map((ev, k) => text(ev, 'receive', 9 + k)),
    ];
    const connection = { url: 'ws://127.0.0.1/agent', frames, close: { code: 1000, reason: 'bye', time: T0 + 1 } };
    const [, second] = socketExchanges(connection, (k) => `x${k}`);
    const view = socketView(second!.socket!);
    assert.deepEqual(view.frames.map((f) => f.role), ['not-ag-ui', 'other-exchange', ...Array(5).fill('other-exchange'), 'not-ag-ui', 'input', ...Array(5).fill('stream')]);
    assert.deepEqual([view.total, view.notAgUi, view.close?.code], [14, 2, 1000]);
    assert.equal(view.frames[8]!.ms, 0);
    assert.equal(view.frames[0]!.ms, -400);
    assert.equal(view.frames[1]!.preview.startsWith('{"threadId":"t"'), true);
  });
});
