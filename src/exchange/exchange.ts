import type { ExchangeReport } from './report.ts';

/** How the page made a request. */
export const APIS = ['fetch', 'xhr', 'eventsource', 'websocket'] as const;
export type Api = (typeof APIS)[number];
/** How a response ended, as the page saw it. */
export const OUTCOMES = ['complete', 'error', 'aborted', 'cancelled'] as const;
export type Outcome = (typeof OUTCOMES)[number];
/** Why `requestBody` is absent or not the exact bytes sent. */
export const BODY_NOTES = ['too-large', 'unreadable', 'not-teeable', 'multipart-reserialized'] as const;
export type BodyNote = (typeof BODY_NOTES)[number];

/**
 * What the source of an exchange concluded about it: the worker's live analysis of a capture, or the
 * import's of a file. An export writes it as it is (HAR `_agui`), and reading the export gives it back,
 * so a recording carries the analysis that was shown, not one made again from its bytes.
 */
export interface AnalysisRecord {
  /** The tab it was captured in; null when the source is not a tab. */
  tabId: number | null;
  api: Api | null;
  /** `pending` while the response was still arriving; null when the source does not know (a file). */
  outcome: Outcome | 'pending' | null;
  /** The page's error for an `error` outcome. */
  error: string | null;
  /** Bytes were dropped for the worker's memory cap: the body and the analysis stop where they start. */
  capped: boolean;
  /** The page could not read the response as it came and built it from its parts (EventSource, XHR). */
  reconstructed: boolean;
  requestBodyNote: BodyNote | null;
  /** Null when there is none: the analysis failed (`analysisError`), or no response arrived. */
  report: ExchangeReport | null;
  analysisError: string | null;
}

/** How the Inspector answered an exchange in the agent's place, from a recording (HAR `_agui.override`). */
export interface OverrideMark {
  /** The exchange whose recording answered. */
  from: string;
  /** As src/answer's Pace: 1 the recorded times, 2 twice as fast, `max` all at once. */
  pace: number | 'max';
  /** The request's threadId and runId replaced the recorded ones. */
  idsRewritten: boolean;
  /** The faults that took effect, by their specs. */
  faults: string[];
}

/** One request/response pair as every reader hands it on: the response body exactly as it arrived. */
export interface CapturedExchange {
  /** Names the exchange in reports. */
  source: string;
  url?: string;
  method?: string;
  status?: number;
  startedDateTime?: string;
  requestContentType?: string;
  /** The request body text as sent. */
  requestBody?: string;
  responseContentType: string;
  /** The response body in arrival order; `time` is ms after the request started. */
  chunks: Chunk[];
  /** The page itself aborted the request or cancelled the body before it ended: a truncation of its own making. */
  abandoned?: boolean;
  /** The `Location` of a redirect the recorder did not follow (HAR `redirectURL`). */
  redirectURL?: string;
  /** The source's analysis, when it has one: a capture's, or one a recording carries. */
  analysis?: AnalysisRecord;
  /** What the source recorded of when the response arrived; absent when it recorded nothing (a body file, a fixture). */
  arrival?: Arrival;
  /**
   * The exchange ran on a WebSocket, a custom binding (basic/transports#custom-transports): `requestBody`
   * is the input frame's text, `chunks` its stream's frames as JSONL or length-prefixed protobuf, timed
   * from the input frame. Absent for HTTP.
   */
  transport?: 'websocket';
  /** The socket it ran on, present with `transport`. */
  socket?: SocketExchange;
  /** Answered by the Inspector from a recording, not by the agent. */
  override?: OverrideMark;
}

/** The most of one tab's capture a session holds by default, and of one answer `probe` reads: 64 MiB. */
export const MAX_CAPTURE_BYTES = 64 * 1024 * 1024;

/**
 * `chunks`: each chunk's `time` is when it arrived (a capture, the Inspector's HAR). Otherwise only a HAR
 * entry's own timings are known (a browser's HAR, whose one chunk is dated at the entry's end): time to
 * the first byte and the whole duration, each null when the entry does not say.
 */
export type Arrival = 'chunks' | EntryTimings;
export interface EntryTimings {
  ttfbMs: number | null;
  durationMs: number | null;
  /** Why the recorded times were not used: chunks dated out of order, or an entry whose first byte comes after its end. */
  unusableTimes?: string;
}

export interface Chunk {
  time: number;
  bytes: Uint8Array;
}

/** The whole response body. */
export function bodyOf(exchange: CapturedExchange): Uint8Array {
  const { chunks } = exchange;
  if (chunks.length === 1) return chunks[0]!.bytes;
  let total = 0;
  for (const c of chunks) total += c.bytes.length;
  const body = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    body.set(c.bytes, at);
    at += c.bytes.length;
  }
  return body;
}

/**
 * Whether the source analysed the exchange to its end. The worker stops a capped stream's analysis at the
 * hole and has not ended one still arriving: a reader ending those would add a truncation finding the
 * source never made.
 */
export function analysedToTheEnd(a: AnalysisRecord | undefined): boolean {
  return !a || (!a.capped && a.outcome !== 'pending');
}

/** When the request was sent, ms since epoch; undefined when the reader does not know or cannot read the date. */
export function sentAtOf(x: Pick<CapturedExchange, 'startedDateTime'>): number | undefined {
  const t = x.startedDateTime ? Date.parse(x.startedDateTime) : NaN;
  return Number.isNaN(t) ? undefined : t;
}

/** The record of an analysis made from an exchange's bytes alone, by a reader that knows nothing of how it was captured. */
export function bytesOnlyAnalysis(report: ExchangeReport | null, analysisError: string | null): AnalysisRecord {
  return { tabId: null, api: null, outcome: null, error: null, capped: false, reconstructed: false, requestBodyNote: null, report, analysisError };
}

/** One message on the socket, as Chromium's HAR (`_webSocketMessages`) and its DevTools protocol give it. */
export interface SocketFrame {
  type: 'send' | 'receive';
  /** Seconds since epoch, as the HAR convention writes it; kept in that unit so a file reads back exactly. */
  time: number;
  /** RFC 6455 opcode: 1 text, 2 binary. */
  opcode: number;
  /** A text frame's text; a binary frame's bytes. */
  data: string | Uint8Array;
}

/** How the socket closed, when the recorder saw it (Chromium's HAR does not record it). */
export interface SocketClose {
  code: number | null;
  reason: string;
  /** Seconds since epoch. */
  time: number;
  /** The close event's `wasClean`: false when the connection dropped without a closing handshake; absent when the recorder did not say. */
  wasClean?: boolean;
}

/** The whole socket: every frame in order, AG-UI or not, so that what is no exchange's stays to be shown. */
export interface SocketConnection {
  url: string;
  startedDateTime?: string;
  frames: SocketFrame[];
  close: SocketClose | null;
}

/** What a socket exchange knows of its socket, beside the body the analyzer reads. */
export interface SocketExchange {
  connection: SocketConnection;
  /** The index in `connection.frames` of the frame that carried the input: which of the socket's exchanges this is. */
  input: number;
  /** The close that came before the requested run's terminal event, truncating it; null otherwise. */
  cutBy: SocketClose | null;
}
