/** The panel follows the DevTools theme: dark DevTools (the system preference, here forced) gives a dark panel. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import { openInspectorPanel, type TargetSession } from '../../scripts/devtools.ts';
import { buildExtension, launchChromium, type ChromiumBrowser } from './browsers.ts';

describe('panel in dark DevTools', () => {
  let agent: DemoAgent;
  let b: ChromiumBrowser;
  let panel: TargetSession;
  let devtools: TargetSession;

  before(async () => {
    agent = await startDemoAgent({ port: 0, delayMs: 0 });
    b = await launchChromium({ extDir: await buildExtension('chrome'), args: ['--force-dark-mode'] });
    const page = await b.newPage();
    await page.goto(`${agent.url}/`);
    ({ panel, devtools } = await openInspectorPanel(b.context, agent.url, b.extensionId));
  });
  after(async () => {
    await b?.close();
    await agent?.close();
  });

  it('is dark when DevTools is', async () => {
    assert.ok(await devtools.eval(() => document.documentElement.classList.contains('theme-with-dark-background')), 'DevTools itself is dark');
    const seen = await panel.eval(() => ({
      api: (globalThis as unknown as { chrome: { devtools: { panels: { themeName: string } } } }).chrome.devtools.panels.themeName,
      theme: document.documentElement.dataset.theme ?? null,
      background: getComputedStyle(document.body).backgroundColor,
    }));
    assert.equal(seen.api, 'dark');
    assert.equal(seen.theme, 'dark');
    const [r, g, bl] = seen.background.match(/\d+/g)!.map(Number);
    assert.ok(r! + g! + bl! < 3 * 80, `a dark background, got ${seen.background}`);
  });
});
