import type { Finding, ProtocolVersion } from '../rules/index.ts';
import type { Era } from './era.ts';
import type { Transport } from '../wire/index.ts';

export type NegotiationVerdict = 'same' | 'producer-newer' | 'producer-older' | 'uninterpretable' | 'undeclared';
/** `running` only appears in a live report while the stream is still open. */
export type RunOutcome = 'success' | 'interrupt' | 'cancelled' | 'error' | 'truncated' | 'running';

export interface RunReport {
  runId: string | null;
  threadId: string | null;
  parentRunId: string | null;
  /** The stream's last run: the one the input asked for. Earlier runs are replayed history. */
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
}

/** An interrupt an input's resume list answers: one its thread's last run ended waiting on. */
export interface PendingInterrupt {
  id: string;
  reason: string | null;
  message: string | null;
  /** The run that raised it. */
  runId: string | null;
}

/** One frame of the response as the timeline shows it. */
export interface EventRecord {
  index: number;
  /** The event's `type` when it has one, else a label such as `(not JSON)`. */
  type: string;
  offset: number;
  size: number;
  time: number;
  raw: string | Uint8Array;
  /** The decoded value as received (before stripping); undefined for frames that did not decode. */
  value: unknown;
}

export interface ExchangeOptions {
  /** Names the exchange in reports: a file, or a HAR entry's URL. */
  source: string;
  /** The request body text as sent, when known. */
  requestBody?: string;
  /** The response's content type; picks the wire reader. */
  contentType: string;
  /** Judge as this consumer version instead of the one the input declares. */
  as?: ProtocolVersion;
  /** Called once per frame, in order, as it is decoded; the analyzer itself keeps no per-event history. */
  onEvent?: (record: EventRecord) => void;
}

export type { Transport };
