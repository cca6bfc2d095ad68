import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyzeSession, overview, PROBLEM_GROUPS } from '../../src/detail/index.ts';
import type { CapturedExchange } from '../../src/exchange/index.ts';

const enc = new TextEncoder();
const frame = (ev: object): string => `data: ${JSON.stringify(ev)}\n\n`;

/** One exchange of thread `t`, its events arriving at the given times (ms after the request). */
function exchange(name: string, schedule: [number, object][], input: Record<string, unknown> = {}): CapturedExchange {
  const body = { threadId: `thread-${name}`, runId: `run-${name}`, protocolVersion: '1.0', messages: [], ...input };
  return {
    source: name, url: `http://127.0.0.1/agent/${name}`, method: 'POST', status: 200, startedDateTime: '2026-01-01T00:00:00.000Z',
    requestBody: JSON.stringify(body), requestContentType: 'application/json', responseContentType: 'text/event-stream', arrival: 'chunks',
    chunks: schedule.map(([time, ev]) => ({ time, bytes: enc.encode(frame(ev)) })),
  };
}

const run = (name: string, events: object[], o: { at?: number[]; input?: Record<string, unknown>; version?: boolean } = {}): CapturedExchange => {
  const ids = { threadId: `thread-${name}`, runId: `run-${name}` };
  const all = [{ type: 'RUN_STARTED', ...ids, ...(o.version === false ? {} : { protocolVersion: '1.0' }) }, ...events];
  return exchange(name, all.map((ev, i) => [o.at?.[i] ?? 100 + i * 10, ev]), { ...o.input, ...(o.version === false ? { protocolVersion: undefined } : {}) });
};
const text = (id: string) => [{ type: 'TEXT_MESSAGE_START', messageId: id, role: 'assistant' }, { type: 'TEXT_MESSAGE_CONTENT', messageId: id, delta: 'hi' }, { type: 'TEXT_MESSAGE_END', messageId: id }];
const finished = (name: string, more: object = {}) => ({ type: 'RUN_FINISHED', threadId: `thread-${name}`, runId: `run-${name}`, ...more });

test('the session overview lists each problem once, grouped by what it does to the user, and a clean exchange adds nothing', () => {
  const session = [
    run('clean', [...text('m1'), finished('clean')]),
    run('malformed', [{ type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' }, { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 42 }, { type: 'TEXT_MESSAGE_END', messageId: 'm' }, finished('malformed')]),
    run('errored', [{ type: 'RUN_ERROR', message: 'model overloaded' }]),
    run('cut', text('m2'), { version: false }),
    run('mismatch', [...text('m3'), finished('mismatch', { runId: 'other' })], { version: false }),
    run('stalled', [...text('m4'), finished('stalled')], { at: [100, 110, 120, 1700, 1710] }),
    run('slow', [...text('m5'), finished('slow')], { at: [100, 7000, 7010, 7020, 7030] }),
    run('frontend', [{ type: 'TOOL_CALL_START', toolCallId: 'call-1', toolCallName: 'confirm' }, { type: 'TOOL_CALL_ARGS', toolCallId: 'call-1', delta: '{}' }, { type: 'TOOL_CALL_END', toolCallId: 'call-1' }, finished('frontend')], { input: { tools: [{ name: 'confirm', description: 'ask', parameters: { type: 'object' } }] } }),
    run('asked', [finished('asked', { outcome: { type: 'interrupt', interrupts: [{ id: 'approve', reason: 'confirmation' }] } })]),
    run('patch', [{ type: 'STATE_SNAPSHOT', snapshot: { cart: {} } }, { type: 'STATE_DELTA', delta: [{ op: 'remove', path: '/cart/coupon' }] }, finished('patch')]),
  ];
  const analysed = analyzeSession(session);
  const o = overview(analysed);
  const got = o.problems.map((p) => [p.group, p.kind, session[p.exchange]!.source, p.event, p.view]);
  assert.deepEqual(got, [
    ['failed', 'schema/malformed', 'malformed', 2, 'timeline'],
    ['runs', 'run-error', 'errored', 1, 'identity'],
    ['runs', 'run-truncated', 'cut', 0, 'identity'],
    ['identity', 'identity/run-id-mismatch', 'mismatch', 4, 'identity'],
    ['readiness', 'readiness', 'cut', null, 'findings'],
    ['readiness', 'readiness', 'mismatch', 4, 'timeline'],
    ['time', 'stall', 'stalled', 2, 'waterfall'],
    // Content 7 s late is slow, and the wait before it a stall.
    ['time', 'slow-first-content', 'slow', null, 'waterfall'],
    ['time', 'stall', 'slow', 0, 'waterfall'],
    ['tools', 'tool-unanswered', 'frontend', 1, 'tools'],
    ['tools', 'interrupt-unresumed', 'asked', 1, 'identity'],
    ['state', 'state/patch-failed', 'patch', 2, 'state'],
  ]);
  assert.deepEqual([o.exchanges, o.failed, o.pre10, o.notReady], [10, 1, 2, 2]);
  assert.deepEqual([...new Set(o.problems.map((p) => p.group))], PROBLEM_GROUPS.map((g) => g.id), 'every group reached, in their order');
  assert.match(o.problems.find((p) => p.kind === 'slow-first-content')!.text, /first content after 7\.0 s, where the session's median is 120 ms/);
  assert.equal(overview(analysed.slice(0, 1)).problems.length, 0, 'a clean exchange alone has nothing to say');
});

test('a later request that answers a frontend call, or resumes an interrupt, takes it off the list', () => {
  const tools = [{ name: 'confirm', description: 'ask', parameters: { type: 'object' } }];
  const call = [{ type: 'TOOL_CALL_START', toolCallId: 'call-1', toolCallName: 'confirm' }, { type: 'TOOL_CALL_END', toolCallId: 'call-1' }];
  const first = run('t', [...call, finished('t', { outcome: { type: 'interrupt', interrupts: [{ id: 'approve', reason: 'confirmation' }] } })], { input: { tools } });
  const answer = exchange('t2', [[100, { type: 'RUN_STARTED', threadId: 'thread-t', runId: 'run-2', protocolVersion: '1.0' }], [110, { type: 'RUN_FINISHED', threadId: 'thread-t', runId: 'run-2' }]], {
    threadId: 'thread-t', runId: 'run-2', tools,
    messages: [{ id: 'a', role: 'assistant', toolCalls: [{ id: 'call-1', type: 'function', function: { name: 'confirm', arguments: '{}' } }] }, { id: 'r', role: 'tool', toolCallId: 'call-1', content: 'yes' }],
    resume: [{ interruptId: 'approve', status: 'resolved' }],
  });
  first.startedDateTime = '2026-01-01T00:00:00.000Z';
  answer.startedDateTime = '2026-01-01T00:00:05.000Z';
  assert.deepEqual(overview(analyzeSession([first])).problems.map((p) => p.kind), ['tool-unanswered', 'interrupt-unresumed']);
  assert.deepEqual(overview(analyzeSession([first, answer])).problems.map((p) => p.kind), []);
});

test("calls of the input's own tools whose arguments are no JSON or fail the tool's schema are listed; a backend call's are not, nor are they read for junit or sarif", () => {
  const tools = [{ name: 'book', description: 'book a table', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];
  const call = (id: string, name: string, args: string) => [
    { type: 'TOOL_CALL_START', toolCallId: id, toolCallName: name }, { type: 'TOOL_CALL_ARGS', toolCallId: id, delta: args }, { type: 'TOOL_CALL_END', toolCallId: id },
  ];
  const session = [
    run('fine', [...call('ok', 'book', '{"city":"Oslo"}'), { type: 'TOOL_CALL_RESULT', messageId: 'r0', toolCallId: 'ok', content: 'booked' }, finished('fine')], { input: { tools } }),
    run('bad', [
      ...call('c1', 'book', '{"city":3}'),
      ...call('c2', 'book', '{"city":'),
      // The agent's own tool: its result came in the stream, and its arguments are the agent's business.
      ...call('c3', 'search', 'not json'), { type: 'TOOL_CALL_RESULT', messageId: 'r3', toolCallId: 'c3', content: 'found' },
      // Still open when the run ended: a prefix, which no one acts on.
      { type: 'TOOL_CALL_START', toolCallId: 'c4', toolCallName: 'book' }, { type: 'TOOL_CALL_ARGS', toolCallId: 'c4', delta: '{' },
      { type: 'RUN_ERROR', message: 'gave up' },
    ], { input: { tools } }),
  ];
  const problems = overview(analyzeSession(session)).problems.filter((p) => p.kind === 'tool-args-rejected');
  assert.deepEqual(problems.map((p) => [session[p.exchange]!.source, p.event, p.view]), [['bad', 1], ['bad', 4]].map(([x, e]) => [x, e, 'tools']));
  assert.match(problems[0]!.text, /^frontend tool call book \(c1\) has arguments its declared parameters schema rejects \(\/city: .+\)$/);
  assert.match(problems[1]!.text, /^frontend tool call book \(c2\) has arguments that are not JSON, which the application cannot parse$/);
  assert.equal(analyzeSession(session, { tools: false })[1]!.rejected, undefined, 'not read when not asked for');
});

test('the overview costs a pass over the exchanges: four times the session, about four times the time', () => {
  const one = analyzeSession(Array.from({ length: 250 }, (_, i) => run(`x${i}`, [...text(`m${i}`), finished(`x${i}`, i % 3 ? {} : { runId: 'other' })], { version: false })));
  const four = [...one, ...one, ...one, ...one];
  // One overview of 250 exchanges takes a millisecond or so, which a collection can double: each sample is
  // five of them, and the least of five samples is taken (interference only ever adds). Counted in the
  // process's CPU time, not wall time: on a loaded machine (a clean-clone run read 8.16) the wall clock also
  // counts the time other processes held the core.
  const time = (s: typeof one): number => {
    let best = Infinity;
    for (let k = 0; k < 5; k++) {
      const t0 = process.cpuUsage();
      for (let j = 0; j < 5; j++) overview(s);
      const { user, system } = process.cpuUsage(t0);
      best = Math.min(best, user + system);
    }
    return best;
  };
  // The first calls run before the JIT settles, several times slower: both sizes warm first.
  for (let k = 0; k < 3; k++) {
    time(one);
    time(four);
  }
  // Linear work reads about 4 here and quadratic 16: 8 tells them apart through a loaded machine's noise.
  const ratio = time(four) / time(one);
  assert.ok(ratio < 8, `4n ÷ n = ${ratio.toFixed(2)}`);
});
