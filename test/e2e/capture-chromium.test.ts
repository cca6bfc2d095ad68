/**
 * Chromium + the built extension + the demo agent: what the extension captures is exactly what
 * crossed the wire, and the page's agent sees the same events with and without the extension.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import { run } from '../../src/cli/main.ts';
import type { Contract, ContractExchange } from '../../src/library/report.ts';
import { buildExtension, launchChromium, sleep, type ChromiumBrowser } from './browsers.ts';
import { assertSameBytes, exported, runScenario, settled } from './demo-capture.ts';
import { startRecorder, type Recorded, type Recorder } from './recorder.ts';

const agentCalls = (r: Recorder): Recorded[] => r.exchanges.filter((x) => x.path.startsWith('/agent/'));

describe('capture in Chromium', () => {
  let agent: DemoAgent;
  let recorder: Recorder;
  let withExt: ChromiumBrowser;
  let without: ChromiumBrowser;
  let page: Page;
  let plain: Page;
  let tabId: number;

  before(async () => {
    const extDir = await buildExtension('chrome');
    agent = await startDemoAgent({ port: 0 });
    recorder = await startRecorder(agent.url);
    [withExt, without] = await Promise.all([launchChromium({ extDir }), launchChromium()]);
    page = await withExt.newPage();
    await page.goto(`${recorder.url}/`);
    await page.waitForFunction(() => typeof window.demo?.run === 'function');
    tabId = await withExt.tabIdOf(page.url());
    plain = await without.newPage();
    await plain.goto(`${agent.url}/`);
    await plain.waitForFunction(() => typeof window.demo?.run === 'function');
  });

  after(async () => {
    await Promise.all([withExt?.close(), without?.close()]);
    await recorder?.close();
    await agent?.close();
  });

  let runs = 0;
  for (const transport of ['sse', 'protobuf'] as const) {
    test(`chat over ${transport}: every byte captured, the page unaffected`, async () => {
      const n = runs++;
      const seen = await runScenario(page, 'chat', transport, n);
      const reference = await runScenario(plain, 'chat', transport, n);
      assert.equal(seen.error, undefined);
      assert.ok(seen.events.length > 3);
      assert.deepEqual(seen.events, reference.events, 'the agent in the page received the same events');

      const calls = agentCalls(recorder);
      await Promise.all(calls.map((c) => c.done));
      await settled(withExt, tabId, calls.length);
      const captured = await exported(withExt, tabId);
      assert.equal(captured.length, calls.length, 'one exchange per agent request, nothing else');
      const last = captured.at(-1)!;
      assertSameBytes(last, calls.at(-1)!);
      assert.equal(last.responseContentType.startsWith(transport === 'sse' ? 'text/event-stream' : 'application/vnd.ag-ui.event+proto'), true);

      const session = await withExt.request({ type: 'agui-inspector/session', tabId });
      const x = session!.exchanges.at(-1)!;
      assert.equal(x.outcome, 'complete');
      assert.equal(x.events.length, seen.events.length, 'the worker decoded as many events as the page received');
      assert.equal(x.report?.verdict, 'completed');
      // Told, if at all, when the document was parsed, on the port the capture came by after it.
      assert.deepEqual(session!.stats.unreached, [], 'the page script reached the relay');
    });
  }

  // One line per scenario: what the analysis must say about it.
  const misbehaving: [scenario: string, verdict: 'completed' | 'failed', rules: string[]][] = [
    ['misbehave-identity', 'failed', ['identity/run-id-mismatch']],
    ['misbehave-version', 'completed', ['version/producer-newer']],
    ['misbehave-unknown', 'completed', ['unrecognised/property', 'unrecognised/event-type', 'unrecognised/union-member']],
    ['misbehave-truncated', 'failed', ['lifecycle/truncated']],
    ['misbehave-malformed', 'failed', ['schema/malformed']],
  ];
  for (const [scenario, verdict, rules] of misbehaving) {
    test(`${scenario} is captured byte for byte`, async () => {
      const seen = await runScenario(page, scenario, 'sse', runs++);
      const calls = agentCalls(recorder);
      await Promise.all(calls.map((c) => c.done));
      await settled(withExt, tabId, calls.length);
      const captured = await exported(withExt, tabId);
      assertSameBytes(captured.at(-1)!, calls.at(-1)!);
      const x = (await withExt.request({ type: 'agui-inspector/session', tabId }))!.exchanges.at(-1)!;
      assert.ok(x.events.length >= seen.events.length);
      assert.equal(x.report?.verdict, verdict);
      assert.deepEqual([...new Set(x.report?.findings.map((f) => f.rule))].sort(), [...rules].sort());
    });
  }

  test('non-AG-UI traffic is not recorded', async () => {
    const before = (await exported(withExt, tabId)).length;
    await page.evaluate(async () => {
      await (await fetch('/scenarios')).json();
      await (await fetch('/scenarios', { method: 'POST', body: JSON.stringify({ threadId: 't', runId: 'r' }) })).text();
    });
    await sleep(300);
    assert.equal((await exported(withExt, tabId)).length, before);
  });

  test('the analysis the worker holds equals agui-inspector check on the exported file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agui-export-'));
    try {
      const file = join(dir, 'session.har');
      writeFileSync(file, await withExt.request({ type: 'agui-inspector/export', tabId }));
      let out = '';
      const code = run(['check', file, '--format', 'json'], { out: (s) => (out += s), err: () => undefined, colour: false });
      const cli = (JSON.parse(out) as Contract).exchanges;
      const worker = (await withExt.request({ type: 'agui-inspector/session', tabId }))!.exchanges.map((x) => x.report!);
      const shape = (r: Omit<ContractExchange, 'timing'>) => ({
        verdict: r.verdict,
        negotiation: r.negotiation,
        runs: r.runs.map((x) => [x.runId, x.outcome, x.requested]),
        findings: [...r.input.findings, ...r.findings].map((f) => [f.rule, f.severity, f.event, f.path]),
      });
      assert.equal(cli.length, worker.length);
      assert.ok(cli.length >= 7, 'chat twice and the five misbehaving scenarios');
      assert.deepEqual(cli.map(shape), worker.map(shape));
      assert.equal(code, 1, 'the misbehaving exchanges fail the check');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
