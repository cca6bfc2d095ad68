import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AGUI_MEDIA_TYPE } from '@ag-ui/proto';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import { demoSchedule, findScenario, resumeEntriesFor, scenarioInfo, scenarios, type Scenario } from '../../demo/scenarios.ts';
import { inputFor, parseSse, post, runScenario, userMessage, type Json } from './helpers.ts';

let agent: DemoAgent;
before(async () => {
  agent = await startDemoAgent({ page: false, delayMs: 0 });
});
after(() => agent.close());

function ofType(events: Json[], type: string): Json[] {
  return events.filter((e) => e.type === type);
}

function only(events: Json[], type: string): Json {
  const found = ofType(events, type);
  assert.equal(found.length, 1, `expected exactly one ${type}, got ${found.length}`);
  return found[0]!;
}

function scenario(name: string): Scenario {
  const found = findScenario(name);
  assert.ok(found, `scenario ${name} exists`);
  return found;
}

describe('every scenario over SSE', () => {
  for (const s of scenarios) {
    test(`${s.name}: streams exactly its scenario's events, tagged with the request's identifiers`, async () => {
      const input = inputFor({ threadId: `thread-${s.name}`, runId: `run-${s.name}` });
      const reply = await post(`${agent.url}/agent/${s.name}?delay=0`, input);
      assert.equal(reply.status, 200);
      assert.equal(reply.contentType, 'text/event-stream');
      const events = parseSse(reply.body);
      assert.deepEqual(events, JSON.parse(JSON.stringify(s.events(input))));
      assert.equal(events[0]?.type, 'RUN_STARTED');
      for (const e of events.filter((e) => e.type === 'RUN_STARTED' || e.type === 'RUN_FINISHED')) {
        assert.equal(e.threadId, input.threadId);
        assert.equal(typeof e.runId, 'string');
      }
      assert.equal(events[0]?.runId, s.name === 'replay' ? `${input.threadId}:replayed-1` : input.runId);
    });
  }
});

describe('the defining property of each scenario', () => {
  test('chat: one clean run declaring 1.0, a message streamed in several chunks', async () => {
    const events = await runScenario(agent.url, 'chat', inputFor());
    assert.deepEqual(
      events.map((e) => e.type),
      ['RUN_STARTED', 'TEXT_MESSAGE_START', ...ofType(events, 'TEXT_MESSAGE_CONTENT').map(() => 'TEXT_MESSAGE_CONTENT'), 'TEXT_MESSAGE_END', 'RUN_FINISHED'],
    );
    assert.equal(only(events, 'RUN_STARTED').protocolVersion, '1.0');
    const contents = ofType(events, 'TEXT_MESSAGE_CONTENT');
    assert.ok(contents.length > 1);
    assert.match(contents.map((e) => e.delta).join(''), /Hi there, who are you\?/);
    assert.equal(only(events, 'RUN_FINISHED').runId, 'run-demo');
  });

  test('tools: backend call answered in-stream, frontend call left pending and named in pendingToolCallIds', async () => {
    const events = await runScenario(agent.url, 'tools', inputFor());
    const starts = ofType(events, 'TOOL_CALL_START');
    assert.equal(starts.length, 2);
    const [backend, frontend] = starts as [Json, Json];
    assert.equal(backend.toolCallName, 'lookup_weather');
    assert.equal(frontend.toolCallName, 'show_weather_card');
    const results = ofType(events, 'TOOL_CALL_RESULT');
    assert.deepEqual(results.map((r) => r.toolCallId), [backend.toolCallId]);
    for (const call of starts) {
      const args = ofType(events, 'TOOL_CALL_ARGS').filter((a) => a.toolCallId === call.toolCallId);
      assert.doesNotThrow(() => JSON.parse(args.map((a) => a.delta).join('')));
      assert.equal(ofType(events, 'TOOL_CALL_END').filter((e) => e.toolCallId === call.toolCallId).length, 1);
    }
    assert.deepEqual(only(events, 'RUN_FINISHED').outcome, { type: 'success', pendingToolCallIds: [frontend.toolCallId] });
  });

  test('tools: with no frontend tool advertised, nothing is left pending', async () => {
    const events = await runScenario(agent.url, 'tools', inputFor({ tools: [] }));
    assert.equal(ofType(events, 'TOOL_CALL_START').length, 1);
    assert.deepEqual(only(events, 'RUN_FINISHED').outcome, { type: 'success' });
  });

  test('tools: calls whichever frontend tool the input advertises', async () => {
    const events = await runScenario(agent.url, 'tools', inputFor({ tools: [{ name: 'render_chart', description: 'Draws a chart.' }] }));
    assert.equal(ofType(events, 'TOOL_CALL_START')[1]?.toolCallName, 'render_chart');
  });

  test('state: a snapshot keeping the input state, then JSON Patch deltas', async () => {
    const events = await runScenario(agent.url, 'state', inputFor({ state: { preferences: { units: 'imperial' }, visits: 2 } }));
    const snapshot = only(events, 'STATE_SNAPSHOT').snapshot as Record<string, unknown>;
    assert.deepEqual(snapshot.preferences, { units: 'imperial' });
    assert.equal(snapshot.visits, 2);
    const deltas = ofType(events, 'STATE_DELTA');
    assert.ok(deltas.length >= 3);
    const ops = deltas.flatMap((d) => d.delta as { op: string; path: string }[]);
    assert.ok(ops.every((op) => ['add', 'remove', 'replace', 'move', 'copy', 'test'].includes(op.op) && op.path.startsWith('/')));
    assert.ok(events.findIndex((e) => e.type === 'STATE_SNAPSHOT') < events.findIndex((e) => e.type === 'STATE_DELTA'));
  });

  test('interrupt: first request ends with two interrupts; a resume answering both runs normally', async () => {
    const first = await runScenario(agent.url, 'interrupt', inputFor({ runId: 'run-1' }));
    const outcome = only(first, 'RUN_FINISHED').outcome as { type: string; interrupts: Record<string, unknown>[] };
    assert.equal(outcome.type, 'interrupt');
    assert.equal(outcome.interrupts.length, 2);
    assert.equal(new Set(outcome.interrupts.map((i) => i.id)).size, 2);
    for (const i of outcome.interrupts) {
      assert.equal(typeof i.id, 'string');
      assert.equal(typeof i.reason, 'string');
      assert.equal(typeof i.message, 'string');
      assert.equal((i.responseSchema as { type?: unknown }).type, 'object');
    }
    const interrupts = outcome.interrupts as unknown as { id: string; reason: string }[];

    const resumed = await runScenario(agent.url, 'interrupt', inputFor({ runId: 'run-2', resume: resumeEntriesFor(interrupts, 'all') }));
    const finished = only(resumed, 'RUN_FINISHED');
    assert.equal(finished.runId, 'run-2');
    assert.equal(finished.outcome, undefined);
    assert.match(ofType(resumed, 'TEXT_MESSAGE_CONTENT').map((e) => e.delta).join(''), /Sent the quarterly report .* as PDF/);
  });

  test('interrupt: a partial resume keeps the uncovered interrupt open; answering it then completes', async () => {
    const interrupts = [{ id: 'approve-send', reason: 'approval' }, { id: 'choose-format', reason: 'input_required' }];
    const entries = resumeEntriesFor(interrupts, 'partial');
    assert.deepEqual(entries.map((e) => e.interruptId), ['approve-send']);
    const partial = await runScenario(agent.url, 'interrupt', inputFor({ runId: 'run-2', resume: entries }));
    const outcome = only(partial, 'RUN_FINISHED').outcome as { type: string; interrupts: { id: string; reason: string }[] };
    assert.equal(outcome.type, 'interrupt');
    assert.deepEqual(outcome.interrupts.map((i) => i.id), ['choose-format']);

    // The consumer carries the state the interrupted run left, and answers only what was raised again.
    const carried = only(partial, 'STATE_SNAPSHOT').snapshot;
    const last = await runScenario(agent.url, 'interrupt', inputFor({ runId: 'run-3', state: carried, resume: resumeEntriesFor(outcome.interrupts, 'all') }));
    assert.equal(only(last, 'RUN_FINISHED').outcome, undefined);
    assert.deepEqual((only(last, 'STATE_SNAPSHOT').snapshot as { report: unknown }).report, { status: 'sent', format: 'pdf' });
  });

  test('interrupt: abandoning the approval is honoured', async () => {
    const events = await runScenario(
      agent.url,
      'interrupt',
      inputFor({
        resume: [
          { interruptId: 'approve-send', status: 'cancelled' },
          { interruptId: 'choose-format', status: 'resolved', payload: { format: 'html' } },
        ],
      }),
    );
    assert.equal(only(events, 'RUN_FINISHED').outcome, undefined);
    assert.match(ofType(events, 'TEXT_MESSAGE_CONTENT').map((e) => e.delta).join(''), /stays unsent/);
  });

  test('replay: three runs on the thread, the last echoing the input runId', async () => {
    const input = inputFor({ threadId: 'thread-r', runId: 'run-live' });
    const events = await runScenario(agent.url, 'replay', input);
    const started = ofType(events, 'RUN_STARTED');
    const finished = ofType(events, 'RUN_FINISHED');
    assert.equal(started.length, 3);
    assert.deepEqual(finished.map((e) => e.runId), started.map((e) => e.runId));
    assert.equal(new Set(started.map((e) => e.runId)).size, 3);
    assert.equal(started[2]?.runId, 'run-live');
    assert.ok(started.every((e) => e.threadId === 'thread-r'));
    // Each run closes before the next opens.
    const boundaries = events.filter((e) => e.type === 'RUN_STARTED' || e.type === 'RUN_FINISHED').map((e) => e.type);
    assert.deepEqual(boundaries, ['RUN_STARTED', 'RUN_FINISHED', 'RUN_STARTED', 'RUN_FINISHED', 'RUN_STARTED', 'RUN_FINISHED']);
    const replayed = events.slice(0, events.indexOf(started[2]!));
    assert.equal(ofType(replayed, 'MESSAGES_SNAPSHOT').length, 2);
    assert.equal(ofType(replayed, 'STATE_SNAPSHOT').length, 2);
    assert.ok(!replayed.some((e) => e.type.startsWith('TEXT_MESSAGE')), 'history is restated as snapshots, not re-streamed');
    const lastSnapshot = ofType(replayed, 'MESSAGES_SNAPSHOT')[1]!.messages as { id: string }[];
    assert.ok(lastSnapshot.some((m) => m.id === userMessage.id), 'the restated thread keeps what the consumer sent');
  });

  test('misbehave-identity: RUN_FINISHED names another run', async () => {
    const events = await runScenario(agent.url, 'misbehave-identity', inputFor());
    assert.equal(only(events, 'RUN_STARTED').runId, 'run-demo');
    assert.notEqual(only(events, 'RUN_FINISHED').runId, only(events, 'RUN_STARTED').runId);
  });

  test('misbehave-version: RUN_STARTED declares 1.9', async () => {
    const events = await runScenario(agent.url, 'misbehave-version', inputFor());
    assert.equal(only(events, 'RUN_STARTED').protocolVersion, '1.9');
    assert.equal(events.at(-1)?.type, 'RUN_FINISHED');
  });

  test('misbehave-unknown: an unknown property, event type and outcome', async () => {
    const events = await runScenario(agent.url, 'misbehave-unknown', inputFor());
    assert.ok(ofType(events, 'TEXT_MESSAGE_CONTENT').some((e) => 'confidence' in e));
    assert.equal(ofType(events, 'PROGRESS_UPDATE').length, 1);
    assert.equal((only(events, 'RUN_FINISHED').outcome as { type: string }).type, 'handoff');
  });

  test('misbehave-truncated: the body ends cleanly with a message open and no terminal event', async () => {
    const events = await runScenario(agent.url, 'misbehave-truncated', inputFor());
    assert.equal(events.at(-1)?.type, 'TEXT_MESSAGE_CONTENT');
    assert.equal(ofType(events, 'TEXT_MESSAGE_START').length, 1);
    assert.equal(ofType(events, 'TEXT_MESSAGE_END').length, 0);
    assert.equal(ofType(events, 'RUN_FINISHED').length + ofType(events, 'RUN_ERROR').length, 0);
  });

  test('misbehave-malformed: TEXT_MESSAGE_CONTENT carries delta 42', async () => {
    const events = await runScenario(agent.url, 'misbehave-malformed', inputFor());
    assert.ok(ofType(events, 'TEXT_MESSAGE_CONTENT').some((e) => e.delta === 42));
    assert.equal(events.at(-1)?.type, 'RUN_FINISHED');
  });
});

describe('the timing scenarios keep their schedule', () => {
  /** When each event's frame left the agent, ms after the first: the stream read as it arrives, over SSE. */
  async function arrivals(name: string, delay: number): Promise<{ events: Json[]; at: number[] }> {
    const res = await fetch(`${agent.url}/agent/${name}?delay=${delay}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(inputFor()) });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    const events: Json[] = [];
    const at: number[] = [];
    let t0: number | undefined;
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      t0 ??= performance.now();
      text += decoder.decode(value, { stream: true });
      const frames = text.split('\n\n');
      text = frames.pop()!;
      for (const f of frames) {
        events.push(...parseSse(new TextEncoder().encode(`${f}\n\n`)));
        at.push(performance.now() - t0);
      }
    }
    return { events, at };
  }
  const near = (ms: number, want: number, what: string) => assert.ok(Math.abs(ms - want) <= 50, `${what}: ${ms.toFixed(0)} ms, want ${want} ± 50`);

  test('slow-start: the first content delta waits, whatever the delay asked for', async () => {
    const { events, at } = await arrivals('slow-start', 0);
    const first = events.findIndex((e) => e.type === 'TEXT_MESSAGE_CONTENT');
    near(at[first]!, demoSchedule.firstContentMs, 'first content');
    near(at[first - 1]!, 0, 'TEXT_MESSAGE_START');
  });

  test('stall: one silence mid-message, the other gaps the delay', async () => {
    const { events, at } = await arrivals('stall', 10);
    const gaps = at.slice(1).map((t, i) => t - at[i]!);
    const long = gaps.filter((g) => g >= 1000);
    assert.equal(long.length, 1, `gaps ${gaps.map((g) => g.toFixed(0)).join(' ')}`);
    near(long[0]!, demoSchedule.stallMs, 'the stall');
    const after = events[gaps.indexOf(long[0]!)];
    assert.equal(after?.type, 'TEXT_MESSAGE_CONTENT', 'the stall is inside the message');
  });

  test('slow-tool: a backend call whose result comes after the schedule, answered in-stream', async () => {
    const { events, at } = await arrivals('slow-tool', 0);
    const start = events.findIndex((e) => e.type === 'TOOL_CALL_START');
    const result = events.findIndex((e) => e.type === 'TOOL_CALL_RESULT');
    assert.equal(events[result]?.toolCallId, events[start]?.toolCallId);
    near(at[result]! - at[start]!, demoSchedule.toolMs, 'start to result');
    assert.ok(!inputFor().tools.some((t) => t.name === events[start]?.toolCallName), 'not a tool the input declares');
  });

  test('buffered: producer stamps spread over seconds, the frames written at once', async () => {
    const { events, at } = await arrivals('buffered', 100);
    const stamps = events.map((e) => e.timestamp as number);
    assert.ok(stamps.every((t, i) => i === 0 || t - stamps[i - 1]! === demoSchedule.producedEveryMs), 'stamped at the schedule');
    assert.ok(stamps.at(-1)! - stamps[0]! >= 2000, 'produced over seconds');
    assert.ok(at.at(-1)! < 50, `arrived within ${at.at(-1)} ms despite ?delay=100`);
  });
});

describe('protobuf', () => {
  for (const s of scenarios.filter((s) => s.transports.includes('protobuf'))) {
    test(`${s.name}: decodes with @ag-ui/proto to the same events as SSE`, async () => {
      const input = inputFor({ runId: `run-${s.name}` });
      const reply = await post(`${agent.url}/agent/${s.name}?delay=0`, input, { Accept: `${AGUI_MEDIA_TYPE}, text/event-stream` });
      assert.equal(reply.contentType, AGUI_MEDIA_TYPE);
      assert.deepEqual(await runScenario(agent.url, s.name, input, 'protobuf'), await runScenario(agent.url, s.name, input, 'sse'));
    });
  }

  for (const s of scenarios.filter((s) => !s.transports.includes('protobuf'))) {
    test(`${s.name}: is SSE-only and answers SSE even when protobuf is asked for`, async () => {
      const reply = await post(`${agent.url}/agent/${s.name}?delay=0`, inputFor(), { Accept: `${AGUI_MEDIA_TYPE}, text/event-stream` });
      assert.equal(reply.contentType, 'text/event-stream');
    });
  }

  test('a wildcard Accept gets SSE; an explicit q=0 for protobuf gets SSE', async () => {
    for (const accept of ['*/*', `${AGUI_MEDIA_TYPE};q=0, text/event-stream`]) {
      const reply = await post(`${agent.url}/agent/chat?delay=0`, inputFor(), { Accept: accept });
      assert.equal(reply.contentType, 'text/event-stream', accept);
    }
  });
});

describe('HTTP surface', () => {
  test('rejects bad input before any stream', async () => {
    assert.equal((await post(`${agent.url}/agent/chat`, '{not json')).status, 400);
    assert.equal((await post(`${agent.url}/agent/chat`, { threadId: 't', messages: [] })).status, 400);
    assert.equal((await post(`${agent.url}/agent/chat?delay=-1`, inputFor())).status, 400);
    assert.equal((await post(`${agent.url}/agent/no-such-scenario`, inputFor())).status, 404);
    const get = await fetch(`${agent.url}/agent/chat`);
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
  });

  test('accepts a minimal input (absent tools and context mean none)', async () => {
    const reply = await post(`${agent.url}/agent/tools?delay=0`, { threadId: 't', runId: 'r', messages: [] });
    assert.equal(reply.status, 200);
  });

  test('GET /scenarios lists every scenario', async () => {
    const res = await fetch(`${agent.url}/scenarios`);
    assert.deepEqual(await res.json(), scenarioInfo());
    assert.deepEqual(
      scenarioInfo().map((s) => s.name),
      ['chat', 'tools', 'state', 'interrupt', 'replay', 'misbehave-identity', 'misbehave-version', 'misbehave-unknown', 'misbehave-truncated', 'misbehave-malformed', 'pre-1.0', 'misbehave-state', 'misbehave-conversation', 'misbehave-tool-args', 'slow-start', 'stall', 'slow-tool', 'buffered', 'subagents'],
    );
  });

  test('CORS admits local origins only', async () => {
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1:9000']) {
      const preflight = await fetch(`${agent.url}/agent/chat`, {
        method: 'OPTIONS',
        headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
      });
      assert.equal(preflight.status, 204);
      assert.equal(preflight.headers.get('access-control-allow-origin'), origin);
      assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /POST/);
    }
    const foreign = await post(`${agent.url}/agent/chat?delay=0`, inputFor(), { Origin: 'https://example.com' });
    assert.equal(foreign.contentType, 'text/event-stream');
    const res = await fetch(`${agent.url}/scenarios`, { headers: { Origin: 'https://example.com' } });
    assert.equal(res.headers.get('access-control-allow-origin'), null);
  });

  test('without the page, GET / is 404', async () => {
    assert.equal((await fetch(`${agent.url}/`)).status, 404);
  });

  test('?delay spaces the events out', async () => {
    const events = scenario('chat').events(inputFor());
    const started = performance.now();
    await runScenario(agent.url, 'chat', inputFor());
    const fast = performance.now() - started;
    const slowStart = performance.now();
    await post(`${agent.url}/agent/chat?delay=25`, inputFor());
    const slow = performance.now() - slowStart;
    assert.ok(slow >= (events.length - 1) * 25 * 0.9, `slow run took ${slow} ms`);
    assert.ok(fast < slow);
  });

  test('close() ends streams still in flight', async () => {
    const other = await startDemoAgent({ page: false, delayMs: 10_000 });
    const pending = fetch(`${other.url}/agent/chat`, { method: 'POST', body: JSON.stringify(inputFor()) }).then((res) => res.arrayBuffer());
    await new Promise((done) => setTimeout(done, 100));
    await other.close();
    await assert.rejects(pending);
  });
});
