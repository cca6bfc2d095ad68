import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ExchangeAnalyzer } from '../../src/analyzer/index.ts';
import { realisticStream } from '../../bench/stream.ts';
import { chunk, encodeSse, SSE } from './support/harness.ts';
import { FAMILIES, measureScaling, viaAnalyzer, viaCli, type Scaling } from './support/scaling.ts';

/**
 * Every stage of the analyzer — wire decoding, enforcement, chunk expansion, discipline, runs, state —
 * costs what its input costs: doubling a stream of any event family at most roughly doubles the time.
 * Quadratic work shows as a ratio near 4; the bound of 3 leaves room for noise, and a ratio over it is
 * measured again before it counts, so only a stage that is slow every time fails. Times are CPU time
 * (support/scaling.ts), which a loaded machine does not inflate.
 */
const BOUND = 3;
const ATTEMPTS = 3;

describe('scaling: the analyzer is linear in its input', () => {
  for (const f of FAMILIES) {
    for (const [path, read] of [['ExchangeAnalyzer', viaAnalyzer], ['analyzeExchanges', viaCli]] as const) {
      it(`${f.name} (${path})`, () => {
        const tries: Scaling[] = [];
        for (let i = 0; i < ATTEMPTS && !tries.some((t) => t.ratio <= BOUND); i++) tries.push(measureScaling(f, read));
        const best = tries.reduce((a, b) => (a.ratio <= b.ratio ? a : b));
        assert.ok(best.ratio <= BOUND, `${f.name}: n = ${f.n} took ${best.ms[0].toFixed(1)} ms, 2n took ${best.ms[1].toFixed(1)} ms (×${best.ratio.toFixed(2)}, over ×${BOUND} in ${tries.length} attempts)`);
      });
    }
  }
});

/**
 * What the analyzer keeps is what a consumer holds (the conversation, open items, state), never a record
 * per event: twice the stream keeps at most twice the heap. Measured after full collections, with the body
 * allocated before the baseline; ALLOWANCE is the collector's own noise (about ±100 KB a measure, bench/memory.ts,
 * so up to twice that between two; a clean-clone run read 2n 9 KB over 2 × n + 256 KB). A record per event
 * would keep megabytes more.
 */
const ALLOWANCE = 512 * 1024;

function retainedHeap(events: number): number {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const heap = (): number => {
    for (let i = 0; i < 3; i++) gc();
    return process.memoryUsage().heapUsed;
  };
  const { input, events: stream } = realisticStream(events, 1);
  const chunks = chunk(encodeSse(stream), () => 16 * 1024);
  stream.length = 0;
  const before = heap();
  const a = new ExchangeAnalyzer({ source: 'scaling', requestBody: JSON.stringify(input), contentType: SSE });
  for (const c of chunks) a.push(c, 0);
  a.end(0);
  const after = heap();
  // Both stay reachable until here: a body collected mid-measure would count as negative retention.
  assert.equal(a.report().verdict, 'completed');
  assert.ok(chunks.length > 0);
  return after - before;
}

describe('scaling: the retained heap is linear in the input', () => {
  it('bench/stream.ts mix, n = 20,000 and 40,000 events (ExchangeAnalyzer)', () => {
    const [one, two] = [retainedHeap(20_000), retainedHeap(40_000)];
    assert.ok(two <= 2 * one + ALLOWANCE, `n kept ${(one / 1024).toFixed(0)} KB, 2n kept ${(two / 1024).toFixed(0)} KB (×${(two / one).toFixed(2)}, over ×2)`);
  });
});
