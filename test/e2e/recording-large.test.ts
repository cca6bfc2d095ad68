/**
 * A 100 MB recording imported into the panel (Chromium, built extension): the panel keeps painting
 * (no gap between animation frames over 100 ms while the file is read, parsed and analysed), the
 * progress bar moves, and the imported session renders.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startDemoAgent } from '../../demo/agent.ts';
import { demoInput, recordDemoSession } from '../../demo/record.ts';
import type { CapturedExchange, Chunk } from '../../src/formats/exchange.ts';
import { writeHar } from '../../src/formats/har.ts';
import { buildExtension, launchChromium, type ChromiumBrowser } from './browsers.ts';
import { importThroughPicker, openPanel } from './recording-panel.ts';

const TARGET_BYTES = 100 * 1024 * 1024;
const EVENTS_PER_EXCHANGE = 1000;
const CHUNK = 64 * 1024;

/** A long streamed answer: about a megabyte of SSE, delivered in 64 KB reads. */
function largeExchange(n: number, base: string): CapturedExchange {
  const threadId = `thread-large-${n}`;
  const runId = `run-large-${n}`;
  const messageId = `${runId}:reply`;
  const sse = (e: object): string => `data: ${JSON.stringify(e)}\n\n`;
  const parts = [sse({ type: 'RUN_STARTED', threadId, runId, protocolVersion: '1.0' }), sse({ type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' })];
  for (let i = 0; i < EVENTS_PER_EXCHANGE; i++) {
    parts.push(sse({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta: `Paragraph ${i} of answer ${n}: ${'lorem ipsum dolor sit amet '.repeat(36)}` }));
  }
  parts.push(sse({ type: 'TEXT_MESSAGE_END', messageId }), sse({ type: 'RUN_FINISHED', threadId, runId }));
  const body = new TextEncoder().encode(parts.join(''));
  const chunks: Chunk[] = [];
  for (let at = 0; at < body.length; at += CHUNK) chunks.push({ time: 5 + at / CHUNK, bytes: body.subarray(at, at + CHUNK) });
  return {
    source: `large#${n}`, url: `${base}/agent/chat`, method: 'POST', status: 200, startedDateTime: new Date(Date.UTC(2025, 0, 1, 0, 0, n)).toISOString(),
    requestContentType: 'application/json', requestBody: JSON.stringify(demoInput({ threadId, runId })),
    responseContentType: 'text/event-stream', chunks,
  };
}

describe('importing a 100 MB recording (Chromium)', () => {
  let b: ChromiumBrowser;
  const dir = mkdtempSync(join(tmpdir(), 'agui-large-'));
  const file = join(dir, 'large.har');
  let count = 0;

  before(async () => {
    const agent = await startDemoAgent({ port: 0, delayMs: 0, page: false });
    const real = await recordDemoSession(agent.url);
    await agent.close();
    const exchanges = [...real];
    let bytes = 0;
    for (let n = 0; bytes < TARGET_BYTES; n++) {
      const x = largeExchange(n, agent.url);
      // Counted short of what the HAR will hold (JSON-escaped text, the request), so the file reaches the target.
      bytes += x.chunks.reduce((s, c) => s + c.bytes.length, 0) * 0.95;
      exchanges.push(x);
    }
    writeFileSync(file, writeHar(exchanges, { creator: { name: 'recording-large.test', version: '1' } }));
    count = exchanges.length;
    b = await launchChromium({ extDir: await buildExtension('chrome') });
  });

  after(async () => {
    await b?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('stays responsive, shows progress, renders the session', async (t) => {
    const size = statSync(file).size;
    assert.ok(size >= TARGET_BYTES, `the file is ${size} bytes`);
    const panel = await openPanel(b);
    await panel.bringToFront();
    await panel.evaluate(() => {
      const m = { worst: 0, frames: 0, values: [] as number[], phases: [] as string[], running: true };
      let last = performance.now();
      const tick = (): void => {
        const now = performance.now();
        m.worst = Math.max(m.worst, now - last);
        m.frames++;
        last = now;
        if (m.running) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
      new MutationObserver(() => {
        const bar = document.querySelector<HTMLElement>('[data-testid=import-progress]');
        if (!bar) return;
        const v = Number(bar.getAttribute('aria-valuenow'));
        if (m.values.at(-1) !== v) m.values.push(v);
        if (m.phases.at(-1) !== bar.dataset.phase) m.phases.push(bar.dataset.phase!);
      }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-valuenow', 'data-phase'] });
      (window as unknown as { __monitor: typeof m }).__monitor = m;
    });
    const t0 = Date.now();
    await importThroughPicker(panel, file);
    const ms = Date.now() - t0;
    const m = await panel.evaluate(() => {
      const m = (window as unknown as { __monitor: { worst: number; frames: number; values: number[]; phases: string[]; running: boolean } }).__monitor;
      m.running = false;
      return m;
    });
    t.diagnostic(`${(size / 1024 / 1024).toFixed(1)} MB, ${count} exchanges imported in ${ms} ms; worst gap between frames ${m.worst.toFixed(1)} ms over ${m.frames} frames; progress ${m.values.join(' → ')}`);
    assert.ok(m.frames > 10, 'the panel painted while importing');
    assert.ok(m.worst < 100, `the longest gap between frames was ${m.worst.toFixed(1)} ms`);
    assert.deepEqual(m.phases, ['reading', 'parsing', 'analysing']);
    assert.ok(new Set(m.values).size >= 3, `progress went through ${m.values.join(', ')}`);
    assert.deepEqual(m.values, [...m.values].sort((a, c) => a - c), 'progress only increases');

    const shown = await panel.evaluate(async () => {
      const frame = (): Promise<void> => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      const rows = [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')];
      rows.at(-1)!.click();
      document.querySelector<HTMLElement>('[data-testid=tab-timeline]')!.click();
      await frame();
      return {
        rows: rows.length,
        verdicts: [...new Set(rows.map((r) => r.dataset.verdict))].sort(),
        events: document.querySelector('[data-testid=timeline-count]')?.textContent,
        first: document.querySelector<HTMLElement>('[data-testid=timeline-row]')?.dataset.type,
      };
    });
    assert.equal(shown.rows, count);
    assert.deepEqual(shown.verdicts, ['completed', 'failed'], 'the demo session has failing exchanges, the large ones complete');
    assert.equal(shown.events, `${EVENTS_PER_EXCHANGE + 4} events`);
    assert.equal(shown.first, 'RUN_STARTED');
  });
});
