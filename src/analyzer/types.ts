import type { ProtocolVersion } from '../rules/index.ts';
import type { Transport } from '../wire/index.ts';

/** The report's shape lives with the exchange it describes (src/exchange), which the formats read and write without the analyzer. */
export type { Era, ExchangeReport, NegotiationVerdict, RunOutcome, RunReport } from '../exchange/index.ts';

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
