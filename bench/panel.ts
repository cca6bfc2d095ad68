/**
 * The panel in the real browser: headless Chromium with the built extension, the panel page shown a
 * 100,000-event SSE exchange through its file source (panel/README.md, `window.__aguiPanel`).
 *
 * - first screen: from handing over the bytes to the first timeline rows painted (the rest of the file
 *   keeps being analysed in slices behind it);
 * - timeline of a loaded exchange: switching to the Timeline view once all 100,000 events are held, as
 *   when the panel opens on a tab the worker has analysed;
 * - filter and text search: from choosing an event type, or typing a search, to the filtered rows painted;
 * - full analysis: until every event is decoded and judged (informational);
 *   each of these the median of five passes, the file opened anew for each;
 * - a 100 MB recording imported through the file picker, three times: how long, and the longest the
 *   panel went without painting a frame meanwhile;
 * - the Waterfall of a 100,000-event exchange recorded with its arrival times (bench/stream.ts's mix, some
 *   8,000 spans): its first bars painted, then the longest gap between frames while it is zoomed in step by
 *   step, scrolled across and zoomed out again.
 *
 * `npx tsx bench/panel.ts` prints the numbers; bench/run.ts calls `panelBench()`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { buildExtension, launchChromium, type ChromiumBrowser } from '../test/e2e/browsers.ts';
import { importWatched, timedRecording, writeLargeRecording, type ImportWatch } from '../test/e2e/large-recording.ts';
import { openPanel } from '../test/e2e/recording-panel.ts';
import { formatSection, measuresSection, median, type Measure } from './report.ts';

const EVENTS = 100_000;
const RUNS = 5;

export async function panelBench(): Promise<Measure[]> {
  const b = await launchChromium({ extDir: await buildExtension('chrome') });
  try {
    const page = await panelPage(b, 'timeline');
    const runs: Timings[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await measureOnce(page));
    const m = (k: keyof Timings): number => Math.round(median(runs.map((r) => r[k])));
    const each = (k: keyof Timings): string => `median of ${RUNS}; runs ${runs.map((r) => Math.round(r[k])).join(', ')} ms`;
    return [
      { name: 'panel: first screen of a 100,000-event exchange', value: m('firstScreen'), unit: 'ms', target: '< 300', note: each('firstScreen') },
      { name: 'panel: timeline of a fully loaded 100,000-event exchange', value: m('reopen'), unit: 'ms', target: '< 300' },
      { name: 'panel: filter a 100,000-event timeline by type', value: m('filter'), unit: 'ms', target: '< 100', note: each('filter') },
      { name: 'panel: text search over a 100,000-event timeline', value: m('searchMs'), unit: 'ms', target: '< 100' },
      { name: 'panel: full analysis of a 100,000-event exchange', value: m('full'), unit: 'ms' },
      ...(await importBench(b)),
      ...(await waterfallBench(b)),
    ];
  } finally {
    await b.close();
  }
}

/** What the measures do alike in the page, installed on it: a page function cannot import. */
interface PageHelpers {
  /** After the next frame is painted. */
  benchFrame(): Promise<void>;
  benchUntil(what: string, ok: () => boolean): Promise<void>;
  /** Opens `bytes` as a dropped file once the panel is idle: until `first` is painted, and until it is all analysed. */
  benchOpen(bytes: Uint8Array, name: string, view: string, first: string): Promise<{ firstScreen: number; full: number }>;
}

/** A panel page of its own at full width, on `view`, with the helpers installed. */
async function panelPage(b: ChromiumBrowser, view: string): Promise<Page> {
  const page = await b.newPage();
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${b.base}panel/index.html?view=${view}`);
  await page.waitForFunction(() => window.__aguiPanel !== undefined);
  // tsx compiles with keepNames: nested functions in evaluated source call esbuild's __name helper.
  await page.evaluate('globalThis.__name = (f) => f');
  await installPageHelpers(page);
  return page;
}

function installPageHelpers(page: Page): Promise<void> {
  return page.evaluate(() => {
    const g = globalThis as unknown as PageHelpers;
    g.benchFrame = () => new Promise((res) => requestAnimationFrame(() => setTimeout(res, 0)));
    g.benchUntil = async (what, ok) => {
      const end = performance.now() + 60_000;
      while (!ok()) {
        if (performance.now() > end) throw new Error(`panel bench: no ${what}`);
        await new Promise((res) => setTimeout(res, 0));
      }
    };
    g.benchOpen = async (bytes, name, view, first) => {
      // As when a user drops a file on a panel that has been open a moment: its idle work is done.
      await new Promise((res) => requestIdleCallback(res));
      const t0 = performance.now();
      const done = window.__aguiPanel!.openFile(bytes, name, view as never);
      await g.benchUntil(first, () => document.querySelector(first) !== null);
      await g.benchFrame();
      const firstScreen = performance.now() - t0;
      await done;
      await g.benchFrame();
      return { firstScreen, full: performance.now() - t0 };
    };
  });
}

/** The measured steps, in milliseconds. */
interface Timings {
  firstScreen: number;
  full: number;
  filter: number;
  searchMs: number;
  reopen: number;
}

/** One pass over the steps; each opens the file anew, which starts the panel over. */
async function measureOnce(page: Page): Promise<Timings> {
  const r = await page.evaluate(async (n) => {
    const { benchFrame: frame, benchUntil: until, benchOpen } = globalThis as unknown as PageHelpers;
    const sse = (e: unknown): string => `data: ${JSON.stringify(e)}\n\n`;
    const parts = [
      sse({ type: 'RUN_STARTED', threadId: 't', runId: 'r', protocolVersion: '1.0' }),
      sse({ type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' }),
    ];
    for (let i = 0; i < n - 4; i++) parts.push(sse({ type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: `word ${i} ` }));
    parts.push(sse({ type: 'TEXT_MESSAGE_END', messageId: 'm' }), sse({ type: 'RUN_FINISHED', threadId: 't', runId: 'r' }));
    const bytes = new TextEncoder().encode(parts.join(''));
    const { firstScreen, full } = await benchOpen(bytes, 'bench.sse', 'timeline', '[data-testid=timeline-row]');
    const rows = document.querySelectorAll('[data-testid=exchange-row]').length;
    const count = document.querySelector('[data-testid=timeline-count]')!.textContent;

    const select = document.querySelector<HTMLSelectElement>('[data-testid=filter-type]')!;
    const t1 = performance.now();
    select.value = 'TEXT_MESSAGE_END';
    select.dispatchEvent(new Event('change', { bubbles: true }));
    await until('filtered rows', () => document.querySelector<HTMLElement>('[data-testid=timeline-row]')?.dataset.type === 'TEXT_MESSAGE_END');
    await frame();
    const filter = performance.now() - t1;

    // A text search lower-cases every frame once, then scans them all.
    select.value = '';
    select.dispatchEvent(new Event('change', { bubbles: true }));
    await frame();
    const search = document.querySelector<HTMLInputElement>('[data-testid=filter-text]')!;
    const t2 = performance.now();
    search.value = 'word 99990 ';
    search.dispatchEvent(new Event('input', { bubbles: true }));
    await until('search hit', () => document.querySelectorAll('[data-testid=timeline-row]').length === 1);
    await frame();
    const searchMs = performance.now() - t2;

    // The whole exchange already held, as when the panel opens on a tab the worker analysed.
    search.value = '';
    search.dispatchEvent(new Event('input', { bubbles: true }));
    await frame();
    document.querySelector<HTMLElement>('[data-testid=tab-input]')!.click();
    await frame();
    const t3 = performance.now();
    document.querySelector<HTMLElement>('[data-testid=tab-timeline]')!.click();
    await until('reopened timeline', () => document.querySelector('[data-testid=timeline-row]') !== null);
    await frame();
    const reopen = performance.now() - t3;
    if (!document.querySelector('[data-testid=timeline-count]')!.textContent!.startsWith(`${n} events`)) throw new Error('panel bench: timeline reopened filtered');
    return { firstScreen, full, filter, searchMs, reopen, rows, count };
  }, EVENTS);
  if (r.rows !== 1 || r.count !== `${EVENTS} events`) throw new Error(`panel bench: unexpected session (${r.rows} exchanges, ${r.count})`);
  return r;
}

const IMPORTS = 3;

/** Each import in a fresh panel page; a single worst frame is noisy, so the median of the runs' worsts is the figure. */
async function importBench(b: ChromiumBrowser): Promise<Measure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'agui-bench-import-'));
  try {
    const file = join(dir, 'large.har');
    const { size } = await writeLargeRecording(file);
    const runs: ImportWatch[] = [];
    for (let i = 0; i < IMPORTS; i++) {
      const panel = await openPanel(b);
      runs.push(await importWatched(panel, file));
      await panel.close();
    }
    const mb = size / 1024 / 1024;
    const gaps = runs.map((r) => Math.round(r.worstFrameGap));
    const seconds = runs.map((r) => r.ms / 1000);
    return [
      { name: `panel: import a ${mb.toFixed(0)} MB HAR, longest frame gap`, value: median(gaps), unit: 'ms', target: '< 100', note: `median of ${IMPORTS} imports; runs ${gaps.join(', ')} ms` },
      { name: `panel: import a ${mb.toFixed(0)} MB HAR, throughput`, value: Math.round(mb / median(seconds)), unit: 'MB/s', note: `runs ${seconds.map((s) => s.toFixed(1)).join(', ')} s; ${runs.map((r) => r.frames).join(', ')} frames painted` },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const WATERFALLS = 3;

/**
 * The Waterfall of the timed exchange, each time in a fresh panel page: from handing over the file to its
 * first bars painted (as the timeline's first screen, the rest of the file analysed behind them), then
 * every gap between animation frames while it is zoomed in eight times (a frame between steps), scrolled
 * across in twenty steps and fitted again. Gaps, not a timed assertion: the figure. The most elements
 * drawn at once is counted at every step: the zoomed-out ones draw the most, not the scrolled ones.
 */
export async function waterfallBench(b: ChromiumBrowser): Promise<Measure[]> {
  const har = timedRecording(EVENTS);
  const runs: { firstScreen: number; worstGap: number; p95Gap: number; frames: number; bars: number; idleGap: number }[] = [];
  for (let i = 0; i < WATERFALLS; i++) {
    const page = await panelPage(b, 'waterfall');
    runs.push(await page.evaluate(async (text) => {
      const { benchFrame: frame, benchOpen } = globalThis as unknown as PageHelpers;
      const { firstScreen } = await benchOpen(new TextEncoder().encode(text), 'timed.har', 'waterfall', '[data-testid=waterfall] [data-testid=span]');
      const stamps: number[] = [];
      let watching = true;
      const tick = (t: number): void => {
        stamps.push(t);
        if (watching) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
      // Half a second untouched first: the frame rate this browser gives an idle panel, to read the gaps against.
      await new Promise((res) => setTimeout(res, 500));
      const idle = stamps.splice(0).map((t, j, all) => (j === 0 ? 0 : t - all[j - 1]!)).slice(1).sort((a, c) => a - c);
      let bars = 0;
      const drawn = (): void => void (bars = Math.max(bars, document.querySelectorAll('[data-testid=span], [data-testid=span-cluster]').length));
      drawn();
      const zoomIn = document.querySelector<HTMLButtonElement>('[aria-label="Zoom in"]')!;
      for (let z = 0; z < 8; z++) {
        zoomIn.click();
        await frame();
        drawn();
      }
      const scroller = document.querySelector<HTMLElement>('.wf-scroll')!;
      const step = (scroller.scrollWidth - scroller.clientWidth) / 20;
      for (let k = 1; k <= 20; k++) {
        scroller.scrollLeft = step * k;
        scroller.dispatchEvent(new Event('scroll'));
        await frame();
        drawn();
      }
      document.querySelector<HTMLButtonElement>('[title^="Fit the exchange"]')!.click();
      await frame();
      await frame();
      watching = false;
      const gaps = stamps.slice(1).map((t, j) => t - stamps[j]!).sort((a, c) => a - c);
      return { firstScreen, worstGap: gaps.at(-1) ?? 0, p95Gap: gaps[Math.floor(gaps.length * 0.95)] ?? 0, frames: stamps.length, bars, idleGap: idle[idle.length >> 1] ?? 0 };
    }, har));
    await page.close();
  }
  const m = (k: 'firstScreen' | 'worstGap' | 'p95Gap' | 'idleGap'): number => Math.round(median(runs.map((r) => r[k])));
  const each = (k: 'firstScreen' | 'worstGap'): string => runs.map((r) => Math.round(r[k])).join(', ');
  return [
    { name: 'panel: Waterfall of a 100,000-event exchange, first bars', value: m('firstScreen'), unit: 'ms', target: '< 300', note: `median of ${WATERFALLS}; runs ${each('firstScreen')} ms` },
    {
      name: 'panel: Waterfall zoomed ×256 and scrolled across, longest frame gap', value: m('worstGap'), unit: 'ms', target: '< 50',
      note: `median of ${WATERFALLS}; runs ${each('worstGap')} ms; p95 ${m('p95Gap')} ms over ${runs.map((r) => r.frames).join(', ')} frames (an idle panel's median gap: ${m('idleGap')} ms); up to ${Math.max(...runs.map((r) => r.bars))} bars and clusters drawn at once`,
    },
  ];
}

export const PANEL_TITLE = 'The panel in real Chromium: a 100,000-event exchange, a 100 MB import';

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(formatSection(measuresSection(PANEL_TITLE, await panelBench())));
}
