import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { BaseEvent } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import { probeCommand } from '../../src/cli/probe.ts';
import { startReplay } from '../../src/cli/replay.ts';
import { check, exchangesOf, probe, ProbeError } from '../../src/library/index.ts';
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
};

let server: Server;
let base = '';
before(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => void AGENTS[req.url!.slice(1)]!(res, req.headers.accept ?? ''));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
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
});
