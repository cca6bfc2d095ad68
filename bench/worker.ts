/**
 * The worker's responsiveness in real Chromium while one tab receives a pathological answer (issue
 * #10: a ~450 KB state snapshot, then single-op STATE_DELTAs, test/e2e/heavy-stream.ts): the round
 * trip of a session-summary request from an extension page, asked every 10 ms until the worker has
 * analysed the whole answer; then the same while a restarted worker replays its stored log.
 *
 *   npx tsx bench/worker.ts
 */
import { pathToFileURL } from 'node:url';
import { buildExtension, launchChromium, until } from '../test/e2e/browsers.ts';
import { DELTAS, firstAnswer, heavyBody, readHeavy, startHeavyServer, workerResponseTimes } from '../test/e2e/heavy-stream.ts';
import { formatSection, measuresSection, percentile, type Measure } from './report.ts';

const TARGET_P95_MS = 100;

export async function workerBench(): Promise<Measure[]> {
  const { body, events } = heavyBody(DELTAS);
  const server = await startHeavyServer(body);
  const b = await launchChromium({ extDir: await buildExtension('chrome') });
  try {
    const page = await b.newPage();
    await page.goto(`${server.url}/`);
    const tabId = await b.tabIdOf(page.url());
    const t0 = performance.now();
    const probing = workerResponseTimes(b, tabId, events);
    await readHeavy(page);
    const live = await probing;
    const analysed = performance.now() - t0;
    await until('everything stored', async () => (await b.request({ type: 'agui-inspector/sessions' })).find((s) => s.tabId === tabId)?.stats.unsaved.messages === 0, 60_000);
    await b.stopWorker();
    const startup = await firstAnswer(b);
    const t1 = performance.now();
    const replay = await workerResponseTimes(b, tabId, events);
    const replayed = performance.now() - t1;

    const rows = (what: string, times: number[]): Measure[] => {
      const p95 = percentile(times, 95);
      return [
        { name: `worker response, ${what}, median`, value: Math.round(percentile(times, 50) * 10) / 10, unit: 'ms', note: `${times.length} requests, 10 ms apart; max ${Math.round(Math.max(...times))} ms` },
        { name: `worker response, ${what}, p95`, value: Math.round(p95 * 10) / 10, unit: 'ms', target: `< ${TARGET_P95_MS}`, note: p95 < TARGET_P95_MS ? 'met' : 'MISSED' },
      ];
    };
    const mb = (body.length / 1e6).toFixed(2);
    return [
      ...rows('while a tab streams it', live),
      { name: 'worker: stream read and analysed', value: Math.round(analysed), unit: 'ms', note: `${mb} MB, ${events} events` },
      { name: 'worker: first answer after a stop (start-up)', value: Math.round(startup), unit: 'ms', note: 'Chrome starts the worker, which loads its code and opens its store' },
      ...rows('while a restarted worker replays it', replay),
      { name: 'worker: restarted and replayed', value: Math.round(replayed), unit: 'ms' },
    ];
  } finally {
    await b.close();
    await server.close();
  }
}

export const WORKER_TITLE = `The worker in real Chromium: answering while a tab receives a pathological stream (a 450 KB snapshot, ${DELTAS} deltas)`;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(formatSection(measuresSection(WORKER_TITLE, await workerBench())));
}
