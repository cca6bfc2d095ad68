/**
 * Real browsers with the real built extension, for e2e tests.
 *
 *   const ext = await buildExtension('chrome');          // dist/chrome, built once per process
 *   const b = await launchChromium({ extDir: ext });     // or launchFirefox({ extDir: await buildExtension('firefox') })
 *   const page = await b.newPage(); await page.goto(url);
 *   const tabId = await b.tabIdOf(url);
 *   const har = await b.request({ type: 'agui-inspector/export', tabId });
 *   await b.close();
 *
 * Chromium: Debian /usr/bin/chromium through playwright-core, headless, no network beyond 127.0.0.1.
 * Firefox: Debian firefox-esr through puppeteer-core over WebDriver BiDi, the extension installed as a
 * temporary add-on with a pinned moz-extension UUID.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import puppeteer, { type Browser as PBrowser, type Page as PPage } from 'puppeteer-core';
import type { Reply, Request, SessionSummary } from '../../src/messages.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';
export const FIREFOX = process.env.FIREFOX_BIN ?? '/usr/bin/firefox-esr';
export const FIREFOX_ADDON_ID = 'agui-inspector@ag-ui.dev';
const FIREFOX_UUID = '5f0c8a2e-7d1b-4c39-9e64-2a8f3b1d6c70';

/** Keeps Chromium off the network: no sync, updates, QUIC or background fetches. */
export const CHROMIUM_FLAGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

export type Target = 'chrome' | 'firefox';

let building: Promise<unknown> = Promise.resolve();
const built = new Map<Target, Promise<string>>();

/**
 * Builds the extension with vite's JS API, once per process; resolves to the extension directory.
 * Each test process builds into its own .tmp directory: node --test runs files in parallel, and one
 * build emptying a directory another browser is loading from would break that browser.
 */
export function buildExtension(target: Target): Promise<string> {
  let p = built.get(target);
  if (!p) {
    // TARGET is read when vite loads the config, so builds must not overlap.
    const dir = join(ROOT, '.tmp', `extension-${target}-${process.pid}`);
    p = building.then(async () => {
      const { build } = await import('vite');
      const previous = process.env.TARGET;
      process.env.TARGET = target;
      try {
        await build({ configFile: join(ROOT, 'vite.config.ts'), logLevel: 'warn', build: { outDir: dir } });
      } finally {
        if (previous === undefined) delete process.env.TARGET;
        else process.env.TARGET = previous;
      }
      process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
      return dir;
    });
    building = p.catch(() => undefined);
    built.set(target, p);
  }
  return p;
}

/** The built manifest's content scripts, as the tests that alter a copy of the extension read them. */
export interface BuiltManifest {
  content_scripts: { js: string[]; world?: string }[];
}

/**
 * A copy of the built extension under .tmp, altered by `edit`: it gets the copy's directory and its
 * manifest, which is written back after. The caller removes the copy.
 */
export async function alteredExtension(target: Target, name: string, edit: (dir: string, manifest: BuiltManifest) => void): Promise<string> {
  const dir = mkdtempSync(join(ROOT, '.tmp', `${name}-${target}-`));
  cpSync(await buildExtension(target), dir, { recursive: true });
  const file = join(dir, 'manifest.json');
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as BuiltManifest;
  edit(dir, manifest);
  writeFileSync(file, JSON.stringify(manifest));
  return dir;
}

/** Runs `fn` in `target` with the altered extension copy `extDir` loaded, then closes the browser and removes the copy. */
export async function inAlteredBrowser(target: Target, extDir: string, fn: (b: Awaited<ReturnType<typeof launchWith>>) => Promise<void>): Promise<void> {
  try {
    const b = await launchWith(target, extDir);
    try {
      await fn(b);
    } finally {
      await b.close();
    }
  } finally {
    rmSync(extDir, { recursive: true, force: true });
  }
}

/** Either browser with an extension loaded from `extDir`, for a test that runs alike in both. */
export function launchWith(target: Target, extDir: string): Promise<ExtensionBrowser & { newPage(): Promise<unknown> }> {
  return target === 'chrome' ? launchChromium({ extDir }) : launchFirefox({ extDir });
}

export interface ExtensionBrowser {
  /** Extension pages are under this URL (chrome-extension://id/ or moz-extension://uuid/). */
  readonly base: string;
  /** Calls the worker's message API from an extension page. */
  request<R extends Request>(req: R): Promise<Reply<R>>;
  /** The tab whose top document is `url`, once its relay has said hello. */
  tabIdOf(url: string, timeoutMs?: number): Promise<number>;
  close(): Promise<void>;
}

async function pollTab(list: () => Promise<SessionSummary[]>, url: string, timeoutMs: number): Promise<number> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const hit = (await list()).find((s) => s.url === url);
    if (hit) return hit.tabId;
    if (Date.now() > end) throw new Error(`no session for ${url}`);
    await sleep(100);
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// ── Chromium ────────────────────────────────────────────────────────────────

export interface ChromiumBrowser extends ExtensionBrowser {
  readonly context: BrowserContext;
  readonly extensionId: string;
  newPage(): Promise<Page>;
  /** An extension page (panel/index.html by default), opened once and reused for API calls. */
  apiPage(): Promise<Page>;
  /** A CDP session on the API page; its ServiceWorker domain reaches the extension's worker. */
  cdp(): Promise<CDPSession>;
  /** Stops the extension's service worker the way Chrome does when it is idle. */
  stopWorker(): Promise<void>;
  /**
   * Runs `fn` in the extension's service worker, woken first, through the DevTools protocol: how a
   * test breaks what the worker relies on (its storage, say) with no hook in the extension itself.
   */
  inWorker<T, A>(fn: (arg: A) => T, arg: A): Promise<T>;
}

/** `args` adds command-line switches, e.g. host resolver rules that give 127.0.0.1 another name. */
export async function launchChromium(opts: { extDir?: string; headless?: boolean; args?: string[] } = {}): Promise<ChromiumBrowser> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'agui-chromium-'));
  const args = [...CHROMIUM_FLAGS, ...(opts.args ?? [])];
  if (opts.extDir) args.push(`--disable-extensions-except=${opts.extDir}`, `--load-extension=${opts.extDir}`);
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: opts.headless ?? true,
    args,
  });
  let extensionId = '';
  if (opts.extDir) {
    const sw = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 15_000 }));
    extensionId = new URL(sw.url()).host;
  }
  const base = `chrome-extension://${extensionId}/`;
  let api: Page | null = null;
  let session: CDPSession | null = null;
  const self: ChromiumBrowser = {
    context,
    extensionId,
    base,
    newPage: () => context.newPage(),
    async apiPage() {
      if (!api || api.isClosed()) {
        api = await context.newPage();
        await api.goto(`${base}panel/index.html`);
      }
      return api;
    },
    async request(req) {
      const page = await self.apiPage();
      return page.evaluate((r) => chrome.runtime.sendMessage(r), req as never) as never;
    },
    tabIdOf: (url, timeoutMs = 10_000) => pollTab(() => self.request({ type: 'agui-inspector/sessions' }), url, timeoutMs),
    async cdp() {
      session ??= await context.newCDPSession(await self.apiPage());
      return session;
    },
    async stopWorker() {
      const cdp = await self.cdp();
      // ServiceWorker.stopAllWorkers leaves extension workers running; stopWorker by version does not.
      const status = new Map<string, string>();
      let changed: () => void = () => undefined;
      cdp.on('ServiceWorker.workerVersionUpdated', (e) => {
        for (const v of e.versions) if (v.scriptURL.startsWith(base)) status.set(v.versionId, v.runningStatus);
        changed();
      });
      await cdp.send('ServiceWorker.enable');
      // Generous: with every test file running in parallel the machine is busy.
      const end = Date.now() + 15_000;
      const until = async (ok: () => boolean): Promise<void> => {
        while (!ok()) {
          if (Date.now() > end) throw new Error(`service worker did not stop: ${JSON.stringify([...status])}`);
          await new Promise<void>((r) => {
            changed = r;
            setTimeout(r, 100);
          });
        }
      };
      await until(() => [...status.values()].includes('running'));
      const running = [...status].filter(([, s]) => s === 'running').map(([id]) => id);
      for (const versionId of running) await cdp.send('ServiceWorker.stopWorker', { versionId });
      await until(() => running.every((id) => status.get(id) === 'stopped'));
      await cdp.send('ServiceWorker.disable');
    },
    async inWorker(fn, arg) {
      await self.request({ type: 'agui-inspector/sessions' });
      const sw = await until('the extension\'s service worker', async () => context.serviceWorkers().find((w) => w.url().startsWith(base)));
      return sw.evaluate(fn as never, arg) as never;
    },
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
  return self;
}

// ── Firefox ─────────────────────────────────────────────────────────────────

export interface FirefoxBrowser extends ExtensionBrowser {
  readonly browser: PBrowser;
  newPage(): Promise<PPage>;
  apiPage(): Promise<PPage>;
}

export async function launchFirefox(opts: { extDir?: string } = {}): Promise<FirefoxBrowser> {
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX,
    headless: true,
    protocol: 'webDriverBiDi',
    // Lets BiDi navigate a tab to moz-extension:// pages.
    args: ['--remote-allow-system-access'],
    extraPrefsFirefox: {
      'extensions.webextensions.uuids': JSON.stringify({ [FIREFOX_ADDON_ID]: FIREFOX_UUID }),
      'network.proxy.type': 0,
      'app.update.enabled': false,
      'browser.shell.checkDefaultBrowser': false,
    },
  });
  if (opts.extDir) await browser.installExtension(opts.extDir);
  const base = `moz-extension://${FIREFOX_UUID}/`;
  let api: PPage | null = null;
  const self: FirefoxBrowser = {
    browser,
    base,
    newPage: () => browser.newPage(),
    async apiPage() {
      if (!api || api.isClosed()) {
        api = await browser.newPage();
        await gotoExtensionPage(api, `${base}panel/index.html`);
      }
      return api;
    },
    async request(req) {
      const page = await self.apiPage();
      return page.evaluate((r) => (globalThis as unknown as { browser: typeof chrome }).browser.runtime.sendMessage(r), req as never) as never;
    },
    tabIdOf: (url, timeoutMs = 10_000) => pollTab(() => self.request({ type: 'agui-inspector/sessions' }), url, timeoutMs),
    close: () => browser.close(),
  };
  return self;
}

/** puppeteer never sees moz-extension pages finish loading over BiDi: start the navigation, then poll the document. */
export async function gotoExtensionPage(page: PPage, url: string, timeoutMs = 10_000): Promise<void> {
  page.goto(url, { timeout: 15_000 }).catch(() => undefined);
  await until(`navigation to ${url}`, () => page.evaluate((u) => document.readyState === 'complete' && location.href === u, url), timeoutMs);
}

/** Retries `fn` until it gives a truthy value; a throw counts as not yet, and the last one is reported on timeout. */
export async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await sleep(100);
  }
}

/** Polls `fn` in the page (puppeteer's waitForFunction needs `new Function`, which extension CSP blocks). */
export function poll<T>(page: { evaluate(fn: () => T | Promise<T>): Promise<T> }, fn: () => T | Promise<T>, timeoutMs = 10_000): Promise<T> {
  return until(fn.toString().slice(0, 120), () => page.evaluate(fn) as Promise<T | undefined | null | false>, timeoutMs);
}
