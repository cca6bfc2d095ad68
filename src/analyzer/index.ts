/** The analyzer's public surface: what the CLI, the background worker and the panel build on. */
import type { CapturedExchange } from '../formats/exchange.ts';
import type { ProtocolVersion } from '../rules/types.ts';
import { ExchangeAnalyzer } from './exchange.ts';
import { ThreadTracker } from './thread.ts';
import type { ExchangeReport } from './types.ts';

export { ExchangeAnalyzer, type ExchangeAnalyzerOptions } from './exchange.ts';
export { ThreadTracker } from './thread.ts';
export type { InputAnalysis, InputField } from './input.ts';
export type { StateStep } from './state.ts';
export type * from './types.ts';

const SLICE = 1 << 16;

/** Analyses a recorded session in order, so resume coverage is checked across its exchanges. */
export function analyzeExchanges(exchanges: CapturedExchange[], as?: ProtocolVersion): ExchangeReport[] {
  const thread = new ThreadTracker();
  return exchanges.map((x) => {
    const started = x.startedDateTime ? Date.parse(x.startedDateTime) : NaN;
    const a = new ExchangeAnalyzer({
      source: x.source,
      requestBody: x.requestBody,
      contentType: x.responseContentType,
      status: x.status,
      as,
      thread,
      sentAt: Number.isNaN(started) ? undefined : started,
    });
    // A file read whole is one chunk: fed in slices, only a slice's events are decoded and held at a time.
    for (const c of x.chunks) for (let at = 0; at < c.bytes.length; at += SLICE) a.push(c.bytes.subarray(at, at + SLICE), c.time);
    a.end(x.chunks.at(-1)?.time ?? 0);
    return a.report();
  });
}
