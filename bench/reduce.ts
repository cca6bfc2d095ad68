import { analyzeExchanges } from '../src/analyzer/index.ts';
import { exchangesOf, reduce } from '../src/library/index.ts';
import { PLANT_RULES, session, sse, type Plant } from '../test/library/support/session.ts';
import { median, type Section } from './report.ts';

const TARGET_MS = 30_000;

/** One reduction of a planted exchange of about `events` events: wall ms and analyses. */
function once(plant: Plant, events: number): { ms: number; analyses: number; kept: number; n: number } {
  const s = session({ events, plant });
  const [x] = exchangesOf(sse(s.events, 40), { input: s.input });
  const [report] = analyzeExchanges([x!]);
  const t = performance.now();
  const r = reduce(x!, report!);
  return { ms: performance.now() - t, analyses: r.analyses, kept: r.events.length, n: s.events.length };
}

/** reduce at 5,000 and 10,000 events for each planted violation, and the ratio linear work keeps near 2. */
export async function reduceBench(): Promise<Section[]> {
  const rows: (string | number)[][] = [];
  let worst = 0;
  for (const plant of Object.keys(PLANT_RULES) as Plant[]) {
    const at = (n: number) => {
      const runs = [once(plant, n), once(plant, n), once(plant, n)];
      return { ...runs[0]!, ms: median(runs.map((r) => r.ms)) };
    };
    const [a, b] = [at(5000), at(10_000)];
    worst = Math.max(worst, b.ms);
    rows.push([plant, a.n, a.ms.toFixed(0), b.n, b.ms.toFixed(0), `${(b.ms / a.ms).toFixed(2)}×`, b.analyses, b.kept]);
  }
  return [{
    title: 'reduce: a planted violation in a realistic stream, at n and 2n events',
    columns: ['plant', 'n', 'ms at n', '2n', 'ms at 2n', '2n / n', 'analyses at 2n', 'events kept'],
    rows,
    notes: [
      `target: 10,000 events in under ${TARGET_MS / 1000} s: ${worst < TARGET_MS ? 'met' : 'MISSED'} (slowest ${(worst / 1000).toFixed(1)} s); linear work keeps 2n / n near 2`,
      'wall ms of reduce() alone (the exchange read and analysed once before), median of 3; SSE body with a keep-alive every 40 frames, input with history, tools, context and state',
    ],
  }];
}
