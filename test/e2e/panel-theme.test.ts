/** The panel follows the DevTools theme: dark DevTools (the system preference, here forced) gives a dark panel. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TargetSession } from '../../scripts/devtools.ts';
import { demoInDevTools, type DemoInDevTools } from './demo-capture.ts';

describe('panel in dark DevTools', () => {
  let shown: DemoInDevTools | undefined;
  let panel: TargetSession;
  let devtools: TargetSession;

  before(async () => {
    shown = await demoInDevTools(['--force-dark-mode']);
    ({ panel, devtools } = shown);
  });
  after(() => shown?.close());

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
