import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AGUI_MEDIA_TYPE } from '@ag-ui/proto';
import { answer, editedSource, faultName, paced, parseFault, type AnswerOptions, type AnswerSource } from '../../src/answer/index.ts';
import type { CapturedExchange, Chunk } from '../../src/exchange/index.ts';
import { analyzeSession } from '../../src/detail/session.ts';
import { startReplay } from '../../src/cli/replay.ts';
import { decoderFor } from '../../src/wire/index.ts';
import { runHttpAgent } from '../demo/helpers.ts';
import { runEvents } from '../support/replay.ts';

const utf8 = new TextEncoder();
const text = (b: Uint8Array) => new TextDecoder().decode(b);
const input = (threadId: string, runId: string) => JSON.stringify({ threadId, runId, protocolVersion: '1.0', messages: [{ id: 'm0', role: 'user', content: 'hi' }] });

const sse = (e: object) => `data: ${JSON.stringify(e)}\n\n`;

/** A recorded SSE exchange, one event a chunk, at `times`. */
function recorded(times = [0, 100, 200, 300, 400], threadId = 't1', runId = 'r1'): CapturedExchange {
  return {
    source: 'recorded',
    url: 'http://127.0.0.1:9/agent/chat',
    method: 'POST',
    status: 200,
    requestBody: input(threadId, runId),
    responseContentType: 'text/event-stream',
    chunks: runEvents(threadId, runId).map((e, i) => ({ time: times[i]!, bytes: utf8.encode(sse(e)) })),
    arrival: 'chunks',
  };
}

async function collect(source: AnswerSource, o: AnswerOptions = {}) {
  const a = answer(source, o);
  const chunks: { at: number; bytes: Uint8Array }[] = [];
  for await (const c of a.chunks) chunks.push(c);
  return { ...a, chunks, body: chunks.map((c) => text(c.bytes)).join('') };
}

/** What the analyzer makes of an answer, taken as an exchange that arrived at the answer's times. */
function judged(x: CapturedExchange, chunks: { at: number; bytes: Uint8Array }[]) {
  const [r] = analyzeSession([{ ...x, chunks: chunks.map((c) => ({ time: c.at, bytes: c.bytes })), arrival: 'chunks' }]);
  return r!;
}

const typesIn = (body: string) => [...body.matchAll(/"type":"(\w+)"/g)].map((m) => m[1]);

describe('answer: pace', () => {
  it('keeps the recorded times ×1, ×2, ×10 and sends at once with max, on real timers', async () => {
    const x = recorded([0, 100, 200, 300, 400]);
    for (const pace of [1, 2, 10, 'max'] as const) {
      const start = performance.now();
      const arrivals: number[] = [];
      for await (const _ of paced(answer(x, { pace }).chunks, { start })) arrivals.push(performance.now() - start);
      arrivals.forEach((t, i) => {
        const due = pace === 'max' ? 0 : (i * 100) / pace;
        assert.ok(t >= due - 1 && t <= due + 60, `×${pace}: chunk ${i} at ${t.toFixed(1)} ms, due at ${due}`);
      });
    }
  });

  it('stops waiting, leaving no timer, when the reader goes away', async () => {
    const gone = new AbortController();
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const before = timers();
    const got: Uint8Array[] = [];
    const reading = (async () => {
      for await (const b of paced(answer(recorded([0, 600_000, 600_000, 600_000, 600_000])).chunks, { signal: gone.signal })) got.push(b);
    })();
    await new Promise((r) => setTimeout(r, 50));
    gone.abort();
    await reading;
    assert.equal(got.length, 1);
    assert.equal(timers(), before);
  });
});

describe('answer: identity', () => {
  it('sends the recorded bytes as recorded when the ids are the request\'s, and rewrites only the frames that carry them', async () => {
    const x = recorded();
    const same = await collect(x, { ids: { threadId: 't1', runId: 'r1' } });
    assert.equal(same.exact, true);
    assert.deepEqual(same.chunks.map((c) => c.bytes), x.chunks.map((c) => c.bytes));
    const other = await collect(x, { ids: { threadId: 'app', runId: 'a1' } });
    assert.equal(other.exact, false);
    assert.equal(other.body, runEvents('app', 'a1').map(sse).join(''));
    // The frames without ids are the recorded bytes themselves.
    assert.deepEqual(other.chunks[2]!.bytes, x.chunks[2]!.bytes);
    // Frames that span many chunks, and chunks that hold parts of two frames, are cut at the frames.
    const body = utf8.encode(runEvents('t1', 'r1').map(sse).join(''));
    const tiny = { ...x, chunks: Array.from({ length: Math.ceil(body.length / 3) }, (_, i) => ({ time: i, bytes: body.subarray(i * 3, i * 3 + 3) })) };
    assert.equal((await collect(tiny, { ids: { threadId: 'app', runId: 'a1' } })).body, other.body);
    // No recorded request: the ids are the stream's first RUN_STARTED's.
    const bare = await collect({ ...x, requestBody: undefined }, { ids: { threadId: 'app', runId: 'a1' } });
    assert.equal(bare.body, other.body);
  });

  it('a replay with the request\'s ids completes in the official 1.0 HttpAgent and breaks no identity rule; with the recorded ids kept, a 1.0 judgement fails it', async () => {
    const plan = { transport: 'sse' as const, threadId: 'app-thread', messages: [{ id: 'm0', role: 'user' as const, content: 'hi' }], state: {}, tools: [], steps: [{ runId: 'app-run' }] };
    const asked = { ...recorded([0, 0, 0, 0, 0]), requestBody: input('app-thread', 'app-run') };
    for (const keepIds of [false, true]) {
      const server = await startReplay([recorded([0, 0, 0, 0, 0])], { speed: 'max', keepIds });
      try {
        const { runs } = await runHttpAgent(`${server.url}/agent/chat`, plan);
        const got = runs[0]!;
        // Measured: @ag-ui/client 1.0.0 compares neither id, so it completes either way; the rule is the producer's (basic/run-input#identity).
        assert.equal(got.error, undefined, got.error);
        assert.deepEqual(got.events.map((e) => (e as { type: string }).type), runEvents('', '').map((e) => e.type));
        const ids = keepIds ? { threadId: 't1', runId: 'r1' } : { threadId: 'app-thread', runId: 'app-run' };
        assert.deepEqual(got.events.at(-1), { type: 'RUN_FINISHED', ...ids });
      } finally {
        await server.close();
      }
      const a = await collect(recorded([0, 0, 0, 0, 0]), { ids: keepIds ? null : { threadId: 'app-thread', runId: 'app-run' } });
      const { report } = judged(asked, a.chunks);
      const identity = report.findings.filter((f) => f.rule.startsWith('identity/')).map((f) => f.rule);
      if (keepIds) {
        assert.deepEqual([...new Set(identity)], ['identity/thread-id-mismatch', 'identity/requested-run-id']);
        assert.equal(report.verdict, 'failed');
      } else assert.deepEqual(identity, []);
    }
  });
});

describe('answer: faults, in the bytes and times, and in what the analyzer finds', () => {
  const x = recorded([0, 0, 0, 0, 0]);

  it('a stall of N ms before event k delays k and everything after; the timing reading finds the stall', async () => {
    const a = await collect(x, { pace: 'max', faults: [parseFault('stall:1500@2')] });
    assert.deepEqual(a.chunks.map((c) => c.at), [0, 0, 1500, 1500, 1500]);
    assert.deepEqual(a.injected, ['stall:1500@2']);
    const { timing } = judged(x, a.chunks);
    assert.deepEqual(timing!.stalls!.map((s) => ({ afterEvent: s.afterEvent, ms: s.ms })), [{ afterEvent: 1, ms: 1500 }]);
  });

  it('cut after event k ends the body there: lifecycle/truncated', async () => {
    const a = await collect(x, { faults: [parseFault('cut@2')] });
    assert.deepEqual(typesIn(a.body), ['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT']);
    assert.ok(judged(x, a.chunks).report.findings.some((f) => f.rule === 'lifecycle/truncated'));
  });

  it('cut mid-frame ends the body halfway through event k: lifecycle/truncated', async () => {
    const a = await collect(x, { faults: [parseFault('cut-mid@2')] });
    const whole = sse(runEvents('t1', 'r1')[2]!);
    assert.equal(a.body, runEvents('t1', 'r1').slice(0, 2).map(sse).join('') + whole.slice(0, Math.floor(whole.length / 2)));
    const { report } = judged(x, a.chunks);
    assert.ok(report.findings.some((f) => f.rule === 'lifecycle/truncated'));
    assert.equal(report.runs[0]!.outcome, 'truncated');
  });

  it('an HTTP status with a JSON body instead of the stream, with Retry-After when asked', async () => {
    const a = await collect(x, { faults: [parseFault('status:429:retry-after=3')] });
    assert.equal(a.status, 429);
    assert.equal(a.contentType, 'application/json');
    assert.deepEqual(a.headers, { 'retry-after': '3' });
    assert.equal(JSON.parse(a.body).error, 'injected-fault');
    assert.deepEqual(a.injected, ['status:429:retry-after=3']);
    assert.ok(judged({ ...x, status: 429, responseContentType: 'application/json' }, a.chunks).report.findings.some((f) => f.rule === 'transport/http-error-status'));
  });

  it('a RUN_ERROR in place of the terminal event: the run errors, it is not truncated', async () => {
    const a = await collect(x, { faults: [parseFault('error@terminal')] });
    assert.deepEqual(typesIn(a.body), ['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'RUN_ERROR']);
    const { report } = judged(x, a.chunks);
    assert.equal(report.runs[0]!.outcome, 'error');
    assert.ok(!report.findings.some((f) => f.rule === 'lifecycle/truncated'));
    // A stream that replays an earlier run first: the requested run's RUN_FINISHED is the one replaced, with the request's ids.
    const history = [{ type: 'RUN_STARTED', threadId: 't1', runId: 'h1' }, { type: 'RUN_FINISHED', threadId: 't1', runId: 'h1' }];
    const replaying = { ...x, chunks: [...history, ...runEvents('t1', 'r1')].map((e) => ({ time: 0, bytes: utf8.encode(sse(e)) })) };
    const b = await collect(replaying, { ids: { threadId: 'app', runId: 'a1' }, faults: [parseFault('error@terminal')] });
    assert.deepEqual(typesIn(b.body), ['RUN_STARTED', 'RUN_FINISHED', ...typesIn(a.body)]);
  });

  it('an event dropped or duplicated; a fault the stream never reaches is not injected', async () => {
    const dropped = await collect(x, { faults: [parseFault('drop@1'), parseFault('drop@99')] });
    assert.deepEqual(typesIn(dropped.body), ['RUN_STARTED', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'RUN_FINISHED']);
    assert.deepEqual(dropped.injected, ['drop@1']);
    assert.deepEqual(judged(x, dropped.chunks).report.findings.filter((f) => f.rule === 'streaming/text-not-open').map((f) => f.event), [1, 2], 'content and end without their start');
    const twice = await collect(x, { faults: [parseFault('dup@2')] });
    assert.deepEqual(typesIn(twice.body), ['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'RUN_FINISHED']);
  });

  it('a slow drip sends at most the given bytes a second, the bytes unchanged', async () => {
    const a = await collect(x, { faults: [parseFault('drip:200')] });
    assert.equal(a.body, runEvents('t1', 'r1').map(sse).join(''));
    assert.ok(a.chunks.every((c) => c.bytes.length <= 20));
    let sent = 0;
    for (const c of a.chunks) {
      assert.ok(c.at >= (sent * 1000) / 200 - 1e-9, `byte ${sent} due at ${c.at} ms`);
      sent += c.bytes.length;
    }
    assert.ok(a.chunks.at(-1)!.at >= ((sent - 20) * 1000) / 200);
  });

  it('applies to a live answer as it arrives: a transform over an async sequence', async () => {
    async function* live(): AsyncGenerator<Chunk> {
      for (const [i, e] of runEvents('t1', 'r1').entries()) {
        await new Promise((r) => setTimeout(r, 5));
        // A frame split across two chunks, as a network delivers it.
        const b = utf8.encode(sse(e));
        yield { time: i * 10, bytes: b.subarray(0, 7) };
        yield { time: i * 10 + 1, bytes: b.subarray(7) };
      }
    }
    const a = await collect({ responseContentType: 'text/event-stream', chunks: live() }, { faults: [parseFault('drop@2'), parseFault('stall:50@3')] });
    assert.deepEqual(typesIn(a.body), ['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_END', 'RUN_FINISHED']);
    assert.deepEqual(a.chunks.map((c) => c.at), [1, 11, 81, 91]);
  });
});

describe('answer: edited events', () => {
  it('sends each line as one SSE frame as written; a line the schema rejects gives schema/malformed at its index', async () => {
    const lines = runEvents('t1', 'r1').map((e) => JSON.stringify(e));
    lines[2] = '{"type":"TEXT_MESSAGE_CONTENT","messageId":"a1","delta":5}';
    const source = editedSource(lines.join('\n') + '\n', { responseContentType: 'text/event-stream', requestBody: input('t1', 'r1') });
    const a = await collect(source, { ids: { threadId: 'app', runId: 'a1' } });
    assert.ok(a.body.includes('data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"a1","delta":5}\n\n'));
    const { report } = judged({ ...recorded(), requestBody: input('app', 'a1') }, a.chunks);
    assert.deepEqual(report.findings.filter((f) => f.rule === 'schema/malformed').map((f) => f.event), [2]);
  });

  it('encodes protobuf through the official encoder, which the wire reader reads back', async () => {
    const text = runEvents('t1', 'r1').map((e) => JSON.stringify(e)).join('\n');
    const a = await collect(editedSource(text, { responseContentType: AGUI_MEDIA_TYPE }), { faults: [parseFault('error@terminal')] });
    const decoder = decoderFor('protobuf');
    const items = [...a.chunks.flatMap((c) => decoder.push(c.bytes, c.at)), ...decoder.end(0)];
    assert.deepEqual(items.map((i) => (i.kind === 'event' ? (i.value as { type: string }).type : i.message)), ['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'RUN_ERROR']);
    assert.throws(() => editedSource('{"type":"RUN_STARTED"\n', { responseContentType: AGUI_MEDIA_TYPE }), /^TypeError: line 1 cannot be sent as protobuf/);
  });
});

describe('parseFault', () => {
  it('reads each spec back to its name, and refuses what names no fault', () => {
    for (const spec of ['stall:1500@5', 'cut@12', 'cut-mid@12', 'status:500', 'status:429:retry-after=3', 'error@terminal', 'drop@4', 'dup@4', 'drip:2000']) {
      assert.equal(faultName(parseFault(spec)), spec);
    }
    for (const bad of ['stall:0@1', 'cut', 'status:200', 'status:503:retry-after=soon\r\nx', 'drip:0', 'error@3']) {
      assert.throws(() => parseFault(bad), /is not a fault: give one of stall:<ms>@<event>/, bad);
    }
  });
});
