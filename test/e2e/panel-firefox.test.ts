/**
 * Firefox (firefox-esr over WebDriver BiDi): the panel page opened on the captured tab renders the
 * session the worker holds, and follows it live.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'puppeteer-core';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import { buildExtension, gotoExtensionPage, launchFirefox, poll, type FirefoxBrowser } from './browsers.ts';
import { inPage } from './in-page.ts';

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
    await poll(page, () => typeof window.demo?.run === 'function');
    await page.evaluate(() => window.demo.run('chat', { transport: 'protobuf', delay: 2 }));
    await page.evaluate(() => window.demo.run('misbehave-identity', { delay: 2 }));
    const tabId = await b.tabIdOf(page.url());
    panel = await b.newPage();
    const url = `${b.base}panel/index.html?tabId=${tabId}`;
    await gotoExtensionPage(panel, url, 15_000);
    await inPage(panel);
  });

  after(async () => {
    await b?.close();
    await agent?.close();
  });

  test('renders the captured session and its views', async () => {
    const rows = await poll(panel, () => {
      const r = [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')].map((e) => [e.dataset.transport, e.dataset.verdict]);
      return r.length === 2 && r.every(([, v]) => v !== 'pending') ? r : null;
    }, 15_000);
    assert.deepEqual(rows, [['protobuf', 'completed'], ['SSE', 'failed']]);
    const read = await panel.evaluate(async () => {
      document.querySelector<HTMLElement>('[data-testid=exchange-row]')!.click();
      document.querySelector<HTMLElement>('[data-testid=tab-timeline]')!.click();
      await e2e.settle();
      const timeline = [...document.querySelectorAll<HTMLElement>('[data-testid=timeline-row]')].map((r) => r.dataset.type);
      document.querySelector<HTMLElement>('[data-testid=timeline-row]')!.click();
      await e2e.settle();
      const decoded = document.querySelector('[data-testid=event-detail] .json')?.textContent ?? '';
      document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')[1]!.click();
      document.querySelector<HTMLElement>('[data-testid=tab-identity]')!.click();
      // The runs the Input view asked for while the exchange was still arriving are shown until the answer
      // for the finished stream comes (its requested run is known only then): the rows once that is in.
      const rows = () => [...document.querySelectorAll<HTMLElement>('[data-testid=identity-row]')].map((r) => [r.dataset.role, r.dataset.mismatch === 'true']);
      await e2e.settle(() => rows().length === 3 && rows()[1]![1] === false);
      const identity = rows();
      return { timeline, decoded, identity };
    });
    assert.equal(read.timeline[0], 'RUN_STARTED');
    assert.equal(read.timeline.at(-1), 'RUN_FINISHED');
    assert.match(read.decoded, /"protocolVersion": "1.0"/, 'a protobuf frame decoded in the panel');
    assert.deepEqual(read.identity, [['input', false], ['started', false], ['finished', true]]);
  });

  test('follows the tab live', async () => {
    await page.evaluate(() => window.demo.run('misbehave-version', { delay: 2 }));
    const verdict = await poll(panel, () => {
      const r = document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]');
      return r.length === 3 && r[2]!.dataset.verdict !== 'pending' ? r[2]!.dataset.verdict : null;
    }, 15_000);
    assert.equal(verdict, 'completed');
  });
});
