/**
 * The demo agent's WebSocket endpoint (issue #38): every scenario over a socket, one JSON text frame an
 * event, asked by a real `ws` client on 127.0.0.1; `?close=N` closes the socket mid-run with 1011.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import { RunEnd } from '../../src/exchange/run-end.ts';
import { scenarios } from '../../demo/scenarios.ts';
import { inputFor, type Json } from './helpers.ts';

let agent: DemoAgent;
before(async () => {
  agent = await startDemoAgent({ page: false, delayMs: 0 });
});
after(() => agent.close());

const socketUrl = (path: string) => `${agent.url.replace(/^http/, 'ws')}${path}`;

function open(path: string): Promise<WebSocket> {
  const ws = new WebSocket(socketUrl(path));
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

interface Heard {
  /** Each run's events, by the runId its input asked for. */
  events: Map<string, Json[]>;
  closed: Promise<{ code: number; reason: string }>;
}

/** Listens to every frame, each put with the run of the input whose events are still coming (one run at a time, or runs told apart by runId). */
function listen(ws: WebSocket): Heard {
  const heard: Heard = { events: new Map(), closed: new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() }))) };
  ws.on('message', (data, isBinary) => {
    assert.equal(isBinary, false, 'events come as JSON text frames');
    const event = JSON.parse(data.toString()) as Json;
    const runs = [...heard.events.keys()];
    const owner = runs.find((r) => event.runId === r) ?? runs.at(-1)!;
    heard.events.get(owner)!.push(event);
  });
  return heard;
}

/** Resolves with the run's events once its requested run has ended, or with the close that came first. */
function runEnded(heard: Heard, runId: string): Promise<'ended' | 'closed'> {
  const end = new RunEnd(runId);
  let seen = 0;
  return new Promise((resolve) => {
    const tick = setInterval(() => {
      const events = heard.events.get(runId)!;
      for (; seen < events.length; seen++) if (end.endedBy(events[seen]!)) (clearInterval(tick), resolve('ended'));
    }, 5);
    void heard.closed.then(() => (clearInterval(tick), resolve('closed')));
  });
}

describe('the demo agent over a WebSocket', () => {
  for (const s of scenarios) {
    test(`${s.name}: its scenario's events, one JSON text frame each, the socket left open only when the requested run ended`, async () => {
      const ws = await open(`/agent/${s.name}?delay=0`);
      const heard = listen(ws);
      const input = inputFor({ threadId: `thread-${s.name}`, runId: `run-${s.name}` });
      heard.events.set(input.runId, []);
      ws.send(JSON.stringify(input));
      const how = await runEnded(heard, input.runId);
      const expected = JSON.parse(JSON.stringify(s.events(input))) as Json[];
      const end = new RunEnd(input.runId);
      const last = expected.findIndex((e) => end.endedBy(e));
      if (how === 'closed') {
        assert.equal(last, -1, 'closed although the scenario ends the requested run');
        assert.deepEqual(await heard.closed, { code: 1000, reason: 'demo agent: the stream ended before the requested run did' });
        assert.deepEqual(heard.events.get(input.runId), expected);
      } else {
        assert.deepEqual(heard.events.get(input.runId), expected.slice(0, last + 1));
        ws.close();
      }
    });
  }

  test('?close=3 closes the socket with 1011 and a reason after three events, mid-run', async () => {
    const ws = await open('/agent/chat?delay=0&close=3');
    const heard = listen(ws);
    const input = inputFor({ threadId: 'thread-close', runId: 'run-close' });
    heard.events.set(input.runId, []);
    ws.send(JSON.stringify(input));
    assert.deepEqual(await heard.closed, { code: 1011, reason: 'demo agent: closed mid-run after 3 events (?close=3)' });
    assert.deepEqual(heard.events.get(input.runId)!.map((e) => e.type), ['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT']);
  });

  test('two runs share one socket, each ending with its own RUN_FINISHED', async () => {
    const ws = await open('/agent/chat?delay=0');
    const heard = listen(ws);
    const chat = scenarios.find((s) => s.name === 'chat')!;
    for (const runId of ['run-a', 'run-b']) {
      const input = inputFor({ threadId: 'thread-shared', runId });
      heard.events.set(runId, []);
      ws.send(JSON.stringify(input));
      assert.equal(await runEnded(heard, runId), 'ended');
      assert.deepEqual(heard.events.get(runId), JSON.parse(JSON.stringify(chat.events(input))));
    }
    assert.equal(ws.readyState, WebSocket.OPEN);
    ws.close();
  });

  test('refuses a frame that is no RunAgentInput (1007), a binary frame (1003), an unknown scenario (404) and another site\'s page (403)', async () => {
    const bad = await open('/agent/chat');
    const closedBad = listen(bad).closed;
    bad.send('{"threadId": 1}');
    assert.deepEqual(await closedBad, { code: 1007, reason: 'RunAgentInput needs string threadId, string runId and a messages array' });
    const binary = await open('/agent/chat');
    const closedBinary = listen(binary).closed;
    binary.send(new Uint8Array([1, 2, 3]));
    assert.equal((await closedBinary).code, 1003);
    const status = (path: string, headers: Record<string, string> = {}) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(socketUrl(path), { headers });
        ws.once('unexpected-response', (req, res) => {
          resolve(res.statusCode!);
          req.destroy();
        });
        ws.once('error', () => {});
      });
    assert.equal(await status('/agent/no-such-scenario'), 404);
    assert.equal(await status('/agent/chat', { origin: 'https://evil.example' }), 403);
    assert.equal(await status('/agent/chat?close=-1'), 400);
  });
});
