/**
 * The Tools view of an exchange with 10,000 tool calls, in headless Chromium with the built extension: a
 * recording whose frontend tool declares a parameters schema, every tenth call's arguments rejected by it,
 * opened through the panel's file source (panel/README.md, `window.__aguiPanel`).
 *
 * - first screen: switching to the Tools view on an exchange analysed already, the view never shown on
 *   it, to its first rows painted — the import worker works out the part (every call's arguments parsed
 *   and checked), sends it across, and the panel renders the rows in view;
 * - from the file: handing over the bytes with the Tools view shown, to its first rows (informational);
 *   each the median of five passes, the file opened anew for each.
 *
 * `npx tsx bench/tools.ts` prints the numbers; bench/run.ts calls `toolsBench()`.
 */
import { pathToFileURL } from 'node:url';
import type { CapturedExchange } from '../src/exchange/index.ts';
import { writeHar } from '../src/formats/index.ts';
import { buildExtension, launchChromium } from '../test/e2e/browsers.ts';
import { formatSection, measuresSection, median, type Measure } from './report.ts';

const CALLS = 10_000;
const RUNS = 5;

function recording(): string {
  const enc = new TextEncoder();
  const tool = {
    name: 'place_marker', description: 'Puts a marker on the map',
    parameters: { type: 'object', properties: { lat: { type: 'number', minimum: -90, maximum: 90 }, lng: { type: 'number' }, label: { type: 'string', maxLength: 40 } }, required: ['lat', 'lng'], additionalProperties: false },
  };
  const sse = (e: unknown): string => `data: ${JSON.stringify(e)}\n\n`;
  const chunks: { time: number; bytes: Uint8Array }[] = [];
  const push = (time: number, text: string) => chunks.push({ time, bytes: enc.encode(text) });
  push(10, sse({ type: 'RUN_STARTED', threadId: 't', runId: 'r' }) + sse({ type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' }) + sse({ type: 'TEXT_MESSAGE_END', messageId: 'm' }));
  for (let i = 0; i < CALLS; i++) {
    const id = `call-${i}`;
    const args = i % 10 === 9 ? { lat: 120, lng: 'east', extra: true } : { lat: (i % 180) - 90, lng: i % 360, label: `marker ${i}` };
    push(20 + i, sse({ type: 'TOOL_CALL_START', toolCallId: id, toolCallName: tool.name, parentMessageId: 'm' }) + sse({ type: 'TOOL_CALL_ARGS', toolCallId: id, delta: JSON.stringify(args) }) + sse({ type: 'TOOL_CALL_END', toolCallId: id }));
  }
  push(20 + CALLS, sse({ type: 'RUN_FINISHED', threadId: 't', runId: 'r' }));
  const x: CapturedExchange = {
    source: 'bench', url: 'http://127.0.0.1:9/agent', method: 'POST', status: 200, startedDateTime: '2026-01-01T00:00:00.000Z', requestContentType: 'application/json',
    requestBody: JSON.stringify({ threadId: 't', runId: 'r', protocolVersion: '1.0', messages: [], tools: [tool] }),
    responseContentType: 'text/event-stream', chunks, arrival: 'chunks',
  };
  return writeHar([x], { creator: { name: 'bench', version: '0' } });
}

export async function toolsBench(): Promise<Measure[]> {
  const har = recording();
  const b = await launchChromium({ extDir: await buildExtension('chrome') });
  try {
    const page = await b.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${b.base}panel/index.html?view=tools`);
    await page.waitForFunction(() => window.__aguiPanel !== undefined);
    // tsx compiles with keepNames: nested functions in evaluated source call esbuild's __name helper.
    await page.evaluate('globalThis.__name = (f) => f');
    const runs: { fromFile: number; firstScreen: number; rows: number; invalid: number }[] = [];
    for (let i = 0; i < RUNS; i++) {
      runs.push(await page.evaluate(async ([text, calls]) => {
        const frame = (): Promise<void> => new Promise((res) => requestAnimationFrame(() => setTimeout(res, 0)));
        const until = async (what: string, ok: () => boolean): Promise<void> => {
          const end = performance.now() + 60_000;
          while (!ok()) {
            if (performance.now() > end) throw new Error(`tools bench: no ${what}`);
            await new Promise((res) => setTimeout(res, 0));
          }
        };
        const rows = (): boolean => document.querySelector('[data-testid=tool-call]') !== null;
        const bytes = new TextEncoder().encode(text);
        await new Promise((res) => requestIdleCallback(res));
        // As when the panel opens on an exchange the worker has analysed: the part is asked for the first time.
        await window.__aguiPanel!.openFile(bytes, 'tools.har', 'input');
        await frame();
        const t1 = performance.now();
        document.querySelector<HTMLElement>('[data-testid=tab-tools]')!.click();
        await until('tool rows', rows);
        await frame();
        const firstScreen = performance.now() - t1;
        await new Promise((res) => requestIdleCallback(res));
        const t0 = performance.now();
        const done = window.__aguiPanel!.openFile(bytes, 'tools.har', 'tools');
        await until('tool rows from the file', rows);
        await frame();
        const fromFile = performance.now() - t0;
        await done;
        // The import worker answers while it analyses, so the view on screen may still hold an answer from
        // before the last slice: the figures are read from the answer about the whole file.
        const summary = (): string => document.querySelector('[data-testid=tools-summary]')?.textContent ?? '';
        const n = (re: RegExp): number => Number(re.exec(summary())?.[1] ?? NaN);
        await until('the whole file\'s tool calls', () => n(/^(\d+) tool calls/) === calls).catch(() => undefined);
        return { fromFile, firstScreen, rows: n(/^(\d+) tool calls/), invalid: n(/(\d+) with arguments/) };
      }, [har, CALLS] as const));
    }
    for (const r of runs) if (r.rows !== CALLS || r.invalid !== CALLS / 10) throw new Error(`tools bench: unexpected view (${r.rows} calls, ${r.invalid} invalid)`);
    const m = (k: 'fromFile' | 'firstScreen'): number => Math.round(median(runs.map((r) => r[k])));
    const each = (k: 'fromFile' | 'firstScreen'): string => `median of ${RUNS}; runs ${runs.map((r) => Math.round(r[k])).join(', ')} ms`;
    return [
      { name: `panel: Tools view of ${CALLS.toLocaleString('en')} tool calls, first screen`, value: m('firstScreen'), unit: 'ms', target: '< 300', note: each('firstScreen') },
      { name: `panel: Tools view of ${CALLS.toLocaleString('en')} tool calls, from opening the file`, value: m('fromFile'), unit: 'ms', note: each('fromFile') },
    ];
  } finally {
    await b.close();
  }
}

export const TOOLS_TITLE = 'The Tools view in real Chromium: 10,000 tool calls, every tenth rejected by its schema';

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(formatSection(measuresSection(TOOLS_TITLE, await toolsBench())));
}
