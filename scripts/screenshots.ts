/**
 * `npm run screenshots`: PNGs of every panel view, light and dark, in docs/screenshots/ for the README and the guides in docs/.
 * Headless Chromium with the built extension captures a session from the demo page; the panel is then
 * opened as a page on that tab (`?tabId=`), which renders exactly what the DevTools panel shows.
 * `npm run screenshots -- overview narrow-overview` re-takes only the pictures of those names (each light and dark);
 * `override` and `narrow-override` are the form that arms Answer from this recording, with its events editor.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startDemoAgent } from '../demo/agent.ts';
import { defectiveInput } from '../demo/record.ts';
import { buildExtension, launchChromium, ROOT, sleep } from '../test/e2e/browsers.ts';

const OUT = join(ROOT, 'docs', 'screenshots');

/** The exchange each view is best shown on, by its position in the session below. */
const SHOTS: { view: string; exchange: number; name?: string }[] = [
  // The whole session's problems, ranked: the panel's first screen.
  { view: 'overview', exchange: 0 },
  { view: 'input', exchange: 3 },
  { view: 'negotiation', exchange: 2 },
  { view: 'stripped', exchange: 3 },
  { view: 'identity', exchange: 1 },
  { view: 'timeline', exchange: 4 },
  { view: 'findings', exchange: 5 },
  { view: 'state', exchange: 0 },
  // The pre-1.0 exchange: its badge, and its 1.0 readiness apart from its findings.
  { view: 'findings', exchange: 7, name: 'readiness' },
  // The run that spawned another on its thread, and the subagents it delegated to.
  { view: 'identity', exchange: 9, name: 'run-tree' },
  // The frontend call whose arguments its schema rejects, selected when the view opens.
  { view: 'tools', exchange: 10 },
  // The conversation scrubber on the snapshot that drops, reorders and replaces.
  { view: 'state', exchange: 11, name: 'conversation' },
  // The 600 ms backend tool call between two messages, on the demo's own schedule.
  { view: 'waterfall', exchange: 12 },
  // A chat on a WebSocket the agent closed mid-run: its socket opened above the Timeline.
  { view: 'timeline', exchange: 13, name: 'socket' },
];
/** Every exchange the session below makes: a shot waits for all of them to be listed. */
const EXCHANGES = 14;

/** The pictures asked for on the command line, by name; all of them when none is named. */
const only = new Set(process.argv.slice(2));
const wanted = (name: string): boolean => only.size === 0 || only.has(name);

type ShotPage = Awaited<ReturnType<Awaited<ReturnType<typeof launchChromium>>['newPage']>>;

/**
 * The form that arms Answer from this recording, on the chat of exchange 9: a URL pattern previewed, and the
 * events editor with one event made malformed, judged at its line.
 */
async function overrideForm(panel: ShotPage, url: string, name: string): Promise<void> {
  for (const theme of wanted(name) ? (['light', 'dark'] as const) : []) {
    await panel.goto(`${url}&theme=${theme}&view=input`);
    await panel.waitForFunction((n) => document.querySelectorAll('[data-testid=exchange-row]').length >= n, EXCHANGES);
    await panel.locator('[data-testid=exchange-row]').nth(9).click();
    await panel.locator('[data-testid=override-open]').click();
    const address = panel.locator('[data-testid=override-url]');
    await address.fill(`${await address.inputValue()}*`);
    await panel.locator('[data-testid=override-edit]').check();
    const events = panel.locator('[data-testid=override-events]');
    const lines = (await events.inputValue()).split('\n');
    const k = lines.findIndex((l) => l.includes('TEXT_MESSAGE_CONTENT'));
    lines[k] = JSON.stringify({ ...(JSON.parse(lines[k]!) as object), delta: 42 });
    await events.fill(lines.join('\n'));
    await panel.waitForSelector('[data-testid=override-events-findings][data-verdict=failed]');
    // The editor and what it judged, as a user scrolls the view to them.
    await panel.locator('[data-testid=override-events-findings]').evaluate((el) => el.scrollIntoView({ block: 'end' }));
    await sleep(100);
    const file = join(OUT, `${name}-${theme}.png`);
    await panel.screenshot({ path: file });
    console.log(file);
  }
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const agent = await startDemoAgent({ port: 0, delayMs: 2 });
  const b = await launchChromium({ extDir: await buildExtension('chrome') });
  try {
    const page = await b.newPage();
    await page.goto(`${agent.url}/`);
    await page.waitForFunction(() => typeof window.demo?.run === 'function');
    const tabId = await b.tabIdOf(page.url());
    const run = (scenario: string, opts: Record<string, unknown> = {}): Promise<unknown> =>
      page.evaluate(([s, o]) => window.demo.run(s, o), [scenario, { delay: 2, ...opts }] as const);
    await run('state');
    await run('misbehave-identity');
    await run('misbehave-version');
    await page.evaluate(async (body) => {
      const res = await fetch('/agent/chat?delay=2', { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' }, body: JSON.stringify(body) });
      await res.text();
    }, defectiveInput);
    await run('misbehave-unknown');
    await run('interrupt', { threadId: 'thread-shots' });
    await run('interrupt', { resume: 'partial' });
    await run('pre-1.0');
    await run('subagents', { threadId: 'thread-tree', runId: 'run-parent' });
    await run('chat', { threadId: 'thread-tree', runId: 'run-child', parentRunId: 'run-parent' });
    await run('misbehave-tool-args');
    await run('misbehave-conversation');
    await run('slow-tool');
    await run('chat', { transport: 'websocket', closeAfter: 4 });

    const panel = await b.newPage();
    await panel.setViewportSize({ width: 1280, height: 760 });
    for (const theme of ['light', 'dark'] as const) {
      for (const shot of SHOTS) {
        if (!wanted(shot.name ?? shot.view)) continue;
        await panel.goto(`${b.base}panel/index.html?tabId=${tabId}&theme=${theme}&view=${shot.view}`);
        await panel.waitForFunction((n) => document.querySelectorAll('[data-testid=exchange-row]').length >= n, EXCHANGES);
        await panel.locator('[data-testid=exchange-row]').nth(shot.exchange).click();
        if (shot.view === 'timeline') await panel.locator('[data-testid=timeline-row]').nth(3).click();
        if (shot.name === 'socket') await panel.locator('[data-testid=socket] > summary').click();
        // The view shows once the worker answered for its detail.
        await panel.waitForFunction(() => !document.querySelector('#view [aria-busy=true]'));
        await sleep(100);
        const file = join(OUT, `${shot.name ?? shot.view}-${theme}.png`);
        await panel.screenshot({ path: file });
        console.log(file);
      }
    }
    await overrideForm(panel, `${b.base}panel/index.html?tabId=${tabId}`, 'override');
    // Docked to the side, DevTools gives the panel about 500 px: the list and the export menu there.
    await panel.setViewportSize({ width: 500, height: 760 });
    for (const theme of wanted('narrow-list') ? (['light', 'dark'] as const) : []) {
      await panel.goto(`${b.base}panel/index.html?tabId=${tabId}&theme=${theme}&view=findings`);
      await panel.waitForFunction((n) => document.querySelectorAll('[data-testid=exchange-row]').length >= n, EXCHANGES);
      await panel.locator('[data-testid=exchange-row]').nth(4).click();
      await sleep(100);
      const list = join(OUT, `narrow-list-${theme}.png`);
      await panel.screenshot({ path: list });
      await panel.locator('.export > summary').click();
      await sleep(100);
      const file = join(OUT, `narrow-export-${theme}.png`);
      await panel.screenshot({ path: file });
      console.log(list, file);
    }
    // At 400 px the Identity table's rows become labelled cards, the conversation diff's rows wrap, and the
    // Waterfall's lanes keep their labels beside a narrower time axis.
    await panel.setViewportSize({ width: 400, height: 760 });
    await overrideForm(panel, `${b.base}panel/index.html?tabId=${tabId}`, 'narrow-override');
    for (const theme of wanted('narrow-overview') ? (['light', 'dark'] as const) : []) {
      await panel.goto(`${b.base}panel/index.html?tabId=${tabId}&theme=${theme}&view=overview`);
      await panel.waitForFunction((n) => document.querySelectorAll('[data-testid=exchange-row]').length >= n, EXCHANGES);
      await panel.waitForSelector('#view [data-testid=overview]');
      await sleep(100);
      const file = join(OUT, `narrow-overview-${theme}.png`);
      await panel.screenshot({ path: file });
      console.log(file);
    }
    for (const theme of wanted('narrow-socket') ? (['light', 'dark'] as const) : []) {
      await panel.goto(`${b.base}panel/index.html?tabId=${tabId}&theme=${theme}&view=timeline`);
      await panel.waitForFunction((n) => document.querySelectorAll('[data-testid=exchange-row]').length >= n, EXCHANGES);
      await panel.locator('[data-testid=exchange-row]').nth(13).click();
      await panel.locator('[data-testid=socket] > summary').click();
      await sleep(100);
      const file = join(OUT, `narrow-socket-${theme}.png`);
      await panel.screenshot({ path: file });
      console.log(file);
    }
    for (const theme of wanted('narrow-identity') ? (['light', 'dark'] as const) : []) {
      await panel.goto(`${b.base}panel/index.html?tabId=${tabId}&theme=${theme}&view=identity`);
      await panel.waitForFunction((n) => document.querySelectorAll('[data-testid=exchange-row]').length >= n, EXCHANGES);
      await panel.locator('[data-testid=exchange-row]').nth(1).click();
      await panel.waitForFunction(() => !document.querySelector('#view [aria-busy=true]'));
      await sleep(100);
      const file = join(OUT, `narrow-identity-${theme}.png`);
      await panel.screenshot({ path: file });
      await panel.goto(`${b.base}panel/index.html?tabId=${tabId}&theme=${theme}&view=state`);
      await panel.waitForFunction((n) => document.querySelectorAll('[data-testid=exchange-row]').length >= n, EXCHANGES);
      await panel.locator('[data-testid=exchange-row]').nth(11).click();
      await panel.waitForFunction(() => !document.querySelector('#view [aria-busy=true]'));
      // The scrubber and its diff rows in view, as a user scrolls the view to them.
      await panel.locator('#view [data-testid=conv-scrubber]').evaluate((el) => el.scrollIntoView({ block: 'start' }));
      await sleep(100);
      const conv = join(OUT, `narrow-conversation-${theme}.png`);
      await panel.screenshot({ path: conv });
      await panel.goto(`${b.base}panel/index.html?tabId=${tabId}&theme=${theme}&view=waterfall`);
      await panel.waitForFunction((n) => document.querySelectorAll('[data-testid=exchange-row]').length >= n, EXCHANGES);
      await panel.locator('[data-testid=exchange-row]').nth(12).click();
      await panel.waitForSelector('#view [data-testid=waterfall] [data-testid=span]');
      await sleep(100);
      const waterfall = join(OUT, `narrow-waterfall-${theme}.png`);
      await panel.screenshot({ path: waterfall });
      console.log(file, conv, waterfall);
    }
  } finally {
    await b.close();
    await agent.close();
  }
}

await main();
