import { SseDecoder } from '../wire/sse.ts';
import { fromBase64, toBase64 } from '../base64.ts';
import { isObject, type JsonObject as Json } from '../json.ts';
import { transportOf } from '../wire/index.ts';
import { bodyOf, type CapturedExchange, type Chunk } from './exchange.ts';
import { FormatError } from './error.ts';
import { isAgUiEventValue, isRunAgentInputText } from './detect.ts';
import { withoutUserInfo } from './url.ts';

/**
 * The per-entry `_agui` extension field (HAR 1.2 admits custom fields whose
 * names start with `_`). Its presence marks an entry this project wrote, which
 * is read back as an AG-UI exchange without further sniffing.
 */
export interface AguiEntryExtension {
  /** How the response body arrived: `size` bytes at `time` ms after the request started, in order; sizes sum to the body's length. */
  chunks: { time: number; size: number }[];
  /** Whatever analysis the writer attached for this entry. */
  analysis?: unknown;
}

/** The log-level `_agui` extension field. */
export interface AguiLogExtension {
  /** The protocol version the attached analysis judged as. */
  protocolVersion?: string;
  /** Whatever else the writer records about the whole log (a recording's tool and redaction). */
  [member: string]: unknown;
}

export interface HarMeta {
  creator: { name: string; version: string };
  protocolVersion?: string;
  /** Index-aligned with the exchanges; each lands in its entry's `_agui.analysis`. */
  analysis?: unknown[];
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

function writeEntry(x: CapturedExchange, analysis: unknown): Record<string, unknown> {
  const body = bodyOf(x);
  const first = x.chunks[0]?.time ?? 0;
  const last = x.chunks[x.chunks.length - 1]?.time ?? 0;
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
  const agui: AguiEntryExtension = { chunks: x.chunks.map((c) => ({ time: c.time, size: c.bytes.length })) };
  if (analysis !== undefined) agui.analysis = analysis;
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
      redirectURL: '',
      headersSize: -1,
      bodySize: body.length,
    },
    cache: {},
    timings: { send: 0, wait, receive },
    _agui: agui,
  };
}

/** A HAR 1.2 document holding the exchanges, their chunk timing in `_agui`, so the bytes and timing read back exactly. */
export function writeHar(exchanges: CapturedExchange[], meta: HarMeta): string {
  const log: Record<string, unknown> = {
    version: '1.2',
    creator: meta.creator,
    entries: exchanges.map((x, i) => writeEntry(x, meta.analysis?.[i])),
  };
  if (meta.protocolVersion !== undefined || meta.extension !== undefined) {
    const ext: AguiLogExtension = { ...meta.extension };
    if (meta.protocolVersion !== undefined) ext.protocolVersion = meta.protocolVersion;
    log._agui = ext;
  }
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

function chunksOf(body: Uint8Array, ext: unknown, entryTime: unknown): Chunk[] {
  const recorded = isObject(ext) ? ext.chunks : undefined;
  if (isChunkList(recorded) && recorded.reduce((n, c) => n + c.size, 0) === body.length) {
    let at = 0;
    return recorded.map((c) => {
      const bytes = body.subarray(at, at + c.size);
      at += c.size;
      return { time: c.time, bytes };
    });
  }
  if (body.length === 0) return [];
  // Without per-chunk timing the body counts as complete when the entry finished.
  const time = typeof entryTime === 'number' && Number.isFinite(entryTime) && entryTime >= 0 ? entryTime : 0;
  return [{ time, bytes: body }];
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
  if (content.encoding !== 'base64') return (browserDecoded && undoWindows1252(content.text)) || utf8.encode(content.text);
  try {
    return fromBase64(content.text);
  } catch {
    throw new FormatError(`${where}: response content is marked base64 but is not valid base64`);
  }
}

/** The AG-UI exchanges of a parsed HAR document, in file order; other traffic is left out, and a HAR with none is refused. */
export function readHar(doc: Json, name: string): CapturedExchange[] {
  const log = doc.log;
  if (!isObject(log) || !Array.isArray(log.entries)) throw new FormatError('HAR has no log.entries array');
  const out: CapturedExchange[] = [];
  log.entries.forEach((entry: unknown, i: number) => {
    const where = `HAR entry ${i}`;
    if (!isObject(entry) || !isObject(entry.request) || !isObject(entry.response)) {
      throw new FormatError(`${where} lacks a request or response object`);
    }
    const { request, response } = entry;
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
    const x: CapturedExchange = {
      source: `${name}#entries/${i}`,
      responseContentType,
      chunks: chunksOf(body, entry._agui, entry.time),
    };
    if (typeof request.url === 'string') x.url = withoutUserInfo(request.url);
    if (typeof request.method === 'string') x.method = request.method;
    if (typeof response.status === 'number') x.status = response.status;
    if (typeof entry.startedDateTime === 'string') x.startedDateTime = entry.startedDateTime;
    const requestType =
      (typeof postData?.mimeType === 'string' && postData.mimeType) || header(request.headers, 'content-type');
    if (requestType) x.requestContentType = requestType;
    if (requestBody !== undefined) x.requestBody = requestBody;
    out.push(x);
  });
  // An empty result would read as a clean bill of health for traffic never examined.
  if (out.length === 0) throw new FormatError(`none of the HAR's ${log.entries.length} entries is an AG-UI exchange`);
  return out;
}
