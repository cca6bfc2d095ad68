/** The analyzer's public surface: what the CLI, the background worker and the panel build on. */
import { sentAtOf, type CapturedExchange, type Chunk } from '../exchange/index.ts';
import type { ProtocolVersion } from '../rules/index.ts';
import { ExchangeAnalyzer, type ExchangeAnalyzerOptions } from './exchange.ts';
import { ThreadTracker } from './thread.ts';
import type { ExchangeReport } from './types.ts';

export { ExchangeAnalyzer, type ExchangeAnalyzerOptions } from './exchange.ts';
export { ThreadTracker, uncoveredBy } from './thread.ts';
export type { InputAnalysis, InputField } from './input.ts';
export type { Ev } from './event.ts';
export type { StateStep } from './state.ts';
export { PRE_1_0_INPUT, PRE_1_0_READINGS } from './era.ts';
export type * from './types.ts';
/** Each family's rules, for the rule list and the tests. */
export { CHUNK_RULES } from './chunks.ts';
export { CONVERSATION_RULES, ConsumerModel, type HeldChange, type HeldMessage, type Origin } from './consumer.ts';
export { DISCIPLINE_RULES } from './discipline.ts';
export { HTTP_RULES } from './http.ts';
export { BINDING_RULES } from './binding.ts';
export { INPUT_RULES } from './input.ts';
export { VERSION_RULES } from './negotiation.ts';
export { PatchTarget } from './patch.ts';
export { IDENTITY_RULES, LIFECYCLE_RULES } from './runs.ts';
export { STATE_RULES } from './state.ts';
export { RESUME_RULES } from './thread.ts';

/** Analyses a recorded session in order, so resume coverage is checked across its exchanges. */
export function analyzeExchanges(exchanges: CapturedExchange[], as?: ProtocolVersion): ExchangeReport[] {
  const thread = new ThreadTracker();
  return exchanges.map((x) => analyzeExchange(x, x.chunks, { as, thread }));
}

/**
 * Analyses one exchange whose body is `chunks`, consumed as they come: a body read from disk chunk by
 * chunk is never held whole, so its size is bounded by the analyzer's memory, not by the file's.
 * `end: false` leaves the body unended, as a source that stopped its analysis at a hole did.
 */
export function analyzeExchange(
  x: Omit<CapturedExchange, 'chunks'>,
  chunks: Iterable<Chunk>,
  o: {
    as?: ProtocolVersion;
    thread?: ThreadTracker;
    end?: boolean;
    hooks?: Pick<ExchangeAnalyzerOptions, 'onInput' | 'onEnforced' | 'onReceived' | 'onArrival' | 'onEmit' | 'onItem'>;
    /** Handed the analyzer once the body is read, for a reading of what it holds then (its conversation). */
    read?: (analyzer: ExchangeAnalyzer) => void;
  } = {},
): ExchangeReport {
  const a = new ExchangeAnalyzer({
    source: x.source,
    requestBody: x.requestBody,
    contentType: x.responseContentType,
    status: x.status,
    websocket: x.socket,
    as: o.as,
    thread: o.thread,
    sentAt: sentAtOf(x),
    // Only the report leaves this function, and it never shows the conversation's text.
    keepText: false,
    ...o.hooks,
  });
  let last = 0;
  for (const c of chunks) {
    a.push(c.bytes, c.time);
    last = c.time;
  }
  if (o.end !== false) a.end(last, x.abandoned);
  o.read?.(a);
  return a.report();
}
