/**
 * The Waterfall and the timing summary in Chromium with the built extension, on a recording whose events
 * arrived on a known schedule (first content at 400 ms, a 1.5 s stall, a 600 ms backend tool call): the
 * panel's hooks give the schedule back, at 400 px docked and at full width. And on a long recording: its
 * bars are drawn while the file is still analysed, and spans too close to tell apart are one cluster.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { CapturedExchange } from '../../src/exchange/index.ts';
import { readExchanges, writeHar } from '../../src/formats/index.ts';
import { buildExtension, launchChromium, type ChromiumBrowser } from './browsers.ts';
import { inPage } from './in-page.ts';
import { timedRecording } from './large-recording.ts';

const T = 'thread-wf';
const frame = (ev: object): string => `data: ${JSON.stringify(ev)}\n\n`;
const SCHEDULE: [number, object][] = [
  [120, { type: 'RUN_STARTED', threadId: T, runId: 'r1' }],
  [400, { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' }],
  [400, { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'Looking' }],
  [1900, { type: 'TEXT_MESSAGE_END', messageId: 'm1' }],
  [1910, { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'search' }],
  [1920, { type: 'TOOL_CALL_END', toolCallId: 'c1' }],
  [2520, { type: 'TOOL_CALL_RESULT', messageId: 'res1', toolCallId: 'c1', content: 'found' }],
  [2600, { type: 'RUN_FINISHED', threadId: T, runId: 'r1' }],
];

function recording(): Uint8Array {
  const enc = new TextEncoder();
  const x: CapturedExchange = {
    source: 'agent', url: 'http://127.0.0.1:9/agent', method: 'POST', status: 200, startedDateTime: '2026-01-01T00:00:00.000Z',
    requestContentType: 'application/json', requestBody: JSON.stringify({ threadId: T, runId: 'r1', protocolVersion: '1.0', messages: [] }),
    responseContentType: 'text/event-stream', chunks: SCHEDULE.map(([time, ev]) => ({ time, bytes: enc.encode(frame(ev)) })), arrival: 'chunks',
  };
  return enc.encode(writeHar([x], { creator: { name: 'test', version: '0' } }));
}

let b: ChromiumBrowser;
let page: Page;
before(async () => {
  b = await launchChromium({ extDir: await buildExtension('chrome') });
  page = await b.newPage();
  await page.goto(`${b.base}panel/index.html`);
  await page.waitForFunction(() => window.__aguiPanel !== undefined);
  await page.evaluate(async (bytes) => window.__aguiPanel!.openFile(new Uint8Array(bytes), 'timed.har', 'waterfall'), [...recording()]);
});
after(() => b?.close());

async function hooks(p: Page) {
  await p.waitForSelector('[data-testid=waterfall] [data-testid=span]');
  return p.evaluate(() => ({
    summary: { ...document.querySelector<HTMLElement>('[data-testid=timing-summary]')!.dataset },
    spans: [...document.querySelectorAll<HTMLElement>('[data-testid=span]')].map((s) => [s.dataset.kind, s.dataset.id, Number(s.dataset.startMs), Number(s.dataset.endMs)]),
    stalls: [...document.querySelectorAll<HTMLElement>('[data-testid=stall]')].map((s) => [Number(s.dataset.afterEvent), Number(s.dataset.ms)]),
  }));
}

for (const width of [400, 1280]) {
  test(`at ${width} px the Waterfall and the summary give back the schedule`, async () => {
    await page.setViewportSize({ width, height: 700 });
    await page.click('[data-testid=tab-waterfall]');
    const h = await hooks(page);
    assert.deepEqual([Number(h.summary.ttfbMs), Number(h.summary.firstContentMs), Number(h.summary.durationMs)], [120, 400, 2600]);
    assert.deepEqual(h.spans.sort(), [['message', 'm1', 400, 1900], ['run', 'r1', 120, 2600], ['tool', 'c1', 1910, 2520]]);
    assert.deepEqual(h.stalls, [[2, 1500]], 'nothing arrived for 1.5 s after the content at event 2');
    const fits = await page.evaluate(() => {
      const r = document.querySelector('[data-testid=waterfall]')!.getBoundingClientRect();
      return r.right <= document.documentElement.clientWidth + 1;
    });
    assert.ok(fits, 'the waterfall fits the panel');
  });
}

test('clicking a bar opens the Timeline on the events that arrived while it ran, its first selected; × shows them all again', async () => {
  const rows = () => page.evaluate(() => [...document.querySelectorAll<HTMLElement>('[data-testid=timeline-row]')].map((r) => Number(r.dataset.index)));
  const opened = async (kind: string) => {
    await page.click('[data-testid=tab-waterfall]');
    await page.click(`[data-testid=span][data-kind=${kind}]`);
    await page.waitForSelector('[data-testid=filter-range]');
    return page.evaluate(() => {
      const chip = document.querySelector<HTMLElement>('[data-testid=filter-range]')!;
      return { from: chip.dataset.from, to: chip.dataset.to, text: chip.textContent, selected: document.querySelector<HTMLElement>('[data-testid=event-detail]')?.dataset.index };
    });
  };
  const tool = await opened('tool');
  assert.deepEqual([tool.from, tool.to, tool.selected], ['4', '6', '4'], 'TOOL_CALL_START at #4 to its TOOL_CALL_RESULT at #6');
  assert.match(tool.text!, /tool call search/);
  assert.deepEqual(await rows(), [4, 5, 6]);
  const message = await opened('message');
  assert.deepEqual([message.from, message.to, message.selected], ['1', '3', '1']);
  assert.deepEqual(await rows(), [1, 2, 3]);
  await page.click('[data-testid=filter-range] button');
  await page.waitForFunction(() => document.querySelector('[data-testid=filter-range]') === null);
  assert.deepEqual(await rows(), [0, 1, 2, 3, 4, 5, 6, 7]);
});

test("the exchange list's TTFT column reads the timing's first content, and gives way docked", async () => {
  const ttft = (width: number) =>
    page.setViewportSize({ width, height: 700 }).then(() =>
      page.evaluate(() => {
        const row = document.querySelector<HTMLElement>('[data-testid=exchange-row]')!;
        const cell = row.querySelector<HTMLElement>('.c-ttft')!;
        return { ms: row.dataset.firstContentMs, shown: getComputedStyle(cell).display !== 'none', text: cell.textContent };
      }),
    );
  assert.deepEqual(await ttft(1280), { ms: '400', shown: true, text: '400 ms' });
  assert.deepEqual(await ttft(800), { ms: '400', shown: true, text: '400 ms' });
  assert.equal((await ttft(400)).shown, false, 'docked narrow, the column gives way');
});

test('a long recording: its bars are drawn while it is analysed, and spans too close to tell apart are one cluster', { timeout: 120_000 }, async () => {
  const text = timedRecording(60_000);
  const lastArrival = readExchanges(new TextEncoder().encode(text), 'timed.har')[0]!.chunks.at(-1)!.time;
  const p = await b.newPage();
  try {
    await p.setViewportSize({ width: 1280, height: 700 });
    await p.goto(`${b.base}panel/index.html`);
    await p.waitForFunction(() => window.__aguiPanel !== undefined);
    await inPage(p);
    const r = await p.evaluate(async ([text, lastArrival]) => {
      const durationMs = (): number => Number(document.querySelector<HTMLElement>('[data-testid=timing-summary]')?.dataset.durationMs);
      const done = window.__aguiPanel!.openFile(new TextEncoder().encode(text), 'timed.har', 'waterfall');
      await e2e.settle(() => document.querySelector('[data-testid=waterfall] [data-testid=span]') !== null);
      const during = { status: document.querySelector<HTMLElement>('[data-testid=status]')!.dataset.status, durationMs: durationMs() };
      await done;
      await e2e.settle(() => durationMs() === lastArrival);
      const final = durationMs();
      /** Pairs of neighbours in a row, each narrower than the Waterfall's 6 px, drawn less than 3 px apart. */
      const tooClose = (): string[] => {
        const rows = new Map<string, { left: number; width: number; id: string }[]>();
        for (const el of document.querySelectorAll<HTMLElement>('[data-testid=span], [data-testid=span-cluster]')) {
          const row = rows.get(el.style.top) ?? [];
          row.push({ left: parseFloat(el.style.left), width: parseFloat(el.style.width), id: el.dataset.id ?? 'cluster' });
          rows.set(el.style.top, row);
        }
        const out: string[] = [];
        for (const row of rows.values()) {
          row.sort((a, c) => a.left - c.left);
          row.forEach((e, i) => {
            const prev = row[i - 1];
            if (prev && prev.width < 6 && e.width < 6 && e.left < prev.left + prev.width + 3 - 0.01) out.push(`${prev.id} at ${prev.left} and ${e.id} at ${e.left}`);
          });
        }
        return out;
      };
      const drawn: { zoom: number; elements: number; clusters: number; tooClose: string[] }[] = [];
      for (let zoom = 1; zoom <= 16; zoom *= 2) {
        drawn.push({
          zoom, elements: document.querySelectorAll('[data-testid=span], [data-testid=span-cluster]').length,
          clusters: document.querySelectorAll('[data-testid=span-cluster]').length, tooClose: tooClose(),
        });
        document.querySelector<HTMLButtonElement>('[aria-label="Zoom in"]')!.click();
        await e2e.frame();
      }
      return { during, final, drawn };
    }, [text, lastArrival] as const);
    assert.equal(r.during.status, 'loading', 'the first bars were drawn while the file was still analysed');
    assert.ok(r.during.durationMs < lastArrival, `then ${r.during.durationMs} ms of ${lastArrival} ms had been analysed`);
    assert.equal(r.final, lastArrival, 'once analysed, the whole file');
    for (const d of r.drawn) assert.deepEqual(d.tooClose, [], `at ${d.zoom}×, ${d.elements} elements`);
    assert.ok(r.drawn[0]!.clusters > 0, 'the whole exchange in view, it has clusters');
  } finally {
    await p.close();
  }
});
