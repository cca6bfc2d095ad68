import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ExchangeReading, SessionReader, type Timing } from '../../src/detail/index.ts';
import type { Arrival, CapturedExchange } from '../../src/exchange/index.ts';
import { readExchanges, writeHar } from '../../src/formats/index.ts';
import { analyzeSession } from '../../src/detail/session.ts';

const SSE = 'text/event-stream';
const enc = new TextEncoder();
const frame = (ev: object): string => `data: ${JSON.stringify(ev)}\n\n`;
const T = 'thread-1';

/** Pushes `schedule` (arrival ms, what arrives) through one reading; `end` at the last arrival. */
function timed(schedule: [number, string][], o: { input?: object; arrival?: Arrival | null; stallMs?: number } = {}): Timing | null {
  const input = o.input ?? { threadId: T, runId: 'r1', protocolVersion: '1.0', messages: [], tools: [{ name: 'confirm', description: 'ask', parameters: {} }] };
  const reading = new ExchangeReading({ source: 'x', requestBody: JSON.stringify(input), contentType: SSE, status: 200, arrival: o.arrival === null ? undefined : o.arrival ?? 'chunks', stallMs: o.stallMs });
  for (const [t, text] of schedule) reading.push(enc.encode(text), t);
  reading.end(schedule.at(-1)?.[0] ?? 0);
  return reading.part('timing');
}

const started = frame({ type: 'RUN_STARTED', threadId: T, runId: 'r1' });
const finished = frame({ type: 'RUN_FINISHED', threadId: T, runId: 'r1', usage: [{ provider: 'p', model: 'm', inputTokens: 10, outputTokens: 5, totalTokens: 15 }] });

/** An exchange with every kind of span at known times. */
const SCHEDULE: [number, string][] = [
  [120, started],
  [130, frame({ type: 'STEP_STARTED', stepName: 'plan' })],
  [150, frame({ type: 'REASONING_START', messageId: 'rs1' })],
  [160, frame({ type: 'REASONING_MESSAGE_START', messageId: 'rs1', role: 'reasoning' }) + frame({ type: 'REASONING_MESSAGE_CONTENT', messageId: 'rs1', delta: 'hm' })],
  [170, frame({ type: 'REASONING_MESSAGE_END', messageId: 'rs1' }) + frame({ type: 'REASONING_END', messageId: 'rs1' })],
  [400, frame({ type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' }) + frame({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'Hello' })],
  // A 1.5 s stall after event 8.
  [1900, frame({ type: 'TEXT_MESSAGE_END', messageId: 'm1' })],
  [1910, frame({ type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'search' }) + frame({ type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{}' })],
  [1920, frame({ type: 'TOOL_CALL_END', toolCallId: 'c1' })],
  [2520, frame({ type: 'TOOL_CALL_RESULT', messageId: 'res1', toolCallId: 'c1', content: 'found' })],
  [2530, frame({ type: 'SUBAGENT_STARTED', subagentRunId: 's1', name: 'researcher' })],
  [2540, frame({ type: 'TEXT_MESSAGE_START', messageId: 'm2', role: 'assistant', subagentRunId: 's1' })],
  [2550, frame({ type: 'TEXT_MESSAGE_END', messageId: 'm2', subagentRunId: 's1' }) + frame({ type: 'SUBAGENT_FINISHED', subagentRunId: 's1' })],
  [2560, frame({ type: 'TOOL_CALL_START', toolCallId: 'c2', toolCallName: 'confirm' }) + frame({ type: 'TOOL_CALL_END', toolCallId: 'c2' })],
  [2570, frame({ type: 'STEP_FINISHED', stepName: 'plan' })],
  [2580, finished],
];

test('every member of the timing, from events whose arrival is known', () => {
  const t = timed(SCHEDULE)!;
  assert.equal(t.source, 'chunks');
  assert.equal(t.ttfbMs, 120);
  assert.equal(t.firstEventMs, 120);
  assert.equal(t.firstContentMs, 160, 'reasoning content is content');
  assert.equal(t.durationMs, 2580);
  assert.deepEqual(t.stalls, [{ afterEvent: 8, ms: 1500, atMs: 400 }]);
  assert.equal(t.stallMs, 1000);
  assert.equal(t.gaps!.max, 1500);
  assert.equal(t.gaps!.p50, 10);
  assert.deepEqual(t.runs, [{ id: 'r1', startMs: 120, endMs: 2580, startEvent: 0, endEvent: 21 }]);
  assert.deepEqual(t.steps, [{ id: 'plan', name: 'plan', startMs: 130, endMs: 2570, startEvent: 1, endEvent: 20 }]);
  assert.deepEqual(t.reasoning, [{ id: 'rs1', startMs: 150, endMs: 170, startEvent: 2, endEvent: 6 }]);
  assert.deepEqual(t.messages, [
    { id: 'm1', name: 'assistant', startMs: 400, endMs: 1900, startEvent: 7, endEvent: 9 },
    { id: 'm2', name: 'assistant', startMs: 2540, endMs: 2550, startEvent: 15, endEvent: 16, subagent: 's1' },
  ]);
  assert.deepEqual(t.toolCalls, [
    { id: 'c1', name: 'search', startMs: 1910, endMs: 2520, startEvent: 10, endEvent: 13, side: 'backend', argsEndMs: 1920, resultMs: 2520, runId: 'r1' },
    { id: 'c2', name: 'confirm', startMs: 2560, endMs: 2560, startEvent: 18, endEvent: 19, side: 'frontend', argsEndMs: 2560, resultMs: null, runId: 'r1' },
  ]);
  assert.deepEqual(t.subagents, [{ id: 's1', name: 'researcher', startMs: 2530, endMs: 2550, startEvent: 14, endEvent: 17 }]);
  assert.deepEqual(t.usage, [{ runId: 'r1', usage: [{ provider: 'p', model: 'm', inputTokens: 10, outputTokens: 5, totalTokens: 15 }] }]);
  assert.equal(t.buffering, null, 'no event carried a timestamp');
  assert.deepEqual(t.toolRoundTrips, []);
});

test('the stall threshold is the reader’s to set', () => {
  assert.deepEqual(timed(SCHEDULE, { stallMs: 500 })!.stalls, [{ afterEvent: 8, ms: 1500, atMs: 400 }, { afterEvent: 12, ms: 600, atMs: 1920 }]);
  assert.deepEqual(timed(SCHEDULE, { stallMs: 2000 })!.stalls, []);
});

test('an exchange still arriving has open spans; a truncated one keeps them open', () => {
  const open = timed(SCHEDULE.slice(0, 6))!;
  assert.equal(open.runs![0]!.endMs, null);
  assert.equal(open.steps![0]!.endMs, null);
  assert.deepEqual(open.messages!.map((m) => [m.id, m.endMs, m.endEvent]), [['m1', null, null]]);
  assert.equal(open.durationMs, 400);
});

test('a frame split over chunks arrives with its last chunk; chunk events count as content', () => {
  const chunk = frame({ type: 'TEXT_MESSAGE_CHUNK', messageId: 'm1', role: 'assistant', delta: 'Hi' });
  const t = timed([[50, started], [300, chunk.slice(0, 20)], [420, chunk.slice(20)], [430, finished]])!;
  assert.equal(t.ttfbMs, 50);
  assert.equal(t.firstContentMs, 420);
  assert.deepEqual(t.messages!.map((m) => [m.startMs, m.endMs]), [[420, 430]], 'the expansion closes it at the run’s end');
});

test('read while the stream arrives, the figures hold every event of the chunks pushed so far', () => {
  const input = { threadId: T, runId: 'r1', protocolVersion: '1.0', messages: [] };
  const reading = new ExchangeReading({ source: 'x', requestBody: JSON.stringify(input), contentType: SSE, status: 200, arrival: 'chunks', stallMs: 500 });
  reading.push(enc.encode(started), 100);
  assert.equal(reading.part('timing')!.firstEventMs, 100, 'the first chunk’s event, before any other chunk came');
  const message = frame({ type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' }) + frame({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'Hi' });
  reading.push(enc.encode(message.slice(0, 30)), 250);
  assert.equal(reading.part('timing')!.gaps, null, 'a chunk that completes no frame is no arrival: one event, no gap');
  reading.push(enc.encode(message.slice(30)), 900);
  const live = reading.part('timing')!;
  assert.equal(live.firstContentMs, 900);
  assert.deepEqual(live.stalls, [{ afterEvent: 0, ms: 800, atMs: 100 }]);
  assert.deepEqual(live.gaps, { p50: 0, p95: 800, max: 800 });
  assert.deepEqual(live.messages!.map((m) => [m.startMs, m.endMs]), [[900, null]]);
});

test('no recorded times: no timing; a HAR entry’s timings only: TTFB and duration, nothing per event', () => {
  assert.equal(timed(SCHEDULE, { arrival: null }), null);
  const t = timed(SCHEDULE, { arrival: { ttfbMs: 80, durationMs: 3000 } })!;
  assert.equal(t.source, 'entry');
  assert.deepEqual([t.ttfbMs, t.durationMs, t.firstEventMs, t.firstContentMs, t.gaps, t.stalls, t.runs, t.toolCalls, t.buffering], [80, 3000, null, null, null, null, null, null, null]);
  assert.equal(t.usage.length, 1, 'usage is in the events, whatever the times');
});

test('a burst of events produced over seconds that arrives at once is suspected to have been held back', () => {
  const at = 1_700_000_000_000;
  const ev = (k: number) => frame({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: `w${k}`, timestamp: at + 400 * k });
  const live: [number, string][] = [[10, frame({ type: 'RUN_STARTED', threadId: T, runId: 'r1', timestamp: at })], [20, frame({ type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant', timestamp: at })]];
  // Produced 400 ms apart, arriving 1 ms apart after the producer finished.
  const held = live.concat([1, 2, 3, 4, 5].map((k) => [3000 + k, ev(k)] as [number, string]));
  assert.deepEqual(timed(held)!.buffering, { suspected: true, producedOverMs: 1600, arrivedWithinMs: 4 });
  const streamed = live.concat([1, 2, 3, 4, 5].map((k) => [20 + 400 * k, ev(k)] as [number, string]));
  assert.deepEqual(timed(streamed)!.buffering, { suspected: false, producedOverMs: 2000, arrivedWithinMs: 2010 });
});

test('a frontend tool call’s round trip runs from the end of the run that left it to the request carrying its result', () => {
  const session = new SessionReader();
  const first = session.read({ source: 'a', requestBody: JSON.stringify({ threadId: T, runId: 'r1', messages: [], tools: [{ name: 'confirm', description: '', parameters: {} }] }), contentType: SSE, status: 200, arrival: 'chunks', sentAt: 1000 });
  first.push(enc.encode(started + frame({ type: 'TOOL_CALL_START', toolCallId: 'c2', toolCallName: 'confirm' }) + frame({ type: 'TOOL_CALL_END', toolCallId: 'c2' })), 100);
  first.push(enc.encode(frame({ type: 'RUN_FINISHED', threadId: T, runId: 'r1' })), 200);
  first.end(200);
  const answer = { threadId: T, runId: 'r2', messages: [{ id: 'a', role: 'assistant', content: '', toolCalls: [{ id: 'c2', type: 'function', function: { name: 'confirm', arguments: '{}' } }] }, { id: 't', role: 'tool', toolCallId: 'c2', content: 'yes' }], tools: [] };
  const second = session.read({ source: 'b', requestBody: JSON.stringify(answer), contentType: SSE, status: 200, arrival: 'chunks', sentAt: 4200 });
  second.end(0);
  assert.deepEqual(second.part('timing')!.toolRoundTrips, [{ toolCallId: 'c2', name: 'confirm', runId: 'r1', ms: 3000 }]);
});

test('the figures of a HAR are the same after import → export → import; a browser’s HAR gives its entry timings', () => {
  const body = enc.encode(SCHEDULE.map(([, s]) => s).join(''));
  let at = 0;
  const chunks = SCHEDULE.map(([time, s]) => {
    const bytes = body.subarray(at, at + enc.encode(s).length);
    at += bytes.length;
    return { time, bytes };
  });
  const captured: CapturedExchange = {
    source: 'cap', url: 'http://127.0.0.1/agent', method: 'POST', status: 200, startedDateTime: '2026-01-01T00:00:00.000Z', requestContentType: 'application/json',
    requestBody: JSON.stringify({ threadId: T, runId: 'r1', protocolVersion: '1.0', messages: [] }), responseContentType: SSE, chunks, arrival: 'chunks',
  };
  const figures = (xs: CapturedExchange[]) => analyzeSession(xs).map((r) => r.timing);
  const meta = { creator: { name: 'test', version: '0' } };
  const once = readExchanges(enc.encode(writeHar([captured], meta)), 'a.har');
  const twice = readExchanges(enc.encode(writeHar(once, meta)), 'b.har');
  assert.equal(once[0]!.arrival, 'chunks');
  assert.deepEqual(figures(once), figures([captured]));
  assert.deepEqual(figures(twice), figures([captured]));
  assert.equal(figures([captured])[0]!.stalls!.length, 1);
  // An output that prints no timing (junit, sarif) reads none, and the reports stay as they are.
  const untimed = analyzeSession(once, { timing: false });
  assert.deepEqual(untimed.map((r) => r.timing), [null]);
  assert.deepEqual(untimed.map((r) => r.report), analyzeSession(once).map((r) => r.report));

  const doc = JSON.parse(writeHar([captured], meta));
  delete doc.log._agui;
  delete doc.log.entries[0]._agui;
  doc.log.entries[0].timings = { blocked: 2, dns: -1, connect: 3, send: 1, wait: 110, receive: 2464 };
  doc.log.entries[0].time = 2580;
  const browser = readExchanges(enc.encode(JSON.stringify(doc)), 'browser.har');
  assert.deepEqual(browser[0]!.arrival, { ttfbMs: 116, durationMs: 2580 });
  const again = readExchanges(enc.encode(writeHar(browser, meta)), 'c.har');
  assert.deepEqual(again[0]!.arrival, { ttfbMs: 116, durationMs: 2580 });
  assert.deepEqual(figures(again), figures(browser));
  assert.equal(figures(browser)[0]!.source, 'entry');

  const raw = readExchanges(body, 'body.sse');
  assert.equal(raw[0]!.arrival, undefined);
  assert.deepEqual(figures(raw), [null]);
  assert.deepEqual(figures(readExchanges(enc.encode(writeHar(raw, meta)), 'd.har')), [null], 'a body file exported says it recorded no times');
});

test('timing grows with the events, not faster: twice the events, about twice the time', () => {
  const build = (n: number): [number, string][] => {
    const out: [number, string][] = [[0, started + frame({ type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' })]];
    for (let i = 1; i <= n; i++) out.push([i, frame({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'x' }) + (i % 50 === 0 ? frame({ type: 'TOOL_CALL_START', toolCallId: `c${i}`, toolCallName: 't' }) + frame({ type: 'TOOL_CALL_END', toolCallId: `c${i}` }) : '')]);
    return out;
  };
  const time = (n: number): number => {
    const s = build(n);
    const t0 = performance.now();
    timed(s);
    return performance.now() - t0;
  };
  time(5000);
  const small = Math.min(time(20_000), time(20_000));
  const large = Math.min(time(40_000), time(40_000));
  assert.ok(large < small * 3.5, `20,000 events took ${small.toFixed(0)} ms, 40,000 took ${large.toFixed(0)} ms`);
});

test('the gap percentiles are the nearest ranks of every gap, as sorting them would give', () => {
  let seed = 11;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  // Several events in one chunk, chunks at the same millisecond, and (a hostile file's) times that go back.
  for (const backwards of [0, 0.05]) {
    for (const n of [2, 3, 10, 101, 1000]) {
      let at = 0;
      const times = [0];
      const schedule: [number, string][] = [[0, started]];
      for (let i = 1; i < n; ) {
        at += Math.floor(rand() * 50) * (rand() < 0.1 ? 30 : 1) * (rand() < backwards ? -1 : 1);
        const k = Math.min(n - i, 1 + Math.floor(rand() * 3));
        schedule.push([at, frame({ type: 'STATE_DELTA', delta: [] }).repeat(k)]);
        for (let j = 0; j < k; j++) times.push(at);
        i += k;
      }
      const gaps = times.slice(1).map((t, i) => t - times[i]!).sort((a, b) => a - b);
      const rank = (p: number) => gaps[Math.max(0, Math.ceil(p * gaps.length) - 1)]!;
      const stalls = times.slice(1).flatMap((t, i) => (t - times[i]! >= 1000 ? [{ afterEvent: i, ms: t - times[i]!, atMs: times[i]! }] : []));
      const t = timed(schedule)!;
      if (n === 1000) assert.ok(stalls.length > 0 && gaps[0]! < (backwards ? 0 : 1), 'the schedule has stalls, and zero or negative gaps');
      assert.deepEqual(t.gaps, { p50: rank(0.5), p95: rank(0.95), max: gaps.at(-1) }, `${n} events, ${backwards ? 'some' : 'no'} times going back`);
      assert.deepEqual(t.stalls, stalls, `${n} events: every gap of at least 1 s, after the frame before it`);
    }
  }
});

test('hostile recorded times (#33): chunks dated out of order give no timing figure, and say why', () => {
  const input = { threadId: T, runId: 'r1', messages: [] };
  const chunk = (time: number, text: string) => ({ time, bytes: enc.encode(text) });
  const text = frame({ type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' }) + frame({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'hi' }) + frame({ type: 'TEXT_MESSAGE_END', messageId: 'm1' });
  const exchange = (times: number[]): CapturedExchange => ({
    source: 'x', url: 'http://127.0.0.1/agent', method: 'POST', status: 200, startedDateTime: '2026-01-01T00:00:00.000Z',
    requestBody: JSON.stringify(input), requestContentType: 'application/json', responseContentType: SSE, arrival: 'chunks',
    chunks: [chunk(times[0]!, started), chunk(times[1]!, text), chunk(times[2]!, finished)],
  });
  const cases: [number[], RegExp][] = [
    // TTFT −800 ms with duration −1 ms, as an edited file had it.
    [[-800, -800, -1], /chunk 0 is dated -800 ms, before the request started/],
    [[10, 5, 20], /chunk 1 is dated 5 ms, before chunk 0 \(10 ms\)/],
    // Differences of two finite times that overflow to Infinity ("longest Infinity s", `"ms": null`).
    [[0, 1.7e308, -1.7e308], /chunk 2 is dated -1\.7e\+308 ms/],
  ];
  for (const [times, why] of cases) {
    const [x] = readExchanges(enc.encode(writeHar([exchange(times)], { creator: { name: 't', version: '0' } })), 'edited.har');
    const { timing, report } = analyzeSession([x!])[0]!;
    assert.equal(report.verdict, 'completed', 'the events are judged as ever');
    assert.match(timing!.unusableTimes ?? '', why);
    assert.equal(timing!.source, 'entry');
    for (const v of [timing!.ttfbMs, timing!.firstContentMs, timing!.durationMs]) assert.ok(v === null || (Number.isFinite(v) && v >= 0), `${v}`);
    assert.equal(timing!.stalls, null);
    assert.equal(timing!.gaps, null);
    // The reason survives export and import again, and JSON keeps every figure it prints.
    const [again] = readExchanges(enc.encode(writeHar([x!], { creator: { name: 't', version: '0' } })), 'again.har');
    assert.equal(analyzeSession([again!])[0]!.timing!.unusableTimes, timing!.unusableTimes);
    assert.doesNotMatch(JSON.stringify(timing), /null,"ms"|"ms":null/);
  }
  // A browser HAR entry whose first byte comes after its end.
  const har = JSON.parse(writeHar([{ ...exchange([0, 1, 2]), arrival: { ttfbMs: 0, durationMs: 0 } }], { creator: { name: 't', version: '0' } }));
  delete har.log.entries[0]._agui;
  har.log.entries[0].timings = { send: 0, wait: 5000, receive: 0 };
  har.log.entries[0].time = 10;
  const [browser] = readExchanges(enc.encode(JSON.stringify(har)), 'browser.har');
  const t = analyzeSession([browser!])[0]!.timing!;
  assert.match(t.unusableTimes ?? '', /first byte \(5000 ms\) comes after its end \(10 ms\)/);
  assert.deepEqual([t.ttfbMs, t.durationMs], [null, null]);
  // Producer timestamps beyond any date are no time: buffering stays finite.
  const stamped = timed([[0, frame({ type: 'RUN_STARTED', threadId: T, runId: 'r1', timestamp: -1.7e308 })], [1, frame({ type: 'RUN_FINISHED', threadId: T, runId: 'r1', timestamp: 1.7e308 })]])!;
  assert.equal(stamped.buffering, null);
});
