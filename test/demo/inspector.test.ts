import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import { captureExchange, demoInput, scenarioInput } from '../../demo/record.ts';
import { demoSchedule, findScenario, scenarios } from '../../demo/scenarios.ts';
import { analyzeExchanges } from '../../src/analyzer/index.ts';
import { analyzeSession, SessionReader, type Timing } from '../../src/detail/index.ts';

/** Each scenario's declared judgement is what the analyzer actually reaches on its traffic, over each transport it speaks. */
describe('demo scenarios show what they claim', () => {
  let agent: DemoAgent;
  before(async () => {
    agent = await startDemoAgent({ port: 0, delayMs: 0, page: false });
  });
  after(() => agent.close());

  for (const s of scenarios) {
    for (const transport of s.transports) {
      it(`${s.name} over ${transport}: ${s.inspector.verdict}${s.inspector.rules.length ? `, ${s.inspector.rules.join(', ')}` : ''}`, async () => {
        const accept = transport === 'protobuf' ? 'application/vnd.ag-ui.event+proto' : 'text/event-stream';
        const body = JSON.stringify(scenarioInput(s, { threadId: `t-${s.name}`, runId: `r-${s.name}` }));
        const x = await captureExchange(`${agent.url}/agent/${s.name}`, body, accept, s.name);
        const [report] = analyzeExchanges([x]);
        const judged = [...report!.input.findings, ...report!.findings].filter((f) => f.severity !== 'info');
        const rules = (readiness: boolean) => [...new Set(judged.filter((f) => (f.readiness === true) === readiness).map((f) => f.rule))].sort();
        assert.equal(report!.verdict, s.inspector.verdict);
        assert.deepEqual(rules(false), [...s.inspector.rules].sort());
        assert.deepEqual(rules(true), [...(s.inspector.readiness ?? [])].sort());
        assert.equal(report!.era, s.client === 'pre-1.0' ? 'pre-1.0' : '1.x');
      });
    }
  }
});

/** The timing scenarios' schedule is what the timing model reads from their real traffic, over each transport. */
describe('demo timing scenarios show their figures', () => {
  let agent: DemoAgent;
  before(async () => {
    agent = await startDemoAgent({ port: 0, delayMs: 0, page: false });
  });
  after(() => agent.close());

  const near = (ms: number | null | undefined, want: number, what: string) =>
    assert.ok(typeof ms === 'number' && Math.abs(ms - want) <= 50, `${what}: ${ms} ms, want ${want} ± 50`);

  async function timingOf(name: string, transport: 'sse' | 'protobuf'): Promise<Timing> {
    const accept = transport === 'protobuf' ? 'application/vnd.ag-ui.event+proto' : 'text/event-stream';
    const x = await captureExchange(`${agent.url}/agent/${name}`, JSON.stringify(scenarioInput(findScenario(name)!)), accept, name);
    const timing = analyzeSession([{ ...x, arrival: 'chunks' }])[0]?.timing;
    assert.ok(timing, 'a timing from the recorded chunks');
    return timing;
  }

  for (const transport of ['sse', 'protobuf'] as const) {
    it(`slow-start over ${transport}: TTFT near the schedule, the first byte at once`, async () => {
      const t = await timingOf('slow-start', transport);
      near(t.firstContentMs! - t.ttfbMs!, demoSchedule.firstContentMs, 'first content after the first byte');
      assert.ok(t.ttfbMs! < 50, `ttfb ${t.ttfbMs}`);
    });
    it(`stall over ${transport}: one stall of the schedule, inside the message`, async () => {
      const t = await timingOf('stall', transport);
      assert.equal(t.stalls!.length, 1);
      near(t.stalls![0]!.ms, demoSchedule.stallMs, 'the stall');
      const m = t.messages![0]!;
      assert.ok(m.startMs <= t.stalls![0]!.atMs && t.stalls![0]!.atMs + t.stalls![0]!.ms <= m.endMs!, 'inside the message span');
    });
    it(`slow-tool over ${transport}: a backend span of the schedule`, async () => {
      const t = await timingOf('slow-tool', transport);
      const [call] = t.toolCalls!;
      assert.equal(call!.side, 'backend');
      near(call!.endMs! - call!.startMs, demoSchedule.toolMs, 'the tool span');
      assert.equal(call!.endMs, call!.resultMs);
    });
    it(`buffered over ${transport}: buffering suspected, produced over seconds, arrived at once`, async () => {
      const t = await timingOf('buffered', transport);
      const events = findScenario('buffered')!.events(demoInput());
      assert.equal(t.buffering?.suspected, true);
      assert.equal(t.buffering.producedOverMs, (events.length - 1) * demoSchedule.producedEveryMs);
      assert.ok(t.buffering.arrivedWithinMs < 50, `arrived within ${t.buffering.arrivedWithinMs}`);
    });
  }
});

/** The conversation scenario's snapshot step says what the scenario claims, from its real traffic over each transport. */
describe('demo conversation scenario shows its snapshot diff', () => {
  let agent: DemoAgent;
  before(async () => {
    agent = await startDemoAgent({ port: 0, delayMs: 0, page: false });
  });
  after(() => agent.close());

  for (const transport of ['sse', 'protobuf'] as const) {
    it(`misbehave-conversation over ${transport}: aside dropped, source and note reordered, draft replaced; the activity kept`, async () => {
      const accept = transport === 'protobuf' ? 'application/vnd.ag-ui.event+proto' : 'text/event-stream';
      const input = scenarioInput(findScenario('misbehave-conversation')!, { runId: 'r' });
      const x = await captureExchange(`${agent.url}/agent/misbehave-conversation`, JSON.stringify(input), accept, 'conv');
      const reading = new SessionReader().read({ source: x.source, requestBody: x.requestBody, contentType: x.responseContentType, status: x.status });
      for (const c of x.chunks) reading.push(c.bytes, c.time);
      reading.end(x.chunks.at(-1)!.time);
      const steps = reading.part('conversationSteps');
      const at = steps.findIndex((s) => s.type === 'MESSAGES_SNAPSHOT');
      const diff = reading.conversationDiff(at)!;
      assert.deepEqual(diff.changes.map((c) => `${c.change} ${c.id}`), ['replaced r:draft', 'dropped r:aside', 'reordered r:source', 'reordered r:note']);
      assert.deepEqual(diff.changes.find((c) => c.change === 'replaced')?.was?.content, 'The answer is 41.');
      const held = reading.conversationAt(at)!.messages;
      assert.deepEqual(held.filter((m) => m.role !== 'user').map((m) => m.id), ['r:progress', 'r:plan', 'r:draft', 'r:check', 'r:source', 'r:note']);
      assert.equal(held.find((m) => m.id === 'r:progress')?.role, 'activity');
    });
  }
});
