/**
 * The run tree of a thread whose last exchange is a reconnect: its stream replays n earlier runs, each
 * delegating to two subagents, then the requested run. `runTree` alone at n and 2n runs; taking each
 * run's invocations by binary search keeps 2n / n near 2 where a pass over them per run made it 4.
 *
 * `npx tsx bench/run-tree.ts` prints it; bench/run.ts calls `runTreeBench()` (`npm run bench -- run tree`).
 */
import { fileURLToPath } from 'node:url';
import { ExchangeReading, runTree, type ThreadExchange } from '../src/detail/index.ts';
import { formatSection, median, type Section } from './report.ts';

function reconnect(runs: number): ThreadExchange {
  const run = (i: number): object[] => [
    { type: 'RUN_STARTED', threadId: 't', runId: `run-${i}` },
    ...['researcher', 'drafter'].flatMap((name) => [
      { type: 'SUBAGENT_STARTED', subagentRunId: `${name}-${i}`, name },
      { type: 'SUBAGENT_FINISHED', subagentRunId: `${name}-${i}` },
    ]),
    { type: 'RUN_FINISHED', threadId: 't', runId: `run-${i}` },
  ];
  const r = new ExchangeReading({
    source: 'bench', contentType: 'text/event-stream', status: 200,
    requestBody: JSON.stringify({ threadId: 't', runId: `run-${runs}`, protocolVersion: '1.0', messages: [], tools: [], context: [], state: {}, forwardedProps: {} }),
  });
  r.push(new TextEncoder().encode(Array.from({ length: runs + 1 }, (_, i) => run(i)).flat().map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')), 0);
  r.end(0);
  const report = r.report();
  return { exchangeId: 'x', report, subagents: r.part('subagents', report) };
}

/** Median wall ms of `runTree` over the one exchange, after a warm-up. */
function timed(x: ThreadExchange): number {
  runTree([x]);
  return median(Array.from({ length: 7 }, () => {
    const t = performance.now();
    runTree([x]);
    return performance.now() - t;
  }));
}

export async function runTreeBench(): Promise<Section[]> {
  const rows = [2000, 8000].map((n) => {
    const [a, b] = [timed(reconnect(n)), timed(reconnect(2 * n))];
    return [n, a.toFixed(1), 2 * n, b.toFixed(1), `${(b / a).toFixed(2)}×`];
  });
  return [{
    title: 'Run tree: a reconnect replaying n runs of two subagent invocations each, at n and 2n',
    columns: ['n', 'ms at n', '2n', 'ms at 2n', '2n / n'],
    rows,
    notes: ['wall ms of runTree() alone (the exchange read and analysed once before), median of 7; linear-ish work keeps 2n / n near 2, a pass over every invocation per run 4'],
  }];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) for (const s of await runTreeBench()) console.log(formatSection(s));
