import { FAMILIES, measureScaling, viaAnalyzer, viaCli } from '../test/analyzer/support/scaling.ts';
import type { Section } from './report.ts';

const BOUND = 3;

/** Each event family at n and 2n through both paths, and the ratio that linear work keeps near 2. */
export async function scaling(): Promise<Section[]> {
  const rows: (string | number)[][] = [];
  let over = 0;
  for (const f of FAMILIES) {
    for (const [path, read] of [['analyzer', viaAnalyzer], ['cli', viaCli]] as const) {
      const s = measureScaling(f, read, { iterations: 7 });
      if (s.ratio > BOUND) over++;
      rows.push([f.name, path, f.n, (s.bytes[0] / 1e6).toFixed(2), s.ms[0].toFixed(1), s.ms[1].toFixed(1), `${s.ratio.toFixed(2)}×`]);
    }
  }
  return [{
    title: 'Scaling: each event family at n and 2n',
    columns: ['family', 'path', 'n', 'MB at n', 'ms at n', 'ms at 2n', '2n / n'],
    rows,
    notes: [
      `target: every ratio ≤${BOUND}× (linear work ≈2×, quadratic ≈4×): ${over === 0 ? 'met' : `MISSED by ${over}`}`,
      'analyzer: ExchangeAnalyzer over 16 KB chunks (1 KB for the wire family), recording state steps and reading the last (the extension); cli: the file read whole, then analyzeExchanges (agui-inspector check)',
      'CPU ms of this process, median of 7 after 2 warm-up runs, n and 2n taking turns; test/analyzer/scaling.test.ts asserts the same ratios',
    ],
  }];
}
