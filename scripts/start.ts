/**
 * `npm start`: builds the extension, serves the demo agent and page, and opens a browser with the
 * Inspector loaded, the demo page open and DevTools on the Inspector's panel.
 *
 *   npm start                          Chromium (or Google Chrome) with the panel shown
 *   npm start -- --browser firefox     Firefox through web-ext
 *   npm start -- --port 9000           another port for the demo agent
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startDemoAgent, type DemoAgent } from '../demo/agent.ts';
import { scenarioInfo } from '../demo/scenarios.ts';
import { VIEWS } from '../panel/tabs.ts';
import { openInspectorPanel, type DevToolsPanel } from './devtools.ts';
import { writeValidators } from './gen-validators.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const EXTENSION_DIRS = { chrome: join(ROOT, 'dist', 'chrome'), firefox: join(ROOT, 'dist', 'firefox') } as const;

export interface StartOptions {
  browser: 'chromium' | 'firefox';
  port: number;
  /** For tests: a headless Chromium, returned to the caller instead of waited on. */
  headless?: boolean;
  log?: (line: string) => void;
}

export interface Started {
  agent: DemoAgent;
  /** Set when a Chromium was launched. */
  context?: BrowserContext;
  page?: Page;
  extensionId?: string;
  panel?: DevToolsPanel;
  /** Resolves when the user closes the browser. */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** Builds validators and both extension targets with vite's API, one after the other (TARGET is read per build). */
export async function buildExtensions(): Promise<void> {
  writeValidators();
  const { build } = await import('vite');
  for (const target of ['chrome', 'firefox'] as const) {
    process.env.TARGET = target;
    await build({ configFile: join(ROOT, 'vite.config.ts'), logLevel: 'warn' });
  }
  delete process.env.TARGET;
}

/** Linux and the BSDs need an X or Wayland server for a window; macOS and Windows always have one. */
export function hasDisplay(env = process.env, platform = process.platform): boolean {
  if (platform === 'darwin' || platform === 'win32') return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

function onPath(names: string[]): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    for (const name of names) if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return null;
}

/** Chromium first: branded Google Chrome ignores --load-extension since version 137. */
export function findChromium(): { path: string; branded: boolean } | null {
  const explicit = process.env.CHROME_PATH;
  if (explicit) return { path: explicit, branded: /google-chrome|Google Chrome/.test(explicit) };
  const open = onPath(['chromium', 'chromium-browser']);
  if (open) return { path: open, branded: false };
  const mac = '/Applications/Chromium.app/Contents/MacOS/Chromium';
  if (existsSync(mac)) return { path: mac, branded: false };
  const chrome = onPath(['google-chrome', 'google-chrome-stable']) ?? ['/Applications/Google Chrome.app/Contents/MacOS/Google Chrome'].find(existsSync);
  return chrome ? { path: chrome, branded: true } : null;
}

export function findFirefox(): string | null {
  return process.env.FIREFOX_PATH ?? onPath(['firefox-esr', 'firefox']) ?? ['/Applications/Firefox.app/Contents/MacOS/firefox'].find(existsSync) ?? null;
}

function tryThis(log: (s: string) => void, url: string): void {
  log('');
  log(`Demo page: ${url}/  — each button runs one scenario through the official @ag-ui/client HttpAgent:`);
  for (const s of scenarioInfo()) log(`  ${s.name.padEnd(20)} ${s.shows}`);
  log(`In the AG-UI panel: the Overview lists what went wrong; pick an exchange, then switch views with the keys 1 to ${Math.min(9, VIEWS.length)}${VIEWS.length > 9 ? ' and 0' : ''}: ${VIEWS.map((v) => v.label).join(', ')}.`);
  log(`From a terminal: npm run check -- <exported .har>   (the panel's Export button writes one)`);
}

export async function start(o: StartOptions): Promise<Started> {
  const log = o.log ?? ((s: string) => console.log(s));
  log('Building the extension (dist/chrome, dist/firefox)…');
  await buildExtensions();
  let agent: DemoAgent;
  try {
    agent = await startDemoAgent({ port: o.port });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
    agent = await startDemoAgent({ port: 0 });
    log(`Port ${o.port} is busy; the demo agent took ${agent.url} instead.`);
  }
  log(`Demo agent serving ${agent.url} (no model, no API key).`);
  const idle: Started = { agent, closed: new Promise(() => undefined), close: () => agent.close() };

  if (!o.headless && !hasDisplay()) {
    log('');
    log('There is no display here (no DISPLAY or WAYLAND_DISPLAY), so no browser can open a window.');
    log(`The demo keeps running at ${agent.url}/ — open it in a browser that has the Inspector loaded:`);
    log(`  Chrome/Chromium: chrome://extensions → Developer mode → Load unpacked → ${EXTENSION_DIRS.chrome}`);
    log(`  Firefox: about:debugging#/runtime/this-firefox → Load Temporary Add-on → ${join(EXTENSION_DIRS.firefox, 'manifest.json')}`);
    tryThis(log, agent.url);
    return idle;
  }

  if (o.browser === 'firefox') {
    const firefox = findFirefox();
    if (!firefox) throw new Error('no Firefox found (firefox-esr or firefox on PATH, or FIREFOX_PATH)');
    const webExt = (await import('web-ext')).default;
    const runner = await webExt.cmd.run(
      { sourceDir: EXTENSION_DIRS.firefox, firefox, startUrl: [`${agent.url}/`], args: ['-devtools'], noReload: true, noInput: true },
      { shouldExitProgram: false },
    );
    log(`Firefox is open with the Inspector loaded; open the AG-UI tab in its developer tools.`);
    tryThis(log, agent.url);
    const closed = new Promise<void>((resolve) => runner.registerCleanup(() => resolve()));
    return { agent, closed, close: async () => (await runner.exit(), agent.close()) };
  }

  const found = findChromium();
  if (!found) throw new Error('no Chromium or Chrome found (chromium on PATH, or CHROME_PATH)');
  if (found.branded) log(`Using ${found.path}. Google Chrome 137+ ignores --load-extension: if the AG-UI panel is missing, load ${EXTENSION_DIRS.chrome} by hand (chrome://extensions → Load unpacked) or install Chromium.`);
  const profile = mkdtempSync(join(tmpdir(), 'agui-inspector-profile-'));
  const ext = EXTENSION_DIRS.chrome;
  const args = [
    `--disable-extensions-except=${ext}`,
    `--load-extension=${ext}`,
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ];
  // Chromium refuses to run as root with its sandbox on.
  if (process.platform === 'linux' && userInfo().uid === 0) args.push('--no-sandbox');
  const context = await chromium.launchPersistentContext(profile, { executablePath: found.path, headless: Boolean(o.headless), args, viewport: null });
  const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker', { timeout: 20_000 }));
  const extensionId = new URL(worker.url()).host;
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${agent.url}/`);
  const panel = await openInspectorPanel(context, agent.url, extensionId);
  log(`Chromium is open with the Inspector loaded and DevTools on the AG-UI panel.`);
  tryThis(log, agent.url);
  const closed = new Promise<void>((resolve) => context.once('close', () => resolve()));
  const close = async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
    await agent.close();
  };
  return { agent, context, page, extensionId, panel, closed, close };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: { browser: { type: 'string', default: 'chromium' }, port: { type: 'string', default: '8765' } },
  });
  const browser = values.browser === 'firefox' ? 'firefox' : values.browser === 'chromium' || values.browser === 'chrome' ? 'chromium' : null;
  if (!browser) {
    console.error(`--browser must be chromium or firefox, not ${JSON.stringify(values.browser)}`);
    process.exit(2);
  }
  const started = await start({ browser, port: Number(values.port) });
  const stop = () => void started.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await started.closed;
  await started.close();
}
