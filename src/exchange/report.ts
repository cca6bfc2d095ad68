/**
 * What an analysis of an exchange concluded, as data: the analyzer writes it, a recording carries it
 * (HAR `_agui`), the formats read it back and the CLI prints it. It sits with the exchange, below both
 * the analyzer and the formats, so reading a recording needs no analyzer.
 */
import type { Finding, ProtocolVersion } from '../rules/index.ts';

/** `pre-1.0` when neither side declares a protocolVersion (analyzer/era.ts says how that is judged). */
export type Era = 'pre-1.0' | '1.x';

export type NegotiationVerdict = 'same' | 'producer-newer' | 'producer-older' | 'uninterpretable' | 'undeclared';
/** `running` only appears in a live report while the stream is still open. */
export type RunOutcome = 'success' | 'interrupt' | 'cancelled' | 'error' | 'truncated' | 'running';

export interface RunReport {
  runId: string | null;
  threadId: string | null;
  parentRunId: string | null;
  /** The stream's last run: the one the input asked for. Earlier runs are replayed history. While the stream is open, the last so far. */
  requested: boolean;
  outcome: RunOutcome;
  /** What this run's RUN_STARTED declared, verbatim (null when absent). */
  protocolVersion: string | null;
  /** That declaration against the consumer's; a replayed run's is shown but not judged (findings). */
  negotiation: NegotiationVerdict;
  /** Event indices of the run's boundaries. */
  startedAt: number | null;
  finishedAt: number | null;
  /** Interrupt ids the run ended waiting on (interrupt outcome only). */
  interrupts: string[];
}

/** The CLI's JSON contract for one exchange (`--format json`). */
export interface ExchangeReport {
  source: string;
  /** `pre-1.0` when neither the input nor any RUN_STARTED declares a protocolVersion (analyzer/era.ts). */
  era: Era;
  /** The version the 1.0 reading is judged as: the input's declaration, `--as`, or 1.0 for a pre-1.0 peer. */
  consumerVersion: ProtocolVersion;
  input: { present: boolean; verdict: 'valid' | 'invalid'; findings: Finding[] };
  negotiation: { consumer: string | null; producer: string | null; verdict: NegotiationVerdict };
  runs: RunReport[];
  /** What a conforming consumer concludes; for a pre-1.0 exchange, its own (pre-1.0) client: readiness items do not count. */
  verdict: 'completed' | 'failed';
  /** A pre-1.0 exchange judged by default: what a 1.0 consumer would conclude after the app upgraded. Null otherwise. */
  readiness: { verdict: 'completed' | 'failed' } | null;
  findings: Finding[];
  /** Present, as `websocket`, only on an exchange that ran on a WebSocket: a custom binding, judged without the HTTP binding's rules. */
  transport?: 'websocket';
}

