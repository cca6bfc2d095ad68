/**
 * Redaction of a recorded session, chosen by group at export time.
 *
 * It works from an allow-list, not a deny-list: inside the AG-UI objects it reads (the input, every
 * event, message, content part, tool call, interrupt), the members named `KEEP` below keep their
 * values, because the analysis needs them or because they name a kind of thing rather than carry
 * content — ids, event types, roles, protocol versions, tool, function, step and subagent names,
 * activity and MIME types, file providers, error codes, model ids, token counts, timestamps, JSON
 * Patch `op`/`path`/`from`, an interrupt's `reason` and `expiresAt`, the shape words of a carried
 * JSON Schema. Every other string, number and boolean of a chosen group is replaced, wherever it
 * sits: a member a later spec version adds is redacted with its object's group, not leaked. Keys,
 * `null` and the structure (objects, arrays, lengths) always stay.
 *
 * Values are overwritten where they lie in the captured bytes, never re-serialised, so bodies keep
 * their length (but for booleans, below), chunk boundaries and frame offsets stay put, and the
 * analysis of the redacted session reads the same stream the original was judged on. A filler is
 * chosen by the value, not its spelling (fillers.ts): a string filler is as long as the string's
 * UTF-8, a number's as its shortest spelling, and where the JSON text spelled the value longer
 * (escapes, `1.50`) the rest of its bytes become spaces after the value. A boolean becomes a
 * two-character string, `"~~"` or `"~1"`, since any same-width stand-in would still tell `true`
 * (4 bytes) from `false` (5): a `false` costs JSON text one byte, a boolean in a protobuf frame has
 * the frame re-encoded, and chunk boundaries move with them.
 *
 * Groups (what is not kept, by where it sits):
 * - `messages`: user, assistant, system and developer messages (in the input, MESSAGES_SNAPSHOT and
 *   RUN_STARTED.input) — content, content parts, `name`, `metadata`; TEXT_MESSAGE_* events; an
 *   interrupt's `message`, `responseSchema` and `metadata`, a resume entry's `payload`; RUN_ERROR
 *   and SUBAGENT_ERROR `message`.
 * - `tools`: tool messages, tool calls' `function.arguments`, TOOL_CALL_* events, and the tool
 *   definitions' descriptions and parameter schemas.
 * - `reasoning`: reasoning messages, REASONING_* events, and every `encryptedValue`.
 * - `state`: the input's `state` and `context`, STATE_* and ACTIVITY_* events, activity messages,
 *   CUSTOM (`name` and `value`) and RAW (`event` and `source`), run and subagent results, and what
 *   run-level events carry beyond their ids (STEP_*, SUBAGENT_STARTED's `description`).
 * - `forwardedProps`: the input's `forwardedProps`.
 * - `query`: the values of the URL's query string (`?api_key=…`); on by default. It touches no body.
 * An event's `rawEvent` and `metadata`, and members the spec does not define, go with the event's
 * group; RUN_STARTED.input is read as the input it echoes, field by field, so the echo and the input
 * sent are redacted alike and still compare as they did.
 *
 * Belonging to no group, and filled whenever any group but `query` is on: events of a type the
 * protocol does not define (legacy THINKING_*, or a later version's), messages of an unknown role,
 * members of the input the spec does not define, and frames or request bodies that are not JSON
 * objects (they cannot be read by field, so every value in them is filled). Protobuf frames are
 * redacted in place when each value's encoding occurs exactly once in the frame and none is a
 * boolean, and re-encoded otherwise (recorded in `reencoded`).
 *
 * A WebSocket is written whole (formats/har.ts), so its every frame is redacted, each by what the socket
 * reader (exchange/socket.ts) makes of it: an input frame as a request body, a frame carrying events of an
 * exchange as those events (JSON text or arrays in place; protobuf, bare or length-prefixed, as above), and
 * a frame that is no exchange's — the app's own messages, pings, events before any input — as content of no
 * group: with any group but `query` on, every value in it is filled (keys and structure stay) and a binary
 * one is blanked. So is the close's reason. The socket's exchanges are then read again from the redacted
 * frames, as a file holding them reads back. A request body in a known framework envelope
 * (exchange/detect.ts) keeps the member naming its operation, so it still reads as one.
 *
 * The URL never carries user-info (`user:pass@`): the capture drops it, and so do HAR import and
 * export (exchange/url.ts).
 */
import { encode } from '@ag-ui/proto';
import {
  bodyOf, envelopeOf, isBareRunAgentInput, lengthPrefixed, SocketReader, socketExchanges,
  type CapturedExchange, type Chunk, type SocketConnection, type SocketExchange, type SocketFrame,
} from '../exchange/index.ts';
import { decoderFor, sniffTransport, transportOf, TRANSPORT_RULES, type WireItem, decodeEvent } from '../wire/index.ts';
import { Fillers } from './fillers.ts';
import { isSpace, looseLeaves, parseValue, parseWhole, type JNode, type Leaf } from './json-spans.ts';
import { concatBytes } from '../bytes.ts';

import { REDACTION_GROUPS, type RedactionGroup } from './groups.ts';

export { DEFAULT_REDACTION, REDACTION_GROUPS, type RedactionGroup } from './groups.ts';
/** The groups that redact bodies. */
type ContentGroup = Exclude<RedactionGroup, 'query'>;
/** A leaf's group; null for one that belongs to none, filled whenever any content group is on. */
type Group = ContentGroup | null;

/** What an export removed; written to the HAR's log-level `_agui.redaction`. */
export interface RedactionReport {
  groups: RedactionGroup[];
  /** Values (strings, numbers and booleans; for `query`, query-string values) overwritten, by group. */
  values: Record<RedactionGroup, number>;
  /**
   * Frames and request bodies that were not JSON objects; and the values filled that belong to no
   * group: in those, in events of a type the protocol does not define, in messages of an unknown role.
   */
  unstructured: { frames: number; values: number };
  /** Protobuf frames that had to be re-encoded; `notes` says where, and whether their size changed. */
  reencoded: number;
  notes: string[];
}

type Mark = (node: JNode, group: Group) => void;
/** Reads one protocol value: marks, by group, every part of it that is not kept. */
type Reader = (n: JNode, mark: Mark) => void;
/** The allow-list's word: this member's value stays, when it is a scalar. */
const KEEP = 'keep';
/** How a member is read: kept, marked whole with a group, or read as another protocol value. */
type Rule = typeof KEEP | Group | Reader;

const isScalar = (n: JNode): boolean => n.t !== 'obj' && n.t !== 'arr';

/**
 * A protocol object: members in `rules` are read by their rule, every other member — one a later
 * version adds included — is marked with `rest`. A value that is not an object is marked whole.
 */
function object(rules: Record<string, Rule>, rest: Group): Reader {
  return (n, mark) => {
    if (n.t !== 'obj') return mark(n, rest);
    for (const { key, value } of n.members) {
      const rule = Object.hasOwn(rules, key) ? rules[key]! : rest;
      if (rule === KEEP) {
        // An id that is an object is malformed, and may hold anything.
        if (!isScalar(value)) mark(value, rest);
      } else if (typeof rule === 'function') {
        rule(value, mark);
      } else {
        mark(value, rule);
      }
    }
  };
}

function list(item: Reader, rest: Group): Reader {
  return (n, mark) => {
    if (n.t !== 'arr') return mark(n, rest);
    for (const i of n.items) item(i, mark);
  };
}

/** A list of ids, kept. */
const ids = (rest: Group): Reader => list((n, mark) => (isScalar(n) ? undefined : mark(n, rest)), rest);

/** The string JSON.parse would keep for `key` (the last copy). */
function stringMember(n: JNode, key: string): string | undefined {
  if (n.t !== 'obj') return undefined;
  const last = n.members.filter((m) => m.key === key).at(-1)?.value;
  return last?.t === 'str' ? last.value : undefined;
}

/** A union told apart by the string in `key`; `readers` holds a reader per value of it. */
function union(key: string, readers: Record<string, Reader>, otherwise: Reader): Reader {
  return (n, mark) => {
    const which = stringMember(n, key);
    (which !== undefined && Object.hasOwn(readers, which) ? readers[which]! : otherwise)(n, mark);
  };
}

/**
 * A JSON Schema an application carries (tool parameters, an interrupt's response schema): property
 * names are keys and stay, and so do the words that give its shape; descriptions, titles, enums,
 * defaults, examples and constraints are content.
 */
const SCHEMA_SHAPE = new Set(['type', 'format', 'required', '$ref', '$schema']);
function schema(group: Group): Reader {
  const read: Reader = (n, mark) => {
    if (n.t === 'arr') {
      for (const i of n.items) read(i, mark);
    } else if (n.t === 'obj') {
      for (const { key, value } of n.members) {
        const shape = SCHEMA_SHAPE.has(key) && (isScalar(value) || (value.t === 'arr' && value.items.every((i) => i.t === 'str')));
        if (!shape) read(value, mark);
      }
    } else {
      mark(n, group);
    }
  };
  return read;
}

/** Message or tool-result content: a string, or content parts whose type, id and source kind stay. */
function content(group: Group): Reader {
  const parts = list(object({ type: KEEP, id: KEEP, source: object({ type: KEEP, mimeType: KEEP, provider: KEEP }, group) }, group), group);
  return (n, mark) => (n.t === 'arr' ? parts(n, mark) : mark(n, group));
}

const toolCall = object(
  { id: KEEP, type: KEEP, function: object({ name: KEEP }, 'tools'), encryptedValue: 'reasoning', encryptedValueType: KEEP },
  'tools',
);

const messageOf = (group: Group): Reader =>
  object(
    {
      id: KEEP, role: KEEP, toolCallId: KEEP, activityType: KEEP, subagentRunId: KEEP, encryptedValueType: KEEP,
      content: content(group), toolCalls: list(toolCall, 'tools'), encryptedValue: 'reasoning',
    },
    group,
  );
const message = union(
  'role',
  {
    user: messageOf('messages'), assistant: messageOf('messages'), system: messageOf('messages'), developer: messageOf('messages'),
    tool: messageOf('tools'), reasoning: messageOf('reasoning'), activity: messageOf('state'),
  },
  messageOf(null),
);

const tool = object({ name: KEEP, parameters: schema('tools') }, 'tools');

/** RunAgentInput: the request body, and what RUN_STARTED.input echoes. */
const input = object(
  {
    threadId: KEEP, runId: KEEP, parentRunId: KEEP, protocolVersion: KEEP,
    messages: list(message, 'messages'), tools: list(tool, 'tools'), context: 'state', state: 'state', forwardedProps: 'forwardedProps',
    resume: list(object({ interruptId: KEEP, status: KEEP }, 'messages'), 'messages'),
  },
  null,
);

/** How a request body is read: a RunAgentInput, or the known envelope carrying one, whose operation stays so it still reads as one. */
function requestOf(body: string): Reader {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return input;
  }
  const wrapped = isBareRunAgentInput(value) ? null : envelopeOf(value);
  return wrapped ? object({ [wrapped.envelope.method.member]: KEEP, [wrapped.envelope.at]: input }, null) : input;
}

/** Content that belongs to no group, read whole. */
const unknownContent: Reader = (n, mark) => mark(n, null);

const patch = (group: Group): Reader => list(object({ op: KEEP, path: KEEP, from: KEEP }, group), group);
const usage = list(
  object({ provider: KEEP, model: KEEP, inputTokens: KEEP, outputTokens: KEEP, totalTokens: KEEP, reasoningTokens: KEEP, cachedInputTokens: KEEP, cacheWriteInputTokens: KEEP }, 'state'),
  'state',
);
const interrupt = object({ id: KEEP, reason: KEEP, toolCallId: KEEP, expiresAt: KEEP, subagentRunId: KEEP, responseSchema: schema('messages') }, 'messages');

/** An event: the BaseEvent members that stay, and `rules`; rawEvent, metadata and the rest go to `group`. */
const event = (group: Group, rules: Record<string, Rule> = {}): Reader =>
  object({ type: KEEP, timestamp: KEEP, subagentRunId: KEEP, ...rules }, group);

const EVENTS: Record<string, Reader> = {
  TEXT_MESSAGE_START: event('messages', { messageId: KEEP, role: KEEP }),
  TEXT_MESSAGE_CONTENT: event('messages', { messageId: KEEP }),
  TEXT_MESSAGE_END: event('messages', { messageId: KEEP }),
  TEXT_MESSAGE_CHUNK: event('messages', { messageId: KEEP, role: KEEP }),
  TOOL_CALL_START: event('tools', { toolCallId: KEEP, toolCallName: KEEP, parentMessageId: KEEP }),
  TOOL_CALL_ARGS: event('tools', { toolCallId: KEEP }),
  TOOL_CALL_END: event('tools', { toolCallId: KEEP }),
  TOOL_CALL_CHUNK: event('tools', { toolCallId: KEEP, toolCallName: KEEP, parentMessageId: KEEP }),
  TOOL_CALL_RESULT: event('tools', { messageId: KEEP, toolCallId: KEEP, role: KEEP, content: content('tools') }),
  STATE_SNAPSHOT: event('state'),
  STATE_DELTA: event('state', { delta: patch('state') }),
  MESSAGES_SNAPSHOT: event('messages', { messages: list(message, 'messages') }),
  ACTIVITY_SNAPSHOT: event('state', { messageId: KEEP, activityType: KEEP, replace: KEEP }),
  ACTIVITY_DELTA: event('state', { messageId: KEEP, activityType: KEEP, patch: patch('state') }),
  RAW: event('state'),
  CUSTOM: event('state'),
  RUN_STARTED: event('state', { threadId: KEEP, runId: KEEP, parentRunId: KEEP, protocolVersion: KEEP, input }),
  RUN_FINISHED: event('state', {
    threadId: KEEP, runId: KEEP, usage,
    outcome: object({ type: KEEP, pendingToolCallIds: ids('state'), interrupts: list(interrupt, 'messages') }, 'state'),
  }),
  RUN_ERROR: event('messages', { code: KEEP, usage }),
  STEP_STARTED: event('state', { stepName: KEEP }),
  STEP_FINISHED: event('state', { stepName: KEEP }),
  REASONING_START: event('reasoning', { messageId: KEEP }),
  REASONING_MESSAGE_START: event('reasoning', { messageId: KEEP, role: KEEP }),
  REASONING_MESSAGE_CONTENT: event('reasoning', { messageId: KEEP }),
  REASONING_MESSAGE_END: event('reasoning', { messageId: KEEP }),
  REASONING_MESSAGE_CHUNK: event('reasoning', { messageId: KEEP }),
  REASONING_END: event('reasoning', { messageId: KEEP }),
  REASONING_ENCRYPTED_VALUE: event('reasoning', { subtype: KEEP, entityId: KEEP, encryptedValueType: KEEP }),
  SUBAGENT_STARTED: event('state', { name: KEEP, parentSubagentRunId: KEEP, parentToolCallId: KEEP, parentMessageId: KEEP }),
  SUBAGENT_FINISHED: event('state', { outcome: object({ type: KEEP, interruptIds: ids('state') }, 'state') }),
  SUBAGENT_ERROR: event('messages', { code: KEEP }),
};
const walkEvent = union('type', EVENTS, event(null));

function leavesOf(root: JNode): Leaf[] {
  const out: Leaf[] = [];
  const stack = [root];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.t === 'str' || n.t === 'num' || n.t === 'bool') out.push(n);
    else if (n.t === 'obj') for (const m of n.members) stack.push(m.value);
    else if (n.t === 'arr') stack.push(...n.items);
  }
  return out;
}

/** The leaves `read` marks with an enabled group (or none), each once. */
function targets(root: JNode, read: Reader, groups: ReadonlySet<RedactionGroup>): Map<Leaf, Group> {
  const found = new Map<Leaf, Group>();
  read(root, (n, group) => {
    if (group === null || groups.has(group)) for (const leaf of leavesOf(n)) found.set(leaf, group);
  });
  return found;
}

const LF = 0x0a;
const CR = 0x0d;
const RS = 0x1e;
const FILL_BYTE = 0xff;
const QUOTE = 0x22;
const SPACE = 0x20;
const utf8 = new TextEncoder();
const text = new TextDecoder();

/** Whether bytes [s, e) are a line whose field name is exactly `data`, as the SSE reader decides. */
function isDataLine(b: Uint8Array, s: number, e: number): boolean {
  return e - s >= 4 && b[s] === 0x64 && b[s + 1] === 0x61 && b[s + 2] === 0x74 && b[s + 3] === 0x61 && (e - s === 4 || b[s + 4] === 0x3a);
}

/** An SSE block's data payload (values joined by LF) and, per payload byte, its body offset (-1 for a joining LF). */
function ssePayload(body: Uint8Array, from: number, to: number): { bytes: Uint8Array; at: Int32Array } {
  const bytes: number[] = [];
  const at: number[] = [];
  let lines = 0;
  let i = from;
  while (i < to) {
    let e = i;
    while (e < to && body[e] !== LF && body[e] !== CR) e++;
    if (isDataLine(body, i, e)) {
      let v = i + 4;
      if (v < e) {
        v++;
        if (v < e && body[v] === 0x20) v++;
      }
      if (lines++ > 0) {
        bytes.push(LF);
        at.push(-1);
      }
      for (let k = v; k < e; k++) {
        bytes.push(body[k]!);
        at.push(k);
      }
    }
    i = e < to && body[e] === CR && body[e + 1] === LF ? e + 2 : e + 1;
  }
  return { bytes: Uint8Array.from(bytes), at: Int32Array.from(at) };
}

/** Index just past a protobuf field's tag and length varints. */
function afterFieldHeader(b: Uint8Array): number {
  let k = 0;
  for (let varints = 0; varints < 2; varints++) {
    while (k < b.length && b[k]! & 0x80) k++;
    k++;
  }
  return Math.min(k, b.length);
}

function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

/** Start of the only occurrence of `pattern` in `hay`, or -1 when it occurs never or more than once. */
function onlyOccurrence(hay: Uint8Array, pattern: Uint8Array): number {
  let found = -1;
  outer: for (let i = hay.indexOf(pattern[0]!); i !== -1 && i + pattern.length <= hay.length; i = hay.indexOf(pattern[0]!, i + 1)) {
    for (let k = 1; k < pattern.length; k++) if (hay[i + k] !== pattern[k]) continue outer;
    if (found !== -1) return -1;
    found = i;
  }
  return found;
}

interface Splice {
  offset: number;
  size: number;
  bytes: Uint8Array;
}

type Holder = Record<string | number, unknown>;

/** A decoded protobuf event as a JNode tree; `refs` says where each leaf lives, so a copy can be rewritten for re-encoding. */
function treeOf(value: unknown, refs: Map<Leaf, { holder: Holder; key: string | number }>, holder?: Holder, key?: string | number): JNode {
  if (typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) {
    const leaf: Leaf =
      typeof value === 'string' ? { t: 'str', value, start: -1, end: -1 }
      : typeof value === 'boolean' ? { t: 'bool', value, start: -1, end: -1 }
      : { t: 'num', raw: String(value), start: -1, end: -1 };
    if (holder) refs.set(leaf, { holder, key: key! });
    return leaf;
  }
  if (Array.isArray(value)) return { t: 'arr', items: value.map((v, i) => treeOf(v, refs, value as unknown as Holder, i)) };
  if (typeof value === 'object' && value !== null && !ArrayBuffer.isView(value)) {
    const h = value as Holder;
    return { t: 'obj', members: Object.keys(h).filter((k) => h[k] !== undefined).map((k) => ({ key: k, value: treeOf(h[k], refs, h, k) })) };
  }
  return { t: 'null' };
}

function withPrefix(message: Uint8Array): Uint8Array {
  const frame = new Uint8Array(4 + message.length);
  new DataView(frame.buffer).setUint32(0, message.length, false);
  frame.set(message, 4);
  return frame;
}

function float64(v: number): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setFloat64(0, v, true);
  return out;
}

/** Where the old chunk boundaries fall once spans have been replaced by bytes of another size; `splices` in body order. */
function rechunk(chunks: Chunk[], body: Uint8Array, splices: Splice[]): Chunk[] {
  // Boundaries only grow, so one pass over the splices serves them all.
  let next = 0;
  let shift = 0;
  const moved = (b: number): number => {
    for (; next < splices.length; next++) {
      const s = splices[next]!;
      if (b < s.offset + s.size) return b > s.offset ? s.offset + shift + Math.min(b - s.offset, s.bytes.length) : b + shift;
      shift += s.bytes.length - s.size;
    }
    return b + shift;
  };
  let end = 0;
  let from = 0;
  return chunks.map((c, i) => {
    end += c.bytes.length;
    const to = i === chunks.length - 1 ? body.length : moved(end);
    const bytes = body.slice(from, to);
    from = to;
    return { time: c.time, bytes };
  });
}

/** The body with the splices made; the body itself when there are none. */
function spliced(body: Uint8Array, splices: Splice[]): Uint8Array {
  if (splices.length === 0) return body;
  splices.sort((a, b) => a.offset - b.offset);
  const parts: Uint8Array[] = [];
  let at = 0;
  for (const s of splices) {
    parts.push(body.subarray(at, s.offset), s.bytes);
    at = s.offset + s.size;
  }
  parts.push(body.subarray(at));
  return concatBytes(parts);
}

/** A query-string value as a server reads it, so it gets the filler the same value gets anywhere else. */
function formValue(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

/** Redacts exchanges one by one with shared fillers, so a value repeated across exchanges stays recognisably one value. */
export class Redactor {
  readonly report: RedactionReport;
  private readonly groups: ReadonlySet<RedactionGroup>;
  /** Whether any group that redacts bodies is on. */
  private readonly content: boolean;
  private readonly fillers = new Fillers();
  /** Each socket redacted once, at its first exchange: its exchanges share its frames. */
  private readonly sockets = new Map<SocketConnection, { connection: SocketConnection; exchanges: CapturedExchange[] }>();

  constructor(groups: Iterable<RedactionGroup>) {
    this.groups = new Set(groups);
    this.content = [...this.groups].some((g) => g !== 'query');
    this.report = {
      groups: REDACTION_GROUPS.filter((g) => this.groups.has(g)),
      values: { messages: 0, tools: 0, reasoning: 0, state: 0, forwardedProps: 0, query: 0 },
      unstructured: { frames: 0, values: 0 },
      reencoded: 0,
      notes: [],
    };
  }

  exchange(x: CapturedExchange): CapturedExchange {
    if (this.groups.size === 0) return x;
    const out: CapturedExchange = { ...x };
    if (x.url !== undefined && this.groups.has('query')) {
      // A socket's exchanges carry its URL: its values are counted once, with the socket.
      out.url = x.socket?.connection.url === x.url ? this.socket(x.socket.connection, x.source).connection.url : this.query(x.url);
      // A live capture names its exchanges by URL, and the analysis and the notes quote the name.
      if (x.source === x.url) out.source = out.url;
    }
    if (x.socket) return this.onSocket(out, x.socket, x.source);
    if (!this.content) return out;
    if (x.requestBody !== undefined) out.requestBody = this.requestBody(x.requestBody);
    const body = bodyOf(x).slice();
    const transport = transportOf(x.responseContentType) ?? sniffTransport(body);
    const splices: Splice[] = [];
    if (transport === 'sse') this.sse(body, splices);
    else if (transport === 'protobuf') this.protobuf(body, splices, x.source);
    else this.jsonSequence(body, transport === 'jsonl', splices);
    out.chunks = rechunk(x.chunks, spliced(body, splices), splices);
    return out;
  }

  /** A socket's exchange, as read again from its redacted frames. */
  private onSocket(out: CapturedExchange, s: SocketExchange, name: string): CapturedExchange {
    const { connection, exchanges } = this.socket(s.connection, name);
    const socket: SocketExchange = { ...s, connection, cutBy: s.cutBy && connection.close };
    if (!this.content) return { ...out, socket };
    const read = exchanges.find((y) => y.socket!.input === s.input);
    // Never the exchange's own, unredacted, input and stream.
    if (!read) throw new Error(`${name}: frame ${s.input} of its socket carries no RunAgentInput`);
    return { ...out, requestBody: read.requestBody, responseContentType: read.responseContentType, chunks: read.chunks, socket };
  }

  private socket(c: SocketConnection, name: string): { connection: SocketConnection; exchanges: CapturedExchange[] } {
    const done = this.sockets.get(c);
    if (done) return done;
    const connection: SocketConnection = { ...c, url: this.groups.has('query') ? this.query(c.url) : c.url };
    if (this.content) {
      connection.frames = this.frames(c.frames, name);
      // The reason is the server's own words.
      if (c.close && c.close.reason !== '') {
        connection.close = { ...c.close, reason: this.fillers.string(c.close.reason, utf8.encode(c.close.reason).length) };
        this.report.unstructured.values++;
      }
    }
    const redacted = { connection, exchanges: this.content ? socketExchanges(connection, () => name) : [] };
    this.sockets.set(c, redacted);
    return redacted;
  }

  /** Every frame of a socket, each redacted as what the socket reader makes of it. */
  private frames(frames: SocketFrame[], name: string): SocketFrame[] {
    const reader = new SocketReader();
    return frames.map((f, k) => {
      const steps = reader.push(f);
      const data =
        steps.some((st) => st.k === 'open') ? this.requestBody(f.data as string)
        : steps.length > 0 ? this.eventFrame(f.data, `${name} message ${k}`)
        : this.ownFrame(f.data);
      return { ...f, data };
    });
  }

  /** A frame carrying events: JSON text (one event or an array of them), or one protobuf event, bare or length-prefixed. */
  private eventFrame(data: string | Uint8Array, where: string): string | Uint8Array {
    const splices: Splice[] = [];
    if (typeof data === 'string') {
      const body = utf8.encode(data);
      this.jsonSequence(body, false, splices);
      return text.decode(spliced(body, splices));
    }
    const prefixed = lengthPrefixed(data);
    const body = prefixed ? data.slice() : withPrefix(data);
    this.protobuf(body, splices, where);
    const out = spliced(body, splices);
    return prefixed ? out : out.slice(4);
  }

  /** A frame no exchange takes: nothing says what it holds, so every value in it is filled and a binary one blanked. */
  private ownFrame(data: string | Uint8Array): string | Uint8Array {
    if (typeof data !== 'string') {
      const copy = data.slice();
      this.opaque(copy);
      return copy;
    }
    const body = utf8.encode(data);
    const root = parseWhole(body, 0, body.length);
    if (!root) {
      this.loose(body, null, 0, body.length);
      return text.decode(body);
    }
    const leaves = targets(root, unknownContent, this.groups);
    if (leaves.size === 0) return data;
    this.report.unstructured.frames++;
    const splices: Splice[] = [];
    this.fill(body, null, leaves, splices);
    return text.decode(spliced(body, splices));
  }

  /** The URL with every query-string value filled; names, order and the rest of the URL stay as they were. */
  private query(url: string): string {
    const q = url.indexOf('?');
    const hash = url.indexOf('#');
    if (q === -1 || (hash !== -1 && hash < q)) return url;
    const end = hash === -1 ? url.length : hash;
    const pairs = url.slice(q + 1, end).split('&').map((pair) => {
      const eq = pair.indexOf('=');
      if (eq === -1 || eq === pair.length - 1) return pair;
      const value = formValue(pair.slice(eq + 1));
      this.report.values.query++;
      // As long as the value, not its percent-encoding: the filler the same value gets in a body.
      return pair.slice(0, eq + 1) + this.fillers.string(value, utf8.encode(value).length);
    });
    return url.slice(0, q + 1) + pairs.join('&') + url.slice(end);
  }

  private requestBody(textBody: string): string {
    const bytes = utf8.encode(textBody);
    const root = parseWhole(bytes, 0, bytes.length);
    const leaves = root?.t === 'obj' ? targets(root, requestOf(textBody), this.groups) : null;
    // Untouched text is returned as it was: a lone surrogate would not survive the trip through UTF-8.
    if (leaves?.size === 0) return textBody;
    const splices: Splice[] = [];
    if (leaves) this.fill(bytes, null, leaves, splices);
    else this.loose(bytes, null, 0, bytes.length);
    return text.decode(spliced(bytes, splices));
  }

  private count(group: Group): void {
    if (group) this.report.values[group]++;
    else this.report.unstructured.values++;
  }

  /**
   * Overwrites each leaf of JSON text with its value's filler; `at` maps a payload index to its body
   * offset when the JSON text is not the body itself. A boolean, whose filler is of another width,
   * becomes a splice.
   */
  private fill(body: Uint8Array, at: Int32Array | null, leaves: Map<Leaf, Group>, splices: Splice[]): void {
    // Every span written lies within one line: JSON text puts no line break inside a value.
    const put = (k: number, byte: number): void => {
      body[at ? at[k]! : k] = byte;
    };
    for (const [leaf, group] of leaves) {
      const width = leaf.end - leaf.start;
      if (width <= 0) continue;
      if (leaf.t === 'bool') {
        splices.push({ offset: at ? at[leaf.start]! : leaf.start, size: width, bytes: utf8.encode(JSON.stringify(this.fillers.boolean(leaf.value))) });
      } else {
        const filler = leaf.t === 'str' ? this.fillers.string(leaf.value, Math.min(utf8.encode(leaf.value).length, width)) : this.fillers.numberValue(leaf.raw);
        for (let k = 0; k < filler.length; k++) put(leaf.start + k, filler.charCodeAt(k));
        // Spelled longer than its filler (escapes, `1.50`): a string's closing quote moves up, and spaces follow the value.
        const past = leaf.start + filler.length;
        if (past < leaf.end) {
          const quote = leaf.t === 'str' ? 1 : 0;
          if (quote) put(past, QUOTE);
          for (let k = past + quote; k < leaf.end + quote; k++) put(k, SPACE);
        }
      }
      this.count(group);
    }
  }

  /** Text that is not a JSON object: every value-like token is filled in its own width. */
  private loose(body: Uint8Array, at: Int32Array | null, from: number, to: number, payload: Uint8Array = body): void {
    this.report.unstructured.frames++;
    for (const leaf of looseLeaves(payload, from, to)) {
      const width = leaf.end - leaf.start;
      const filler = leaf.t === 'str' ? this.fillers.string(leaf.value, width) : this.fillers.number(leaf.raw, width);
      for (let k = 0; k < width; k++) {
        const to = at ? at[leaf.start + k]! : leaf.start + k;
        // A joining LF is SSE framing; only text that is not JSON can put a value across one.
        if (to >= 0) body[to] = filler.charCodeAt(k);
      }
      this.report.unstructured.values++;
    }
  }

  private jsonText(body: Uint8Array, payload: Uint8Array, at: Int32Array | null, splices: Splice[]): void {
    const root = parseWhole(payload, 0, payload.length);
    if (root?.t === 'obj') this.fill(body, at, targets(root, walkEvent, this.groups), splices);
    else this.loose(body, at, 0, payload.length, payload);
  }

  private sse(body: Uint8Array, splices: Splice[]): void {
    const decoder = decoderFor('sse');
    for (const item of [...decoder.push(body, 0), ...decoder.end(0)]) {
      if (typeof item.raw !== 'string') continue;
      const { bytes, at } = ssePayload(body, item.offset, item.offset + item.size);
      this.jsonText(body, bytes, at, splices);
    }
  }

  /** JSONL, json-seq and a JSON array body alike: the top-level values between separators are the events. */
  private jsonSequence(body: Uint8Array, lines: boolean, splices: Splice[]): void {
    let i = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
    while (i < body.length) {
      const c = body[i];
      if (isSpace(c) || c === RS || c === 0x5b || c === 0x2c || c === 0x5d) {
        i++;
        continue;
      }
      const r = parseValue(body, i, body.length);
      if (!r) {
        const lf = lines ? body.indexOf(LF, i) : -1;
        const stop = lf === -1 ? body.length : lf;
        this.loose(body, null, i, stop);
        i = stop;
        continue;
      }
      if (r.node.t === 'obj') this.fill(body, null, targets(r.node, walkEvent, this.groups), splices);
      else this.loose(body, null, i, r.next);
      i = r.next;
    }
  }

  private protobuf(body: Uint8Array, splices: Splice[], source: string): void {
    const decoder = decoderFor('protobuf');
    const found: WireItem[] = [...decoder.push(body, 0), ...decoder.end(0)];
    for (const item of found) {
      const payload = body.subarray(item.offset + 4, item.offset + item.size);
      if (item.kind === 'event') {
        this.protoEvent(item.offset, payload, splices, source);
      } else if (item.rule === TRANSPORT_RULES.protoUnknownVariant) {
        // The envelope's own field header stays, so the frame still reads as a variant this build does not know.
        this.opaque(payload.subarray(afterFieldHeader(payload)));
      } else if (item.rule === TRANSPORT_RULES.protoUndecodable || item.rule === TRANSPORT_RULES.protoTruncatedFrame) {
        this.opaque(payload);
      } else if (item.rule === TRANSPORT_RULES.protoFrameTooLarge) {
        this.opaque(body.subarray(item.offset + 4));
      }
    }
  }

  /** Bytes that decode to nothing readable: 0xFF opens no valid field, so they stay as unreadable as they were. */
  private opaque(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    bytes.fill(FILL_BYTE);
    this.report.unstructured.frames++;
  }

  private protoEvent(offset: number, payload: Uint8Array, splices: Splice[], source: string): void {
    const copy: unknown = decodeEvent(payload);
    const refs = new Map<Leaf, { holder: Holder; key: string | number }>();
    const leaves = targets(treeOf(copy, refs), walkEvent, this.groups);
    const writes: { at: number; bytes: Uint8Array }[] = [];
    let inPlace = true;
    for (const [leaf, group] of leaves) {
      const ref = refs.get(leaf)!;
      if (leaf.t === 'str') {
        const bytes = utf8.encode(leaf.value);
        if (bytes.length === 0) continue;
        const filler = this.fillers.string(leaf.value, bytes.length);
        const prefix = varint(bytes.length);
        const at = onlyOccurrence(payload, Uint8Array.from([...prefix, ...bytes]));
        if (at === -1) inPlace = false;
        else writes.push({ at: at + prefix.length, bytes: utf8.encode(filler) });
        ref.holder[ref.key] = filler;
      } else if (leaf.t === 'num') {
        const value = ref.holder[ref.key] as number;
        const filler = Number(this.fillers.numberValue(leaf.raw));
        // google.protobuf.Value carries a number as field 2, fixed64: tag byte 0x11.
        const at = onlyOccurrence(payload, Uint8Array.from([0x11, ...float64(value)]));
        if (at === -1) inPlace = false;
        else writes.push({ at: at + 1, bytes: float64(filler) });
        ref.holder[ref.key] = filler;
      } else {
        // A google.protobuf.Value bool becomes a string: another field of another size.
        ref.holder[ref.key] = this.fillers.boolean(leaf.value);
        inPlace = false;
      }
      this.count(group);
    }
    if (inPlace) {
      for (const w of writes) payload.set(w.bytes, w.at);
      return;
    }
    this.report.reencoded++;
    let encoded: Uint8Array;
    try {
      encoded = encode(copy as Parameters<typeof encode>[0]);
    } catch (err) {
      this.opaque(payload);
      this.report.notes.push(`${source}: the protobuf frame at byte ${offset} could not be re-encoded (${err instanceof Error ? err.message : String(err)}); its bytes were blanked`);
      return;
    }
    const why = 'a value\'s bytes were not unique in it, or a boolean became a string';
    if (encoded.length === payload.length) {
      payload.set(encoded);
      this.report.notes.push(`${source}: the protobuf frame at byte ${offset} was re-encoded (${why}); its size is unchanged`);
      return;
    }
    splices.push({ offset, size: 4 + payload.length, bytes: withPrefix(encoded) });
    this.report.notes.push(`${source}: the protobuf frame at byte ${offset} was re-encoded (${why}); it is now ${encoded.length - payload.length > 0 ? '+' : ''}${encoded.length - payload.length} bytes`);
  }
}

/** The exchanges with the chosen groups redacted, and what was removed. */
export function redactExchanges(exchanges: CapturedExchange[], groups: Iterable<RedactionGroup>): { exchanges: CapturedExchange[]; report: RedactionReport } {
  const r = new Redactor(groups);
  return { exchanges: exchanges.map((x) => r.exchange(x)), report: r.report };
}
