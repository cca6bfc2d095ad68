import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
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
