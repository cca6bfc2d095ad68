/**
 * Capture beyond localhost is opt-in per origin: a page served under another host name is not captured,
 * and the panel offers to capture exactly that host.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import { openInspectorPanel, type TargetSession } from '../../scripts/devtools.ts';
import { buildExtension, launchChromium, sleep, until, type ChromiumBrowser } from './browsers.ts';

const HOST = 'agent.inspector.test';

describe('an origin the user has not enabled', () => {
  let agent: DemoAgent;
  let b: ChromiumBrowser;
  let page: Page;
  let panel: TargetSession;
  let origin: string;

  before(async () => {
    agent = await startDemoAgent({ port: 0, delayMs: 0 });
    b = await launchChromium({ extDir: await buildExtension('chrome'), args: [`--host-resolver-rules=MAP ${HOST} 127.0.0.1`] });
    origin = `http://${HOST}:${new URL(agent.url).port}`;
    page = await b.newPage();
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => typeof window.demo?.run === 'function');
    ({ panel } = await openInspectorPanel(b.context, origin, b.extensionId));
  });
  after(async () => {
    await b?.close();
    await agent?.close();
  });

  it('offers to capture that host, and only that host', async () => {
    const control = await until('the origin control', () =>
      panel.eval(() => {
        const el = document.querySelector<HTMLElement>('[data-testid=origin-enable]');
        return el ? { state: el.dataset.state!, text: el.textContent ?? '', title: el.title } : null;
      }), 5_000);
    assert.deepEqual(control, { state: 'not-granted', text: `Capture ${HOST}`, title: `Asks your browser for access to http://${HOST}/* only; nothing is captured elsewhere` });
  });

  it('captures nothing there until the user grants it', async () => {
    const result = await page.evaluate(() => window.demo.run('chat', { delay: 0 }));
    assert.ok(result.events.length > 0, 'the page works as without the extension');
    await sleep(500);
    const sessions = await b.request({ type: 'agui-inspector/sessions' });
    assert.ok(sessions.every((s) => !s.url.startsWith(origin) || s.stats.exchanges === 0), JSON.stringify(sessions));
    assert.equal(await panel.eval(() => document.querySelectorAll('[data-testid=exchange-row]').length), 0);
  });
});
