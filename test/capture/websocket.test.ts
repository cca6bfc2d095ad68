/**
 * The page script's WebSocket wrapper over real sockets on 127.0.0.1, in Node: `ws` stands for the browser's
 * WebSocket (its own addEventListener, MessageEvent data and CloseEvent), a `ws` server for the agent.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { WebSocket as NodeWebSocket, WebSocketServer } from 'ws';
import { disguise } from '../../src/capture/page/disguise.ts';
import { HOLD_FRAMES, wrapWebSocket } from '../../src/capture/page/websocket.ts';
import type { PageMessage } from '../../src/messages.ts';
import { RUN_INPUT } from './fakes.ts';

const events = [
  { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' },
  { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
];

let server: WebSocketServer;
let url: string;
before(async () => {
  server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((resolve) => server.once('listening', resolve));
  url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/agent`;
  // The agent: a greeting, then for each input its events (one binary), then a crash mid-run; `echo` frames come back.
  server.on('connection', (socket) => {
    socket.send('{"hello":1}');
    socket.on('message', (data, binary) => {
      const text = binary ? null : data.toString();
      if (text === 'close-me') return socket.close(1011, 'agent crashed');
      if (text !== RUN_INPUT) return socket.send(binary ? data : `echo:${text}`);
      socket.send(JSON.stringify(events[0]));
      socket.send(Buffer.from(JSON.stringify(events[1])));
    });
  });
});
after(() => server.close());

/** A wrapped WebSocket class whose page messages land in `posted`. */
function wrapped(recording = () => true): { WS: typeof NodeWebSocket; posted: PageMessage[] } {
  class PageWebSocket extends NodeWebSocket {}
  const scope = { WebSocket: PageWebSocket as unknown as typeof WebSocket };
  const posted: PageMessage[] = [];
  wrapWebSocket(scope, {
    WebSocket: PageWebSocket as unknown as typeof WebSocket,
    addEventListener: PageWebSocket.prototype.addEventListener as unknown as EventTarget['addEventListener'],
    ArrayBuffer, Promise,
  }, { disguise: disguise(Error, DOMException as never), post: (m) => posted.push(m), now: () => performance.timeOrigin + performance.now(), recording });
  return { WS: scope.WebSocket as unknown as typeof NodeWebSocket, posted };
}

/** Opens a socket, sends `sends` one after another (each once the previous frame came back), and waits for the close. */
async function talk(WS: typeof NodeWebSocket, sends: (string | Uint8Array)[], received: unknown[] = []): Promise<void> {
  const ws = new WS(url);
  ws.binaryType = 'arraybuffer';
  await new Promise<void>((resolve) => {
    let k = 0;
    ws.addEventListener('message', (ev) => {
      received.push(typeof ev.data === 'string' ? ev.data : new Uint8Array(ev.data as ArrayBuffer));
      if (k < sends.length) ws.send(sends[k++]!);
    });
    ws.addEventListener('close', () => resolve());
  });
}

describe('wrapWebSocket over real sockets', () => {
  it('reports nothing of a socket until a client frame is a RunAgentInput, then the whole socket in order, its close with code and reason', async () => {
    const { WS, posted } = wrapped();
    const received: unknown[] = [];
    await talk(WS, ['ping', new Uint8Array([1, 2, 3]), RUN_INPUT, 'after', 'after', 'close-me'], received);
    const frames = posted.filter((m): m is Extract<PageMessage, { k: 'frame' }> => m.k === 'frame');
    assert.deepEqual(posted.map((m) => m.k), ['socket', ...frames.map(() => 'frame'), 'close']);
    assert.equal((posted[0] as { url: string }).url, url);
    // Every frame the page received and sent, each direction in order: what the page saw is what was captured.
    const sent = ['ping', new Uint8Array([1, 2, 3]), RUN_INPUT, 'after', 'after', 'close-me'];
    assert.deepEqual(frames.filter((f) => f.type === 'receive').map((f) => f.data), received);
    assert.deepEqual(frames.filter((f) => f.type === 'send').map((f) => f.data), sent);
    assert.deepEqual(frames.map((f) => f.opcode), frames.map((f) => (typeof f.data === 'string' ? 1 : 2)));
    assert.ok(received.some((d) => d instanceof Uint8Array), 'a binary frame came');
    const times = posted.map((m) => m.t);
    assert.deepEqual([...times].sort((a, b) => a - b), times);
    const close = posted.at(-1) as Extract<PageMessage, { k: 'close' }>;
    assert.deepEqual([close.code, close.reason, close.wasClean], [1011, 'agent crashed', true]);
  });

  it('reports nothing of a socket that never carries an input, nor of one decided while capture is paused', async () => {
    const never = wrapped();
    await talk(never.WS, ['ping', 'close-me']);
    assert.deepEqual(never.posted, []);
    const paused = wrapped(() => false);
    await talk(paused.WS, [RUN_INPUT, 'x', 'close-me']);
    assert.deepEqual(paused.posted, []);
  });

  it('holds at most HOLD_FRAMES frames while undecided: the oldest go, counted as dropped', async () => {
    const { WS, posted } = wrapped();
    const pings = Array.from({ length: HOLD_FRAMES }, (_, k) => `ping ${k}`);
    await talk(WS, [...pings, RUN_INPUT, 'close-me']);
    const held = posted.slice(1, posted.findIndex((m) => m.k === 'frame' && m.data === RUN_INPUT));
    assert.equal(held.length, HOLD_FRAMES);
    const dropped = posted.filter((m) => m.k === 'dropped');
    // The greeting, ping 0 and its echo went: 2 × 64 + 1 frames came before the input, 64 stayed.
    assert.deepEqual(dropped.map((m) => m.k === 'dropped' && m.chunks), [2 * HOLD_FRAMES + 1 - HOLD_FRAMES]);
  });

  it('reports a frame lost once the socket is recorded as a hole in it, in order; one lost before the input as a count only', async () => {
    const { WS, posted } = wrapped();
    // A number is neither a string nor binary data: the native converts it, the wrapper records nothing of it.
    await talk(WS, [7 as never, RUN_INPUT, 42 as never, 'after', 'close-me']);
    const id = (posted[0] as Extract<PageMessage, { k: 'socket' }>).id;
    const told = posted.map((m) => {
      if (m.k === 'dropped') return `dropped ${m.chunks}${m.socket === undefined ? '' : ` hole in ${m.socket}`}`;
      if (m.k === 'frame') return `${m.type} ${m.data === RUN_INPUT ? 'input' : typeof m.data === 'string' ? m.data : 'binary'}`;
      return m.k;
    });
    assert.deepEqual(told, [
      'socket', 'receive {"hello":1}', 'receive echo:7', 'send input', 'dropped 1',
      `receive ${JSON.stringify(events[0])}`, `dropped 1 hole in ${id}`, 'receive binary',
      'send after', 'receive echo:42', 'send close-me', 'receive echo:after', 'close',
    ]);
  });

  it('looks native: name, length, toString, prototype and constructor', () => {
    const { WS } = wrapped();
    class Native extends NodeWebSocket {}
    assert.equal(WS.name, 'PageWebSocket');
    assert.equal(WS.length, Native.length);
    assert.equal(WS.prototype.constructor, WS);
    assert.ok(Object.getPrototypeOf(WS.prototype) === NodeWebSocket.prototype);
  });
});
