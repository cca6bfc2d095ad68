/**
 * The session Overview of a 1,000-exchange session (#37: under 200 ms): what the worker does when the
 * panel asks for it — each reading's report and timing, then the ranked list (detail/reading.ts
 * `overviewOf`). The exchanges are read and analysed once before; a third of them have a problem.
 * And the Overview's search over 100,000 frames (panel/search.ts), the first search (which lower-cases
 * every frame once) and the next ones.
 *
 * `npx tsx bench/overview.ts` prints it; bench/run.ts calls `overviewBench()` (`npm run bench -- overview`).
 */
import { fileURLToPath } from 'node:url';
import { ExchangeReading, overviewOf } from '../src/detail/index.ts';
import { formatSection, median, measuresSection, type Section } from './report.ts';
import type { EventView } from '../src/messages.ts';
import type { PanelExchange } from '../panel/model.ts';
import { searchSession } from '../panel/search.ts';

const enc = new TextEncoder();

/** Exchange `i`: a run of a message and a tool call, its events 20 ms apart; every third one breaks something. */
function exchange(i: number): ExchangeReading {
  const ids = { threadId: `thread-${i}`, runId: `run-${i}` };
  const r = new ExchangeReading({
    source: `x${i}`, contentType: 'text/event-stream', status: 200, arrival: 'chunks',
    requestBody: JSON.stringify({ ...ids, protocolVersion: '1.0', messages: [{ id: 'u', role: 'user', content: 'hi' }] }),
  });
  const events: object[] = [
    { type: 'RUN_STARTED', ...ids, protocolVersion: '1.0' },
    { type: 'TEXT_MESSAGE_START', messageId: `m${i}`, role: 'assistant' },
    ...Array.from({ length: 12 }, () => ({ type: 'TEXT_MESSAGE_CONTENT', messageId: `m${i}`, delta: 'word ' })),
    { type: 'TEXT_MESSAGE_END', messageId: `m${i}` },
    { type: 'TOOL_CALL_START', toolCallId: `c${i}`, toolCallName: 'search' },
    { type: 'TOOL_CALL_ARGS', toolCallId: `c${i}`, delta: '{"q":1}' },
    { type: 'TOOL_CALL_END', toolCallId: `c${i}` },
    { type: 'RUN_FINISHED', ...ids, ...(i % 3 === 0 ? { runId: 'other' } : {}) },
  ];
  // Every fifth exchange stalls 1.5 s after its second event.
  events.forEach((e, k) => r.push(enc.encode(`data: ${JSON.stringify(e)}\n\n`), k * 20 + (i % 5 === 0 && k > 1 ? 1500 : 0)));
  r.end(events.length * 20 + 1500);
  return r;
}

export async function overviewBench(): Promise<Section[]> {
  const readings = Array.from({ length: 1000 }, (_, i) => exchange(i));
  let problems = 0;
  const ms = median(Array.from({ length: 7 }, () => {
    const t = performance.now();
    problems = overviewOf(readings).problems.length;
    return performance.now() - t;
  }));
  // 100 exchanges of 1,000 frames each, as the panel holds them; the word searched is in one frame in fifty.
  const frames = (i: number): EventView[] => Array.from({ length: 1000 }, (_, k) => {
    const raw = JSON.stringify({ type: 'TEXT_MESSAGE_CONTENT', messageId: `m${i}`, delta: k % 50 === 0 ? 'the Needle here' : `word ${k} of exchange ${i}` });
    return { index: k, type: 'TEXT_MESSAGE_CONTENT', offset: 0, size: raw.length, time: k, raw, rawEncoding: 'text' };
  });
  const session = Array.from({ length: 100 }, (_, i) => ({ id: `x${i}`, url: `http://127.0.0.1/agent/${i}`, requestBody: '{"threadId":"t"}', events: frames(i) }) as unknown as PanelExchange);
  let t = performance.now();
  const hits = searchSession(session, 'needle');
  const cold = performance.now() - t;
  const warm = median(Array.from({ length: 7 }, () => {
    t = performance.now();
    searchSession(session, 'needle');
    return performance.now() - t;
  }));
  return [measuresSection('Overview: the ranked problems of a 1,000-exchange session, and a search of 100,000 frames', [
    { name: 'overview of 1,000 exchanges', value: Number(ms.toFixed(1)), unit: 'ms', target: '< 200', note: `${problems} problems; median of 7 (${ms < 200 ? 'met' : 'MISSED'})` },
    { name: 'search of 100,000 frames, first', value: Number(cold.toFixed(1)), unit: 'ms', target: '< 200', note: `${hits.length} exchanges hit; lower-cases every frame once (${cold < 200 ? 'met' : 'MISSED'})` },
    { name: 'search of 100,000 frames, next', value: Number(warm.toFixed(1)), unit: 'ms', target: '< 200', note: `median of 7 (${warm < 200 ? 'met' : 'MISSED'})` },
  ])];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) for (const s of await overviewBench()) console.log(formatSection(s));
