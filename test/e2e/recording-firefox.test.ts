/**
 * Firefox (firefox-esr over WebDriver BiDi, the built extension): the panel's import worker loads under
 * the extension's CSP, an import with no page attached renders, and exports of a live tab and of an
 * import carry the captured bytes. Downloads are caught at the blob URL, which BiDi cannot save.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ElementHandle, Page } from 'puppeteer-core';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import { recordDemoSession } from '../../demo/record.ts';
import { analyzeExchanges } from '../../src/analyzer/index.ts';
import { bodyOf, type CapturedExchange } from '../../src/exchange/exchange.ts';
import { writeHar } from '../../src/formats/har.ts';
import { readExchanges } from '../../src/formats/read.ts';
import { buildExtension, gotoExtensionPage, launchFirefox, poll, type FirefoxBrowser } from './browsers.ts';
import { exported, settled } from './demo-capture.ts';

async function openPanel(b: FirefoxBrowser, query = ''): Promise<Page> {
  const page = await b.newPage();
  const url = `${b.base}panel/index.html${query}`;
  await gotoExtensionPage(page, url, 15_000);
  await poll(page, () => document.querySelector('[data-testid=import-drop]') !== null, 15_000);
  // tsx compiles with keepNames: nested functions in evaluated source call esbuild's __name helper.
  await page.evaluate('globalThis.__name = (f) => f');
  // Keeps what the panel would download instead of saving it.
  await page.evaluate(() => {
    const w = window as unknown as { __downloads: { name: string; text: Promise<string> }[] };
    w.__downloads = [];
    const blobs = new Map<string, Blob>();
    const create = URL.createObjectURL.bind(URL);
    URL.createObjectURL = (b: Blob | MediaSource) => {
      const url = create(b);
      blobs.set(url, b as Blob);
      return url;
    };
    HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
      const blob = blobs.get(this.href);
      if (this.download && blob) w.__downloads.push({ name: this.download, text: blob.text() });
    };
  });
  return page;
}

async function exportAll(page: Page): Promise<{ name: string; text: string }> {
  const before = await page.evaluate(() => (window as unknown as { __downloads: unknown[] }).__downloads.length);
  await page.evaluate(() => document.querySelector<HTMLElement>('[data-testid=export-button]')!.click());
  await poll(page, () => (window as unknown as { __downloads: unknown[] }).__downloads.length > 0, 20_000);
  return page.evaluate(async (n) => {
    const d = (window as unknown as { __downloads: { name: string; text: Promise<string> }[] }).__downloads[n]!;
    return { name: d.name, text: await d.text };
  }, before);
}

const bytesOf = (xs: CapturedExchange[]) => xs.map((x) => ({
  requestBody: x.requestBody, chunks: x.chunks.map((c) => ({ time: c.time, bytes: Buffer.from(c.bytes).toString('base64') })),
}));

describe('recordings through the panel (Firefox)', () => {
  let agent: DemoAgent;
  let b: FirefoxBrowser;
  const dir = mkdtempSync(join(tmpdir(), 'agui-recording-ff-'));

  before(async () => {
    agent = await startDemoAgent({ port: 0, delayMs: 1 });
    b = await launchFirefox({ extDir: await buildExtension('firefox') });
  });

  after(async () => {
    await b?.close();
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('imports a recording with no page attached, and exports it again', async () => {
    const session = await recordDemoSession(agent.url);
    const file = join(dir, 'session.har');
    writeFileSync(file, writeHar(session, { creator: { name: 'recording-firefox.test', version: '1' } }));
    const panel = await openPanel(b);
    assert.equal(await panel.evaluate(() => document.querySelector<HTMLElement>('[data-testid=status]')!.dataset.status), 'no-tab');
    const input = (await panel.$('[data-testid=import-input]')) as ElementHandle<HTMLInputElement>;
    await input.uploadFile(file);
    await poll(panel, () => document.querySelector<HTMLElement>('[data-testid=status]')?.dataset.status === 'file', 30_000);
    const verdicts = await panel.evaluate(() => [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')].map((r) => r.dataset.verdict));
    assert.deepEqual(verdicts, analyzeExchanges(session).map((r) => r.verdict));

    const again = await exportAll(panel);
    assert.match(again.name, /^agui-127\.0\.0\.1-\d{8}-\d{6}\.har$/);
    assert.deepEqual(bytesOf(readExchanges(new TextEncoder().encode(again.text), again.name)), bytesOf(session));
    await panel.close();
  });

  test("exports a live tab's exact bytes", async () => {
    const page = await b.newPage();
    await page.goto(`${agent.url}/`);
    await poll(page, () => typeof window.demo?.run === 'function');
    await page.evaluate(() => window.demo.run('chat', { transport: 'protobuf', delay: 1 }));
    await page.evaluate(() => window.demo.run('misbehave-malformed', { delay: 1 }));
    const tabId = await b.tabIdOf(page.url());
    await settled(b, tabId, 2);
    const panel = await openPanel(b, `?tabId=${tabId}`);
    await poll(panel, () => {
      const rows = [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')];
      return rows.length === 2 && rows.every((r) => r.dataset.verdict !== 'pending');
    });
    const file = await exportAll(panel);
    const fromPanel = readExchanges(new TextEncoder().encode(file.text), file.name);
    const exact = await exported(b, tabId);
    assert.deepEqual(bytesOf(fromPanel), bytesOf(exact));
    assert.ok(bodyOf(fromPanel[0]!).length > 0);
    await panel.close();
    await page.close();
  });
});
