/** `agui-inspector replay --fault …` as npm installs it (dist/node: run `npm run build:cli` first), asked by a real HTTP client. */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { before, describe, it } from 'node:test';
import type { CapturedExchange } from '../../src/exchange/index.ts';
import { listening, packagedRecording, replayProcess, runEvents } from '../support/replay.ts';

const utf8 = new TextEncoder();
const body = JSON.stringify({ threadId: 't1', runId: 'r1', protocolVersion: '1.0', messages: [] });
const x: CapturedExchange = {
  source: 'recorded',
  url: 'http://127.0.0.1:9/agent/chat',
  method: 'POST',
  status: 200,
  requestBody: body,
  responseContentType: 'text/event-stream',
  chunks: runEvents('t1', 'r1').map((e) => ({ time: 0, bytes: utf8.encode(`data: ${JSON.stringify(e)}\n\n`) })),
};


/** Resolves once what it printed matches `re`: it logs an answer's faults once the answer has ended. */
async function printed(p: ReturnType<typeof replayProcess>, re: RegExp): Promise<void> {
  for (const end = performance.now() + 3_000; !re.test(p.out); await new Promise((r) => setTimeout(r, 20))) {
    if (performance.now() > end) assert.fail(`nothing printed matches ${re}: ${p.out}`);
  }
}

/** POSTs the recorded input with node:http; each piece of the body with when it came, ms after the request was sent. */
function post(base: string): Promise<{ status: number; headers: Record<string, unknown>; pieces: { text: string; at: number }[] }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = request(`${base}/agent/chat`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      const pieces: { text: string; at: number }[] = [];
      res.on('data', (b: Buffer) => pieces.push({ text: b.toString(), at: performance.now() - t0 }));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, pieces }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('agui-inspector replay --fault (the packaged tool)', () => {
  const recording = packagedRecording([x]);
  const replay = recording.replay;
  let har: string;
  before(() => (har = recording.file()));

  it('stall:300@2 holds event 2 and what follows for 300 ms, and says it injected it', async () => {
    const p = replay([har, '--port', '0', '--speed', 'max', '--fault', 'stall:300@2']);
    try {
      const res = await post(await listening(p));
      assert.equal(res.status, 200);
      const text = res.pieces.map((q) => q.text).join('');
      assert.equal(text, x.chunks.map((c) => new TextDecoder().decode(c.bytes)).join(''), 'the recorded bytes');
      /** When the piece that completed the first event of `type` came. */
      const when = (type: string) => {
        let sofar = '';
        return res.pieces.find((q) => (sofar += q.text).includes(`"type":"${type}"`))!.at;
      };
      const gap = when('TEXT_MESSAGE_CONTENT') - when('TEXT_MESSAGE_START');
      assert.ok(gap >= 290 && gap < 1500, `event 2 came ${gap.toFixed(0)} ms after event 1`);
      assert.match(p.out, /\(speed max, fault stall:300@2\)/);
      await printed(p, /POST \/agent\/chat: faults injected into recorded exchange 0: stall:300@2\n/);
    } finally {
      p.child.kill();
    }
  });

  it('status:500 answers HTTP 500 with a JSON body instead of the stream', async () => {
    const p = replay([har, '--port', '0', '--fault', 'status:500']);
    try {
      const res = await post(await listening(p));
      assert.equal(res.status, 500);
      assert.equal(res.headers['content-type'], 'application/json');
      assert.equal(JSON.parse(res.pieces.map((q) => q.text).join('')).error, 'injected-fault');
    } finally {
      p.child.kill();
    }
  });

  it('exits 2 naming the specs for a --fault that is none', async () => {
    const p = replay([har, '--fault', 'stall@2']);
    const code = await new Promise((resolve) => p.child.once('exit', resolve));
    assert.equal(code, 2);
    assert.match(p.err, /^agui-inspector: --fault "stall@2" is not a fault: give one of stall:<ms>@<event>, cut@<event>/);
  });
});
