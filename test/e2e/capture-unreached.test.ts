/**
 * A document whose page script never hands its port to the relay captures nothing: its list would look
 * like a page that made no AG-UI request. Here the page script is not injected at all (a copy of the
 * built extension without it), the page makes an AG-UI request anyway, and the worker's session and the
 * panel must both say that the page was not reached.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import { openInspectorPanel } from '../../scripts/devtools.ts';
import { alteredExtension, launchChromium, launchFirefox, until, type ExtensionBrowser, type Target } from './browsers.ts';
import { chatOnDemoPage } from './demo-capture.ts';

/** A copy of the built extension without its MAIN-world content script. */
function withoutPageScript(target: Target): Promise<string> {
  return alteredExtension(target, 'unreached', (_dir, manifest) => {
    const before = manifest.content_scripts.length;
    manifest.content_scripts = manifest.content_scripts.filter((c) => c.world !== 'MAIN');
    assert.equal(manifest.content_scripts.length, before - 1, 'the manifest had one page script');
  });
}

describe('a page the page script did not reach is reported, not silently empty', () => {
  let agent: DemoAgent;
  const dirs: string[] = [];

  before(async () => {
    agent = await startDemoAgent({ port: 0, delayMs: 0 });
  });
  after(async () => {
    await agent?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  /** Loads the demo page, has it make an AG-UI request, and waits for the worker to report the page. */
  async function reported(b: ExtensionBrowser & { newPage(): Promise<unknown> }): Promise<{ url: string; tabId: number }> {
    const { url, tabId, seen } = await chatOnDemoPage(b, agent.url);
    assert.ok(seen.events.length > 3, 'the page made its AG-UI request');
    const s = await until('the worker reports the page unreached', async () => {
      const s = (await b.request({ type: 'agui-inspector/session', tabId }))!;
      return s.stats.unreached.length > 0 ? s : null;
    });
    assert.deepEqual(s.stats.unreached, [url]);
    assert.deepEqual(s.exchanges, [], 'nothing was captured');
    return { url, tabId };
  }

  test('in Chromium: the worker\'s session and the panel say so', async () => {
    const dir = await withoutPageScript('chrome');
    dirs.push(dir);
    const b = await launchChromium({ extDir: dir });
    try {
      const { url, tabId } = await reported(b);
      // The page the requests went through is the panel's too: closed, DevTools' panel is the one found.
      await (await b.apiPage()).close();
      const { panel } = await openInspectorPanel(b.context, agent.url, b.extensionId);
      const warning = await until('the panel shows the notice', () =>
        panel.eval(() => {
          const w = document.querySelector<HTMLElement>('[data-testid=unreached-warning]');
          return w ? { urls: JSON.parse(w.dataset.urls!) as string[], text: w.textContent ?? '', list: document.querySelector('.empty')?.textContent ?? '' } : null;
        }),
      );
      assert.deepEqual(warning.urls, [url]);
      assert.match(warning.list, /Nothing captured from this page: see the warning above/, 'the empty list points at the warning, not at running the app');
      assert.match(warning.text, /page script did not reach this page/);
      assert.ok(warning.text.includes(url), warning.text);
      // Clearing forgets the capture, not that this document captures nothing.
      await b.request({ type: 'agui-inspector/clear', tabId });
      assert.deepEqual((await b.request({ type: 'agui-inspector/session', tabId }))!.stats.unreached, [url]);
    } finally {
      await b.close();
    }
  });

  test('in Chromium: a frame is reported like a page, unless it cannot run scripts and so makes no request', async () => {
    // Chromium runs the relay, and not the page script, in a frame sandboxed without allow-scripts.
    const server = createServer((req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(req.url === '/'
        ? '<iframe sandbox src="/opaque"></iframe><iframe sandbox="allow-same-origin" src="/static"></iframe><iframe src="/app"></iframe>'
        : `<p>${req.url}</p>`);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    const dir = await withoutPageScript('chrome');
    dirs.push(dir);
    const b = await launchChromium({ extDir: dir });
    try {
      const page = await b.newPage();
      await page.goto(url, { waitUntil: 'load' });
      const tabId = await b.tabIdOf(url);
      // The frames loaded together; once the one that runs scripts is reported, so would the others be.
      const reported = await until('the frame that runs scripts is reported', async () => {
        const { unreached } = (await b.request({ type: 'agui-inspector/session', tabId }))!.stats;
        return unreached.includes(`${url}app`) ? unreached : null;
      });
      assert.deepEqual(reported.sort(), [url, `${url}app`]);
    } finally {
      await b.close();
      server.close();
    }
  });

  test('in Firefox: the worker\'s session says so', async () => {
    const dir = await withoutPageScript('firefox');
    dirs.push(dir);
    const b = await launchFirefox({ extDir: dir });
    try {
      await reported(b);
    } finally {
      await b.close();
    }
  });
});
