import { ExchangeAnalyzer } from '../src/analyzer/index.ts';
import { chunk, encodeProto, encodeSse, PROTO, runReference, SSE } from '../test/analyzer/support/harness.ts';
import { median, throughputRow, type Section } from './report.ts';
import { realisticStream } from './stream.ts';

const EVENTS = 100_000;
const RUNS = 5;
const CHUNK = 16 * 1024;
const WARMUP = 3;
const ITERATIONS = 7;
const TARGET_RATIO = 5.5;
const TARGET_MBPS = 50;

/** Medians of each contender, taking turns so that GC debt and JIT state are shared fairly. */
async function race(contenders: (() => unknown)[]): Promise<number[]> {
  const samples: number[][] = contenders.map(() => []);
  for (let i = 0; i < WARMUP + ITERATIONS; i++) {
    for (const [k, fn] of contenders.entries()) {
      const t0 = performance.now();
      await fn();
      const ms = performance.now() - t0;
      if (i >= WARMUP) samples[k]!.push(ms);
    }
  }
  return samples.map(median);
}

/** Decode + validate + verify, start to verdict: what a panel or the CLI pays per exchange. */
function analyze(chunks: Uint8Array[], contentType: string, requestBody: string): void {
  const a = new ExchangeAnalyzer({ source: 'bench', requestBody, contentType });
  for (const c of chunks) a.push(c, 0);
  a.end(0);
  if (a.report().verdict !== 'completed') throw new Error('the benchmark stream must be conforming');
}

async function reference(chunks: Uint8Array[], contentType: string, input: unknown): Promise<void> {
  const r = await runReference(chunks, contentType, input);
  if (r.rejected) throw new Error(`the reference rejected the benchmark stream: ${r.error}`);
}

/** Throughput of this analyzer and of @ag-ui/client's pipeline on the same bytes, side by side. */
export async function throughput(): Promise<Section[]> {
  const { input, events } = realisticStream(EVENTS, RUNS);
  const body = JSON.stringify(input);
  const rows: (string | number)[][] = [];
  const notes: string[] = [];
  for (const [name, contentType, bytes] of [['SSE', SSE, encodeSse(events)], ['protobuf', PROTO, encodeProto(events)]] as const) {
    const chunks = chunk(bytes, () => CHUNK);
    const [ours, theirs] = (await race([() => analyze(chunks, contentType, body), () => reference(chunks, contentType, input)])) as [number, number];
    const mb = bytes.length / 1e6;
    const row = (who: string, ms: number): (string | number)[] => throughputRow(`${name}: ${who}`, events.length, mb, ms);
    rows.push(row('analyzer', ours), row('@ag-ui/client', theirs), [`${name}: ratio`, '', '', '', `${(theirs / ours).toFixed(1)}×`, `${(theirs / ours).toFixed(1)}×`]);
    const ratio = theirs / ours;
    const mbps = mb / (ours / 1000);
    notes.push(`${name}: analyzer is ${ratio.toFixed(1)}× the reference (target ≥${TARGET_RATIO}×: ${ratio >= TARGET_RATIO ? 'met' : 'MISSED'}), ${mbps.toFixed(1)} MB/s (target ≥${TARGET_MBPS}: ${mbps >= TARGET_MBPS ? 'met' : 'MISSED'})`);
  }
  notes.push(`median of ${ITERATIONS} after ${WARMUP} warm-up runs; ${CHUNK / 1024} KB chunks; MB = 10^6 bytes; the reference runs transformHttpEventStream → CompatibilityBoundary → enforceEvents → transformChunks → verifyEvents`);
  return [{ title: `Throughput: decode + validate + verify, ${events.length.toLocaleString('en')} events in ${RUNS} runs`, columns: ['pipeline', 'events', 'MB', 'ms', 'events/s', 'MB/s'], rows, notes }];
}
