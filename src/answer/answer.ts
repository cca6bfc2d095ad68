/**
 * One source of answers (issue #36): what the Inspector sends when it answers as the agent — a recording,
 * an edited stream, or a live stream passing through — given a pace, an identity rewrite and faults. It
 * yields chunks due at times; a shell (the CLI's `replay` server, the page script) writes them when due,
 * with `paced`. Browser- and Node-free, so both shells run it unchanged.
 *
 * Every stage is a transform over an async sequence, so a live answer is faulted as it arrives. The
 * recorded bytes go out as recorded, in their chunks, unless a stage needs events: then the stream is
 * cut into its frames by the wire readers, and only a frame a stage changes is encoded again.
 */
import { EventEncoder } from '@ag-ui/encoder';
import { concatBytes, utf8Bytes } from '../bytes.ts';
import { runAgentInputIn, type Chunk } from '../exchange/index.ts';
import { isObject, type JsonObject } from '../json.ts';
import { decoderFor, MEDIA_TYPES, transportOf, type Transport } from '../wire/index.ts';
import { faultName, type Fault } from './faults.ts';

/** `1` keeps the source's times, `2` halves them, `max` sends everything at once. */
export type Pace = number | 'max';

/** The longest a timer waits (2^31 − 1 ms, about 24.8 days); `paced` waits longer in steps. */
export const LONGEST_WAIT_MS = 2 ** 31 - 1;

/** What is answered: a CapturedExchange is one as it is; `editedSource` makes one of edited events. */
export interface AnswerSource {
  /** 200 when absent. */
  status?: number;
  responseContentType: string;
  /** Times are ms after the request started. */
  chunks: Iterable<Chunk> | AsyncIterable<Chunk>;
  /** The request the source answered: its threadId and runId are the ones rewritten. */
  requestBody?: string;
}

export interface Ids {
  threadId?: string;
  runId?: string;
}

export interface AnswerOptions {
  pace?: Pace;
  /**
   * The new request's ids: the source's threadId and its requested run's runId become these
   * (basic/run-input#identity), so a 1.0 client accepts the answer. Null or absent keeps the source's.
   */
  ids?: Ids | null;
  faults?: readonly Fault[];
}

export interface TimedChunk {
  /** When it is due, ms after the answer starts. */
  at: number;
  bytes: Uint8Array;
}

export interface Answer {
  status: number;
  contentType: string;
  /** Headers beyond the content type (a status fault's Retry-After). */
  headers: Record<string, string>;
  chunks: AsyncIterable<TimedChunk>;
  /** The chunks are the source's own, byte for byte, in its chunking (only their times paced). */
  exact: boolean;
  /** The names of the faults that took effect, filled as they do: one the stream never reaches is not in it. */
  injected: string[];
}

/** The transports whose frames are cut, dropped and encoded one by one; a JSON array is one value, not a stream of frames. */
type Streamed = Exclude<Transport, 'json'>;
const streamedOf = (contentType: string): Streamed | null => {
  const t = transportOf(contentType);
  return t === 'json' ? null : t;
};

const protobuf = new EventEncoder({ accept: MEDIA_TYPES.protobuf });
type EncoderEvent = Parameters<EventEncoder['encodeProtobuf']>[0];

/** An event as one frame of `transport`; protobuf through the official encoder. */
export function encodeEvent(transport: Streamed, event: JsonObject): Uint8Array {
  if (transport === 'protobuf') return protobuf.encodeProtobuf(event as EncoderEvent);
  const json = JSON.stringify(event);
  return utf8Bytes(transport === 'sse' ? `data: ${json}\n\n` : `${json}\n`);
}

/**
 * Edited events, one JSON event a line, as an answer in `like`'s transport, each line a chunk at time 0.
 * SSE and JSONL carry each line as written, so an edit that breaks the schema reaches the page as the
 * person wrote it (the official encoder would drop its nulls); protobuf encodes each through the official
 * encoder, which cannot carry a line that is not an event: that throws a TypeError naming the line.
 */
export function editedSource(text: string, like: Omit<AnswerSource, 'chunks'>): AnswerSource {
  const transport = streamedOf(like.responseContentType);
  if (transport === null) throw new TypeError(`edited events are sent as SSE, JSONL or protobuf; ${JSON.stringify(like.responseContentType)} is none of them`);
  const chunks: Chunk[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    if (transport !== 'protobuf') return void chunks.push({ time: 0, bytes: utf8Bytes(transport === 'sse' ? `data: ${line}\n\n` : `${line}\n`) });
    try {
      const event: unknown = JSON.parse(line);
      if (!isObject(event)) throw new Error('not a JSON object');
      chunks.push({ time: 0, bytes: encodeEvent(transport, event) });
    } catch (e) {
      throw new TypeError(`line ${i + 1} cannot be sent as protobuf: ${e instanceof Error ? e.message : String(e)}`);
    }
  });
  return { ...like, chunks };
}

/** One frame of the source, or the source's bytes as they came when no stage needs its frames. */
interface Piece extends TimedChunk {
  /** The frame's index in the source stream; null for bytes that are no frame of it. */
  index: number | null;
  value?: unknown;
  /** The frame's own bytes at the end of `bytes`, after whatever came between it and the one before (an SSE comment). */
  size?: number;
}

const isType = (v: unknown, type: string): v is JsonObject => isObject(v) && v.type === type;

async function* piecesOf(chunks: Iterable<Chunk> | AsyncIterable<Chunk>, pace: Pace): AsyncGenerator<Piece> {
  for await (const c of chunks) yield { at: pace === 'max' ? 0 : c.time / pace, bytes: c.bytes, index: null };
}

/** The source cut into its frames with the wire reader, each due when the chunk that completed it was. */
async function* framesOf(chunks: Iterable<Chunk> | AsyncIterable<Chunk>, transport: Streamed, pace: Pace): AsyncGenerator<Piece> {
  const decoder = decoderFor(transport);
  // The chunks not yet in a frame, kept apart so a frame that spans many is joined once, not once a chunk.
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  /** Where the held bytes start in the body. */
  let base = 0;
  let index = 0;
  let last = 0;
  const at = (time: number) => (pace === 'max' ? 0 : time / pace);
  const take = (n: number): Uint8Array => {
    const whole = held.length === 1 ? held[0]! : concatBytes(held);
    held = n < whole.length ? [whole.subarray(n)] : [];
    heldBytes -= n;
    base += n;
    return whole.subarray(0, n);
  };
  function* cut(items: ReturnType<typeof decoder.push>): Generator<Piece> {
    for (const item of items) {
      if (item.kind === 'problem' && !item.frame) continue;
      const bytes = take(Math.min(Math.max(item.offset + item.size - base, 0), heldBytes));
      yield { at: at(item.time), bytes, index: index++, size: Math.min(item.size, bytes.length), ...(item.kind === 'event' ? { value: item.value } : {}) };
    }
  }
  for await (const c of chunks) {
    held.push(c.bytes);
    heldBytes += c.bytes.length;
    last = c.time;
    yield* cut(decoder.push(c.bytes, c.time));
  }
  yield* cut(decoder.end(last));
  if (heldBytes > 0) yield { at: at(last), bytes: take(heldBytes), index: null };
}

function renamed(value: unknown, from: Ids, to: Ids): JsonObject | null {
  if (!isObject(value)) return null;
  let out: JsonObject | null = null;
  for (const key of ['threadId', 'runId'] as const) {
    if (from[key] === undefined || to[key] === undefined || value[key] !== from[key] || from[key] === to[key]) continue;
    out ??= { ...value };
    out[key] = to[key];
  }
  // RUN_STARTED's `input` echoes the request, whose ids a 1.0 client compares as well.
  const input = renamed(value.input, from, to);
  if (input !== null) (out ??= { ...value }).input = input;
  return out;
}

const idsIn = (v: JsonObject): Ids => ({
  ...(typeof v.threadId === 'string' ? { threadId: v.threadId } : {}),
  ...(typeof v.runId === 'string' ? { runId: v.runId } : {}),
});

/** The ids a request's RunAgentInput names (bare or enveloped); null when it carries none. */
export function idsOf(requestBody: string): Ids | null {
  const input = runAgentInputIn(requestBody);
  return input === null ? null : idsIn(input);
}

/**
 * The source's ids become `to`'s. They are the recorded request's; a source without one takes them from
 * its first RUN_STARTED.
 */
async function* rewritten(pieces: AsyncIterable<Piece>, from: Ids | null, to: Ids, transport: Streamed): AsyncGenerator<Piece> {
  let ids = from;
  for await (const p of pieces) {
    if (ids === null && isType(p.value, 'RUN_STARTED')) ids = idsIn(p.value);
    const value = ids === null ? null : renamed(p.value, ids, to);
    if (value === null) yield p;
    else {
      const bytes = encodeEvent(transport, value);
      yield { ...p, bytes, value, size: bytes.length };
    }
  }
}

const INJECTED = 'injected by AG-UI Inspector';

function noted(injected: string[], f: Fault): void {
  const name = faultName(f);
  if (!injected.includes(name)) injected.push(name);
}

/** `requested` is the runId of the run the request asked for, when known: its RUN_FINISHED is the terminal event error@terminal replaces. */
async function* faulted(pieces: AsyncIterable<Piece>, faults: readonly Fault[], transport: Streamed, requested: string | undefined, injected: string[]): AsyncGenerator<Piece> {
  const note = (f: Fault) => noted(injected, f);
  const at = <K extends Fault['kind']>(kind: K, i: number, where: (f: Extract<Fault, { kind: K }>) => number) =>
    faults.filter((f): f is Extract<Fault, { kind: K }> => f.kind === kind && where(f as Extract<Fault, { kind: K }>) === i);
  const terminal = faults.find((f) => f.kind === 'error-terminal');
  let shift = 0;
  let errored = false;
  for await (const p of pieces) {
    const i = p.index;
    if (i === null) {
      yield { ...p, at: p.at + shift };
      continue;
    }
    for (const f of at('stall', i, (f) => f.before)) {
      shift += f.ms;
      note(f);
    }
    const drops = at('drop', i, (f) => f.event);
    if (drops.length > 0) {
      drops.forEach(note);
      continue;
    }
    let piece: Piece = { ...p, at: p.at + shift };
    // Not knowing the requested run (a live answer to a request without a runId), the first run to finish is taken for it.
    if (terminal && !errored && isType(p.value, 'RUN_FINISHED') && (requested === undefined || p.value.runId === requested)) {
      const value = { type: 'RUN_ERROR', message: `RUN_ERROR ${INJECTED} in place of RUN_FINISHED (fault error@terminal)`, code: 'inspector-fault' };
      const bytes = encodeEvent(transport, value);
      piece = { ...piece, bytes, size: bytes.length, value };
      errored = true;
      note(terminal);
    }
    const mid = at('cut-mid', i, (f) => f.at);
    if (mid.length > 0) {
      const own = piece.size ?? piece.bytes.length;
      mid.forEach(note);
      yield { ...piece, bytes: piece.bytes.subarray(0, piece.bytes.length - own + Math.floor(own / 2)) };
      return;
    }
    yield piece;
    for (const f of at('dup', i, (f) => f.event)) {
      note(f);
      yield piece;
    }
    const cuts = at('cut', i, (f) => f.after);
    if (cuts.length > 0) {
      cuts.forEach(note);
      return;
    }
  }
}

/** At most `bytesPerSecond`: the chunks split into tenths of a second's worth, each due when the rate allows. */
async function* dripped(pieces: AsyncIterable<Piece>, drip: Extract<Fault, { kind: 'drip' }>, injected: string[]): AsyncGenerator<TimedChunk> {
  const step = Math.max(1, Math.ceil(drip.bytesPerSecond / 10));
  let clock = 0;
  for await (const p of pieces) {
    for (let o = 0; o < p.bytes.length; o += step) {
      noted(injected, drip);
      const bytes = p.bytes.subarray(o, o + step);
      const at = Math.max(p.at, clock);
      clock = at + (bytes.length * 1000) / drip.bytesPerSecond;
      yield { at, bytes };
    }
  }
}

async function* only(chunk: TimedChunk): AsyncGenerator<TimedChunk> {
  yield chunk;
}

async function* timed(pieces: AsyncIterable<Piece>): AsyncGenerator<TimedChunk> {
  for await (const p of pieces) yield { at: p.at, bytes: p.bytes };
}

/** The answer `source` gives with `o`'s pace, ids and faults. */
export function answer(source: AnswerSource, o: AnswerOptions = {}): Answer {
  const faults = o.faults ?? [];
  const injected: string[] = [];
  const refusal = faults.find((f) => f.kind === 'status');
  if (refusal) {
    injected.push(faultName(refusal));
    const body = { error: 'injected-fault', message: `HTTP ${refusal.status} ${INJECTED} instead of the stream (fault ${faultName(refusal)})` };
    return {
      status: refusal.status,
      contentType: 'application/json',
      headers: refusal.retryAfter === undefined ? {} : { 'retry-after': refusal.retryAfter },
      chunks: only({ at: 0, bytes: utf8Bytes(JSON.stringify(body)) }),
      exact: false,
      injected,
    };
  }
  const pace = o.pace ?? 1;
  const transport = streamedOf(source.responseContentType);
  const onEvents = faults.filter((f) => f.kind !== 'drip');
  const recorded = source.requestBody === undefined ? null : idsOf(source.requestBody);
  // A rewrite is needed unless the recorded request's ids are the new ones (a stream without a request is read to find its own).
  const rewrite = transport !== null && o.ids != null && (recorded === null || renamed(recorded, recorded, o.ids) !== null);
  const framed = transport !== null && (rewrite || onEvents.length > 0);
  let pieces = framed ? framesOf(source.chunks, transport, pace) : piecesOf(source.chunks, pace);
  if (rewrite) pieces = rewritten(pieces, recorded, o.ids!, transport!);
  if (framed && onEvents.length > 0) pieces = faulted(pieces, onEvents, transport!, o.ids?.runId ?? recorded?.runId, injected);
  const drip = faults.find((f) => f.kind === 'drip');
  return {
    status: source.status ?? 200,
    contentType: source.responseContentType,
    headers: {},
    chunks: drip ? dripped(pieces, drip, injected) : timed(pieces),
    exact: !framed && !drip,
    injected,
  };
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Each chunk's bytes once it is due, on real timers, from `start` (a `performance.now()`; now when
 * absent). Ends at once, leaving no timer, when `signal` aborts: the one that reads it went away.
 */
export async function* paced(chunks: AsyncIterable<TimedChunk>, o: { signal?: AbortSignal; start?: number } = {}): AsyncGenerator<Uint8Array> {
  const start = o.start ?? performance.now();
  for await (const c of chunks) {
    for (let due = 0; !o.signal?.aborted && (due = c.at - (performance.now() - start)) > 0; ) await sleep(Math.min(due, LONGEST_WAIT_MS), o.signal);
    if (o.signal?.aborted) return;
    yield c.bytes;
  }
}
