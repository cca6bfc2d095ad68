import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startReplay, type ReplayServer } from '../../src/cli/replay.ts';
import type { CapturedExchange } from '../../src/formats/exchange.ts';
import { writeHar } from '../../src/formats/har.ts';
import { ReplayPlan } from '../../src/recording/replay.ts';
import { ROOT } from '../support/paths.ts';

const utf8 = new TextEncoder();
const input = (threadId: string, runId: string, messages = 1) =>
  JSON.stringify({ threadId, runId, protocolVersion: '1.0', messages: Array.from({ length: messages }, (_, i) => ({ id: `m${i}`, role: 'user', content: 'hi' })) });
const sse = (threadId: string, runId: string) => [
  `data: {"type":"RUN_STARTED","threadId":"${threadId}","runId":"${runId}","protocolVersion":"1.0"}\n\n`,
  `data: {"type":"RUN_FINISHED","threadId":"${threadId}","runId":"${runId}"}\n\n`,
];

function recorded(url: string, threadId: string, runId: string, messages = 1, times = [0, 40]): CapturedExchange {
  return {
    source: `${threadId}/${runId}`,
    url,
    method: 'POST',
    status: 200,
    requestBody: input(threadId, runId, messages),
    requestContentType: 'application/json',
    responseContentType: 'text/event-stream',
    chunks: sse(threadId, runId).map((text, i) => ({ time: times[i]!, bytes: utf8.encode(text) })),
  };
}

const A = 'http://127.0.0.1:9/agent/chat';
const B = 'http://127.0.0.1:9/agent/tools';

describe('replay: which recorded exchange answers a request', () => {
  it('follows each thread in order on its endpoint, pairing a thread the recording does not know with the first free one', () => {
    const plan = new ReplayPlan([recorded(A, 't1', 'r1'), recorded(A, 't2', 'r3'), recorded(A, 't1', 'r2', 3), recorded(B, 't1', 'r4')]);
    const served = (path: string, body: string) => {
      const m = plan.match(path, body);
      assert.ok(m.ok, JSON.stringify(m));
      return m.index;
    };
    // The app's own thread ids: "app-x" takes the first recorded thread at /agent/chat, "app-y" the next free one.
    assert.equal(served('/agent/chat', input('app-x', 'a1')), 0);
    assert.equal(served('/agent/chat', input('app-y', 'a2')), 1);
    assert.equal(served('/agent/chat', input('app-x', 'a3', 3)), 2);
    // Another endpoint pairs threads of its own.
    assert.equal(served('/agent/tools', input('t1', 'r4')), 3);
    const done = plan.match('/agent/chat', input('app-x', 'a4'));
    assert.ok(!done.ok);
    assert.match(done.message, /no further exchange on this thread at \/agent\/chat: all 2 were replayed/);
  });

  it('names the closest recorded exchange and how the request differs', () => {
    const plan = new ReplayPlan([recorded(A, 't1', 'r1', 2)]);
    assert.ok(plan.match('/agent/chat', input('t1', 'r1', 2)).ok);
    const miss = plan.match('/agent/other', input('t1', 'r9', 5));
    assert.ok(!miss.ok);
    assert.equal(miss.message, 'the recording has no exchange at /agent/other');
    assert.equal(miss.closest?.index, 0);
    assert.deepEqual(miss.closest?.differences, [
      'the endpoint is /agent/other, the recording\'s /agent/chat',
      'runId "r9" is "r1" in the recording',
      '5 messages, the recording 2',
    ]);
  });

  it('answers an enveloped request (CopilotKit single route) by the input inside', () => {
    const plan = new ReplayPlan([{ ...recorded(A, 't1', 'r1'), requestBody: JSON.stringify({ method: 'agent/run', params: { agentId: 'x' }, body: JSON.parse(input('t1', 'r1')) }) }]);
    const m = plan.match('/agent/chat', JSON.stringify({ method: 'agent/run', body: JSON.parse(input('t1', 'r1')) }));
    assert.ok(m.ok && m.differences.length === 0, JSON.stringify(m));
  });
});

describe('replay: the server', () => {
  let server: ReplayServer;
  const session = [recorded(A, 't1', 'r1', 1, [0, 150]), { ...recorded(B, 't2', 'r2'), status: 422, responseContentType: 'application/json', chunks: [{ time: 0, bytes: utf8.encode('{"error":"bad input"}') }] }];
  before(async () => {
    server = await startReplay(session, { speed: 1 });
  });
  after(() => server.close());

  it('answers with the recorded status, content type and exact bytes, chunk by chunk at the recorded pace, with CORS', async () => {
    const t0 = performance.now();
    const res = await fetch(`${server.url}/agent/chat`, { method: 'POST', headers: { 'content-type': 'application/json', origin: 'http://127.0.0.1:5173' }, body: input('mine', 'r1') });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    assert.equal(res.headers.get('access-control-allow-origin'), 'http://127.0.0.1:5173');
    const reader = res.body!.getReader();
    const got: { text: string; at: number }[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      got.push({ text: new TextDecoder().decode(value), at: performance.now() - t0 });
    }
    assert.deepEqual(got.map((g) => g.text), sse('t1', 'r1'), 'the recorded chunks, in order, as recorded');
    // The second chunk was recorded 150 ms after the request started: it is not sent before that.
    assert.ok(got[1]!.at >= 140, `second chunk after ${got[1]!.at} ms`);
  });

  it('replays a recorded error status, answers a preflight, and refuses what the recording cannot answer with the closest exchange', async () => {
    const rejected = await fetch(`${server.url}/agent/tools`, { method: 'POST', body: input('t2', 'r2') });
    assert.equal(rejected.status, 422);
    assert.equal(await rejected.text(), '{"error":"bad input"}');
    const preflight = await fetch(`${server.url}/agent/chat`, { method: 'OPTIONS', headers: { origin: 'http://x.test', 'access-control-request-headers': 'content-type' } });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-headers'), 'content-type');
    const miss = await fetch(`${server.url}/agent/none`, { method: 'POST', body: input('t1', 'r1') });
    assert.equal(miss.status, 404);
    const why = (await miss.json()) as { error: string; message: string; closest: { index: number; differences: string[] } };
    assert.equal(why.error, 'not-in-recording');
    assert.equal(why.message, 'the recording has no exchange at /agent/none');
    assert.equal(why.closest.index, 0);
  });
});

describe('agui-inspector replay (the command)', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'agui-replay-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('serves a HAR file on the given port until stopped, and says where', async () => {
    const har = join(dir, 'session.har');
    writeFileSync(har, writeHar([recorded(A, 't1', 'r1')], { creator: { name: 'test', version: '0' } }));
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/bin.ts'), 'replay', har, '--port', '0', '--speed', 'max'], { cwd: ROOT });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (b: Buffer) => {
          out += b.toString();
          const m = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.once('exit', (code) => reject(new Error(`replay exited ${code}: ${out}`)));
      });
      const res = await fetch(`${url}/agent/chat`, { method: 'POST', body: input('t1', 'r1') });
      assert.equal(await res.text(), sse('t1', 'r1').join(''));
    } finally {
      child.kill();
    }
  });

  it('exits 2 with a one-line reason for a file it cannot read', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/bin.ts'), 'replay', join(dir, 'missing.har')], { cwd: ROOT });
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 2);
    assert.equal(err, `agui-inspector: ${join(dir, 'missing.har')}: cannot read file: no such file\n`);
  });
});
