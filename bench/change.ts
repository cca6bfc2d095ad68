/**
 * State time travel: an exchange whose input carries a 1 MB state, then one-path STATE_DELTAs; the
 * scrubber moved one step at a time, backwards from the latest (the order that replays most) then
 * forwards, each move being one `stateDiff` as the worker answers it. p95 per move against the target
 * of 50 ms, at 1,000 and 2,000 steps side by side: a move must cost the same whatever the step count.
 *
 * `npx tsx bench/change.ts` prints it; bench/run.ts calls `changeBench()` (`npm run bench -- change`).
 */
import { fileURLToPath } from 'node:url';
import { ExchangeReading } from '../src/detail/index.ts';
import { formatSection, percentile, type Section } from './report.ts';

const TARGET_MS = 50;

function exchangeOf(steps: number): ExchangeReading {
  const state = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`key${i}`, { text: 'x'.repeat(480), n: i }]));
  const r = new ExchangeReading({
    source: 'bench', contentType: 'text/event-stream', status: 200,
    requestBody: JSON.stringify({ threadId: 't', runId: 'r', protocolVersion: '1.0', messages: [], tools: [], context: [], state, forwardedProps: {} }),
  });
  const events = [
    { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
    ...Array.from({ length: steps }, (_, i) => ({ type: 'STATE_DELTA', delta: [{ op: 'replace', path: `/key${i % 2000}/n`, value: -i - 1 }] })),
    { type: 'RUN_FINISHED', threadId: 't', runId: 'r' },
  ];
  events.forEach((e, i) => r.push(new TextEncoder().encode(`data: ${JSON.stringify(e)}\n\n`), i));
  r.end(events.length);
  return r;
}

function scrub(steps: number): { p95: number; median: number } {
  const r = exchangeOf(steps);
  const times: number[] = [];
  const move = (n: number): void => {
    const t0 = performance.now();
    if (r.stateDiff(n)?.changes.length !== 1) throw new Error(`step ${n} must change one path`);
    times.push(performance.now() - t0);
  };
  for (let n = steps - 1; n >= 0; n--) move(n);
  for (let n = 0; n < steps; n++) move(n);
  return { p95: percentile(times, 95), median: percentile(times, 50) };
}

export async function changeBench(): Promise<Section[]> {
  const rows = [1000, 2000].map((steps) => ({ steps, ...scrub(steps) }));
  const worst = Math.max(...rows.map((r) => r.p95));
  return [{
    title: 'State time travel: one scrubber move (stateDiff) on a 1 MB state with one-path deltas',
    columns: ['state steps', 'median ms', 'p95 ms'],
    rows: rows.map((r) => [r.steps, r.median.toFixed(2), r.p95.toFixed(2)]),
    notes: [`p95 ${worst.toFixed(2)} ms (target < ${TARGET_MS} ms: ${worst < TARGET_MS ? 'met' : 'MISSED'}); every step visited backwards from the latest, then forwards; doubling the steps should leave a move's cost as it is`],
  }];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) for (const s of await changeBench()) console.log(formatSection(s));
