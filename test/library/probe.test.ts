import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import type { BaseEvent } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import { probeCommand } from '../../src/cli/probe.ts';
import { startReplay } from '../../src/cli/replay.ts';
import { check, exchangesOf, probe, ProbeError } from '../../src/library/index.ts';
import { DEFAULT_LIMITS } from '../../src/messages.ts';
import { session } from './support/session.ts';

const s = session({ turns: 3, plant: 'text-not-open' });
const input = JSON.stringify(s.input);
const dir = mkdtempSync(join(tmpdir(), 'agui-probe-'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Agents on 127.0.0.1, each answering through the official encoder in its own way. */
const AGENTS: Record<string, (res: ServerResponse, accept: string) => Promise<void>> = {
  stream: async (res, accept) => {
    const enc = new EventEncoder({ accept });
    res.writeHead(200, { 'content-type': enc.getContentType() });
    for (const [i, e] of s.events.entries()) {
      if (i % 10 === 0 && !accept.includes('proto')) res.write(': keep-alive\n\n');
      res.write(enc.encodeBinary(e as BaseEvent));
      if (i % 20 === 0) await sleep(5);
    }
    res.end();
  },
  buffers: async (res, accept) => {
    const enc = new EventEncoder({ accept });
    await sleep(150);
    res.writeHead(200, { 'content-type': enc.getContentType() });
    res.end(Buffer.concat(s.events.map((e) => Buffer.from(enc.encodeBinary(e as BaseEvent)))));
  },
  fails: async (res, accept) => {
    const enc = new EventEncoder({ accept });
    res.writeHead(200, { 'content-type': enc.getContentType() });
    for (const e of s.events.slice(0, 12)) res.write(enc.encodeBinary(e as BaseEvent));
    await sleep(20);
    res.destroy();
  },
  silent: async () => {},
  /** Starts a run, then sends nothing more and keeps the connection open. */
  hangs: async (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: ${JSON.stringify({ type: 'RUN_STARTED', threadId: s.input.threadId, runId: s.input.runId })}\n\n`);
  },
  /** ~1 MB of gzip that inflates to 1 GiB. */
  bomb: async (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
    res.end(BOMB);
  },
  'same-origin': async (res) => void res.writeHead(307, { location: '/stream' }).end(),
};
// 1,024 gzip members of 1 MiB of zeros each, which a gunzip reads as one body: never 1 GiB in this process.
const BOMB = Buffer.concat(Array<Buffer>(1024).fill(gzipSync(Buffer.alloc(2 ** 20), { level: 9 })));

let server: Server;
let base = '';
before(async () => {
  server = createServer((req, res) => {
    req.resume();
    const url = new URL(req.url!, 'http://127.0.0.1');
    if (url.pathname === '/redirect') return void res.writeHead(Number(url.searchParams.get('status')), { location: url.searchParams.get('to')! }).end();
    req.on('end', () => void AGENTS[url.pathname.slice(1)]!(res, req.headers.accept ?? ''));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  other = createServer((req, res) => {
    reached.push(req);
    res.writeHead(200, { 'content-type': 'text/event-stream' }).end();
  });
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
});
after(() => {
  for (const x of [server, other]) {
    x.closeAllConnections();
    x.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

/** The probe's report against `check` of its own recording: the same bytes, the same conclusions. */
function sameAsCheck(p: Awaited<ReturnType<typeof probe>>) {
  const [x] = check(p.har()).exchanges;
  assert.deepEqual(x!.findings, p.report.findings);
  assert.deepEqual(x!.input, p.report.input);
  assert.equal(x!.verdict, p.report.verdict);
  assert.deepEqual(x!.runs, p.report.runs.map((r) => ({ runId: r.runId, threadId: r.threadId, requested: r.requested, outcome: r.outcome })));
  assert.equal(x!.timing?.firstEventMs, p.timing?.firstEventMs);
}

/** A second server on 127.0.0.1: a redirect's target, which must never be asked. */
let other: Server;
const reached: IncomingMessage[] = [];

describe('probe: a live endpoint, checked', () => {
  it('SSE and protobuf from the official encoder: streamed, keep-alives counted, findings equal check on the recording', async () => {
    const sse = await probe(`${base}/stream`, { input });
    assert.equal(sse.transport.contentType, 'text/event-stream');
    assert.equal(sse.transport.oneLump, false);
    assert.equal(sse.transport.keepAlives, Math.ceil(s.events.length / 10));
    assert.ok(sse.report.findings.some((f) => f.rule === 'streaming/text-not-open'));
    sameAsCheck(sse);
    const proto = await probe(`${base}/stream`, { input, accept: 'protobuf' });
    assert.equal(proto.transport.contentType, 'application/vnd.ag-ui.event+proto');
    assert.deepEqual(proto.report.findings.map((f) => f.rule), sse.report.findings.map((f) => f.rule));
    sameAsCheck(proto);
  });

  it('one that buffers is seen as one lump; one that fails mid-stream is truncated; one that never answers times out', async () => {
    const lump = await probe(`${base}/buffers`, { input });
    assert.equal(lump.transport.oneLump, true);
    assert.ok(lump.transport.firstByteMs! >= 100);
    sameAsCheck(lump);
    const cut = await probe(`${base}/fails`, { input });
    assert.equal(cut.report.verdict, 'failed');
    assert.ok(cut.report.findings.some((f) => f.rule === 'lifecycle/truncated'), cut.report.findings.map((f) => f.rule).join());
    sameAsCheck(cut);
    await assert.rejects(probe(`${base}/silent`, { input, timeoutMs: 300 }), (e: Error) => e instanceof ProbeError && /no answer .* within 0.3 s/.test(e.message));
    await assert.rejects(probe('http://127.0.0.1:1/', { input }), ProbeError);
  });

  it('the CLI: every format, check\'s exit statuses, and a --har that replays to the same report', async () => {
    writeFileSync(join(dir, 'input.json'), input);
    const har = join(dir, 'probe.har');
    let out = '';
    const io = { out: (t: string) => void (out += t), err: (t: string) => void (out += t) };
    assert.equal(await probeCommand([`${base}/stream`, '--input', join(dir, 'input.json'), '--har', har, '--header', 'X-Trace: 1'], io), 1, out);
    assert.match(out, /streaming\/text-not-open/);
    assert.match(out, /transport: HTTP 200, text\/event-stream/);
    for (const format of ['json', 'sarif', 'junit']) {
      out = '';
      assert.equal(await probeCommand([`${base}/stream`, '--input', join(dir, 'input.json'), '--format', format], io), 1);
      assert.ok(out.length > 100, format);
      if (format === 'json') assert.equal(JSON.parse(out).transport.contentType, 'text/event-stream');
    }
    out = '';
    assert.equal(await probeCommand([`${base}/silent`, '--input', join(dir, 'input.json'), '--timeout', '0.3'], io), 2);
    assert.match(out, /no answer/);
    const replay = await startReplay(exchangesOf(readFileSync(har)), { speed: 'max' });
    try {
      const again = await probe(replay.url.replace(/\/$/, '') + '/stream', { input });
      assert.deepEqual(again.report.findings, check(readFileSync(har)).exchanges[0]!.findings);
    } finally {
      await replay.close();
    }
  });
  it('a redirect to another port or to localhost is reported, not followed: the other server is never asked, exit 1', async () => {
    writeFileSync(join(dir, 'input.json'), input);
    const port = (other.address() as AddressInfo).port;
    for (const [status, location] of [[307, `http://127.0.0.1:${port}/agent`], [308, `http://localhost:${port}/agent`], [302, `http://127.0.0.1:${port}/agent`]] as const) {
      const to = `/redirect?status=${status}&to=${encodeURIComponent(location)}`;
      const har = join(dir, 'redirect.har');
      let out = '';
      const io = { out: (t: string) => void (out += t), err: (t: string) => void (out += t) };
      assert.equal(await probeCommand([base + to, '--input', join(dir, 'input.json'), '--header', 'X-Api-Key: secret', '--har', har, '--follow-same-origin'], io), 1, out);
      assert.ok(out.includes(`redirect: HTTP ${status} from ${base}${to} to ${location}, not followed: another origin`), out);
      const entry = JSON.parse(readFileSync(har, 'utf8')).log.entries[0];
      assert.equal(entry.request.url, base + to);
      assert.deepEqual([entry.response.status, entry.response.redirectURL], [status, location]);
    }
    assert.equal(reached.length, 0);
  });

  it('--follow-same-origin follows a redirect to the same origin, naming the hop; without it the redirect is reported', async () => {
    const followed = await probe(`${base}/same-origin`, { input, followSameOrigin: true });
    assert.deepEqual(followed.transport.redirects, [{ status: 307, from: `${base}/same-origin`, location: '/stream', sameOrigin: true, followed: true }]);
    assert.equal(followed.exchange.url, `${base}/stream`);
    assert.ok(followed.report.findings.some((f) => f.rule === 'streaming/text-not-open'));
    const refused = await probe(`${base}/same-origin`, { input });
    assert.equal(refused.transport.redirects[0]!.followed, false);
    assert.equal(refused.report.verdict, 'failed');
  });

  it('a stream still open at --timeout is the producer\'s truncation: failed, exit 1', async () => {
    let out = '';
    const started = performance.now();
    assert.equal(await probeCommand([`${base}/hangs`, '--input', join(dir, 'input.json'), '--timeout', '1'], { out: (t) => void (out += t), err: (t) => void (out += t) }), 1, out);
    assert.ok(performance.now() - started < 1500);
    assert.match(out, /lifecycle\/truncated/);
    assert.doesNotMatch(out, /lifecycle\/abandoned/);
    assert.match(out, /stopped at the timeout: the run never ended/);
  });

  it('a gzip bomb is read up to the capture\'s cap and no further, and the recording says so', async () => {
    const before = process.memoryUsage().rss;
    const p = await probe(`${base}/bomb`, { input });
    assert.equal(p.transport.capped, true);
    assert.equal(p.exchange.chunks.reduce((n, c) => n + c.bytes.length, 0), DEFAULT_LIMITS.maxBytes);
    assert.equal(p.exchange.analysis?.capped, true);
    // Bounded by the cap, not by the 1 GiB the bomb inflates to: 112 to 200 MiB measured here, with the collector's timing.
    assert.ok(process.memoryUsage().rss - before < 4 * DEFAULT_LIMITS.maxBytes, `rss grew ${(process.memoryUsage().rss - before) / 2 ** 20} MiB`);
  });

  it('the cap bounds the time too: a bomb read to a 8 MiB cap answers in well under 2 s', async () => {
    const started = performance.now();
    const p = await probe(`${base}/bomb`, { input, maxBytes: 8 * 2 ** 20 });
    assert.ok(performance.now() - started < 2000, `${performance.now() - started} ms`);
    assert.equal(p.exchange.chunks.reduce((n, c) => n + c.bytes.length, 0), 8 * 2 ** 20);
    assert.equal(p.transport.capped, true);
  });
});
