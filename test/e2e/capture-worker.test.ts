/**
 * The worker's session survives Chrome stopping the service worker, also mid-stream, and page
 * reloads when the user preserves it; when storing fails, nothing unstored is acknowledged, so
 * nothing is lost, and the panel says what is at risk.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import type { SessionView } from '../../src/messages.ts';
import { buildExtension, launchChromium, sleep, until, type ChromiumBrowser } from './browsers.ts';
import { assertSameBytes, exported, settled } from './demo-capture.ts';
import { startRecorder, type Recorder } from './recorder.ts';
import { openPanel } from './recording-panel.ts';

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

  /** Makes every IndexedDB write of the running worker throw, as a full disk does; `false` undoes it. */
  const failWrites = (fail: boolean): Promise<void> => b.inWorker((on) => {
    const g = globalThis as unknown as { realPut?: typeof IDBObjectStore.prototype.put };
    g.realPut ??= IDBObjectStore.prototype.put;
    IDBObjectStore.prototype.put = on ? () => { throw new DOMException('The quota has been exceeded.', 'QuotaExceededError'); } : g.realPut;
  }, fail);
  const summary = async () => (await b.request({ type: 'agui-inspector/sessions' })).find((s) => s.tabId === tabId)!;
  const warning = (panel: Page) => panel.locator('[data-testid=storage-warning]');

  /** With a panel open on the tab, runs a chat while writes fail, until the session holds `exchanges` and the panel warns. */
  async function chatWhileWritesFail(threadId: string, exchanges: number): Promise<Page> {
    const panel = await openPanel(b, `?tabId=${tabId}`);
    await failWrites(true);
    await page.evaluate((t) => window.demo.run('chat', { threadId: t, runId: `run-${t}`, delay: 5 }), threadId);
    await settled(b, tabId, exchanges);
    await warning(panel).waitFor();
    return panel;
  }

  test('a write that fails is not acknowledged: a stopped worker gets it all back, and the panel says what is at risk', async () => {
    const panel = await chatWhileWritesFail('t3', 1);
    assert.match((await warning(panel).textContent())!, /QuotaExceededError.*held only in memory/);
    const unsaved = (await summary()).stats.unsaved;
    assert.ok(unsaved.messages > 0 && unsaved.bytes > 0, JSON.stringify(unsaved));
    assert.equal(await warning(panel).getAttribute('data-unsaved-messages'), String(unsaved.messages));
    const before = await b.request({ type: 'agui-inspector/session', tabId });

    await b.stopWorker();
    // The store holds none of it; the relay, never told it was stored, sends it all again.
    await settled(b, tabId, 1);
    assert.deepEqual(essence(await b.request({ type: 'agui-inspector/session', tabId })), essence(before));
    assertSameBytes((await exported(b, tabId))[0]!, calls().at(-1)!);
    // The new worker's writes work: stored, acknowledged, and the warning gone.
    await until('everything stored', async () => (await summary()).stats.unsaved.messages === 0);
    await warning(panel).waitFor({ state: 'detached' });
    await panel.close();
  });

  test('failed writes are retried until they succeed, then acknowledged', async () => {
    const panel = await chatWhileWritesFail('t4', 2);
    await failWrites(false);
    await warning(panel).waitFor({ state: 'detached' });
    assert.deepEqual((await summary()).stats.unsaved, { messages: 0, bytes: 0, error: null, since: null });
    const before = await b.request({ type: 'agui-inspector/session', tabId });
    // A preserved session survives the reload, whose new document has nothing to resend: what comes
    // back after the stop comes from the store alone.
    await b.request({ type: 'agui-inspector/preserve', tabId, preserve: true });
    await page.reload();
    await b.stopWorker();
    await settled(b, tabId, 2);
    assert.deepEqual(essence(await b.request({ type: 'agui-inspector/session', tabId })), essence(before));
    await panel.close();
  });
});
