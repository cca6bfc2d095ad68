/**
 * Firefox (firefox-esr over WebDriver BiDi) + the built extension + the demo agent: the same
 * capture as in Chromium, and the HAR export holds exactly the bytes that crossed the wire.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'puppeteer-core';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import { buildExtension, launchFirefox, poll, type FirefoxBrowser } from './browsers.ts';
import { assertSameBytes, exported, runScenario, settled } from './demo-capture.ts';
import { startRecorder, type Recorder } from './recorder.ts';

describe('capture in Firefox', () => {
  let agent: DemoAgent;
  let recorder: Recorder;
  let b: FirefoxBrowser;
  let page: Page;
  let tabId: number;
  const calls = (): Recorder['exchanges'] => recorder.exchanges.filter((x) => x.path.startsWith('/agent/'));

  before(async () => {
    const extDir = await buildExtension('firefox');
    agent = await startDemoAgent({ port: 0 });
    recorder = await startRecorder(agent.url);
    b = await launchFirefox({ extDir });
    page = await b.newPage();
    await page.goto(`${recorder.url}/`);
    await poll(page, () => typeof window.demo?.run === 'function');
    tabId = await b.tabIdOf(page.url());
  });

  after(async () => {
    await b?.close();
    await recorder?.close();
    await agent?.close();
  });

  let n = 0;
  for (const transport of ['sse', 'protobuf'] as const) {
    test(`chat over ${transport} is captured and exported byte for byte`, async () => {
      const seen = await runScenario(page, 'chat', transport, n++);
      assert.equal(seen.error, undefined);
      await Promise.all(calls().map((c) => c.done));
      await settled(b, tabId, calls().length);
      const captured = await exported(b, tabId);
      assert.equal(captured.length, calls().length);
      captured.forEach((x, i) => assertSameBytes(x, calls()[i]!));
      const x = (await b.request({ type: 'agui-inspector/session', tabId }))!.exchanges.at(-1)!;
      assert.equal(x.events.length, seen.events.length);
      assert.equal(x.report?.verdict, 'completed');
    });
  }

  test('the export without tabId holds every tab', async () => {
    const all = await b.request({ type: 'agui-inspector/export' });
    const doc = JSON.parse(all) as { log: { entries: unknown[]; creator: { name: string } } };
    assert.equal(doc.log.creator.name, 'agui-inspector');
    assert.equal(doc.log.entries.length, calls().length);
  });
});
