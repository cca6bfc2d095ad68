/**
 * `agui-inspector replay` answering WebSocket clients (issue #38): a recording of AG-UI on a socket is
 * served at its recorded path, each input frame answered with its exchange's server frames. The packaged
 * tool (dist/node: run `npm run build:cli` first) is asked by a real `ws` client on 127.0.0.1, so the
 * bundled `ws` is what answers; the hostile clients ask the server in-process.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import WebSocket from 'ws';
import { startReplay } from '../../src/cli/replay.ts';
import { socketExchanges, type SocketConnection } from '../../src/exchange/index.ts';
import { listening, packagedRecording, runEvents } from '../support/replay.ts';

const T0 = 1764000000;
/** When each recorded event frame came, ms after the input frame. */
const AT = [100, 250, 400, 600, 800];
const input = (threadId: string, runId: string) => JSON.stringify({ threadId, runId, protocolVersion: '1.0', state: {}, tools: [], context: [], forwardedProps: {}, messages: [{ id: 'u1', role: 'user', content: 'hi' }] });
const recordedEvents = runEvents('t1', 'r1');

/** A socket as a recorder keeps it: the input, then one JSON text frame an event at its time. */
function connection(close: SocketConnection['close'] = null, events: object[] = recordedEvents): SocketConnection {
  return {
    url: 'ws://127.0.0.1:9/agent/ws',
    frames: [
      { type: 'send', time: T0, opcode: 1, data: input('t1', 'r1') },
      ...events.map((e, k) => ({ type: 'receive' as const, time: T0 + AT[k]! / 1000, opcode: 1, data: JSON.stringify(e) })),
    ],
    close,
  };
}

const recording = (c: SocketConnection) => socketExchanges(c, (k) => `recorded/socket/${k}`);

interface Heard {
  frames: { data: string; at: number }[];
  close: Promise<{ code: number; reason: string; at: number }>;
}

/** Connects, sends `text` as one frame, and hears every frame with when it came (ms after the send) and how the socket closed. */
async function ask(url: string, text: string, headers: Record<string, string> = {}): Promise<{ ws: WebSocket; heard: Heard }> {
  const ws = new WebSocket(url, { headers });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const t0 = performance.now();
  const heard: Heard = {
    frames: [],
    close: new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString(), at: performance.now() - t0 }))),
  };
  ws.on('message', (data, isBinary) => heard.frames.push({ data: isBinary ? `binary ${(data as Buffer).length}` : data.toString(), at: performance.now() - t0 }));
  ws.send(text);
  return { ws, heard };
}

async function until(what: string, ok: () => boolean, ms = 3_000): Promise<void> {
  for (const end = performance.now() + ms; !ok(); await new Promise((r) => setTimeout(r, 10))) {
    if (performance.now() > end) assert.fail(`timed out waiting for ${what}`);
  }
}

// A stale build (no socket replay in dist/node) would leave a client waiting for ever: a bound makes it fail instead.
describe('agui-inspector replay on a WebSocket (the packaged tool)', { timeout: 60_000 }, () => {
  const packaged = packagedRecording(recording(connection()));
  const replay = (args: string[]) => packaged.replay([packaged.file(), '--port', '0', ...args]);

  it('answers an input frame with the recorded frames in order, the request\'s ids in them, each within 50 ms of its recorded time', async () => {
    const p = replay([]);
    try {
      const base = await listening(p);
      await until('the socket line', () => /1 of them were recorded on a WebSocket: connect to ws:\/\/127\.0\.0\.1:\d+<the recorded path>/.test(p.out));
      const { ws, heard } = await ask(`${base.replace(/^http/, 'ws')}/agent/ws`, input('mine', 'run-mine'));
      await until('five frames', () => heard.frames.length === 5);
      const events = heard.frames.map((f) => JSON.parse(f.data));
      assert.deepEqual(events, runEvents('mine', 'run-mine'), 'the recorded events, the request\'s threadId and runId in place of t1 and r1');
      heard.frames.forEach((f, k) => assert.ok(Math.abs(f.at - AT[k]!) <= 50, `frame ${k} came at ${f.at.toFixed(1)} ms, recorded at ${AT[k]} ms`));
      await until('the log line', () => /WebSocket \/agent\/ws frame 0 → recorded exchange 0/.test(p.out));
      ws.close();
    } finally {
      p.child.kill();
    }
  });

  it('--keep-ids --speed max sends the recorded ids, all at once', async () => {
    const p = replay(['--keep-ids', '--speed', 'max']);
    try {
      const { ws, heard } = await ask(`${(await listening(p)).replace(/^http/, 'ws')}/agent/ws`, input('mine', 'run-mine'));
      await until('five frames', () => heard.frames.length === 5);
      assert.deepEqual(heard.frames.map((f) => JSON.parse(f.data)), recordedEvents);
      assert.ok(heard.frames[4]!.at < AT[4]! / 2, `the last frame came at ${heard.frames[4]!.at.toFixed(1)} ms, not paced`);
      ws.close();
    } finally {
      p.child.kill();
    }
  });

  it('faults: dup@1 sends event 1 twice, error@terminal ends in RUN_ERROR, cut@2 closes the socket with 1011 after event 2', async () => {
    const p = replay(['--speed', 'max', '--fault', 'dup@1', '--fault', 'cut@2']);
    try {
      const { heard } = await ask(`${(await listening(p)).replace(/^http/, 'ws')}/agent/ws`, input('t1', 'r1'));
      const closed = await heard.close;
      assert.deepEqual(heard.frames.map((f) => JSON.parse(f.data).type), ['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT']);
      assert.equal(closed.code, 1011);
      assert.match(closed.reason, /cut@2 injected by AG-UI Inspector/);
      await until('the fault line', () => /WebSocket \/agent\/ws: faults injected into recorded exchange 0: dup@1, cut@2\n/.test(p.out));
    } finally {
      p.child.kill();
    }
    const q = replay(['--speed', 'max', '--fault', 'error@terminal']);
    try {
      const { ws, heard } = await ask(`${(await listening(q)).replace(/^http/, 'ws')}/agent/ws`, input('t1', 'r1'));
      await until('five frames', () => heard.frames.length === 5);
      assert.equal(JSON.parse(heard.frames[4]!.data).type, 'RUN_ERROR');
      ws.close();
    } finally {
      q.child.kill();
    }
  });

  it('refuses, with exit 2 and one line, a fault no socket can carry when every exchange is on one', async () => {
    for (const fault of ['status:503', 'cut-mid@1', 'drip:100']) {
      const p = replay(['--fault', fault]);
      const code = await new Promise((resolve) => p.child.once('exit', resolve));
      assert.equal(code, 2);
      assert.match(p.err, new RegExp(`^agui-inspector: --fault ${fault} cannot be injected on a WebSocket, and every exchange of this recording is on one: .*\\n$`));
    }
  });
});

describe('replay on a WebSocket: what it answers and what it refuses', { timeout: 60_000 }, () => {
  it('closes as the recording\'s socket closed when that close cut the run: its code and reason, at its time', async () => {
    const cut = connection({ code: 1011, reason: 'agent crashed', time: T0 + 0.5 }, recordedEvents.slice(0, 3));
    const server = await startReplay(recording(cut));
    try {
      const { heard } = await ask(`${server.url.replace(/^http/, 'ws')}/agent/ws`, input('t1', 'r1'));
      const closed = await heard.close;
      assert.equal(heard.frames.length, 3);
      assert.deepEqual({ code: closed.code, reason: closed.reason }, { code: 1011, reason: 'agent crashed' });
      assert.ok(Math.abs(closed.at - 500) <= 50, `closed at ${closed.at.toFixed(1)} ms, recorded at 500 ms`);
    } finally {
      await server.close();
    }
  });

  it('refuses another website\'s page (403), a path with no socket recorded (404), and an input the recording cannot answer (1008)', async () => {
    const lines: string[] = [];
    const server = await startReplay(recording(connection()), { speed: 'max', log: (l) => lines.push(l) });
    const ws = server.url.replace(/^http/, 'ws');
    const status = (url: string, headers: Record<string, string> = {}) =>
      new Promise<number>((resolve, reject) => {
        const c = new WebSocket(url, { headers });
        c.once('unexpected-response', (req, res) => {
          resolve(res.statusCode!);
          req.destroy();
        });
        c.once('error', () => {});
        c.once('open', () => reject(new Error(`${url} opened`)));
      });
    try {
      assert.equal(await status(`${ws}/agent/ws`, { origin: 'https://evil.example' }), 403);
      assert.equal(await status(`${ws}/agent/other`), 404);
      assert.ok(lines.some((l) => l.startsWith('WebSocket /agent/ws from https://evil.example → 403')));
      const first = await ask(`${ws}/agent/ws`, input('t1', 'r1'), { origin: 'http://localhost:3000' });
      await until('the answer', () => first.heard.frames.length === 5);
      const again = await ask(`${ws}/agent/ws`, input('t1', 'r1'));
      const closed = await again.heard.close;
      assert.equal(closed.code, 1008);
      assert.match(closed.reason, /^not in the recording: the recording has no further exchange on this thread/);
      assert.ok(Buffer.byteLength(closed.reason) <= 123);
      first.ws.close();
    } finally {
      await server.close();
    }
  });

  it('survives hostile clients: garbage frames, a frame over 16 MiB, bytes that are no frame, and one that never sends', async () => {
    const lines: string[] = [];
    const server = await startReplay(recording(connection()), { speed: 'max', log: (l) => lines.push(l) });
    const url = `${server.url.replace(/^http/, 'ws')}/agent/ws`;
    try {
      const silent = new WebSocket(url);
      await new Promise((resolve) => silent.once('open', resolve));

      const garbage = await ask(url, '{"not": "an input"');
      garbage.ws.send(new Uint8Array([0, 1, 2, 255]));
      garbage.ws.send('');
      await until('three frames told', () => lines.filter((l) => /frame \d is no RunAgentInput/.test(l)).length === 3);
      assert.equal(garbage.heard.frames.length, 0, 'nothing answers garbage');

      const huge = await ask(url, 'x'.repeat(16 * 1024 * 1024 + 1));
      assert.equal((await huge.heard.close).code, 1009);

      // A client that speaks no WebSocket after the handshake: an unmasked frame with a reserved opcode.
      const raw = connect(Number(new URL(server.url).port), '127.0.0.1');
      raw.on('error', () => {});
      raw.write(`GET /agent/ws HTTP/1.1\r\nHost: 127.0.0.1:${new URL(server.url).port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`);
      await new Promise((resolve) => raw.once('data', resolve));
      raw.write(Buffer.from([0x83, 0x05, 1, 2, 3, 4, 5]));
      await new Promise((resolve) => raw.once('close', resolve));

      const good = await ask(url, input('mine', 'run-mine'));
      await until('the answer to a good client beside them', () => good.heard.frames.length === 5);
      assert.equal(silent.readyState, WebSocket.OPEN);
      const t = performance.now();
      await server.close();
      assert.ok(performance.now() - t < 1_000, 'closing does not wait for the silent client');
    } finally {
      await server.close();
    }
  });
});
