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
export { PRE_1_0_READINGS, type Era } from './era.ts';
export type * from './types.ts';

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
    for (const c of x.chunks) a.push(c.bytes, c.time);
    a.end(x.chunks.at(-1)?.time ?? 0);
    return a.report();
  });
}
