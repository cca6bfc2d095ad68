/**
 * A recording of about 100 MB: the real demo session followed by long streamed answers, and a watch on
 * the panel while it imports one. The e2e test checks what the import shows; `npm run bench` measures
 * how smoothly the panel paints through it. And a long exchange recorded with its arrival times, for the
 * Waterfall.
 */
import { statSync, writeFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { demoInput, recordFromOwnAgent } from '../../demo/record.ts';
import type { CapturedExchange, Chunk } from '../../src/exchange/exchange.ts';
import { writeHar } from '../../src/formats/har.ts';
import { realisticStream } from '../../bench/stream.ts';
import { chunk, encodeSse, SSE } from '../analyzer/support/harness.ts';
import { importThroughPicker } from './recording-panel.ts';

export const LARGE_BYTES = 100 * 1024 * 1024;
export const EVENTS_PER_EXCHANGE = 1000;
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

/** Writes the HAR to `file`; returns its size and how many exchanges it holds. */
export async function writeLargeRecording(file: string): Promise<{ size: number; count: number }> {
  const { session, base } = await recordFromOwnAgent();
  const exchanges = [...session];
  let bytes = 0;
  for (let n = 0; bytes < LARGE_BYTES; n++) {
    const x = largeExchange(n, base);
    // Counted short of what the HAR will hold (JSON-escaped text, the request), so the file reaches the target.
    bytes += x.chunks.reduce((s, c) => s + c.bytes.length, 0) * 0.95;
    exchanges.push(x);
  }
  writeFileSync(file, writeHar(exchanges, { creator: { name: 'large-recording', version: '1' } }));
  return { size: statSync(file).size, count: exchanges.length };
}

/**
 * A HAR of one exchange of `events` events in bench/stream.ts's mix (some 8 spans per 100 events) whose
 * 16 KB chunks arrived 3 ms apart, as bench/timing.ts times it.
 */
export function timedRecording(events: number): string {
  const { input, events: stream } = realisticStream(events, 5);
  const chunks = chunk(encodeSse(stream), () => 16 * 1024).map((bytes, i) => ({ time: i * 3, bytes }));
  return writeHar(
    [{ source: 'bench', url: 'http://127.0.0.1:9/agent', method: 'POST', status: 200, startedDateTime: '2026-01-01T00:00:00.000Z', requestContentType: 'application/json', requestBody: JSON.stringify(input), responseContentType: SSE, chunks, arrival: 'chunks' }],
    { creator: { name: 'timed-recording', version: '0' } },
  );
}

export interface ImportWatch {
  ms: number;
  /** The longest gap between two animation frames while importing. */
  worstFrameGap: number;
  frames: number;
  /** Progress values in the order the bar took them, and the phases it named. */
  values: number[];
  phases: string[];
  /** Distinct progress values the bar held at an animation frame: each one was painted. */
  painted: number;
}

/** Imports `file` through the panel's picker, watching every animation frame and every progress change. */
export async function importWatched(panel: Page, file: string): Promise<ImportWatch> {
  await panel.bringToFront();
  await panel.evaluate(() => {
    const m = { worst: 0, frames: 0, values: [] as number[], phases: [] as string[], painted: [] as number[], running: true };
    const progress = (): HTMLElement | null => document.querySelector<HTMLElement>('[data-testid=import-progress]');
    let last = performance.now();
    const tick = (): void => {
      const now = performance.now();
      m.worst = Math.max(m.worst, now - last);
      m.frames++;
      last = now;
      const bar = progress();
      if (bar) {
        const v = Number(bar.getAttribute('aria-valuenow'));
        if (!m.painted.includes(v)) m.painted.push(v);
      }
      if (m.running) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    new MutationObserver(() => {
      const bar = progress();
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
    const m = (window as unknown as { __monitor: { worst: number; frames: number; values: number[]; phases: string[]; painted: number[]; running: boolean } }).__monitor;
    m.running = false;
    return m;
  });
  return { ms, worstFrameGap: m.worst, frames: m.frames, values: m.values, phases: m.phases, painted: m.painted.length };
}
