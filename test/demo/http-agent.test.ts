import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Interrupt } from '@ag-ui/core';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import { demoFrontendTool, findScenario, resumeEntriesFor } from '../../demo/scenarios.ts';
import { inputFor, runHttpAgent, userMessage, type ClientPlan } from './helpers.ts';

let agent: DemoAgent;
before(async () => {
  agent = await startDemoAgent({ page: false, delayMs: 0 });
});
after(() => agent.close());

const state = { preferences: { units: 'metric' } };

function plan(overrides: Partial<ClientPlan> = {}): ClientPlan {
  return { transport: 'sse', threadId: 'thread-client', messages: [userMessage], state, tools: [demoFrontendTool], steps: [{ runId: 'run-1' }], ...overrides };
}

test('HttpAgent completes a chat run and assembles the streamed message', async () => {
  const result = await runHttpAgent(`${agent.url}/agent/chat`, plan());
  const [run] = result.runs;
  assert.equal(run?.error, undefined);
  assert.equal(run?.events[0]?.type, 'RUN_STARTED');
  assert.equal(run?.events.at(-1)?.type, 'RUN_FINISHED');
  const reply = result.messages.find((m) => m.role === 'assistant');
  assert.match(String(reply?.content), /^You said: "Hi there, who are you\?"/);
});

test('HttpAgent receives the same chat events over protobuf as over SSE', async () => {
  const sse = await runHttpAgent(`${agent.url}/agent/chat`, plan());
  const protobuf = await runHttpAgent(`${agent.url}/agent/chat`, plan({ transport: 'protobuf' }));
  assert.equal(protobuf.runs[0]?.error, undefined);
  assert.deepEqual(protobuf.runs[0]?.events, sse.runs[0]?.events);
});

test('HttpAgent applies every state delta to the snapshot', async () => {
  const result = await runHttpAgent(`${agent.url}/agent/state`, plan());
  assert.equal(result.runs[0]?.error, undefined);
  assert.deepEqual(result.state, {
    ...state,
    trip: { destination: 'Lisbon', days: 3, stops: ['Belém Tower', 'Alfama'], budgetEur: 450 },
    status: 'ready',
  });
});

test('HttpAgent is left with the frontend call pending after the tools run', async () => {
  const result = await runHttpAgent(`${agent.url}/agent/tools`, plan());
  assert.equal(result.runs[0]?.error, undefined);
  const calls = result.messages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : []));
  assert.deepEqual(calls.map((c) => c.function.name), ['lookup_weather', 'show_weather_card']);
  assert.equal(result.messages.filter((m) => m.role === 'tool').length, 1);
});

test('HttpAgent: interrupt, then a resume answering every interrupt, on one thread', async () => {
  const interrupted = findScenario('interrupt')?.events(inputFor()).at(-1) as { outcome?: { interrupts?: Interrupt[] } } | undefined;
  const interrupts = interrupted?.outcome?.interrupts ?? [];
  assert.equal(interrupts.length, 2);
  const result = await runHttpAgent(
    `${agent.url}/agent/interrupt`,
    plan({ steps: [{ runId: 'run-1' }, { runId: 'run-2', resume: resumeEntriesFor(interrupts, 'all') }] }),
  );
  const [first, second] = result.runs;
  assert.equal(first?.error, undefined);
  assert.equal((first?.events.at(-1)?.outcome as { type?: string } | undefined)?.type, 'interrupt');
  assert.equal(second?.error, undefined);
  assert.equal(second?.events.at(-1)?.outcome, undefined);
  assert.deepEqual(result.pendingInterrupts, []);
});

test('HttpAgent refuses to send an incomplete resume (why the page bypasses it for "partial")', async () => {
  const result = await runHttpAgent(
    `${agent.url}/agent/interrupt`,
    plan({
      steps: [{ runId: 'run-1' }, { runId: 'run-2', resume: [{ interruptId: 'approve-send', status: 'resolved', payload: { approved: true } }] }],
    }),
  );
  assert.match(result.runs[1]?.error ?? '', /pending interrupt\(s\) not addressed by resume: choose-format/);
  assert.deepEqual(result.runs[1]?.events, []);
});

test('HttpAgent follows a replayed thread into the requested run', async () => {
  const result = await runHttpAgent(`${agent.url}/agent/replay`, plan());
  assert.equal(result.runs[0]?.error, undefined);
  assert.equal(result.runs[0]?.events.filter((e) => e.type === 'RUN_STARTED').length, 3);
  assert.ok(result.messages.some((m) => m.id === userMessage.id));
  assert.equal(result.messages.filter((m) => m.role === 'assistant').length, 3);
  assert.deepEqual(result.state, { destination: 'Lisbon', days: 3, dayTrip: 'Sintra', confirmed: true });
});

test('HttpAgent strips what misbehave-unknown adds and fails misbehave-malformed on /delta', async () => {
  const unknown = await runHttpAgent(`${agent.url}/agent/misbehave-unknown`, plan());
  const events = unknown.runs[0]?.events ?? [];
  assert.equal(unknown.runs[0]?.error, undefined);
  assert.ok(!events.some((e) => e.type === 'PROGRESS_UPDATE' || 'confidence' in e));
  assert.equal(events.at(-1)?.outcome, undefined);

  const malformed = await runHttpAgent(`${agent.url}/agent/misbehave-malformed`, plan());
  assert.match(malformed.runs[0]?.error ?? '', /delta/);
});

test('HttpAgent never sees a terminal event on misbehave-truncated', async () => {
  const result = await runHttpAgent(`${agent.url}/agent/misbehave-truncated`, plan());
  const types = result.runs[0]?.events.map((e) => e.type) ?? [];
  assert.ok(!types.includes('RUN_FINISHED') && !types.includes('TEXT_MESSAGE_END'));
});
