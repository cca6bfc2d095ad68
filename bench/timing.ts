/**
 * What the timing model costs the analysis: the 100,000-event body analysed alone and analysed with the
 * timing fed by the same pass (its hooks and every chunk), in ABBA order so that JIT state and GC debt
 * fall on both alike; the medians side by side and their ratio against the target of at most +5 %.
 *
 * `npx tsx bench/timing.ts` prints it; bench/run.ts calls `timingBench()` (`npm run bench -- timing`).
 */
import { fileURLToPath } from 'node:url';
import { analyzeExchange } from '../src/analyzer/index.ts';
import { TimingReading } from '../src/detail/index.ts';
import { chunk, encodeSse, SSE } from '../test/analyzer/support/harness.ts';
import { formatSection, median, type Section } from './report.ts';
import { realisticStream } from './stream.ts';

const EVENTS = 100_000;
const RUNS = 5;
const CHUNK = 16 * 1024;
const ROUNDS = 8;
const TARGET = 1.05;

export async function timingBench(): Promise<Section[]> {
  const { input, events } = realisticStream(EVENTS, RUNS);
  const requestBody = JSON.stringify(input);
  // Each chunk arrives 3 ms after the one before: the timing has gaps to count and spans to date.
  const chunks = chunk(encodeSse(events), () => CHUNK).map((bytes, i) => ({ time: i * 3, bytes }));
  const x = { source: 'bench', requestBody, responseContentType: SSE };
  const plain = (): void => {
    if (analyzeExchange(x, chunks).verdict !== 'completed') throw new Error('the benchmark stream must be conforming');
  };
  let spans = 0;
  const timed = (): void => {
    const t = new TimingReading({ arrival: 'chunks' });
    if (analyzeExchange(x, t.tap(chunks), { hooks: t.hooks }).verdict !== 'completed') throw new Error('the benchmark stream must be conforming');
    const figures = t.timing();
    spans = figures.messages!.length + figures.toolCalls!.length;
  };
  // CPU time of this process rather than the wall clock: the machine is shared, and another process's
  // work would otherwise land on whichever contender ran beside it.
  const once = (fn: () => void): number => {
    const t0 = process.cpuUsage();
    fn();
    const d = process.cpuUsage(t0);
    return (d.user + d.system) / 1000;
  };
  const a: number[] = [];
  const b: number[] = [];
  const ratios: number[] = [];
  once(plain);
  once(timed);
  for (let i = 0; i < ROUNDS; i++) {
    const [a1, b1, b2, a2] = [once(plain), once(timed), once(timed), once(plain)];
    a.push(a1, a2);
    b.push(b1, b2);
    ratios.push((b1 + b2) / (a1 + a2));
  }
  const ms = { plain: median(a), timed: median(b) };
  const ratio = median(ratios);
  return [{
    title: `Timing: the analysis of a ${events.length.toLocaleString('en')}-event SSE body, without and with the timing model`,
    columns: ['analysis', 'median CPU ms', 'ratio'],
    rows: [['analysis alone', ms.plain.toFixed(1), '1.000'], ['analysis + timing', ms.timed.toFixed(1), ratio.toFixed(3)]],
    notes: [
      `timing adds ${((ratio - 1) * 100).toFixed(1)} % (target ≤ +${((TARGET - 1) * 100).toFixed(0)} %: ${ratio <= TARGET ? 'met' : 'MISSED'}); ${spans.toLocaleString('en')} message and tool spans dated`,
      `ABBA order, ${ROUNDS} rounds after a warm-up of each; the ratio is the median of each round's (B+B)/(A+A); ${CHUNK / 1024} KB chunks 3 ms apart`,
    ],
  }];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) for (const s of await timingBench()) console.log(formatSection(s));
