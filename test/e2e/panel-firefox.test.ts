/**
 * Firefox (firefox-esr over WebDriver BiDi): the panel page opened on the captured tab renders the
 * session the worker holds, and follows it live.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'puppeteer-core';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import { buildExtension, launchFirefox, sleep, type FirefoxBrowser } from './browsers.ts';

/** puppeteer's waitForFunction needs `new Function`, which the extension page's CSP blocks: poll with evaluate. */
async function until<T, A>(page: Page, what: string, fn: (arg: A) => T, arg: A, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await page.evaluate(fn as (a: unknown) => T, arg).catch(() => undefined);
    if (v) return v as T;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe('panel page in Firefox', () => {
  let agent: DemoAgent;
  let b: FirefoxBrowser;
  let page: Page;
  let panel: Page;

  before(async () => {
    agent = await startDemoAgent({ port: 0, delayMs: 2 });
    b = await launchFirefox({ extDir: await buildExtension('firefox') });
    page = await b.newPage();
    await page.goto(`${agent.url}/`);
    await until(page, 'the demo page', () => typeof window.demo?.run === 'function', null);
    await page.evaluate(() => window.demo.run('chat', { transport: 'protobuf', delay: 2 }));
    await page.evaluate(() => window.demo.run('misbehave-identity', { delay: 2 }));
    const tabId = await b.tabIdOf(page.url());
    panel = await b.newPage();
    const url = `${b.base}panel/index.html?tabId=${tabId}`;
    // moz-extension navigations never report load to puppeteer over BiDi.
    panel.goto(url).catch(() => undefined);
    await until(panel, 'the panel page', (u) => document.readyState === 'complete' && location.href === u, url);
    // tsx compiles with keepNames: nested functions in evaluated source call esbuild's __name helper.
    await panel.evaluate('globalThis.__name = (f) => f');
  });

  after(async () => {
    await b?.close();
    await agent?.close();
  });

  test('renders the captured session and its views', async () => {
    const rows = await until(panel, 'two settled exchanges', () => {
      const r = [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')].map((e) => [e.dataset.transport, e.dataset.verdict]);
      return r.length === 2 && r.every(([, v]) => v !== 'pending') ? r : null;
    }, null);
    assert.deepEqual(rows, [['protobuf', 'completed'], ['SSE', 'failed']]);
    const read = await panel.evaluate(async () => {
      const frame = (): Promise<void> => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      document.querySelector<HTMLElement>('[data-testid=exchange-row]')!.click();
      document.querySelector<HTMLElement>('[data-testid=tab-timeline]')!.click();
      await frame();
      const timeline = [...document.querySelectorAll<HTMLElement>('[data-testid=timeline-row]')].map((r) => r.dataset.type);
      document.querySelector<HTMLElement>('[data-testid=timeline-row]')!.click();
      await frame();
      const decoded = document.querySelector('[data-testid=event-detail] .json')?.textContent ?? '';
      document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')[1]!.click();
      document.querySelector<HTMLElement>('[data-testid=tab-identity]')!.click();
      await frame();
      const identity = [...document.querySelectorAll<HTMLElement>('[data-testid=identity-row]')].map((r) => [r.dataset.role, r.dataset.mismatch === 'true']);
      return { timeline, decoded, identity };
    });
    assert.equal(read.timeline[0], 'RUN_STARTED');
    assert.equal(read.timeline.at(-1), 'RUN_FINISHED');
    assert.match(read.decoded, /"protocolVersion": "1.0"/, 'a protobuf frame decoded in the panel');
    assert.deepEqual(read.identity, [['input', false], ['started', false], ['finished', true]]);
  });

  test('follows the tab live', async () => {
    await page.evaluate(() => window.demo.run('misbehave-version', { delay: 2 }));
    const verdict = await until(panel, 'the third exchange', () => {
      const r = document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]');
      return r.length === 3 && r[2]!.dataset.verdict !== 'pending' ? r[2]!.dataset.verdict : null;
    }, null);
    assert.equal(verdict, 'completed');
  });
});
