import { SseDecoder, transportOf } from '../wire/index.ts';
import { fromBase64, toBase64 } from '../base64.ts';
import { utf8Bytes } from '../bytes.ts';
import { isObject, type JsonObject as Json } from '../json.ts';
import type { Finding } from '../rules/index.ts';
import {
  APIS, BODY_NOTES, bodyOf, bytesOnlyAnalysis, isAgUiEventValue, isRunAgentInputText, OUTCOMES, socketExchanges, withoutUserInfo,
  type AnalysisRecord, type Arrival, type CapturedExchange, type Chunk, type EntryTimings, type ExchangeReport, type RunReport,
  type OverrideMark, type SocketClose, type SocketConnection, type SocketFrame,
} from '../exchange/index.ts';
import { FormatError } from './error.ts';

/** Names the Inspector's own HAR and the version of its `_agui` members, in the log-level `_agui`. */
export const HAR_FORMAT = { format: 'agui-inspector/har', version: 1 } as const;

/**
 * The per-entry `_agui` extension field (HAR 1.2 admits custom fields whose names start with `_`). Its
 * presence marks an entry this project wrote, which is read back as an AG-UI exchange without further
 * sniffing. The members of the exchange's `AnalysisRecord` follow when it has one.
 */
export type AguiEntryExtension = {
  /** How the response body arrived: `size` bytes at `time` ms after the request started, in order; sizes sum to the body's length. */
  chunks: { time: number; size: number }[];
  /** What the source recorded of the arrival (CapturedExchange.arrival); null when nothing: then the chunks' times mean nothing. */
  arrival: Arrival | null;
  /** The page abandoned the response (CapturedExchange.abandoned); absent otherwise. */
  abandoned?: true;
  /** The Inspector answered it from a recording (CapturedExchange.override); absent otherwise. */
  override?: OverrideMark;
} & Partial<AnalysisRecord>;

/**
 * The `_agui` of a socket entry (Chromium's `_resourceType: "websocket"`, frames in `_webSocketMessages`):
 * how the socket closed, which Chromium does not record, and each exchange's analysis record, named by
 * the index of the message that carried its input.
 */
export type AguiSocketExtension = {
  close: SocketClose | null;
  exchanges: ({ input: number } & AnalysisRecord)[];
};

/** The log-level `_agui` extension field. */
export type AguiLogExtension = typeof HAR_FORMAT & Record<string, unknown>;

export interface HarMeta {
  creator: { name: string; version: string };
  /** Further members of the log-level `_agui`. */
  extension?: Record<string, unknown>;
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const utf8 = new TextEncoder();

/** Text when it round-trips through a string exactly; base64 otherwise, and always for the binary transport. */
function contentBody(body: Uint8Array, contentType: string): { text: string; encoding?: 'base64' } {
  if (transportOf(contentType) !== 'protobuf') {
    try {
      return { text: strictUtf8.decode(body) };
    } catch {
      // Not UTF-8: only base64 keeps the bytes.
    }
  }
  return { text: toBase64(body), encoding: 'base64' };
}

function queryString(url: string): { name: string; value: string }[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

function writeEntry(x: CapturedExchange): Record<string, unknown> {
  const body = bodyOf(x);
  const entry = typeof x.arrival === 'object' ? x.arrival : null;
  // An entry's own timings, when they are all that is known, are written as they were read.
  const first = entry ? entry.ttfbMs ?? 0 : x.chunks[0]?.time ?? 0;
  const last = entry ? entry.durationMs ?? first : x.chunks[x.chunks.length - 1]?.time ?? 0;
  const wait = Math.max(0, first);
  const receive = Math.max(0, last - wait);
  const url = withoutUserInfo(x.url ?? 'about:blank');
  const requestType = x.requestContentType ?? (x.requestBody !== undefined ? 'application/json' : undefined);
  const request: Record<string, unknown> = {
    method: x.method ?? 'POST',
    url,
    httpVersion: 'HTTP/1.1',
    cookies: [],
    headers: requestType !== undefined ? [{ name: 'Content-Type', value: requestType }] : [],
    queryString: queryString(url),
    headersSize: -1,
    bodySize: x.requestBody !== undefined ? utf8.encode(x.requestBody).length : 0,
  };
  if (x.requestBody !== undefined) request.postData = { mimeType: requestType, text: x.requestBody };
  const status = x.status ?? 200;
  const agui: AguiEntryExtension = { chunks: x.chunks.map((c) => ({ time: c.time, size: c.bytes.length })), arrival: x.arrival ?? null };
  if (x.abandoned) agui.abandoned = true;
  if (x.override) agui.override = { from: x.override.from, pace: x.override.pace, idsRewritten: x.override.idsRewritten, faults: [...x.override.faults] };
  if (x.analysis) Object.assign(agui, recordMembers(x.analysis));
  return {
    startedDateTime: x.startedDateTime ?? new Date(0).toISOString(),
    time: wait + receive,
    request,
    response: {
      status,
      statusText: STATUS_TEXT[status] ?? '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [{ name: 'Content-Type', value: x.responseContentType }],
      content: { size: body.length, mimeType: x.responseContentType, ...contentBody(body, x.responseContentType) },
      redirectURL: x.redirectURL ?? '',
      headersSize: -1,
      bodySize: body.length,
    },
    cache: {},
    timings: { send: 0, wait, receive },
    _agui: agui,
  };
}

/** Member by member, in one order: a record read from a file and one built by the worker write the same bytes. */
function recordMembers(a: AnalysisRecord): AnalysisRecord {
  return {
    tabId: a.tabId, api: a.api, outcome: a.outcome, error: a.error, capped: a.capped, reconstructed: a.reconstructed,
    requestBodyNote: a.requestBodyNote, analysisError: a.analysisError, report: a.report,
  };
}

/** A socket as Chromium's HAR writes one, so a browser's tools read it too; the exchanges on it are the ones exported. */
function writeSocketEntry(connection: SocketConnection, exchanges: CapturedExchange[]): Record<string, unknown> {
  const { frames } = connection;
  const first = frames[0]?.time ?? 0;
  const url = withoutUserInfo(connection.url);
  const agui: AguiSocketExtension = {
    close: connection.close,
    exchanges: exchanges.flatMap((x) => (x.socket && x.analysis ? [{ input: x.socket.input, ...recordMembers(x.analysis) }] : [])),
  };
  return {
    _resourceType: 'websocket',
    startedDateTime: connection.startedDateTime ?? new Date(first * 1000).toISOString(),
    time: ((connection.close?.time ?? frames.at(-1)?.time ?? first) - first) * 1000,
    request: { method: 'GET', url, httpVersion: 'HTTP/1.1', cookies: [], headers: [], queryString: queryString(url), headersSize: -1, bodySize: 0 },
    response: {
      status: 101, statusText: 'Switching Protocols', httpVersion: 'HTTP/1.1', cookies: [], headers: [],
      content: { size: 0, mimeType: 'x-unknown' }, redirectURL: '', headersSize: -1, bodySize: 0,
    },
    cache: {},
    timings: { send: 0, wait: 0, receive: 0 },
    _webSocketMessages: frames.map((f) => ({ type: f.type, time: f.time, opcode: f.opcode, data: typeof f.data === 'string' ? f.data : toBase64(f.data) })),
    _agui: agui,
  };
}

/** The entry each exchange is written in: one per HTTP exchange, and one per socket, where its first exchange stands. */
export function entryIndexes(exchanges: CapturedExchange[]): number[] {
  const sockets = new Map<SocketConnection, number>();
  let entries = 0;
  return exchanges.map((x) => {
    if (!x.socket) return entries++;
    const { connection } = x.socket;
    const at = sockets.get(connection) ?? entries++;
    sockets.set(connection, at);
    return at;
  });
}

function writeEntries(exchanges: CapturedExchange[]): Record<string, unknown>[] {
  const entries: Record<string, unknown>[] = [];
  entryIndexes(exchanges).forEach((at, i) => {
    const x = exchanges[i]!;
    if (at < entries.length) return;
    entries.push(x.socket ? writeSocketEntry(x.socket.connection, exchanges.filter((y) => y.socket?.connection === x.socket!.connection)) : writeEntry(x));
  });
  return entries;
}

/**
 * A HAR 1.2 document holding the exchanges, their chunk timing and their analysis records in `_agui`, so
 * that the bytes, the timing and the analysis read back exactly.
 */
export function writeHar(exchanges: CapturedExchange[], meta: HarMeta): string {
  const log = {
    version: '1.2',
    creator: meta.creator,
    entries: writeEntries(exchanges),
    _agui: { ...HAR_FORMAT, ...meta.extension } satisfies AguiLogExtension,
  };
  return JSON.stringify({ log }, null, 2);
}

function header(headers: unknown, name: string): string | undefined {
  if (!Array.isArray(headers)) return undefined;
  for (const h of headers) {
    if (isObject(h) && typeof h.name === 'string' && h.name.toLowerCase() === name && typeof h.value === 'string') {
      return h.value;
    }
  }
  return undefined;
}

/** Whether an SSE body carries at least one frame that is an AG-UI event. */
function carriesEvents(body: Uint8Array): boolean {
  const decoder = new SseDecoder();
  const items = decoder.push(body, 0).concat(decoder.end(0));
  return items.some((it) => it.kind === 'event' && isAgUiEventValue(it.value));
}

function isChunkList(v: unknown): v is { time: number; size: number }[] {
  return (
    Array.isArray(v) &&
    v.every(
      (c) => isObject(c) && typeof c.time === 'number' && Number.isFinite(c.time) && Number.isInteger(c.size) && (c.size as number) >= 0,
    )
  );
}

/**
 * Why recorded chunk times cannot be when the chunks arrived, or null: a chunk dated before the request
 * started or before the chunk ahead of it. A timing read from such times would have a negative first
 * content or duration and gaps of any size, so none is drawn from them.
 */
function unusableTimes(chunks: readonly { time: number }[]): string | null {
  for (let i = 0; i < chunks.length; i++) {
    const t = chunks[i]!.time;
    if (i === 0 && t < 0) return `chunk 0 is dated ${t} ms, before the request started`;
    if (i > 0 && t < chunks[i - 1]!.time) return `chunk ${i} is dated ${t} ms, before chunk ${i - 1} (${chunks[i - 1]!.time} ms)`;
  }
  return null;
}

/** The body in its recorded chunks; `timed` when those are the Inspector's own, with their times. */
function chunksOf(body: Uint8Array, ext: unknown, entryTime: unknown): { chunks: Chunk[]; timed: boolean } {
  const recorded = isObject(ext) ? ext.chunks : undefined;
  if (isChunkList(recorded) && recorded.reduce((n, c) => n + c.size, 0) === body.length) {
    let at = 0;
    const chunks = recorded.map((c) => {
      const bytes = body.subarray(at, at + c.size);
      at += c.size;
      return { time: c.time, bytes };
    });
    return { chunks, timed: true };
  }
  if (body.length === 0) return { chunks: [], timed: false };
  // Without per-chunk timing the body counts as complete when the entry finished.
  const time = typeof entryTime === 'number' && Number.isFinite(entryTime) && entryTime >= 0 ? entryTime : 0;
  return { chunks: [{ time, bytes: body }], timed: false };
}

const msOrNull = (v: unknown): v is number | null => v === null || (typeof v === 'number' && Number.isFinite(v) && v >= 0);

function isEntryTimings(v: unknown): v is EntryTimings {
  return isObject(v) && msOrNull(v.ttfbMs) && msOrNull(v.durationMs) && (v.ttfbMs === null || v.durationMs === null || (v.ttfbMs as number) <= (v.durationMs as number));
}

/** HAR 1.2 `timings` up to the first byte (each -1 when it does not apply), and the entry's whole `time`. */
function harTimings(entry: Json): EntryTimings | undefined {
  const t = entry.timings;
  const phases = isObject(t) ? [t.blocked, t.dns, t.connect, t.send, t.wait].filter((v): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0) : [];
  const ttfbMs = isObject(t) && typeof t.wait === 'number' && t.wait >= 0 ? phases.reduce((a, b) => a + b, 0) : null;
  const durationMs = typeof entry.time === 'number' && Number.isFinite(entry.time) && entry.time >= 0 ? entry.time : null;
  if (ttfbMs === null && durationMs === null) return undefined;
  // A first byte after the end is no order of events: neither figure can be trusted over the other.
  if (ttfbMs !== null && durationMs !== null && ttfbMs > durationMs) return { ttfbMs: null, durationMs: null, unusableTimes: `the entry's first byte (${ttfbMs} ms) comes after its end (${durationMs} ms)` };
  return { ttfbMs, durationMs };
}

/**
 * What an entry recorded of the arrival. The Inspector's says so (`_agui.arrival`); one written before it
 * did has its chunks' times when a tab captured it. A browser's HAR has only its entry timings.
 */
function arrivalOf(entry: Json, chunks: readonly Chunk[], timed: boolean): Arrival | undefined {
  const ext = entry._agui;
  if (!isObject(ext)) return harTimings(entry);
  const chunked = 'arrival' in ext ? ext.arrival === 'chunks' && timed : timed && typeof ext.tabId === 'number';
  if (chunked) {
    // Times that cannot be arrivals (an edited or hostile file) leave what the entry says of its own, and why.
    const unusable = unusableTimes(chunks);
    return unusable === null ? 'chunks' : { ...(harTimings(entry) ?? { ttfbMs: null, durationMs: null }), unusableTimes: unusable };
  }
  if (!isEntryTimings(ext.arrival)) return undefined;
  const { ttfbMs, durationMs, unusableTimes: why } = ext.arrival;
  return typeof why === 'string' ? { ttfbMs, durationMs, unusableTimes: why } : { ttfbMs, durationMs };
}

/** What Windows-1252 decodes bytes 0x80–0x9F to (WHATWG); where it leaves one undefined, the C1 control of that value. */
const CP1252_C1 =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/**
 * Chromium's DevTools protocol hands over a text/* body whose type names no charset decoded as
 * Windows-1252, so the HARs it writes (DevTools' "Save all as HAR", Playwright's recordHar) hold UTF-8
 * SSE as mojibake: `°` as `Â°`. When every character encodes back to one byte (as Windows-1252, or as
 * ISO-8859-1, which some decoders use in its place) and those bytes are UTF-8 beyond ASCII, they are the
 * body that was received; otherwise null.
 */
export function undoWindows1252(text: string): Uint8Array | null {
  if (!/[^\x00-\x7f]/.test(text)) return null;
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c <= 0xff) {
      bytes[i] = c;
      continue;
    }
    const at = CP1252_C1.indexOf(text[i]!);
    if (at === -1) return null;
    bytes[i] = 0x80 + at;
  }
  try {
    strictUtf8.decode(bytes);
  } catch {
    return null;
  }
  return bytes;
}

/** `browserDecoded`: the text may be a browser's Windows-1252 reading of a body whose type declared no charset. */
function responseBody(content: unknown, where: string, browserDecoded: boolean): Uint8Array {
  if (!isObject(content) || typeof content.text !== 'string') return new Uint8Array(0);
  if (content.encoding !== 'base64') return (browserDecoded && undoWindows1252(content.text)) || utf8Bytes(content.text);
  try {
    return fromBase64(content.text);
  } catch {
    throw new FormatError(`${where}: response content is marked base64 but is not valid base64`);
  }
}

const str = (v: unknown): v is string => typeof v === 'string';
const strOrNull = (v: unknown): v is string | null => v === null || typeof v === 'string';
const intOrNull = (v: unknown): v is number | null => v === null || Number.isSafeInteger(v);
const oneOf = <T extends string>(v: unknown, values: readonly T[]): v is T => values.includes(v as T);
const listOf = <T>(v: unknown, item: (x: unknown) => x is T): v is T[] => Array.isArray(v) && v.every(item);
const VERDICTS = ['completed', 'failed'] as const;

function isFinding(f: unknown): f is Finding {
  return (
    isObject(f) && str(f.rule) && str(f.category) && str(f.severity) && str(f.message) && intOrNull(f.event) &&
    strOrNull(f.path) && str(f.spec) && (f.readiness === undefined || f.readiness === true)
  );
}

function isRun(r: unknown): r is RunReport {
  return (
    isObject(r) && strOrNull(r.runId) && strOrNull(r.threadId) && strOrNull(r.parentRunId) && typeof r.requested === 'boolean' &&
    str(r.outcome) && strOrNull(r.protocolVersion) && str(r.negotiation) && intOrNull(r.startedAt) && intOrNull(r.finishedAt) &&
    listOf(r.interrupts, str)
  );
}

/** A report as the analyzer writes it: one a file carries is shown and written again, so it must have that shape. */
function isReport(r: unknown): r is ExchangeReport {
  if (!isObject(r) || !isObject(r.input) || !isObject(r.negotiation)) return false;
  const { input, negotiation } = r;
  return (
    str(r.source) && str(r.era) && str(r.consumerVersion) &&
    typeof input.present === 'boolean' && oneOf(input.verdict, ['valid', 'invalid']) && listOf(input.findings, isFinding) &&
    strOrNull(negotiation.consumer) && strOrNull(negotiation.producer) && str(negotiation.verdict) &&
    listOf(r.runs, isRun) && oneOf(r.verdict, VERDICTS) && (r.readiness === null || (isObject(r.readiness) && oneOf(r.readiness.verdict, VERDICTS))) &&
    listOf(r.findings, isFinding) && (r.transport === undefined || r.transport === 'websocket')
  );
}

/** The record's members as `from` holds them (this version's entry `_agui`, or an earlier export's `_agui.analysis`); else undefined. */
function recordIn(from: Json): AnalysisRecord | undefined {
  const r = {
    tabId: from.tabId, api: from.api, outcome: from.outcome, error: from.error, capped: from.capped,
    reconstructed: from.reconstructed, requestBodyNote: from.requestBodyNote, analysisError: from.analysisError, report: from.report,
  };
  const fits =
    intOrNull(r.tabId) && (r.api === null || oneOf(r.api, APIS)) && (r.outcome === null || r.outcome === 'pending' || oneOf(r.outcome, OUTCOMES)) &&
    strOrNull(r.error) && typeof r.capped === 'boolean' && typeof r.reconstructed === 'boolean' &&
    (r.requestBodyNote === null || oneOf(r.requestBodyNote, BODY_NOTES)) && strOrNull(r.analysisError) && (r.report === null || isReport(r.report));
  return fits ? (r as AnalysisRecord) : undefined;
}

/**
 * The analysis record an entry carries. This version writes the record's members beside `chunks`; a later
 * version's are not read (its exchanges are analysed anew). Exports before the format was versioned wrote
 * `_agui.analysis`: the worker's the record with a `tabId`, the panel's a bare report, whose flags were not kept.
 */
function analysisIn(ext: unknown, version: unknown): AnalysisRecord | undefined {
  if (!isObject(ext)) return undefined;
  if (version === HAR_FORMAT.version) return 'report' in ext ? recordIn(ext) : undefined;
  if (version !== undefined || !isObject(ext.analysis)) return undefined;
  const old = ext.analysis;
  if ('report' in old) return recordIn(old);
  if (!isReport(old)) return undefined;
  return bytesOnlyAnalysis(old, null);
}

function socketFrame(m: unknown, where: string): SocketFrame {
  if (!isObject(m) || !oneOf(m.type, ['send', 'receive'] as const) || typeof m.time !== 'number' || !Number.isFinite(m.time) || !Number.isInteger(m.opcode) || typeof m.data !== 'string') {
    throw new FormatError(`${where} is not a WebSocket message (type send or receive, time, opcode, data)`);
  }
  const frame = { type: m.type, time: m.time, opcode: m.opcode as number };
  if (m.opcode !== 2) return { ...frame, data: m.data };
  try {
    return { ...frame, data: fromBase64(m.data) };
  } catch {
    throw new FormatError(`${where} is a binary message whose data is not valid base64`);
  }
}

function socketClose(v: unknown): SocketClose | null {
  return isObject(v) && (v.code === null || Number.isInteger(v.code)) && typeof v.reason === 'string' && typeof v.time === 'number' && Number.isFinite(v.time)
    ? { code: v.code as number | null, reason: v.reason, time: v.time, ...(typeof v.wasClean === 'boolean' ? { wasClean: v.wasClean } : {}) }
    : null;
}

/** The AG-UI exchanges on a socket entry in Chromium's convention, each with the analysis record the Inspector's `_agui` keeps for it. */
function readSocketEntry(entry: Json, url: unknown, where: string, source: string, version: unknown): CapturedExchange[] {
  const messages = entry._webSocketMessages as unknown[];
  const ext = isObject(entry._agui) ? entry._agui : {};
  const connection: SocketConnection = {
    url: typeof url === 'string' ? withoutUserInfo(url) : '',
    frames: messages.map((m, k) => socketFrame(m, `${where} message ${k}`)),
    close: socketClose(ext.close),
  };
  if (typeof entry.startedDateTime === 'string') connection.startedDateTime = entry.startedDateTime;
  const records = Array.isArray(ext.exchanges) ? ext.exchanges.filter(isObject) : [];
  const exchanges = socketExchanges(connection, (k) => `${source}/socket/${k}`);
  for (const x of exchanges) {
    const analysis = analysisIn(records.find((r) => r.input === x.socket!.input), version);
    if (analysis) x.analysis = analysis;
  }
  return exchanges;
}

/** The AG-UI exchanges of a parsed HAR document, in file order; other traffic is left out, and a HAR with none is refused. */
export function readHar(doc: Json, name: string): CapturedExchange[] {
  const log = doc.log;
  if (!isObject(log) || !Array.isArray(log.entries)) throw new FormatError('HAR has no log.entries array');
  // Only the Inspector's own files name their format; the version says how their entries' records read.
  const version = isObject(log._agui) && log._agui.format === HAR_FORMAT.format ? log._agui.version : undefined;
  const out: CapturedExchange[] = [];
  log.entries.forEach((entry: unknown, i: number) => {
    const where = `HAR entry ${i}`;
    if (!isObject(entry) || !isObject(entry.request) || !isObject(entry.response)) {
      throw new FormatError(`${where} lacks a request or response object`);
    }
    const { request, response } = entry;
    if (entry._resourceType === 'websocket' && Array.isArray(entry._webSocketMessages)) {
      out.push(...readSocketEntry(entry, request.url, where, `${name}#entries/${i}`, version));
      return;
    }
    const postData = isObject(request.postData) ? request.postData : undefined;
    const requestBody = typeof postData?.text === 'string' ? postData.text : undefined;
    const content = response.content;
    const mimeType = isObject(content) && typeof content.mimeType === 'string' ? content.mimeType : '';
    const responseContentType = mimeType || header(response.headers, 'content-type') || '';
    const transport = transportOf(responseContentType);
    // The Inspector writes exact UTF-8; a browser decodes a text/* body by its charset, or by its default without one.
    const body = responseBody(content, where, !('_agui' in entry) && /^\s*text\//i.test(responseContentType) && !/;\s*charset=/i.test(responseContentType));
    const agui =
      '_agui' in entry ||
      (requestBody !== undefined && isRunAgentInputText(requestBody)) ||
      transport === 'protobuf' ||
      (transport === 'sse' && carriesEvents(body));
    if (!agui) return;
    const { chunks, timed } = chunksOf(body, entry._agui, entry.time);
    const x: CapturedExchange = { source: `${name}#entries/${i}`, responseContentType, chunks };
    const arrival = arrivalOf(entry, chunks, timed);
    if (arrival) x.arrival = arrival;
    if (typeof request.url === 'string') x.url = withoutUserInfo(request.url);
    if (typeof request.method === 'string') x.method = request.method;
    if (typeof response.status === 'number') x.status = response.status;
    if (typeof response.redirectURL === 'string' && response.redirectURL !== '') x.redirectURL = response.redirectURL;
    if (typeof entry.startedDateTime === 'string') x.startedDateTime = entry.startedDateTime;
    const requestType =
      (typeof postData?.mimeType === 'string' && postData.mimeType) || header(request.headers, 'content-type');
    if (requestType) x.requestContentType = requestType;
    if (requestBody !== undefined) x.requestBody = requestBody;
    if (isObject(entry._agui) && entry._agui.abandoned === true) x.abandoned = true;
    const analysis = analysisIn(entry._agui, version);
    if (analysis) x.analysis = analysis;
    out.push(x);
  });
  // An empty result would read as a clean bill of health for traffic never examined.
  if (out.length === 0) throw new FormatError(`none of the HAR's ${log.entries.length} entries is an AG-UI exchange`);
  return out;
}
