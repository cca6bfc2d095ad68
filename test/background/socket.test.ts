/**
 * A tab's recorded WebSockets in the worker's session, without a browser: the page script's socket, frame
 * and close messages in, each exchange on a socket analysed as its events come, and the export read back
 * by `check` judging them the same.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BaseEvent } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import { Session } from '../../background/session.ts';
import { analyzeExchanges, type ExchangeReport } from '../../src/analyzer/index.ts';
import { readExchanges } from '../../src/formats/index.ts';
import { exportSession } from '../../src/recording/index.ts';
import { DEFAULT_LIMITS, type PageMessage } from '../../src/messages.ts';

const T0 = 1_764_000_000_000;
const encoder = new EventEncoder();
const utf8 = new TextEncoder();

const input = (threadId: string, runId: string) => JSON.stringify({
  threadId, runId, protocolVersion: '1.0', state: {}, tools: [], context: [], forwardedProps: {}, messages: [{ id: `u-${runId}`, role: 'user', content: 'hi' }],
});
const run = (threadId: string, runId: string, finish = true): BaseEvent[] => [
  { type: 'RUN_STARTED', threadId, runId, protocolVersion: '1.0' },
  { type: 'TEXT_MESSAGE_START', messageId: `m-${runId}`, role: 'assistant' },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: `m-${runId}`, delta: 'héllo' },
  { type: 'TEXT_MESSAGE_END', messageId: `m-${runId}` },
  ...(finish ? [{ type: 'RUN_FINISHED', threadId, runId }] : []),
] as BaseEvent[];

type Frame = { send: string } | { receive: string } | { binary: Uint8Array };

/** A socket as the page script reports it: opened, its frames 40 ms apart, then closed (or not). */
function socket(id: number, frames: Frame[], close: { code: number; reason: string; wasClean: boolean } | null): PageMessage[] {
  const msgs: PageMessage[] = [{ k: 'socket', id, t: T0, url: `ws://127.0.0.1:9/agent?s=${id}` }];
  frames.forEach((f, k) => {
    const t = T0 + 10 + 40 * k;
    if ('binary' in f) msgs.push({ k: 'frame', id, t, type: 'receive', opcode: 2, data: f.binary });
    else if ('send' in f) msgs.push({ k: 'frame', id, t, type: 'send', opcode: 1, data: f.send });
    else msgs.push({ k: 'frame', id, t, type: 'receive', opcode: 1, data: f.receive });
  });
  if (close) msgs.push({ k: 'close', id, t: T0 + 10 + 40 * frames.length, ...close });
  return msgs;
}

const json = (e: unknown) => ({ receive: JSON.stringify(e) });
/** Socket 1: a ping no exchange takes, a JSON-per-frame exchange, one whose events come in a JSON array, one in protobuf. Socket 2: closed mid-run. */
const sockets: PageMessage[] = [
  ...socket(1, [
    json({ type: 'ping' }),
    { send: input('t1', 'r1') }, ...run('t1', 'r1').map(json),
    { send: input('t1', 'r2') }, { receive: JSON.stringify(run('t1', 'r2').slice(0, 3)) }, ...run('t1', 'r2').slice(3).map(json),
    { send: input('t1', 'r3') }, ...run('t1', 'r3').map((e) => ({ binary: encoder.encodeProtobuf(e) })),
  ], { code: 1000, reason: '', wasClean: true }),
  // The agent's close frame came, but the connection dropped before the closing handshake completed.
  ...socket(2, [{ send: input('t2', 'r4') }, ...run('t2', 'r4', false).map(json)], { code: 1011, reason: 'agent crashed', wasClean: false }),
];

const drain = (s: Session) => {
  const applied = [];
  while (s.busy) applied.push(...s.work(() => true));
  return applied;
};
const unnamed = ({ source: _, ...r }: ExchangeReport) => r;

function recorded(msgs = sockets): { session: Session; log: { doc: string; msgs: PageMessage[] }[] } {
  const session = new Session(1, 'http://127.0.0.1/', false, DEFAULT_LIMITS);
  session.receive('doc', 1, msgs);
  return { session, log: drain(session).map((a) => ({ doc: a.doc, msgs: a.kept })) };
}

describe('Session: exchanges on recorded WebSockets', () => {
  it('makes each exchange on a socket a session exchange, the cut run truncated with its close named', () => {
    const { session } = recorded();
    const view = session.snapshot();
    assert.deepEqual(view.exchanges.map((x) => [x.api, x.url, x.outcome, x.report?.transport, x.report?.verdict, x.report?.runs.map((r) => `${r.runId}:${r.outcome}`)]), [
      ['websocket', 'ws://127.0.0.1:9/agent?s=1', 'complete', 'websocket', 'completed', ['r1:success']],
      ['websocket', 'ws://127.0.0.1:9/agent?s=1', 'complete', 'websocket', 'completed', ['r2:success']],
      ['websocket', 'ws://127.0.0.1:9/agent?s=1', 'complete', 'websocket', 'completed', ['r3:success']],
      ['websocket', 'ws://127.0.0.1:9/agent?s=2', 'error', 'websocket', 'failed', ['r4:truncated']],
    ]);
    const cut = view.exchanges[3]!;
    assert.match(cut.error!, /code 1011 \("agent crashed"\), not cleanly/);
    assert.match(cut.report!.findings.find((f) => f.rule === 'transport/custom-binding')!.message, /closed with code 1011 \("agent crashed"\)/);
    assert.deepEqual(view.exchanges.map((x) => x.events.length), [5, 5, 5, 4]);
    assert.equal(view.exchanges[2]!.response?.contentType, 'application/vnd.ag-ui.event+proto');
  });

  it('judges a live exchange as its events come, before its run ends', () => {
    const open = sockets.slice(0, 6);
    const { session } = recorded(open);
    const [x] = session.snapshot().exchanges;
    assert.equal(x!.outcome, 'pending');
    assert.deepEqual(x!.report?.runs.map((r) => r.outcome), ['running']);
    assert.equal(x!.events.length, 3);
  });

  it('exports every frame byte for byte, and check on the export judges as the worker did', () => {
    const { session } = recorded();
    const har = exportSession(session.captured(), { redact: [] });
    const entries = JSON.parse(har).log.entries;
    const sent = sockets.filter((m) => m.k === 'frame');
    const written = entries.flatMap((e: any) => e._webSocketMessages);
    assert.equal(written.length, sent.length);
    for (const [k, m] of sent.entries()) {
      const w = written[k];
      assert.deepEqual([w.type, w.opcode, w.time], [m.type, m.opcode, m.t / 1000]);
      assert.deepEqual(w.opcode === 2 ? new Uint8Array(Buffer.from(w.data, 'base64')) : w.data, m.data);
    }
    const closes = sockets.flatMap((m) => (m.k === 'close' ? [{ code: m.code, reason: m.reason, time: m.t / 1000, wasClean: m.wasClean }] : []));
    assert.deepEqual(entries.map((e: any) => e._agui.close), closes, 'each close as the page saw it, wasClean included');
    assert.deepEqual(readExchanges(utf8.encode(har), 'export.har').map((x) => x.socket!.connection.close), [closes[0], closes[0], closes[0], closes[1]], 'and read back');
    const read = readExchanges(utf8.encode(har), 'export.har');
    const worker = session.captured().map((x) => unnamed(x.analysis!.report!));
    assert.deepEqual(analyzeExchanges(read).map(unnamed), worker);
  });

  it('replays its stored log after a restart to the same exchanges and verdicts', () => {
    const { session, log } = recorded();
    const restarted = new Session(1, 'http://127.0.0.1/', false, DEFAULT_LIMITS);
    restarted.docs = { doc: 1 };
    restarted.replay(log);
    drain(restarted);
    assert.deepEqual(restarted.captured().map((x) => x.analysis), session.captured().map((x) => x.analysis));
  });

  it('counts the frames against the tab cap: past it the socket is capped and the drop counted', () => {
    const bytes = sockets.slice(0, 4).reduce((n, m) => n + (m.k === 'frame' ? (m.data as string).length : m.k === 'socket' ? m.url.length : 0), 0);
    const session = new Session(1, 'u', false, { ...DEFAULT_LIMITS, maxBytes: bytes });
    session.receive('doc', 1, sockets.slice(0, 10));
    drain(session);
    assert.equal(session.stats().bytes, bytes);
    assert.equal(session.stats().dropped.chunks, 6);
    const [x] = session.snapshot().exchanges;
    assert.equal(x!.capped, true);
  });

  it('stops reading a socket at a frame the relay or page reports lost: its open exchange capped as of the hole, later frames not read across it', () => {
    // Socket 1's first exchange: its input, RUN_STARTED, TEXT_MESSAGE_START; then TEXT_MESSAGE_CONTENT is lost.
    const lostAt = 5;
    const hole: PageMessage = { k: 'dropped', t: T0 + 200, id: null, exchanges: 0, chunks: 0, bytes: 0, rejected: 0, socket: 1 };
    const after = sockets.slice(lostAt + 1).filter((m) => m.k === 'frame' && m.id === 1).length;
    const { session, log } = recorded([...sockets.slice(0, lostAt), hole, ...sockets.slice(lostAt + 1)]);
    const view = session.snapshot();
    assert.deepEqual(view.exchanges.map((x) => [x.url, x.capped, x.outcome, x.events.length, x.report?.runs.map((r) => `${r.runId}:${r.outcome}`)]), [
      // Read across the hole, TEXT_MESSAGE_END would have followed START and the run would have finished, judged whole.
      ['ws://127.0.0.1:9/agent?s=1', true, 'error', 2, ['r1:running']],
      ['ws://127.0.0.1:9/agent?s=2', false, 'error', 4, ['r4:truncated']],
    ], 'the later exchanges on socket 1 are never opened; socket 2 is read as before');
    assert.equal(session.stats().dropped.chunks, after, 'every later frame of socket 1 dropped and counted');
    const restarted = new Session(1, 'http://127.0.0.1/', false, DEFAULT_LIMITS);
    restarted.docs = { doc: 1 };
    restarted.replay(log);
    drain(restarted);
    assert.deepEqual(restarted.captured().map((x) => x.analysis), session.captured().map((x) => x.analysis), 'the hole is in the log');
  });

  it('records nothing of a socket that opens while capture is paused', () => {
    const session = new Session(1, 'u', false, DEFAULT_LIMITS);
    session.recording = false;
    session.receive('doc', 1, sockets);
    drain(session);
    assert.deepEqual([session.snapshot().exchanges.length, session.stats().bytes, session.stats().dropped.rejected], [0, 0, 0]);
  });
});
