/**
 * A demo session read in each browser's real panel: the demo page opened in a new tab of a browser with
 * the built extension, the session run there by the page's own @ag-ui/client, then the panel on that tab —
 * Chromium's DevTools window, Firefox's panel page (which renders what its DevTools panel shows) — and
 * what `read` returns there once `ready` holds.
 */
import { after, describe, test } from 'node:test';
import type { Page } from 'puppeteer-core';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import type { DemoRunOptions } from '../../demo/page/main.ts';
import { openInspectorPanel } from '../../scripts/devtools.ts';
import { buildExtension, gotoExtensionPage, launchChromium, launchFirefox, poll, until, type ExtensionBrowser, type Target } from './browsers.ts';
import { inPage } from './in-page.ts';

/** What both drivers' pages do alike. */
export interface AnyPage {
  evaluate<A, T>(fn: (arg: A) => T | Promise<T>, arg: A): Promise<T>;
  goto(url: string): Promise<unknown>;
}

/**
 * The demo page in a new tab, kept across navigations (preserve), and the panel page on that tab: what the
 * tests that act through the panel drive.
 */
export async function demoAndPanel<P extends AnyPage>(target: Target, b: ExtensionBrowser & { newPage(): Promise<unknown> }, agentUrl: string): Promise<{ page: P; panel: P; tabId: number }> {
  const page = (await b.newPage()) as P;
  await page.goto(`${agentUrl}/`);
  await poll(page as never, () => typeof window.demo?.run === 'function');
  const tabId = await b.tabIdOf(`${agentUrl}/`);
  await b.request({ type: 'agui-inspector/preserve', tabId, preserve: true });
  // tsx compiles with keepNames: nested functions in evaluated source call esbuild's __name helper.
  await (page as unknown as { evaluate(s: string): Promise<unknown> }).evaluate('globalThis.__name = (f) => f');
  return { page, panel: await panelPage<P>(target, b, tabId), tabId };
}

/** One more panel page on the tab, as Firefox's DevTools panel shows it, subscribed like a DevTools panel. */
export async function panelPage<P extends AnyPage>(target: Target, b: ExtensionBrowser & { newPage(): Promise<unknown> }, tabId: number): Promise<P> {
  const panel = (await b.newPage()) as P;
  const url = `${b.base}panel/index.html?tabId=${tabId}`;
  if (target === 'firefox') await gotoExtensionPage(panel as never, url, 15_000);
  else await panel.goto(url);
  await (panel as unknown as { evaluate(s: string): Promise<unknown> }).evaluate('globalThis.__name = (f) => f');
  return panel;
}

/** One run of the session: a demo scenario and its options. */
export type DemoStep = readonly [scenario: string, opts: DemoRunOptions];

/**
 * One test in each browser's panel, Chromium's DevTools window first: named `Chromium DevTools: …` and
 * `Firefox: …` after `names`, each running `body` for its target.
 */
export function bothBrowsers(names: { chromium: string; firefox: string }, body: (target: Target) => Promise<void>): void {
  // Bounded, so a browser that hangs fails its own test rather than holding the whole run until CI's limit.
  for (const [target, name] of [['chrome', `Chromium DevTools: ${names.chromium}`], ['firefox', `Firefox: ${names.firefox}`]] as const) test(name, { timeout: 180_000 }, () => body(target));
}

/** `arg` is handed to `read` in the panel (JSON-serialisable). */
export async function readInPanel<T, A = undefined>(target: Target, agentUrl: string, session: readonly DemoStep[], ready: () => boolean, read: (arg: A) => Promise<T>, arg?: A): Promise<T> {
  if (target === 'chrome') {
    const b = await launchChromium({ extDir: await buildExtension('chrome') });
    try {
      const page = await b.newPage();
      await page.goto(`${agentUrl}/`);
      await page.waitForFunction(() => typeof window.demo?.run === 'function');
      for (const step of session) await page.evaluate(([s, o]) => window.demo.run(s, o), step);
      const { panel } = await openInspectorPanel(b.context, agentUrl, b.extensionId);
      await inPage(panel);
      await until('the panel ready', () => panel.eval(ready));
      return await panel.eval(read, arg);
    } finally {
      await b.close();
    }
  }
  const b = await launchFirefox({ extDir: await buildExtension('firefox') });
  try {
    const page = await b.newPage();
    await page.goto(`${agentUrl}/`);
    await poll(page, () => typeof window.demo?.run === 'function');
    for (const step of session) await page.evaluate(([s, o]) => window.demo.run(s, o), step);
    const panel: Page = await b.newPage();
    await gotoExtensionPage(panel, `${b.base}panel/index.html?tabId=${await b.tabIdOf(page.url())}`, 15_000);
    await inPage(panel);
    await poll(panel, ready, 15_000);
    // Puppeteer types an argument as it would unwrap a handle; `arg` is plain data.
    return (await panel.evaluate(read as (arg: unknown) => Promise<unknown>, arg)) as T;
  } finally {
    await b.close();
  }
}

/** One test in each browser: `session` run on a demo agent started once, read in the panel once `ready` holds, and `check`ed. */
export function demoSessionInBothPanels<T>(title: string, name: string, session: readonly DemoStep[], ready: () => boolean, read: () => Promise<T>, check: (r: T) => void): void {
  describe(title, () => {
    let agent: DemoAgent | undefined;
    after(() => agent?.close());
    bothBrowsers({ chromium: name, firefox: name }, async (target) => {
      agent ??= await startDemoAgent({ port: 0, delayMs: 1 });
      check(await readInPanel(target, agent.url, session, ready, read));
    });
  });
}
