import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import { captureExchange, scenarioInput } from '../../demo/record.ts';
import { scenarios } from '../../demo/scenarios.ts';
import { analyzeExchanges } from '../../src/analyzer/index.ts';

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
