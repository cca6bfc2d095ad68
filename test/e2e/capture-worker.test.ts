/**
 * The worker's session survives Chrome stopping the service worker, also mid-stream, and page
 * reloads when the user preserves it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import type { SessionView } from '../../src/messages.ts';
import { buildExtension, launchChromium, sleep, until, type ChromiumBrowser } from './browsers.ts';
import { assertSameBytes, exported, settled } from './demo-capture.ts';
import { startRecorder, type Recorder } from './recorder.ts';

/** What must come back identical after a restart. */
function essence(s: SessionView | null): unknown {
  return s?.exchanges.map((x) => ({ id: x.id, url: x.url, body: x.request.body, outcome: x.outcome, bytes: x.bytes, events: x.events, report: x.report }));
}

describe('worker restarts', () => {
  let agent: DemoAgent;
  let recorder: Recorder;
  let b: ChromiumBrowser;
  let page: Page;
  let tabId: number;
  const calls = (): Recorder['exchanges'] => recorder.exchanges.filter((x) => x.path.startsWith('/agent/'));

  before(async () => {
    const extDir = await buildExtension('chrome');
    agent = await startDemoAgent({ port: 0 });
    recorder = await startRecorder(agent.url);
    b = await launchChromium({ extDir });
    page = await b.newPage();
    await page.goto(`${recorder.url}/`);
    await page.waitForFunction(() => typeof window.demo?.run === 'function');
    tabId = await b.tabIdOf(page.url());
  });

  after(async () => {
    await b?.close();
    await recorder?.close();
    await agent?.close();
  });

  test('a stopped worker restores the session it had', async () => {
    await page.evaluate(() => window.demo.run('chat', { threadId: 't1', runId: 'r1', delay: 5 }));
    await settled(b, tabId, 1);
    const before = await b.request({ type: 'agui-inspector/session', tabId });
    assert.equal(before?.exchanges.length, 1);
    await b.stopWorker();
    // What the stopped worker had not yet stored comes back from the relay, which resends it.
    await settled(b, tabId, 1);
    const afterStop = await b.request({ type: 'agui-inspector/session', tabId });
    assert.deepEqual(essence(afterStop), essence(before));
  });

  test('a worker stopped mid-stream loses no byte', async () => {
    const run = page.evaluate(() => window.demo.run('chat', { threadId: 't2', runId: 'r2', delay: 150 }));
    // Stop once part of the stream is in.
    for (let i = 0; i < 100; i++) {
      const s = await b.request({ type: 'agui-inspector/session', tabId });
      const x = s?.exchanges[1];
      if (x && x.events.length >= 2) break;
      await sleep(50);
    }
    await b.stopWorker();
    const result = await run;
    assert.equal(result.error, undefined);
    await Promise.all(calls().map((c) => c.done));
    await settled(b, tabId, 2);
    const captured = await exported(b, tabId);
    assert.equal(captured.length, 2);
    assertSameBytes(captured[1]!, calls()[1]!);
    const x = (await b.request({ type: 'agui-inspector/session', tabId }))!.exchanges[1]!;
    assert.equal(x.events.length, result.events.length);
    assert.equal(x.report?.verdict, 'completed');
  });

  test('reloading keeps the session only when preserved', async () => {
    await b.request({ type: 'agui-inspector/preserve', tabId, preserve: true });
    await page.reload();
    await page.waitForFunction(() => typeof window.demo?.run === 'function');
    await sleep(300);
    assert.equal((await b.request({ type: 'agui-inspector/session', tabId }))?.exchanges.length, 2);
    await b.request({ type: 'agui-inspector/preserve', tabId, preserve: false });
    await page.reload();
    await page.waitForFunction(() => typeof window.demo?.run === 'function');
    await until('the session cleared on reload', async () => (await b.request({ type: 'agui-inspector/session', tabId }))?.exchanges.length === 0, 5_000);
  });
});
