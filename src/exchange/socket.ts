/**
 * AG-UI exchanges on a WebSocket. The spec binds AG-UI to HTTP and leaves other channels to custom
 * bindings, which must still deliver the RunAgentInput before the events, keep their order, and let a
 * consumer tell a closed run from a truncated one (basic/transports#custom-transports,
 * basic/transports#the-binding-contract). So a socket is read as that contract describes it: a client
 * frame that is a RunAgentInput opens an exchange, the server's event frames after it are its stream,
 * and its requested run's terminal event — or the socket's end — ends it. Each exchange is handed on
 * as a body the HTTP readers already read, so the analyzer judges it unchanged.
 */
import { isObject, type JsonObject } from '../json.ts';
import { decodeEvent, MEDIA_TYPES } from '../wire/index.ts';
import { isAgUiEventValue, runAgentInputIn } from './detect.ts';
import { RunEnd } from './run-end.ts';
import type { CapturedExchange, Chunk, SocketClose, SocketConnection, SocketExchange, SocketFrame } from './exchange.ts';

const PREFIX = 4;
const utf8 = new TextEncoder();

type Encoding = 'json' | 'protobuf';

/** One event a server frame carries, with what its stream's body holds for it. */
interface Carried {
  value: JsonObject;
  encoding: Encoding;
  bytes: Uint8Array;
}

function lengthOf(bytes: Uint8Array): number {
  return ((bytes[0]! << 24) >>> 0) + (bytes[1]! << 16) + (bytes[2]! << 8) + bytes[3]!;
}

/** Whether a binary frame carries the protobuf binding's length prefix, or is the message alone (protobufEvent). */
export function lengthPrefixed(data: Uint8Array): boolean {
  return data.length >= PREFIX && lengthOf(data) === data.length - PREFIX;
}

/**
 * A binary frame's event, length-prefixed as the protobuf binding frames it
 * (basic/transports/http-protobuf#framing): a frame may carry the prefix, as `@ag-ui/encoder` writes it,
 * or the message alone, its length being the frame's.
 */
function protobufEvent(data: Uint8Array): Carried | null {
  const prefixed = lengthPrefixed(data);
  const message = prefixed ? data.subarray(PREFIX) : data;
  let value: unknown;
  try {
    value = decodeEvent(message);
  } catch {
    return null;
  }
  if (!isAgUiEventValue(value)) return null;
  if (prefixed) return { value: value as JsonObject, encoding: 'protobuf', bytes: data };
  const bytes = new Uint8Array(PREFIX + message.length);
  new DataView(bytes.buffer).setUint32(0, message.length);
  bytes.set(message, PREFIX);
  return { value: value as JsonObject, encoding: 'protobuf', bytes };
}

/**
 * A JSON line for the event: the frame's own text when it is one object, which may span lines only in
 * whitespace (a raw line break inside a string is no JSON), so breaks become spaces; an array element is
 * written anew, having no text of its own.
 */
function jsonLine(text: string): Uint8Array {
  return utf8.encode(`${text.replace(/[\r\n]/g, ' ')}\n`);
}

/**
 * The events a server frame carries: one event object, or a JSON array of objects at least one of which
 * is an event (the SSE binding's one event per frame is what a custom binding SHOULD use,
 * basic/transports#custom-transports, but arrays are seen); or a protobuf event. Null when it is none.
 */
function eventsIn(frame: SocketFrame): Carried[] | null {
  if (typeof frame.data !== 'string') return frame.opcode === 2 ? wrap(protobufEvent(frame.data)) : null;
  let value: unknown;
  try {
    value = JSON.parse(frame.data);
  } catch {
    return null;
  }
  if (isAgUiEventValue(value)) return [{ value: value as JsonObject, encoding: 'json', bytes: jsonLine(frame.data) }];
  if (!Array.isArray(value) || !value.every(isObject) || !value.some(isAgUiEventValue)) return null;
  return value.map((v) => ({ value: v, encoding: 'json', bytes: jsonLine(JSON.stringify(v)) }));
}

const wrap = <T>(one: T | null): T[] | null => (one === null ? null : [one]);

/** The members that name what an event belongs to; an event naming one an exchange has seen is that exchange's. */
const ID_MEMBERS = ['messageId', 'toolCallId', 'parentMessageId'] as const;

/** An exchange being read off the socket. */
class Open {
  encoding: Encoding | null = null;
  readonly ids = new Set<string>();
  readonly end: RunEnd;
  done = false;

  constructor(
    readonly input: JsonObject,
    readonly frame: SocketFrame,
  ) {
    this.end = new RunEnd(input.runId);
  }

  /** The event as its stream's chunk, timed from the input frame. */
  take(event: Carried, time: number): Chunk {
    this.encoding ??= event.encoding;
    const v = event.value;
    for (const m of ID_MEMBERS) if (typeof v[m] === 'string') this.ids.add(v[m] as string);
    if (this.end.endedBy(v)) this.done = true;
    // Seconds since epoch hold a microsecond at best (a double's 2^-22 s there): finer digits of a difference are rounding.
    return { time: Math.round((time - this.frame.time) * 1e6) / 1e3, bytes: event.bytes };
  }
}

/**
 * Which open exchange an event is part of. Several may share the socket, interleaved, and only run
 * lifecycle events name their run: the rest go by the message or tool call they name, then by thread
 * when one open exchange has it, then to the exchange the last event went to.
 */
function routeOf(event: JsonObject, open: Open[], last: Open | null): Open | null {
  if (open.length === 1) return open[0]!;
  const runId = event.runId;
  const byRun = runId === undefined ? undefined : open.find((x) => x.input.runId === runId || x.end.current === runId);
  if (byRun) return byRun;
  for (const m of ID_MEMBERS) {
    const id = event[m];
    const owner = typeof id === 'string' ? open.find((x) => x.ids.has(id)) : undefined;
    if (owner) return owner;
  }
  const byThread = open.filter((x) => event.threadId !== undefined && x.input.threadId === event.threadId);
  if (byThread.length === 1) return byThread[0]!;
  return last && open.includes(last) ? last : open.at(-1) ?? null;
}

function isoDate(seconds: number): string | undefined {
  const d = new Date(seconds * 1000);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** What one frame did to the socket's exchanges; `exchange` counts them in the order their inputs were sent. */
export type SocketStep =
  /** The frame at `frame` (its index on the socket) carried a RunAgentInput: exchange `exchange` opened. */
  | { k: 'open'; exchange: number; frame: number }
  /** An event of the exchange's stream: its body's bytes and time; `contentType` is its stream's media type, its first event's. */
  | { k: 'event'; exchange: number; contentType: string; chunk: Chunk }
  /** The event before it was the requested run's terminal event: the exchange ended. */
  | { k: 'end'; exchange: number };

const mediaTypeOf = (encoding: Encoding | null): string => MEDIA_TYPES[encoding === 'protobuf' ? 'protobuf' : 'jsonl'];

/**
 * A socket read a frame at a time, as a recorder receives it: which exchange each frame opens, feeds or
 * ends. A server event frame before any input, a frame that is neither input nor event, and an event
 * frame of the other encoding than its exchange's stream are no exchange's: they stay the socket's.
 */
export class SocketReader {
  private readonly all: Open[] = [];
  private open: Open[] = [];
  private last: Open | null = null;
  private frames = 0;

  push(frame: SocketFrame): SocketStep[] {
    const index = this.frames++;
    if (frame.type === 'send') {
      const input = typeof frame.data === 'string' ? runAgentInputIn(frame.data) : null;
      if (!input) return [];
      const x = new Open(input, frame);
      this.open.push(x);
      return [{ k: 'open', exchange: this.all.push(x) - 1, frame: index }];
    }
    const steps: SocketStep[] = [];
    for (const event of eventsIn(frame) ?? []) {
      const x = routeOf(event.value, this.open, this.last);
      if (!x || (x.encoding !== null && x.encoding !== event.encoding)) continue;
      const exchange = this.all.indexOf(x);
      steps.push({ k: 'event', exchange, contentType: mediaTypeOf(event.encoding), chunk: x.take(event, frame.time) });
      this.last = x;
      if (!x.done) continue;
      this.open = this.open.filter((o) => o !== x);
      steps.push({ k: 'end', exchange });
    }
    return steps;
  }

  /** Whether exchange `k` reached its requested run's terminal event; one that did not is cut by the socket's close. */
  finished(k: number): boolean {
    return this.all[k]?.done ?? false;
  }
}

/**
 * The AG-UI exchanges on a socket, in the order their inputs were sent; `source` names the k-th. What no
 * exchange takes (SocketReader) stays in `connection.frames`.
 */
export function socketExchanges(connection: SocketConnection, source: (k: number) => string): CapturedExchange[] {
  const reader = new SocketReader();
  const out: CapturedExchange[] = [];
  for (const frame of connection.frames) {
    for (const step of reader.push(frame)) {
      if (step.k === 'open') out.push(socketExchange(connection, step.frame, source(step.exchange)));
      else if (step.k === 'event') {
        const x = out[step.exchange]!;
        if (x.chunks.length === 0) x.responseContentType = step.contentType;
        x.chunks.push(step.chunk);
      }
    }
  }
  for (const [k, x] of out.entries()) if (!reader.finished(k)) x.socket!.cutBy = connection.close;
  return out;
}

/** Exchange `input` (the index of the frame carrying it) of the socket, before any of its stream. */
export function socketExchange(connection: SocketConnection, input: number, source: string): CapturedExchange {
  const frame = connection.frames[input]!;
  const captured: CapturedExchange = {
    source,
    url: connection.url,
    requestBody: frame.data as string,
    responseContentType: mediaTypeOf(null),
    chunks: [],
    arrival: 'chunks',
    transport: 'websocket',
    socket: { connection, input, cutBy: null },
  };
  const started = isoDate(frame.time);
  if (started !== undefined) captured.startedDateTime = started;
  return captured;
}

/** One frame of a socket as the panel lists it beside an exchange of the socket. */
export interface SocketFrameRow {
  /** Its index on the socket. */
  index: number;
  type: 'send' | 'receive';
  /** ms after the exchange's input frame; negative before it. */
  ms: number;
  /** RFC 6455 opcode: 1 text, 2 binary. */
  opcode: number;
  /** Its length: a text frame's in UTF-16 code units, a binary frame's in bytes. */
  length: number;
  /** The start of its text, or of its bytes in hex. */
  preview: string;
  /** The exchange's input or one of its stream's frames; another exchange's on the socket; or no exchange's, never judged. */
  role: 'input' | 'stream' | 'other-exchange' | 'not-ag-ui';
}

/** The socket an exchange ran on, as the panel shows it: how it closed, and its frames, each with whose it is. */
export interface SocketView {
  url: string;
  close: SocketClose | null;
  /** Frames on the socket in all; `frames` holds the first `MAX_SOCKET_ROWS`. */
  total: number;
  /** Frames no exchange took: pings, the app's own messages. */
  notAgUi: number;
  frames: SocketFrameRow[];
}

export const MAX_SOCKET_ROWS = 500;
const PREVIEW = 160;

function preview(data: string | Uint8Array): string {
  if (typeof data === 'string') return data.length > PREVIEW ? `${data.slice(0, PREVIEW)}…` : data;
  const hex = Array.from(data.subarray(0, PREVIEW / 2), (b) => b.toString(16).padStart(2, '0')).join(' ');
  return data.length > PREVIEW / 2 ? `${hex} …` : hex;
}

/** Whose each frame is, read again by the one SocketReader every recorder uses: a pass over the socket. */
export function socketView(s: SocketExchange): SocketView {
  const { connection } = s;
  const reader = new SocketReader();
  const start = connection.frames[s.input]?.time ?? 0;
  let mine = -1;
  let notAgUi = 0;
  const frames: SocketFrameRow[] = [];
  for (const [index, frame] of connection.frames.entries()) {
    const steps = reader.push(frame);
    const opened = steps.find((st) => st.k === 'open');
    if (opened && index === s.input) mine = opened.exchange;
    const role: SocketFrameRow['role'] =
      index === s.input ? 'input'
      : steps.some((st) => st.k === 'event' && st.exchange === mine) ? 'stream'
      : steps.length > 0 ? 'other-exchange'
      : 'not-ag-ui';
    if (role === 'not-ag-ui') notAgUi++;
    if (frames.length < MAX_SOCKET_ROWS) {
      frames.push({ index, type: frame.type, ms: Math.round((frame.time - start) * 1e6) / 1e3, opcode: frame.opcode, length: frame.data.length, preview: preview(frame.data), role });
    }
  }
  return { url: connection.url, close: connection.close, total: connection.frames.length, notAgUi, frames };
}
