/**
 * The message API between the three parts of the extension.
 *
 *   page script (MAIN world) ──MessagePort──▶ relay (ISOLATED world) ──runtime Port──▶ worker ◀── extension pages
 *
 * 1. Page script → relay: batches of `PageMessage` over a private MessageChannel (see `HANDSHAKE`); the
 *    relay answers on the same channel with the tab's record/pause state (`RelayToPage`) and the
 *    emptied staging buffers (see `STAGING_BYTES`).
 * 2. Relay → worker: `RelayToWorker` over a runtime Port named `CAPTURE_PORT`; the worker answers `WorkerToRelay`.
 *    Every batch of capture messages carries a per-document sequence number; the worker acknowledges what it
 *    has stored, and only that: after the worker was stopped the relay reconnects and resends everything unacknowledged.
 * 3. Extension pages → worker:
 *    - a runtime Port named `PANEL_PORT`: send `PanelToWorker` (`subscribe` to one tab, or `watch` its override while showing a file), receive `WorkerToPanel`;
 *    - `runtime.sendMessage(request)` with one of `Request`; the reply type is `Reply<typeof request>`.
 *      `{ type: 'agui-inspector/export' }` resolves to HAR 1.2 text (every tab, or `tabId` only, or with
 *      `exchangeIds` only those exchanges of that tab; `redact` names groups to overwrite), the file
 *      src/recording/export.ts writes. After a worker restart, `export` and `session`
 *      answer once the tab's stored log is replayed; `sessions` and panels see the replay as it goes.
 * 4. An armed override (issue #36, `override-arm`): the worker tells the tab's relays, and they their page
 *    scripts, which method and URL to answer (`OverrideMatch`, never a body). A matching fetch asks back
 *    along the same bridge (`AnswerAsk` → `answer-for` → `answer`) with its request body; the worker runs
 *    src/answer and hands the page only the chunks' bytes and times (`PageAnswer`), which it paces itself.
 *
 * Everything that comes from the page is untrusted: `checkPageBatch` (relay) and `checkRelayMessage`
 * (worker) accept only the exact shapes below, within `LIMITS`.
 */
import type { EventRecord, ExchangeReport } from './analyzer/index.ts';
import { DETAIL_PARTS, type DetailPart, type EditedVerdict, type ExchangeDetail, type InputDetail, type ConvDiff, type ConvMessage, type Overview, type StateDiff } from './detail/index.ts';
import { fromBase64, toBase64 } from './base64.ts';
import { APIS, BODY_NOTES, MAX_CAPTURE_BYTES, OUTCOMES, type Api, type BodyNote, type Outcome, type OverrideMark, type SocketView } from './exchange/index.ts';
import { REDACTION_GROUPS, type RedactionGroup } from './recording/index.ts';
import type { Pace } from './answer/index.ts';

export const CAPTURE_PORT = 'agui-inspector/capture';
export const PANEL_PORT = 'agui-inspector/panel';
/** `window.postMessage` key under which the page script hands its MessagePort to the relay, once per document. */
export const HANDSHAKE = 'agui-inspector/handshake';

export const LIMITS = {
  /** Request bodies larger than this are neither parsed for detection nor recorded. */
  requestBody: 16 * 1024 * 1024,
  /** Largest response chunk in one message; the page script splits bigger reads. */
  chunk: 256 * 1024,
  /** Most messages in one batch, page script → relay or relay → worker. */
  batch: 4096,
  url: 8 * 1024,
  text: 1024,
  /** Exchanges one document may have open at once; more are dropped and counted. The same bound holds its recorded open WebSockets. */
  openExchanges: 256,
  /**
   * Largest WebSocket frame recorded whole, as large as a request body (an input frame is one); a longer one is cut to
   * it and the cut counted, a hole in a recorded socket (DroppedMessage.socket).
   */
  frame: 16 * 1024 * 1024,
  /**
   * Response bytes the relay keeps unacknowledged (in flight, not yet stored, or waiting for a stopped worker); beyond it
   * chunks are dropped and counted. As large as a tab's default cap: a page reading faster than the worker
   * analyses and persists must not lose what the worker would still have kept.
   */
  relayBuffer: 64 * 1024 * 1024,
  /** What all tabs' sessions together may hold (four default tab caps); beyond it capture drops and counts as at a tab's cap. */
  totalBytes: 256 * 1024 * 1024,
} as const;

export { APIS, BODY_NOTES, OUTCOMES, type Api, type BodyNote, type Outcome, type OverrideMark } from './exchange/index.ts';
/** The page ended it itself (an AbortController, or cancelling the body): its truncation is the page's doing. */
export const byThePage = (outcome: Outcome | 'pending'): boolean => outcome === 'aborted' || outcome === 'cancelled';

// ── 1. page script → relay ────────────────────────────────────────────────────

/** An AG-UI exchange began (sent only once the exchange is known to be AG-UI). */
export interface OpenMessage {
  k: 'open';
  id: number;
  api: Api;
  t: number;
  method: string;
  url: string;
  requestContentType: string | null;
  requestBody: string | null;
  requestBodyNote: BodyNote | null;
  /**
   * Sent by the page script for the Inspector (an act's `ref`, see `ActMessage`), not by the page's own code.
   * The worker trusts it only for an act it has outstanding, and stores `of` in its place.
   */
  by?: number;
  /** Worker-only, never accepted from a relay: the exchange this one resends, as the worker resolved `by`. */
  of?: string;
  /** Worker-only, never accepted from a relay: how the Inspector answered it in the agent's place, as the worker resolved `by`. */
  override?: OverrideMark;
}
export interface ResponseMessage {
  k: 'response';
  id: number;
  t: number;
  status: number;
  statusText: string;
  contentType: string | null;
  url: string;
  redirected: boolean;
  /** EventSource: the body is rebuilt from the delivered events, not the bytes on the wire. */
  reconstructed: boolean;
}
export interface ChunkMessage<B = Uint8Array> {
  k: 'chunk';
  id: number;
  t: number;
  bytes: B;
}
export interface EndMessage {
  k: 'end';
  id: number;
  t: number;
  outcome: Outcome;
  error: string | null;
}
/** Capture the sender itself had to give up (its own limits); the worker adds it to the tab's drop counts. */
export interface DroppedMessage {
  k: 'dropped';
  t: number;
  /** The exchange that lost chunks (its analysis stops there), or null. */
  id: number | null;
  exchanges: number;
  chunks: number;
  bytes: number;
  /** Page messages the relay refused as malformed. */
  rejected: number;
  /**
   * A recorded socket that lost a frame: what follows it has a hole, so its exchanges' analyses stop there,
   * as a capped exchange's do. Sent before any later message of the socket; absent when no socket lost one.
   */
  socket?: number;
}
/**
 * A WebSocket of the page carries AG-UI (one of its client frames was a RunAgentInput): from here on the
 * whole socket is reported, the frames it held while undecided first. `t` is when the page opened it.
 */
export interface SocketMessage {
  k: 'socket';
  id: number;
  t: number;
  url: string;
}
/** One message on a recorded socket, as `SocketFrame` holds it: text (opcode 1) as a string, binary (2) as bytes. */
export interface FrameMessage<B = Uint8Array> {
  k: 'frame';
  id: number;
  t: number;
  type: 'send' | 'receive';
  opcode: 1 | 2;
  data: string | B;
}
/** The recorded socket closed, as its close event said. */
export interface CloseMessage {
  k: 'close';
  id: number;
  t: number;
  code: number;
  reason: string;
  wasClean: boolean;
}
export type PageMessage = OpenMessage | ResponseMessage | ChunkMessage | EndMessage | DroppedMessage | SocketMessage | FrameMessage | CloseMessage;
/** Size of the page script's staging buffers, which the relay returns once it has copied or encoded their bytes. */
export const STAGING_BYTES = 1024 * 1024;

// ── 2. relay ⇄ worker ────────────────────────────────────────────────────────

/**
 * Chunk bytes travel as they are where extension messaging clones structurally (Firefox; Chrome 148+,
 * which the manifest's `message_serialization` opts into), and base64-encoded where it is JSON (older
 * Chrome). Not as text for valid UTF-8: in Chromium 156
 * native `toBase64` plus the larger message cost the page's thread within ~15% of decoding and
 * escaping the quotes of JSON-in-SSE, without UTF-8 boundaries to carry between chunks.
 */
export type CaptureMessage = Exclude<PageMessage, ChunkMessage | FrameMessage> | ChunkMessage<Uint8Array | string> | FrameMessage<Uint8Array | string>;

/** Sent in hello; it reaches the worker as a Uint8Array only where messaging keeps binary data. */
export const BINARY_PROBE = [0xff, 0x00, 0x7f] as const;

export type RelayToWorker =
  /** First message on every connection; `doc` identifies the document across reconnects. */
  | { type: 'hello'; doc: string; url: string; resumed: boolean; probe: Uint8Array }
  | { type: 'capture'; seq: number; msgs: CaptureMessage[] }
  /**
   * Sent only when the document was parsed without the page script's handshake (false), and again
   * if it arrives after all (true): such a document captures nothing, and must not pass for a page that
   * made no AG-UI request. It names nothing: the worker knows the document's URL from hello.
   */
  | { type: 'page-script'; reached: boolean }
  /** The page script's `AnswerAsk`, passed on: a request that matched the tab's armed override. */
  | { type: 'answer-for'; ask: number; method: string; url: string; body: string | null };

export type WorkerToRelay =
  /** Reply to hello: the highest seq of this document the worker has stored, whether bytes may travel unencoded, and what the tab's override answers. */
  | { type: 'welcome'; ack: number; binary: boolean; recording: boolean; override: OverrideMatch | null }
  /** The tab's override was armed (what it answers) or disarmed (null). */
  | { type: 'override'; match: OverrideMatch | null }
  /** The answer to `answer-for` `ask`, chunk bytes in base64; null: the request goes to the network after all. */
  | { type: 'answer'; ask: number; answer: PageAnswer<string> | null }
  /** The user paused (false) or resumed (true) capture for the tab: the page stops or starts recording new exchanges. */
  | { type: 'recording'; on: boolean }
  /** Everything up to `seq` is stored; the relay may forget it. */
  | { type: 'ack'; seq: number };

/**
 * Acting on an exchange (the panel's resend), the other way along the bridge: worker → relay by
 * `tabs.sendMessage` (which reaches content scripts only from the extension itself), relay → page script
 * over their private port, which page code cannot reach. Only the page script holds request headers; what
 * comes back is a header's name at most, never its value.
 */
export type PageAct =
  /** The names of the request headers the page script keeps for its exchange `id`; null when it keeps none. */
  | { do: 'headers'; id: number }
  /**
   * Sends `body` with the page's original fetch: with the headers (and credentials mode) kept for exchange
   * `id`, or, when `id` is null, with only `contentType` and `accept`. The page reads the answer to its end.
   */
  | { do: 'send'; id: number | null; url: string; method: string; contentType: string | null; accept: string | null; body: string };
export type ActResult = { names: string[] | null } | { sent: true } | { error: string };
/** `doc` is the relay document the act is for. */
export interface ActMessage { type: 'agui-inspector/act'; doc: string; ref: number; act: PageAct }
/**
 * Which document of the tab, of `origin`, can act: a relay whose document has that origin and whose page
 * script reached it answers with its id (the first to answer is taken). Relays connect only once they have
 * something to send, so the worker cannot know every document of a tab by its ports.
 */
export interface WhichDocMessage { type: 'agui-inspector/which-doc'; origin: string }
/** How the page script answers an act over the private port. */
export interface ActedMessage { acted: number; result: ActResult }
/** Which requests an armed override answers: the method and the URL, exact or a `*` pattern (exchange/match.ts), nothing of the body. */
export interface OverrideMatch { method: string; url: string }
/**
 * How the page script answers a request in the agent's place: `by` goes in its open message, so the worker
 * marks the exchange (it trusts only a `by` it handed out); each chunk is due `at` ms after the answer starts.
 */
export interface PageAnswer<B = Uint8Array> {
  by: number;
  status: number;
  contentType: string;
  headers: [string, string][];
  chunks: { at: number; bytes: B }[];
}
/** The page script asks, over the private port, for the answer to a request that matched; `answerFor` is its own counter. */
export interface AnswerAsk { answerFor: number; method: string; url: string; body: string | null }
/**
 * An imported exchange's recording, sent with the arming request: the worker holds no file. Bytes in base64
 * (a request is JSON in Chrome), within `MAX_RECORDED_BYTES`.
 */
export interface RecordedAnswer {
  status: number;
  contentType: string;
  requestBody: string | null;
  /** Times are ms after the request started. */
  chunks: { time: number; bytes: string }[];
}
/** The most an arming request's recording may hold: a request body's limit, and the chunks a capture of that size could have. */
export const MAX_RECORDED_BYTES = LIMITS.requestBody;
const MAX_RECORDED_CHUNKS = 65_536;
const base64Length = (n: number): number => Math.ceil(n / 3) * 4;

function checkRecorded(x: unknown): boolean {
  if (!isRec(x) || !keys(x, ['status', 'contentType', 'requestBody', 'chunks'])) return false;
  if (!int(x.status, 599) || x.status < 100 || !str(x.contentType, LIMITS.text) || !strOrNull(x.requestBody, LIMITS.requestBody)) return false;
  if (!Array.isArray(x.chunks) || x.chunks.length > MAX_RECORDED_CHUNKS) return false;
  let total = 0;
  for (const c of x.chunks as unknown[]) {
    if (!isRec(c) || !keys(c, ['time', 'bytes']) || !time(c.time) || typeof c.bytes !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(c.bytes)) return false;
    total += c.bytes.length;
  }
  return total <= base64Length(MAX_RECORDED_BYTES);
}

/** An armed override, as the panel shows it. */
export interface OverrideStatus extends OverrideMatch {
  from: string;
  /** Answers the next matching request only, else every one until disarmed. */
  once: boolean;
  pace: Pace;
  keepIds: boolean;
  faults: string[];
  /** Stays armed when the tab's last panel closes. */
  pinned: boolean;
  answered: number;
}

/** The page script's `AnswerAsk`, copied out when it has exactly that shape; else null. */
export function checkAnswerAsk(x: unknown): AnswerAsk | null {
  return isRec(x) && keys(x, ['answerFor', 'method', 'url', 'body']) && int(x.answerFor) && str(x.method, 32) && str(x.url, LIMITS.url) && strOrNull(x.body, LIMITS.requestBody)
    ? { answerFor: x.answerFor, method: x.method, url: x.url, body: x.body }
    : null;
}

/** Header names the page script reports: bounded, so a page cannot flood the panel. */
export const MAX_HEADER_NAMES = 64;

/** The page script's answer to an act, copied out when it has exactly one of the shapes above; else null. */
export function checkActed(x: unknown): ActedMessage | null {
  if (!isRec(x) || !keys(x, ['acted', 'result']) || !int(x.acted) || !isRec(x.result)) return null;
  const r = x.result;
  if (keys(r, ['names'])) {
    if (r.names === null) return { acted: x.acted, result: { names: null } };
    const names = r.names;
    return Array.isArray(names) && names.length <= MAX_HEADER_NAMES && names.every((n) => str(n, 256))
      ? { acted: x.acted, result: { names: [...(names as string[])] } }
      : null;
  }
  if (keys(r, ['sent']) && r.sent === true) return { acted: x.acted, result: { sent: true } };
  if (keys(r, ['error']) && str(r.error, LIMITS.text)) return { acted: x.acted, result: { error: r.error } };
  return null;
}

// ── 3. worker ⇄ extension pages ──────────────────────────────────────────────

export interface Limits {
  maxEvents: number;
  maxBytes: number;
}
export const DEFAULT_LIMITS: Limits = { maxEvents: 50_000, maxBytes: MAX_CAPTURE_BYTES };

export interface DropCounts {
  exchanges: number;
  chunks: number;
  bytes: number;
  events: number;
  /** Messages rejected as malformed. */
  rejected: number;
}

/**
 * Capture the worker holds but has not stored. The relay keeps it too until the worker acknowledges
 * it as stored, so a stopped worker gets it back — unless the page is gone by then, or its relay
 * already held `LIMITS.relayBuffer` bytes and dropped (and counted) chunks beyond them.
 */
export interface Unsaved {
  /** Capture messages applied but not stored. */
  messages: number;
  /** Their request and response bytes. */
  bytes: number;
  /** The store's error while writes keep failing (or it could not be opened); null while a write is merely under way. */
  error: string | null;
  /** When writes began failing (ms since epoch), or null. */
  since: number | null;
}
export const noneUnsaved = (): Unsaved => ({ messages: 0, bytes: 0, error: null, since: null });

export interface SessionStats {
  exchanges: number;
  events: number;
  bytes: number;
  dropped: DropCounts;
  limits: Limits;
  unsaved: Unsaved;
  /** URLs of the tab's documents the page script did not reach: their requests are not captured. */
  unreached: string[];
}

export interface EventView {
  index: number;
  type: string;
  offset: number;
  size: number;
  time: number;
  /** SSE/JSON frames: the payload text; protobuf: the message bytes, base64. */
  raw: string;
  rawEncoding: 'text' | 'base64';
}

export interface ExchangeView {
  /** Unique within the tab's session. */
  id: string;
  api: Api;
  url: string;
  method: string;
  startedAt: number;
  request: { contentType: string | null; body: string | null; note: BodyNote | null };
  /** What the page's `response` message said, and when it arrived. */
  response: (Omit<ResponseMessage, 'k' | 'id' | 't'> & { receivedAt: number }) | null;
  /** Response bytes held (after any dropped for the memory cap). */
  bytes: number;
  endedAt: number | null;
  outcome: Outcome | 'pending';
  error: string | null;
  /** Bytes of this exchange were dropped for the memory cap; its analysis stops where they start. */
  capped: boolean;
  report: ExchangeReport | null;
  /** The timing's firstContentMs as of now (the list's TTFT column); null before any content. */
  firstContentMs: number | null;
  analysisError: string | null;
  /** Sent from the Inspector (the panel's resend): the id of the exchange it resends. Absent for the page's own. */
  resentFrom?: string;
  /** Answered by the Inspector from a recording, never reaching the network. Absent for the page's own. */
  override?: OverrideMark;
}

export interface SessionView {
  tabId: number;
  url: string;
  preserve: boolean;
  /** False while capture is paused for the tab. */
  recording: boolean;
  exchanges: (ExchangeView & { events: EventView[] })[];
  stats: SessionStats;
}

export interface SessionSummary {
  tabId: number;
  url: string;
  preserve: boolean;
  recording: boolean;
  stats: SessionStats;
}

export type PanelToWorker =
  | { type: 'subscribe'; tabId: number }
  /**
   * A panel showing an imported file while it inspects the tab: it counts among the tab's panels (an override
   * outlives the last only when pinned) and is told the tab's override only, not its session.
   */
  | { type: 'watch'; tabId: number };

export type WorkerToPanel =
  | { type: 'snapshot'; session: SessionView }
  | { type: 'exchange'; exchange: ExchangeView }
  | { type: 'events'; exchangeId: string; events: EventView[] }
  | { type: 'stats'; stats: SessionStats }
  /** The tab's armed override, after subscribe and whenever it changes (null: none). */
  | { type: 'override'; override: OverrideStatus | null };

/** What the relay tells the page script over their private channel: the tab's record/pause state, an act the panel asks for, what to answer, or an answer. */
export type RelayToPage =
  | { recording: boolean }
  | { ref: number; act: PageAct }
  | { override: OverrideMatch | null }
  | { answered: number; answer: PageAnswer | null };

/**
 * Every request an extension page sends the worker, with what it carries and what it answers: the one
 * map both ends are typed from (the worker's handlers and the panel's `request`), and that `checkRequest`
 * enforces at runtime.
 */
export interface RequestMap {
  /**
   * `exchangeIds` (with `tabId`) exports just those exchanges of the tab, in capture order; `redact` the
   * groups to overwrite (none when absent: the exact capture). The panel's Export menu writes the same bytes.
   */
  'agui-inspector/export': { carries: { tabId?: number; exchangeIds?: string[]; redact?: RedactionGroup[] }; answers: string };
  'agui-inspector/clear': { carries: { tabId: number }; answers: { ok: true } };
  'agui-inspector/session': { carries: { tabId: number }; answers: SessionView | null };
  'agui-inspector/sessions': { carries: Record<never, never>; answers: SessionSummary[] };
  'agui-inspector/preserve': { carries: { tabId: number; preserve: boolean }; answers: { ok: true } };
  /** Pauses (false) or resumes (true) capture for the tab: exchanges that begin while paused are not recorded. */
  'agui-inspector/record': { carries: { tabId: number; record: boolean }; answers: { ok: true } };
  'agui-inspector/limits': { carries: { set?: Partial<Limits> }; answers: Limits };
  /** Origins the user enabled beyond localhost; call after `permissions.request` so the scripts follow at once. */
  'agui-inspector/origins': { carries: Record<never, never>; answers: string[] };
  /** One part of an exchange's detail as the worker's analysis holds it now; null for an unknown or unanalysed exchange. */
  'agui-inspector/detail': { carries: { tabId: number; exchangeId: string; part: DetailPart }; answers: ExchangeDetail[DetailPart] | null };
  /** What went wrong across the tab's session (detail/overview.ts), with the ids its problems' `exchange` indexes; null without a session. */
  'agui-inspector/overview': { carries: { tabId: number }; answers: { ids: string[]; overview: Overview } | null };
  /** The WebSocket the exchange ran on: its close and its frames, each with whose it is (exchange/socket.ts); null for HTTP. */
  'agui-inspector/socket': { carries: { tabId: number; exchangeId: string }; answers: SocketView | null };
  /** The state after the exchange's state step `step` (an index into its `states` part); null when there is none. */
  'agui-inspector/state-at': { carries: { tabId: number; exchangeId: string; step: number }; answers: { state: unknown } | null };
  /**
   * Judges `body` as the next input of the tab's session, before anything is sent: the Input view's reading
   * of it (resume coverage against the threads as the tab left them). Null when the tab has no session.
   */
  'agui-inspector/check-input': { carries: { tabId: number; body: string }; answers: InputDetail | null };
  /**
   * What a resend of the exchange would carry: `names` the request headers its page still keeps (names only;
   * null when it keeps none), `live` whether the document that made it is still there (else they are gone),
   * `origin` that document's origin (null when unknown), and `sendable` whether a document of that origin
   * is open in the tab to send it from.
   */
  'agui-inspector/resend-headers': { carries: { tabId: number; exchangeId: string }; answers: { live: boolean; names: string[] | null; origin: string | null; sendable: boolean } };
  /**
   * Has the page send `body` to the exchange's URL, with its method, from the page's own fetch: with the headers
   * the page kept for it when `reuse`, else without them (from another document of the original's origin when
   * the original is gone; from none of another origin, whose cookies and origin it would carry).
   * Answers the new exchange's id once the worker holds it, or why nothing was sent.
   */
  'agui-inspector/resend': { carries: { tabId: number; exchangeId: string; body: string; reuse: boolean }; answers: { exchangeId: string } | { error: string } };
  /** What the exchange's state step `step` changed against the step before; null when there is none. */
  'agui-inspector/state-diff': { carries: { tabId: number; exchangeId: string; step: number }; answers: StateDiff | null };
  /** What the exchange's conversation step `step` (an index into its `conversationSteps` part) changed; null when there is none. */
  'agui-inspector/conversation-diff': { carries: { tabId: number; exchangeId: string; step: number }; answers: ConvDiff | null };
  /** The messages the consumer holds after conversation step `step`; null when there is none. */
  'agui-inspector/conversation-at': { carries: { tabId: number; exchangeId: string; step: number }; answers: { messages: ConvMessage[] } | null };
  /**
   * Arms the tab's override (replacing any): the tab's requests of `method` to `url` (exact, or a pattern
   * with `*` wildcards: exchange/match.ts) are answered from the recording of exchange `exchangeId` (which
   * must have ended), at `pace`, with the request's own ids unless `keepIds`, with `faults` (`--fault` specs); `once` answers the next only. Dropped when the tab's
   * last panel disconnects, unless `pinned`. Answers why not when it cannot be armed. `recorded` carries the
   * recording itself, for an exchange of a file the panel imported (`exchangeId` then names it in the file).
   * `edited` (one JSON event a line) answers instead of the recorded events, encoded as the recording's
   * transport, all at once (detail/edited.ts judges it first).
   */
  'agui-inspector/override-arm': {
    carries: { tabId: number; exchangeId: string; method: string; url: string; once: boolean; pace: Pace; keepIds: boolean; faults: string[]; pinned: boolean; recorded?: RecordedAnswer; edited?: string };
    answers: { ok: true } | { error: string };
  };
  'agui-inspector/override-disarm': { carries: { tabId: number }; answers: { ok: true } };
  /** Judges edited events (one JSON event a line) as the answer they would be, like a recording of `contentType` to `requestBody`: what the analyzer would find. */
  'agui-inspector/check-answer': { carries: { text: string; contentType: string; requestBody: string | null }; answers: EditedVerdict };
  /** The tab's armed override and how many requests it answered; null when none is armed. */
  'agui-inspector/override-status': { carries: { tabId: number }; answers: OverrideStatus | null };
}

export type RequestType = keyof RequestMap;
export type RequestOf<K extends RequestType> = { type: K } & RequestMap[K]['carries'];
export type Request = { [K in RequestType]: RequestOf<K> }[RequestType];
export type Reply<R extends Request> = RequestMap[R['type']]['answers'];

// ── validation of untrusted input ────────────────────────────────────────────

type Rec = Record<string, unknown>;
const isRec = (x: unknown): x is Rec => typeof x === 'object' && x !== null && !Array.isArray(x);
const int = (x: unknown, max = Number.MAX_SAFE_INTEGER): x is number => Number.isSafeInteger(x) && (x as number) >= 0 && (x as number) <= max;
const time = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0;
const str = (x: unknown, max: number): x is string => typeof x === 'string' && x.length <= max;
const strOrNull = (x: unknown, max: number): x is string | null => x === null || str(x, max);
const oneOf = <T extends string>(x: unknown, values: readonly T[]): x is T => values.includes(x as T);
/** Realm-independent: the page's Uint8Array is not the relay's (Chrome worlds, Firefox compartments). */
function isBytes(x: unknown): x is Uint8Array {
  return ArrayBuffer.isView(x) && Object.prototype.toString.call(x) === '[object Uint8Array]';
}
/** Exact key sets: an extra key is as malformed as a missing one. */
function keys(x: Rec, expected: string[]): boolean {
  const own = Object.keys(x);
  return own.length === expected.length && expected.every((k) => Object.prototype.hasOwnProperty.call(x, k));
}

/**
 * A batch of page messages, each copied out only when it has exactly the shape above; `bytes` must be a
 * Uint8Array. Null for anything but an array; malformed members are null.
 */
export function checkPageBatch(x: unknown): (PageMessage | null)[] | null {
  if (!Array.isArray(x) || x.length > LIMITS.batch) return null;
  // Not copied here: what came through the MessagePort was cloned or transferred, so no page script holds it.
  return x.map((m) => checkCommon(m, (b, max) => (isBytes(b) && b.byteLength <= max ? b : null)) as PageMessage | null);
}

/** The worker's check of what a relay forwards; `bytes` is a Uint8Array or base64, and comes back decoded. */
function checkCaptureMessage(x: unknown): PageMessage | null {
  const m = checkCommon(x, (b, max) => {
    // Compact: a view would keep (and the store would write) its whole buffer.
    if (isBytes(b)) return b.byteLength > max ? null : b.byteLength === b.buffer.byteLength ? b : b.slice();
    if (!str(b, Math.ceil(max / 3) * 4)) return null;
    try {
      return fromBase64(b);
    } catch {
      return null;
    }
  });
  return m as PageMessage | null;
}

const OPEN_KEYS = ['k', 'id', 'api', 't', 'method', 'url', 'requestContentType', 'requestBody', 'requestBodyNote'];

/** `bytes` returns the checked bytes of a chunk or binary frame (at most `max` of them), or null to refuse the message. */
function checkCommon(x: unknown, bytes: (b: unknown, max: number) => Uint8Array | null): Rec | null {
  if (!isRec(x)) return null;
  switch (x.k) {
    case 'open':
      return (keys(x, OPEN_KEYS) || (keys(x, [...OPEN_KEYS, 'by']) && int(x.by))) &&
        int(x.id) && oneOf(x.api, APIS) && time(x.t) && str(x.method, 32) && str(x.url, LIMITS.url) &&
        strOrNull(x.requestContentType, LIMITS.text) && strOrNull(x.requestBody, LIMITS.requestBody) &&
        (x.requestBodyNote === null || oneOf(x.requestBodyNote, BODY_NOTES))
        ? { k: 'open', id: x.id, api: x.api, t: x.t, method: x.method, url: x.url, requestContentType: x.requestContentType, requestBody: x.requestBody, requestBodyNote: x.requestBodyNote, ...(x.by === undefined ? {} : { by: x.by }) }
        : null;
    case 'response':
      return keys(x, ['k', 'id', 't', 'status', 'statusText', 'contentType', 'url', 'redirected', 'reconstructed']) &&
        int(x.id) && time(x.t) && int(x.status, 999) && str(x.statusText, LIMITS.text) && strOrNull(x.contentType, LIMITS.text) &&
        str(x.url, LIMITS.url) && typeof x.redirected === 'boolean' && typeof x.reconstructed === 'boolean'
        ? { k: 'response', id: x.id, t: x.t, status: x.status, statusText: x.statusText, contentType: x.contentType, url: x.url, redirected: x.redirected, reconstructed: x.reconstructed }
        : null;
    case 'chunk': {
      const b = keys(x, ['k', 'id', 't', 'bytes']) && int(x.id) && time(x.t) ? bytes(x.bytes, LIMITS.chunk) : null;
      return b ? { k: 'chunk', id: x.id, t: x.t, bytes: new Uint8Array(b.buffer, b.byteOffset, b.byteLength) } : null;
    }
    case 'end':
      return keys(x, ['k', 'id', 't', 'outcome', 'error']) && int(x.id) && time(x.t) && oneOf(x.outcome, OUTCOMES) && strOrNull(x.error, LIMITS.text)
        ? { k: 'end', id: x.id, t: x.t, outcome: x.outcome, error: x.error }
        : null;
    case 'dropped': {
      const socket = 'socket' in x;
      return keys(x, ['k', 't', 'id', 'exchanges', 'chunks', 'bytes', 'rejected', ...(socket ? ['socket'] : [])]) && time(x.t) && (x.id === null || int(x.id)) &&
        int(x.exchanges) && int(x.chunks) && int(x.bytes) && int(x.rejected) && (!socket || int(x.socket))
        ? { k: 'dropped', t: x.t, id: x.id, exchanges: x.exchanges, chunks: x.chunks, bytes: x.bytes, rejected: x.rejected, ...(socket ? { socket: x.socket as number } : {}) }
        : null;
    }
    case 'socket':
      return keys(x, ['k', 'id', 't', 'url']) && int(x.id) && time(x.t) && str(x.url, LIMITS.url) ? { k: 'socket', id: x.id, t: x.t, url: x.url } : null;
    case 'frame': {
      if (!keys(x, ['k', 'id', 't', 'type', 'opcode', 'data']) || !int(x.id) || !time(x.t) || !oneOf(x.type, ['send', 'receive'] as const)) return null;
      const data = x.opcode === 1 ? (str(x.data, LIMITS.frame) ? x.data : null) : x.opcode === 2 ? bytes(x.data, LIMITS.frame) : null;
      return data === null ? null : { k: 'frame', id: x.id, t: x.t, type: x.type, opcode: x.opcode, data: typeof data === 'string' ? data : new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
    }
    case 'close':
      // A close event's code is 1000-4999 or one of the reserved codes the browser reports (1005, 1006, 1015); its reason at most 123 bytes (RFC 6455 5.5).
      return keys(x, ['k', 'id', 't', 'code', 'reason', 'wasClean']) && int(x.id) && time(x.t) && int(x.code, 4999) && str(x.reason, LIMITS.text) && typeof x.wasClean === 'boolean'
        ? { k: 'close', id: x.id, t: x.t, code: x.code, reason: x.reason, wasClean: x.wasClean }
        : null;
    default:
      return null;
  }
}

/** The worker's view of relay messages: checked, with chunk bytes decoded. */
export type CheckedRelayMessage =
  | { type: 'hello'; doc: string; url: string; resumed: boolean; binary: boolean }
  | { type: 'capture'; seq: number; msgs: PageMessage[] }
  | { type: 'page-script'; reached: boolean }
  | { type: 'answer-for'; ask: number; method: string; url: string; body: string | null };

/** The worker's check of relay messages; a batch with any malformed member is refused whole. */
export function checkRelayMessage(x: unknown): CheckedRelayMessage | null {
  if (!isRec(x)) return null;
  if (x.type === 'hello') {
    const binary = isBytes(x.probe) && x.probe.length === BINARY_PROBE.length && BINARY_PROBE.every((b, i) => (x.probe as Uint8Array)[i] === b);
    return keys(x, ['type', 'doc', 'url', 'resumed', 'probe']) && str(x.doc, 64) && str(x.url, LIMITS.url) && typeof x.resumed === 'boolean'
      ? { type: 'hello', doc: x.doc, url: x.url, resumed: x.resumed, binary }
      : null;
  }
  if (x.type === 'capture' && keys(x, ['type', 'seq', 'msgs']) && int(x.seq) && Array.isArray(x.msgs) && x.msgs.length <= LIMITS.batch) {
    const msgs: PageMessage[] = [];
    for (const m of x.msgs as unknown[]) {
      const checked = checkCaptureMessage(m);
      if (!checked) return null;
      msgs.push(checked);
    }
    return { type: 'capture', seq: x.seq, msgs };
  }
  if (x.type === 'page-script') return keys(x, ['type', 'reached']) && typeof x.reached === 'boolean' ? { type: 'page-script', reached: x.reached } : null;
  if (x.type === 'answer-for') {
    const ask = checkAnswerAsk({ answerFor: x.ask, method: x.method, url: x.url, body: x.body });
    return ask && keys(x, ['type', 'ask', 'method', 'url', 'body']) ? { type: 'answer-for', ask: ask.answerFor, method: ask.method, url: ask.url, body: ask.body } : null;
  }
  return null;
}

const tab = (x: unknown): x is number => int(x, 2 ** 31);
const optional = (x: Rec, key: string, ok: (v: unknown) => boolean): boolean => !(key in x) || x[key] === undefined || ok(x[key]);
const MAX_IDS = 100_000;

/** Each request's members, checked exactly: the worker answers only what has one of these shapes. */
const REQUEST_SHAPES: { [K in RequestType]: { members: string[]; check: (x: Rec) => boolean } } = {
  'agui-inspector/export': {
    members: ['type', 'tabId', 'exchangeIds', 'redact'],
    check: (x) =>
      optional(x, 'tabId', tab) &&
      optional(x, 'exchangeIds', (v) => Array.isArray(v) && v.length <= MAX_IDS && v.every((id) => str(id, 64))) &&
      optional(x, 'redact', (v) => Array.isArray(v) && v.length <= REDACTION_GROUPS.length && v.every((g) => oneOf(g, REDACTION_GROUPS))),
  },
  'agui-inspector/clear': { members: ['type', 'tabId'], check: (x) => tab(x.tabId) },
  'agui-inspector/session': { members: ['type', 'tabId'], check: (x) => tab(x.tabId) },
  'agui-inspector/sessions': { members: ['type'], check: () => true },
  'agui-inspector/preserve': { members: ['type', 'tabId', 'preserve'], check: (x) => tab(x.tabId) && typeof x.preserve === 'boolean' },
  'agui-inspector/record': { members: ['type', 'tabId', 'record'], check: (x) => tab(x.tabId) && typeof x.record === 'boolean' },
  'agui-inspector/limits': {
    members: ['type', 'set'],
    check: (x) => optional(x, 'set', (v) => isRec(v) && Object.keys(v).every((k) => k === 'maxEvents' || k === 'maxBytes') && Object.values(v).every((n) => n === undefined || int(n))),
  },
  'agui-inspector/origins': { members: ['type'], check: () => true },
  'agui-inspector/detail': {
    members: ['type', 'tabId', 'exchangeId', 'part'],
    check: (x) => tab(x.tabId) && str(x.exchangeId, 64) && (DETAIL_PARTS as readonly unknown[]).includes(x.part),
  },
  'agui-inspector/overview': { members: ['type', 'tabId'], check: (x) => tab(x.tabId) },
  'agui-inspector/socket': { members: ['type', 'tabId', 'exchangeId'], check: (x) => tab(x.tabId) && str(x.exchangeId, 64) },
  'agui-inspector/state-at': { members: ['type', 'tabId', 'exchangeId', 'step'], check: (x) => tab(x.tabId) && str(x.exchangeId, 64) && int(x.step) },
  'agui-inspector/check-input': { members: ['type', 'tabId', 'body'], check: (x) => tab(x.tabId) && str(x.body, LIMITS.requestBody) },
  'agui-inspector/resend-headers': { members: ['type', 'tabId', 'exchangeId'], check: (x) => tab(x.tabId) && str(x.exchangeId, 64) },
  'agui-inspector/resend': {
    members: ['type', 'tabId', 'exchangeId', 'body', 'reuse'],
    check: (x) => tab(x.tabId) && str(x.exchangeId, 64) && str(x.body, LIMITS.requestBody) && typeof x.reuse === 'boolean',
  },
  'agui-inspector/state-diff': { members: ['type', 'tabId', 'exchangeId', 'step'], check: (x) => tab(x.tabId) && str(x.exchangeId, 64) && int(x.step) },
  'agui-inspector/conversation-diff': { members: ['type', 'tabId', 'exchangeId', 'step'], check: (x) => tab(x.tabId) && str(x.exchangeId, 64) && int(x.step) },
  'agui-inspector/conversation-at': { members: ['type', 'tabId', 'exchangeId', 'step'], check: (x) => tab(x.tabId) && str(x.exchangeId, 64) && int(x.step) },
  'agui-inspector/override-arm': {
    members: ['type', 'tabId', 'exchangeId', 'method', 'url', 'once', 'pace', 'keepIds', 'faults', 'pinned', 'recorded', 'edited'],
    check: (x) =>
      tab(x.tabId) && str(x.exchangeId, 64) && str(x.method, 32) && x.method !== '' && str(x.url, LIMITS.url) && x.url !== '' &&
      typeof x.once === 'boolean' && (x.pace === 'max' || (typeof x.pace === 'number' && Number.isFinite(x.pace) && x.pace > 0)) &&
      typeof x.keepIds === 'boolean' && typeof x.pinned === 'boolean' &&
      Array.isArray(x.faults) && x.faults.length <= 64 && x.faults.every((f) => str(f, 256)) && optional(x, 'recorded', checkRecorded) &&
      optional(x, 'edited', (v) => str(v, LIMITS.requestBody)),
  },
  'agui-inspector/override-disarm': { members: ['type', 'tabId'], check: (x) => tab(x.tabId) },
  'agui-inspector/check-answer': {
    members: ['type', 'text', 'contentType', 'requestBody'],
    check: (x) => str(x.text, LIMITS.requestBody) && str(x.contentType, LIMITS.text) && strOrNull(x.requestBody, LIMITS.requestBody),
  },
  'agui-inspector/override-status': { members: ['type', 'tabId'], check: (x) => tab(x.tabId) },
};

/** A request from an extension page, when it has exactly one of the shapes `RequestMap` names; else null. */
export function checkRequest(x: unknown): Request | null {
  if (!isRec(x) || typeof x.type !== 'string' || !Object.prototype.hasOwnProperty.call(REQUEST_SHAPES, x.type)) return null;
  const shape = REQUEST_SHAPES[x.type as RequestType];
  // Optional members may be absent; nothing else may be present.
  if (!Object.keys(x).every((k) => shape.members.includes(k))) return null;
  return shape.check(x) ? (x as Request) : null;
}

/** A panel port message, when it is one `PanelToWorker` names; else null. */
export function checkPanelMessage(x: unknown): PanelToWorker | null {
  return isRec(x) && keys(x, ['type', 'tabId']) && (x.type === 'subscribe' || x.type === 'watch') && tab(x.tabId) ? { type: x.type, tabId: x.tabId } : null;
}

/** Media type without parameters, lower-cased. */
export function mediaType(contentType: string | null | undefined): string {
  return (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

export function eventView(record: EventRecord): EventView {
  return typeof record.raw === 'string'
    ? { index: record.index, type: record.type, offset: record.offset, size: record.size, time: record.time, raw: record.raw, rawEncoding: 'text' }
    : { index: record.index, type: record.type, offset: record.offset, size: record.size, time: record.time, raw: toBase64(record.raw), rawEncoding: 'base64' };
}
