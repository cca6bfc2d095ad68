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
import type { CapturedExchange, Chunk, SocketConnection, SocketFrame } from './exchange.ts';

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

/**
 * A binary frame's event, length-prefixed as the protobuf binding frames it
 * (basic/transports/http-protobuf#framing): a frame may carry the prefix, as `@ag-ui/encoder` writes it,
 * or the message alone, its length being the frame's.
 */
function protobufEvent(data: Uint8Array): Carried | null {
  const prefixed = data.length >= PREFIX && lengthOf(data) === data.length - PREFIX;
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

const TERMINAL = new Set<unknown>(['RUN_FINISHED', 'RUN_ERROR']);
/** The members that name what an event belongs to; an event naming one an exchange has seen is that exchange's. */
const ID_MEMBERS = ['messageId', 'toolCallId', 'parentMessageId'] as const;

/** An exchange being read off the socket. */
class Open {
  readonly chunks: Chunk[] = [];
  encoding: Encoding | null = null;
  readonly ids = new Set<string>();
  /** The runId of the last RUN_STARTED, which a terminal event naming no run ends. */
  current: unknown = undefined;
  done = false;

  constructor(
    readonly input: JsonObject,
    readonly frame: SocketFrame,
    readonly index: number,
  ) {}

  /** Whether the event ends the run the input asked for (basic/transports#the-binding-contract). */
  ends(event: JsonObject): boolean {
    if (!TERMINAL.has(event.type)) return false;
    const runId = 'runId' in event ? event.runId : this.current;
    return runId === this.input.runId;
  }

  take(event: Carried, time: number): void {
    this.encoding ??= event.encoding;
    // Seconds since epoch hold a microsecond at best (a double's 2^-22 s there): finer digits of a difference are rounding.
    this.chunks.push({ time: Math.round((time - this.frame.time) * 1e6) / 1e3, bytes: event.bytes });
    const v = event.value;
    if (v.type === 'RUN_STARTED') this.current = v.runId;
    for (const m of ID_MEMBERS) if (typeof v[m] === 'string') this.ids.add(v[m] as string);
    if (this.ends(v)) this.done = true;
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
  const byRun = runId === undefined ? undefined : open.find((x) => x.input.runId === runId || x.current === runId);
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

/**
 * The AG-UI exchanges on a socket, in the order their inputs were sent; `source` names the k-th.
 * A server event frame before any input, a frame that is neither input nor event, and an event frame
 * of the other encoding than its exchange's stream are no exchange's: they stay in `connection.frames`.
 */
export function socketExchanges(connection: SocketConnection, source: (k: number) => string): CapturedExchange[] {
  const all: Open[] = [];
  let open: Open[] = [];
  let last: Open | null = null;
  for (const [index, frame] of connection.frames.entries()) {
    if (frame.type === 'send') {
      const input = typeof frame.data === 'string' ? runAgentInputIn(frame.data) : null;
      if (input) {
        const x = new Open(input, frame, index);
        all.push(x);
        open.push(x);
      }
      continue;
    }
    for (const event of eventsIn(frame) ?? []) {
      const x = routeOf(event.value, open, last);
      if (!x || (x.encoding !== null && x.encoding !== event.encoding)) continue;
      x.take(event, frame.time);
      last = x;
      if (x.done) open = open.filter((o) => o !== x);
    }
  }
  return all.map((x, k) => {
    const captured: CapturedExchange = {
      source: source(k),
      url: connection.url,
      requestBody: x.frame.data as string,
      responseContentType: MEDIA_TYPES[x.encoding === 'protobuf' ? 'protobuf' : 'jsonl'],
      chunks: x.chunks,
      arrival: 'chunks',
      transport: 'websocket',
      socket: { connection, input: x.index, cutBy: x.done ? null : connection.close },
    };
    const started = isoDate(x.frame.time);
    if (started !== undefined) captured.startedDateTime = started;
    return captured;
  });
}
