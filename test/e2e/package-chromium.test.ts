/**
 * The Chrome zip `npm run package` writes, unzipped as the Web Store unpacks it, is the extension: Chromium
 * loads it, the demo page's traffic is captured, and the panel page lists it, judged.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import { packageExtension } from '../../scripts/package.ts';
import { buildExtension, launchChromium, type ChromiumBrowser } from './browsers.ts';
import { settled } from './demo-capture.ts';
import { openPanel, settledRows } from './recording-panel.ts';

describe('the packaged Chrome extension', () => {
  const out = mkdtempSync(join(tmpdir(), 'agui-package-chromium-'));
  let agent: DemoAgent;
  let b: ChromiumBrowser;

  before(async () => {
    const zip = await packageExtension('chrome', await buildExtension('chrome'), out);
    const extDir = join(out, 'unzipped');
    await promisify(execFile)('unzip', ['-q', zip, '-d', extDir]);
    agent = await startDemoAgent({ port: 0 });
    b = await launchChromium({ extDir });
  });
  after(async () => {
    await b?.close();
    await agent?.close();
    rmSync(out, { recursive: true, force: true });
  });

  test('loads in Chromium, captures the demo page, and its panel page shows the exchanges judged', async () => {
    const page = await b.newPage();
    await page.goto(`${agent.url}/`);
    await page.waitForFunction(() => typeof window.demo?.run === 'function');
    const tabId = await b.tabIdOf(page.url());
    await page.evaluate(() => window.demo.run('chat', { threadId: 't-chat', runId: 'r-chat', delay: 2 }));
    await page.evaluate(() => window.demo.run('misbehave-identity', { threadId: 't-bad', runId: 'r-bad', delay: 2 }));
    await settled(b, tabId, 2);
    const panel = await openPanel(b, `?tabId=${tabId}`);
    await settledRows(panel, 2);
    const verdicts = await panel.evaluate(() => [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')].map((r) => r.dataset.verdict));
    assert.deepEqual(verdicts, ['completed', 'failed']);
    assert.equal(await panel.evaluate(() => document.querySelector<HTMLElement>('[data-testid=status]')?.dataset.status), 'live');
  });
});
