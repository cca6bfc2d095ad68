/**
 * What the panel shows, independent of where it came from: a session of exchanges, each with what was
 * captured (request body, response type and status, the frames and, when the source has them, the raw
 * chunks) and the report of the source's analysis. `SessionSource` is the seam between the live worker
 * and a file.
 */
import type { ConvDiff, ConvMessage, DetailPart, EditedVerdict, ExchangeDetail, ExchangeReport, InputDetail, Overview, StateDiff } from '../src/detail/index.ts';
import type { ExchangeSet, ImportProgress } from './files.ts';
import { mediaType, type BodyNote, type EventView, type Outcome, type OverrideMark, type OverrideStatus, type RequestMap, type SessionStats } from '../src/messages.ts';
import { transportOf } from '../src/wire/index.ts';
import { runAgentInputIn, type Chunk, type SocketView } from '../src/exchange/index.ts';
import { isObject, type JsonObject } from '../src/json.ts';

export interface PanelExchange {
  id: string;
  url: string;
  method: string;
  /** ms since epoch; null when the source does not know (a bare response body). */
  startedAt: number | null;
  endedAt: number | null;
  outcome: Outcome | 'pending';
  error: string | null;
  status: number | null;
  contentType: string | null;
  requestBody: string | null;
  requestNote: BodyNote | null;
  report: ExchangeReport | null;
  /** When the first content arrived, ms after the request started (the timing's firstContentMs); null before any, or with no times recorded. */
  firstContentMs: number | null;
  analysisError: string | null;
  /** Bytes were dropped for the worker's memory cap: the analysis stops where they start. */
  capped: boolean;
  /** Append-only, in stream order. */
  events: EventView[];
  /** The response body as it arrived, when the source holds it; otherwise rebuilt from `events`. */
  chunks: Chunk[] | null;
  /** Bumped on every change, so derived views know when to recompute. */
  rev: number;
  /** Sent from the Inspector (a resend): the exchange it resends. Absent for what the page sent itself. */
  resentFrom?: string;
  /** Answered by the Inspector from a recording (an armed override), not by the agent. */
  override?: OverrideMark;
  /** It ran on a WebSocket, a custom binding (basic/transports#custom-transports); absent for HTTP. */
  transport?: 'websocket';
}

/** The session's overview, its problems' exchanges named by id. */
export interface SessionOverview {
  overview: Overview;
  /** The id of each problem's exchange, by its index in the overview's session. */
  ids: string[];
}

export type ResendHeaders = RequestMap['agui-inspector/resend-headers']['answers'];

/** Acting on the inspected tab's exchanges (edit and resend); only a live source has them, never a file. */
export interface Acts {
  /** `body` judged as the tab's next input, before anything is sent. */
  check(body: string): Promise<InputDetail | null>;
  /** The names of the request headers the page keeps for `x`, whether its document is still there, and whether a document of its origin is. */
  headers(x: PanelExchange): Promise<ResendHeaders>;
  /** Has the page send `body` as `x` went (with its kept headers when `reuse`): the new exchange's id, or why not. */
  send(x: PanelExchange, body: string, reuse: boolean): Promise<{ exchangeId: string } | { error: string }>;
}

/** Answering the inspected tab as the agent (issue #36): a live source's exchanges, or a file's while the panel inspects a tab. */
export interface Overriding {
  /** Arms the tab's override with `x`'s recording: what `o` matches is answered from it, not by the agent; why not, when it cannot be. */
  arm(x: PanelExchange, o: ArmOptions): Promise<{ ok: true } | { error: string }>;
  disarm(): Promise<void>;
  /** Edited events (one JSON event a line) judged as the answer they would make in `x`'s place: what the analyzer would find. */
  judge(x: PanelExchange, text: string): Promise<EditedVerdict>;
}

export type ArmOptions = Omit<RequestMap['agui-inspector/override-arm']['carries'], 'tabId' | 'exchangeId' | 'recorded'>;

export type SourceStatus = 'connecting' | 'live' | 'disconnected' | 'loading' | 'file' | 'failed' | 'no-tab';

export interface SessionState {
  status: SourceStatus;
  /** The inspected page, or the file name. */
  label: string;
  exchanges: PanelExchange[];
  stats: SessionStats | null;
  preserve: boolean;
  /** The tab's record/pause state as the worker holds it: while false, the page records no new exchange and the worker refuses any that began before. */
  recording: boolean;
  /** While a file is read and analysed. */
  progress: ImportProgress | null;
  /** Why the source failed (status `failed`). */
  error: string | null;
  /** The inspected tab's armed override; null or absent when none is armed. */
  override?: OverrideStatus | null;
}

/** Where a session comes from. Controls a source cannot honour are absent. */
export interface SessionSource {
  readonly kind: 'live' | 'file';
  subscribe(listener: (state: SessionState) => void): () => void;
  setRecording?(on: boolean): void;
  clear?(): Promise<void>;
  setPreserve?(on: boolean): Promise<void>;
  /** The exact captured bytes of these exchanges, in session order, for export and copy. */
  captured?(ids: string[]): Promise<ExchangeSet>;
  /** One part of an exchange's detail, from whoever analysed it; null when it has none. */
  detail<K extends DetailPart>(x: PanelExchange, part: K): Promise<ExchangeDetail[K] | null>;
  /** The state after the exchange's state step `step`; null when there is none. */
  stateAt(x: PanelExchange, step: number): Promise<{ state: unknown } | null>;
  /** What went wrong across the session, each problem's exchange resolved to one of the source's; null when it has no answer. */
  overview(): Promise<SessionOverview | null>;
  /** The WebSocket the exchange ran on, its frames each with whose it is; null for HTTP. */
  socket(x: PanelExchange): Promise<SocketView | null>;
  readonly acts?: Acts;
  /** Present when there is a tab to answer: the live one, or the one the panel inspects while it shows a file. */
  readonly overriding?: Overriding;
  /** What the exchange's state step `step` changed against the step before; null when there is none. */
  stateDiff(x: PanelExchange, step: number): Promise<StateDiff | null>;
  /** What the exchange's conversation step `step` changed; null when there is none. */
  conversationDiff(x: PanelExchange, step: number): Promise<ConvDiff | null>;
  /** The messages the consumer holds after conversation step `step`; null when there is none. */
  conversationAt(x: PanelExchange, step: number): Promise<{ messages: ConvMessage[] } | null>;
  close(): void;
}

export type TransportLabel = 'WS' | 'SSE' | 'protobuf' | 'JSONL' | 'JSON' | '—';

/** How the exchange's events came: a WebSocket's frames, whatever they carry, or the HTTP body's media type. */
export function transportLabel(x: Pick<PanelExchange, 'transport' | 'contentType'>): TransportLabel {
  if (x.transport === 'websocket') return 'WS';
  switch (transportOf(mediaType(x.contentType))) {
    case 'sse': return 'SSE';
    case 'protobuf': return 'protobuf';
    case 'jsonl': return 'JSONL';
    case 'json': return 'JSON';
    default: return '—';
  }
}

export type Verdict = 'completed' | 'failed' | 'pending' | 'unanalysed';

export function verdictOf(x: PanelExchange): Verdict {
  if (x.report) return x.outcome === 'pending' && x.report.verdict === 'completed' ? 'pending' : x.report.verdict;
  return x.outcome === 'pending' ? 'pending' : 'unanalysed';
}

/** Duration in ms: to the end, or to the last frame while the stream is open. */
export function durationOf(x: PanelExchange): number | null {
  if (x.startedAt !== null && x.endedAt !== null) return x.endedAt - x.startedAt;
  const last = x.events.at(-1);
  return last ? last.time : null;
}

export function endpointOf(url: string): string {
  try {
    const u = new URL(url);
    return u.pathname + u.search;
  } catch {
    return url;
  }
}

export function formatMs(ms: number | null): string {
  if (ms === null) return '—';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

export function formatBytes(n: number): string {
  return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export const SPEC_BASE = 'https://docs.ag-ui.com';

export function specUrl(spec: string): string {
  return SPEC_BASE + spec;
}

/** What tells an exchange apart from its neighbours at a glance: when it started, its thread and run, its last user words. */
export interface RowHint {
  time: string | null;
  ids: string | null;
  words: string | null;
}

const threads = new WeakMap<PanelExchange, string | null>();

/** The thread an exchange belongs to: its input's threadId, else its first run's; null when neither names one. */
export function threadOf(x: PanelExchange): string | null {
  if (threads.has(x)) return threads.get(x)!;
  const input = x.requestBody === null ? null : runAgentInputIn(x.requestBody);
  const id = typeof input?.threadId === 'string' ? input.threadId : x.report?.runs.find((r) => r.threadId !== null)?.threadId ?? null;
  // A request never changes once captured; a report may still bring the runs' thread.
  if (id !== null || x.outcome !== 'pending') threads.set(x, id);
  return id;
}

const hints = new WeakMap<PanelExchange, RowHint>();
/** Ids shortened to their last characters, which is where generated ids differ. */
const tail = (id: unknown): string | null => (typeof id === 'string' && id.length > 0 ? (id.length > 8 ? `…${id.slice(-6)}` : id) : null);

export function rowHintOf(x: PanelExchange): RowHint {
  const hit = hints.get(x);
  if (hit) return hit;
  const time = x.startedAt === null ? null : new Date(x.startedAt).toTimeString().slice(0, 8);
  // A body that is not a RunAgentInput leaves the row with what else it can say.
  const input = x.requestBody === null ? null : runAgentInputIn(x.requestBody);
  const thread = tail(input?.threadId);
  const run = tail(input?.runId);
  const users = (Array.isArray(input?.messages) ? input.messages : []).filter((m) => isObject(m) && m.role === 'user') as JsonObject[];
  const content = users.at(-1)?.content;
  const text = typeof content === 'string' ? content : Array.isArray(content) ? content.map((p) => (isObject(p) && typeof p.text === 'string' ? p.text : '')).join(' ') : '';
  const words = text.split(/\s+/).filter(Boolean);
  const said = words.length === 0 ? null : `“${words.slice(0, 6).join(' ')}${words.length > 6 ? '…' : ''}”`;
  const hint = { time, ids: thread || run ? `${thread ?? '—'}/${run ?? '—'}` : null, words: said };
  // The request never changes once captured, so one reading serves every render.
  if (x.requestBody !== null || x.outcome !== 'pending') hints.set(x, hint);
  return hint;
}
