import { analyzeExchange } from '../../src/analyzer/index.ts';
import { TimingReading } from '../../src/detail/index.ts';
import { chunk, encodeSse, SSE } from '../../test/analyzer/support/harness.ts';
import { realisticStream } from '../stream.ts';
import { readFileSync } from "node:fs";
const F = process.env.F;
const { input, events } = F ? { input: JSON.parse(readFileSync(F + "/input.json", "utf8")), events: [] as any[] } : realisticStream(100_000, 5);
const requestBody = JSON.stringify(input);
const chunks = chunk(F ? new Uint8Array(readFileSync(F + "/body.sse")) : encodeSse(events), () => 16 * 1024).map((bytes, i) => ({ time: i * 3, bytes }));
const x = { source: 'bench', requestBody, responseContentType: SSE };
const v = process.env.V ?? 'plain';
const n = Number(process.env.N ?? 3);
function run() {
  if (v === 'plain') { analyzeExchange(x, chunks); return; }
  const t = new TimingReading({ arrival: 'chunks' });
  const h = t.hooks as any;
  const hooks: any = { onInput: h.onInput };
  if (v.includes('a')) hooks.onArrival = h.onArrival;
  if (v.includes('e')) hooks.onEnforced = h.onEnforced;
  if (v.includes('i')) hooks.onItem = h.onItem;
  if (v.includes('n')) hooks.onEnforced = () => {};
  if (v.includes('m')) hooks.onItem = () => {};
  analyzeExchange(x, v.includes('t') ? t.tap(chunks) : chunks, { hooks });
  t.end(); t.timing();
}
const times: number[] = [];
for (let i = 0; i < n; i++) { const t0 = process.cpuUsage(); run(); const d = process.cpuUsage(t0); times.push((d.user + d.system) / 1000); }
console.log(v, n, times.map((t) => t.toFixed(0)).join(' '));
