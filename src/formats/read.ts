import { errorText, detectTransport, MEDIA_TYPES } from '../wire/index.ts';
import type { Transport } from '../wire/index.ts';
import { FormatError } from './error.ts';
import type { CapturedExchange } from '../exchange/index.ts';
import { deeperThan, isObject } from '../json.ts';
import { readHar } from './har.ts';

export { FormatError } from './error.ts';

export interface ReadOptions {
  /** The request body for a file that holds only a response body (the CLI's `--input`). */
  inputText?: string;
  /** Told why `inputText` was not used: the file carries its own requests. */
  onInputUnused?: (reason: string) => void;
}

/** Strips a leading BOM, which JSON.parse would reject. */
const text = new TextDecoder();

function rawBody(bytes: Uint8Array, name: string, transport: Transport, opts: ReadOptions): CapturedExchange[] {
  const x: CapturedExchange = {
    source: name,
    responseContentType: MEDIA_TYPES[transport],
    chunks: [{ time: 0, bytes }],
  };
  if (opts.inputText !== undefined) {
    x.requestBody = opts.inputText;
    x.requestContentType = 'application/json';
  }
  return [x];
}

/** The official conformance-fixture format: `stream` replayed as a JSON array body, sent from the request the client builds. */
export function readFixture(doc: Record<string, unknown>, name: string): CapturedExchange {
  if (!Array.isArray(doc.stream)) throw new FormatError('conformance fixture "stream" is not an array');
  return {
    source: name,
    requestBody: JSON.stringify(fixtureRequest(doc, doc.stream)),
    requestContentType: 'application/json',
    responseContentType: MEDIA_TYPES.json,
    chunks: [{ time: 0, bytes: new TextEncoder().encode(JSON.stringify(doc.stream)) }],
  };
}

/**
 * A fixture's `input` is what the client starts the run from, not the RunAgentInput it sends: the client adds
 * the thread and run ids (the ones the stream answers with), an empty history when none is given, and its own
 * protocol version — the spec version the fixture is written against — unless `client.maxProtocolVersion` pins
 * a peer from before the field existed (basic/versioning#version-negotiation).
 */
function fixtureRequest(doc: Record<string, unknown>, stream: unknown[]): Record<string, unknown> {
  const given = isObject(doc.input) ? doc.input : {};
  const started = stream.filter((e): e is Record<string, unknown> => isObject(e) && e.type === 'RUN_STARTED');
  const threadId = started.map((e) => e.threadId).find((t) => typeof t === 'string') ?? 'conformance-thread';
  const runId = started.map((e) => e.runId).filter((r) => typeof r === 'string').at(-1) ?? 'conformance-run';
  const pinned = isObject(doc.client) && typeof doc.client.maxProtocolVersion === 'string' && doc.client.maxProtocolVersion.startsWith('0.');
  const specVersion = typeof doc.specPage === 'string' ? /^\/spec\/(\d+\.\d+)/.exec(doc.specPage)?.[1] : undefined;
  return {
    threadId,
    runId,
    ...(specVersion && !pinned ? { protocolVersion: specVersion } : {}),
    messages: [],
    ...given,
  };
}

function inputUnused(exchanges: CapturedExchange[], reason: string, opts: ReadOptions): CapturedExchange[] {
  if (opts.inputText !== undefined) opts.onInputUnused?.(reason);
  return exchanges;
}

/**
 * Whether an object-led file's first line is a JSON value. When the whole file is not one JSON
 * document, that makes it JSONL; when more follows that line, the file cannot be one document.
 */
export function isJsonLine(line: Uint8Array): boolean {
  try {
    JSON.parse(text.decode(line));
    return true;
  } catch {
    return false;
  }
}

/**
 * How deep a document may nest. Reading a fixture or a single event writes it again as a body
 * (JSON.stringify, which recurses: it overflowed the stack between 4,000 and 5,000 levels here); no AG-UI
 * document comes near this.
 */
const MAX_DOCUMENT_DEPTH = 1000;

/** An object-led file: a HAR, a fixture, a single event, or JSONL. */
function objectFile(bytes: Uint8Array, name: string, opts: ReadOptions): CapturedExchange[] {
  const whole = text.decode(bytes);
  let doc: unknown;
  try {
    doc = JSON.parse(whole);
  } catch (err) {
    const newline = bytes.indexOf(0x0a);
    if (!isJsonLine(newline === -1 ? bytes : bytes.subarray(0, newline))) throw new FormatError(`not valid JSON: ${errorText(err)}`);
    return rawBody(bytes, name, 'jsonl', opts);
  }
  if (!isObject(doc)) throw new FormatError('not valid JSON');
  if (deeperThan(doc, MAX_DOCUMENT_DEPTH)) throw new FormatError(`nests deeper than ${MAX_DOCUMENT_DEPTH} levels: not read`);
  if ('log' in doc) return inputUnused(readHar(doc, name), 'a HAR holds each exchange\'s own request', opts);
  if ('stream' in doc) return inputUnused([readFixture(doc, name)], 'a conformance fixture holds its own input', opts);
  if (typeof doc.type === 'string') {
    // One event, possibly pretty-printed across lines, which JSONL could not frame: it becomes a one-element array.
    return rawBody(new TextEncoder().encode(JSON.stringify([doc])), name, 'json', opts);
  }
  throw new FormatError('JSON object is neither a HAR (log.entries), a conformance fixture (stream) nor an event (type)');
}

/**
 * Every exchange a file holds: HAR 1.2 (AG-UI entries only), a conformance
 * fixture, or a bare response body — a JSON array of events, JSONL, SSE or
 * length-prefixed protobuf. Throws FormatError, and only that, for a file it cannot read.
 */
export function readExchanges(bytes: Uint8Array, name: string, opts: ReadOptions = {}): CapturedExchange[] {
  const layout = layoutOf(bytes);
  return layout === 'document' ? objectFile(bytes, name, opts) : rawBody(bytes, name, layout, opts);
}

/** How many leading bytes `layoutOf` needs to see, when the file is longer. */
export const HEAD_BYTES = 4096;

/**
 * What a file's first bytes (at least HEAD_BYTES of them, or the whole file) say it is: a response body of
 * a transport, which can be read frame by frame, or an object-led `document` (a HAR, a fixture, one event
 * — or JSONL, which only parsing tells apart). Throws FormatError for an empty or unrecognised file.
 */
export function layoutOf(head: Uint8Array): Transport | 'document' {
  if (head.length === 0) throw new FormatError('file is empty');
  const transport = detectTransport(head);
  if (transport === null) {
    throw new FormatError(
      'not a recognised format (expected a HAR, a conformance fixture, JSON or JSONL events, an SSE stream, or AG-UI protobuf frames)',
    );
  }
  // A json-seq body (RS-led) is JSONL already; only a brace-led file may be a HAR or a fixture.
  return transport === 'jsonl' && !text.decode(head.subarray(0, HEAD_BYTES)).trimStart().startsWith('\x1e') ? 'document' : transport;
}
