/**
 * Redaction of a recorded session, chosen by group at export time.
 *
 * Values are overwritten where they lie in the captured bytes, never re-serialised: a redacted
 * string keeps its byte length (ASCII filler, see fillers.ts), a number keeps its shape digit for
 * digit. Keys, ids, `type`/`role` discriminators, JSON Patch `op`/`path`/`from`, booleans and null
 * stay, so bodies keep their length, chunk boundaries and frame offsets stay put, and the
 * analysis of the redacted session reads the same stream the original was judged on.
 *
 * Groups:
 * - `messages`: message text and content parts — the content of user, assistant, system and
 *   developer messages (in the input, MESSAGES_SNAPSHOT and RUN_STARTED.input), a content part's
 *   `text`, source `value` (url, base64 data, file reference) and `metadata`; TEXT_MESSAGE_CONTENT
 *   and TEXT_MESSAGE_CHUNK deltas; an interrupt's `message` and a resume entry's `payload` (the
 *   question put to the user and their answer).
 * - `tools`: tool-call `function.arguments`, tool messages' `content` and `error`, TOOL_CALL_ARGS
 *   and TOOL_CALL_CHUNK deltas, TOOL_CALL_RESULT content. Tool definitions (`input.tools`: name,
 *   description, parameter schema) stay: they are the application's code, not conversation data,
 *   and a report about a tool call needs them.
 * - `reasoning`: reasoning message content, REASONING_MESSAGE_CONTENT/CHUNK deltas, and every
 *   `encryptedValue` (messages, tool calls, REASONING_ENCRYPTED_VALUE).
 * - `state`: application data — values inside input.state, `context[].value`, STATE_SNAPSHOT,
 *   STATE_DELTA operation values, ACTIVITY_SNAPSHOT content, ACTIVITY_DELTA operation values,
 *   activity messages' content, RUN_FINISHED and SUBAGENT_FINISHED `result`, and the opaque
 *   payloads CUSTOM.value and RAW.event.
 * - `forwardedProps`: values inside input.forwardedProps.
 * RUN_STARTED.input is read as the input it echoes: each of its fields goes with its own group, so
 * the echo and the input sent are redacted alike and still compare as they did.
 *
 * Never redacted: ids of any kind, names (tool, step, subagent, activity type), roles, metadata
 * outside content parts, RUN_ERROR/SUBAGENT_ERROR messages (the diagnosis a bug report is for),
 * interrupt `reason`/`expiresAt`/`responseSchema`, events of a type the protocol does not define,
 * SSE comments and `event`/`id` fields, and the URL. A frame or request body that is not a JSON object cannot be read by field, so with
 * any group on every value in it is filled. Protobuf frames are redacted in place when each value's
 * encoding occurs exactly once in the frame, and re-encoded otherwise (recorded in `reencoded`).
 */
import { encode } from '@ag-ui/proto';
import { bodyOf, type CapturedExchange, type Chunk } from '../formats/exchange.ts';
import { decoderFor, sniffTransport, transportOf, TRANSPORT_RULES, type WireItem } from '../wire/index.ts';
import { Fillers } from './fillers.ts';
import { isSpace, looseLeaves, parseValue, parseWhole, type JNode, type Leaf } from './json-spans.ts';
import { concatBytes } from '../bytes.ts';
import { decodeEvent } from '../wire/proto-decode.ts';

export const REDACTION_GROUPS = ['messages', 'tools', 'reasoning', 'state', 'forwardedProps'] as const;
export type RedactionGroup = (typeof REDACTION_GROUPS)[number];

/** What an export removed; written to the HAR's log-level `_agui.redaction`. */
export interface RedactionReport {
  groups: RedactionGroup[];
  /** Values (strings and numbers) overwritten, by group. */
  values: Record<RedactionGroup, number>;
  /** Frames and request bodies that were not JSON objects, and the values filled in them. */
  unstructured: { frames: number; values: number };
  /** Protobuf frames that had to be re-encoded; `notes` says where, and whether their size changed. */
  reencoded: number;
  notes: string[];
}

type Mark = (node: JNode | undefined, group: RedactionGroup) => void;

function members(n: JNode | undefined, key: string): JNode[] {
  return n?.t === 'obj' ? n.members.filter((m) => m.key === key).map((m) => m.value) : [];
}

/** The string JSON.parse would keep for `key` (the last copy). */
function stringMember(n: JNode, key: string): string | undefined {
  const last = members(n, key).at(-1);
  return last?.t === 'str' ? last.value : undefined;
}

function items(n: JNode | undefined): JNode[] {
  return n?.t === 'arr' ? n.items : [];
}

/** Content-part and source fields that name what the part is rather than carry it. */
const PART_STRUCTURE = new Set(['type', 'id', 'mimeType', 'provider']);

function content(n: JNode | undefined, group: RedactionGroup, mark: Mark): void {
  if (n?.t !== 'arr') return mark(n, group);
  for (const part of n.items) {
    if (part.t !== 'obj') {
      mark(part, group);
      continue;
    }
    for (const m of part.members) {
      if (PART_STRUCTURE.has(m.key)) continue;
      if (m.key === 'source' && m.value.t === 'obj') {
        for (const s of m.value.members) if (!PART_STRUCTURE.has(s.key)) mark(s.value, group);
      } else {
        mark(m.value, group);
      }
    }
  }
}

function message(m: JNode, mark: Mark): void {
  if (m.t !== 'obj') return;
  const role = stringMember(m, 'role');
  const group: RedactionGroup = role === 'tool' ? 'tools' : role === 'reasoning' ? 'reasoning' : role === 'activity' ? 'state' : 'messages';
  for (const { key, value } of m.members) {
    if (key === 'content') {
      if (role === 'activity') mark(value, 'state');
      else content(value, group, mark);
    } else if (key === 'error' && role === 'tool') {
      mark(value, 'tools');
    } else if (key === 'encryptedValue') {
      mark(value, 'reasoning');
    } else if (key === 'toolCalls') {
      for (const call of items(value)) {
        for (const fn of members(call, 'function')) for (const args of members(fn, 'arguments')) mark(args, 'tools');
        for (const enc of members(call, 'encryptedValue')) mark(enc, 'reasoning');
      }
    }
  }
}

function patchValues(ops: JNode | undefined, group: RedactionGroup, mark: Mark): void {
  for (const op of items(ops)) for (const v of members(op, 'value')) mark(v, group);
}

function walkInput(input: JNode, mark: Mark): void {
  if (input.t !== 'obj') return;
  for (const { key, value } of input.members) {
    switch (key) {
      case 'messages':
        for (const m of items(value)) message(m, mark);
        break;
      case 'state':
        mark(value, 'state');
        break;
      case 'forwardedProps':
        mark(value, 'forwardedProps');
        break;
      case 'context':
        for (const c of items(value)) for (const v of members(c, 'value')) mark(v, 'state');
        break;
      case 'resume':
        for (const r of items(value)) for (const p of members(r, 'payload')) mark(p, 'messages');
        break;
    }
  }
}

function walkEvent(ev: JNode, mark: Mark): void {
  if (ev.t !== 'obj') return;
  const each = (key: string, group: RedactionGroup) => {
    for (const v of members(ev, key)) mark(v, group);
  };
  switch (stringMember(ev, 'type')) {
    case 'TEXT_MESSAGE_CONTENT':
    case 'TEXT_MESSAGE_CHUNK':
      return each('delta', 'messages');
    case 'TOOL_CALL_ARGS':
    case 'TOOL_CALL_CHUNK':
      return each('delta', 'tools');
    case 'TOOL_CALL_RESULT':
      for (const c of members(ev, 'content')) content(c, 'tools', mark);
      return;
    case 'REASONING_MESSAGE_CONTENT':
    case 'REASONING_MESSAGE_CHUNK':
      return each('delta', 'reasoning');
    case 'REASONING_ENCRYPTED_VALUE':
      return each('encryptedValue', 'reasoning');
    case 'STATE_SNAPSHOT':
      return each('snapshot', 'state');
    case 'STATE_DELTA':
      for (const d of members(ev, 'delta')) patchValues(d, 'state', mark);
      return;
    case 'ACTIVITY_SNAPSHOT':
      return each('content', 'state');
    case 'ACTIVITY_DELTA':
      for (const p of members(ev, 'patch')) patchValues(p, 'state', mark);
      return;
    case 'MESSAGES_SNAPSHOT':
      for (const list of members(ev, 'messages')) for (const m of items(list)) message(m, mark);
      return;
    case 'RUN_STARTED':
      for (const input of members(ev, 'input')) walkInput(input, mark);
      return;
    case 'RUN_FINISHED':
      each('result', 'state');
      for (const outcome of members(ev, 'outcome')) {
        for (const list of members(outcome, 'interrupts')) for (const i of items(list)) for (const msg of members(i, 'message')) mark(msg, 'messages');
      }
      return;
    case 'SUBAGENT_FINISHED':
      return each('result', 'state');
    case 'CUSTOM':
      return each('value', 'state');
    case 'RAW':
      return each('event', 'state');
  }
}

function leavesOf(root: JNode): Leaf[] {
  const out: Leaf[] = [];
  const stack = [root];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.t === 'str' || n.t === 'num') out.push(n);
    else if (n.t === 'obj') for (const m of n.members) stack.push(m.value);
    else if (n.t === 'arr') stack.push(...n.items);
  }
  return out;
}

/** The leaves `walk` hands to enabled groups, each once. */
function targets(root: JNode, walk: (n: JNode, mark: Mark) => void, groups: ReadonlySet<RedactionGroup>): Map<Leaf, RedactionGroup> {
  const found = new Map<Leaf, RedactionGroup>();
  walk(root, (n, group) => {
    if (n && groups.has(group)) for (const leaf of leavesOf(n)) found.set(leaf, group);
  });
  return found;
}

const LF = 0x0a;
const CR = 0x0d;
const RS = 0x1e;
const FILL_BYTE = 0xff;
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
  if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) {
    const leaf: Leaf = typeof value === 'string' ? { t: 'str', value, start: -1, end: -1 } : { t: 'num', raw: String(value), start: -1, end: -1 };
    if (holder) refs.set(leaf, { holder, key: key! });
    return leaf;
  }
  if (Array.isArray(value)) return { t: 'arr', items: value.map((v, i) => treeOf(v, refs, value as unknown as Holder, i)) };
  if (typeof value === 'object' && value !== null && !ArrayBuffer.isView(value)) {
    const h = value as Holder;
    return { t: 'obj', members: Object.keys(h).filter((k) => h[k] !== undefined).map((k) => ({ key: k, value: treeOf(h[k], refs, h, k) })) };
  }
  return { t: 'lit' };
}

function float64(v: number): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setFloat64(0, v, true);
  return out;
}

/** Where the old chunk boundaries fall once frames have been replaced by ones of another size. */
function rechunk(chunks: Chunk[], body: Uint8Array, splices: Splice[]): Chunk[] {
  const moved = (b: number): number => {
    let shift = 0;
    for (const s of splices) {
      if (b >= s.offset + s.size) shift += s.bytes.length - s.size;
      else if (b > s.offset) return s.offset + shift + Math.min(b - s.offset, s.bytes.length);
      else break;
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

function spliced(body: Uint8Array, splices: Splice[]): Uint8Array {
  const parts: Uint8Array[] = [];
  let at = 0;
  for (const s of splices) {
    parts.push(body.subarray(at, s.offset), s.bytes);
    at = s.offset + s.size;
  }
  parts.push(body.subarray(at));
  return concatBytes(parts);
}

/** Redacts exchanges one by one with shared fillers, so a value repeated across exchanges stays recognisably one value. */
export class Redactor {
  readonly report: RedactionReport;
  private readonly groups: ReadonlySet<RedactionGroup>;
  private readonly fillers = new Fillers();

  constructor(groups: Iterable<RedactionGroup>) {
    this.groups = new Set(groups);
    this.report = {
      groups: REDACTION_GROUPS.filter((g) => this.groups.has(g)),
      values: { messages: 0, tools: 0, reasoning: 0, state: 0, forwardedProps: 0 },
      unstructured: { frames: 0, values: 0 },
      reencoded: 0,
      notes: [],
    };
  }

  exchange(x: CapturedExchange): CapturedExchange {
    if (this.groups.size === 0) return x;
    const out: CapturedExchange = { ...x };
    if (x.requestBody !== undefined) out.requestBody = this.requestBody(x.requestBody);
    const body = bodyOf(x).slice();
    const transport = transportOf(x.responseContentType) ?? sniffTransport(body);
    const splices: Splice[] = [];
    if (transport === 'sse') this.sse(body);
    else if (transport === 'protobuf') this.protobuf(body, splices, x.source);
    else this.jsonSequence(body, transport === 'jsonl');
    out.chunks = rechunk(x.chunks, splices.length ? spliced(body, splices) : body, splices);
    return out;
  }

  private requestBody(textBody: string): string {
    const bytes = utf8.encode(textBody);
    const root = parseWhole(bytes, 0, bytes.length);
    const leaves = root?.t === 'obj' ? targets(root, walkInput, this.groups) : null;
    // Untouched text is returned as it was: a lone surrogate would not survive the trip through UTF-8.
    if (leaves?.size === 0) return textBody;
    if (leaves) this.fill(bytes, null, leaves);
    else this.loose(bytes, null, 0, bytes.length);
    return text.decode(bytes);
  }

  /** Overwrites each leaf; `at` maps a payload index to its body offset when the JSON text is not the body itself. */
  private fill(body: Uint8Array, at: Int32Array | null, leaves: Map<Leaf, RedactionGroup | null>): void {
    for (const [leaf, group] of leaves) {
      const length = leaf.end - leaf.start;
      if (length <= 0) continue;
      const filler = leaf.t === 'str' ? this.fillers.string(leaf.value, length) : this.fillers.number(leaf.raw, length);
      for (let k = 0; k < length; k++) {
        const to = at ? at[leaf.start + k]! : leaf.start + k;
        // A joining LF is SSE framing; only text that is not JSON can put a value across one.
        if (to >= 0) body[to] = filler.charCodeAt(k);
      }
      if (group) this.report.values[group]++;
      else this.report.unstructured.values++;
    }
  }

  private loose(body: Uint8Array, at: Int32Array | null, from: number, to: number, payload: Uint8Array = body): void {
    this.report.unstructured.frames++;
    this.fill(body, at, new Map(looseLeaves(payload, from, to).map((leaf) => [leaf, null])));
  }

  private jsonText(body: Uint8Array, payload: Uint8Array, at: Int32Array | null): void {
    const root = parseWhole(payload, 0, payload.length);
    if (root?.t === 'obj') this.fill(body, at, targets(root, walkEvent, this.groups));
    else this.loose(body, at, 0, payload.length, payload);
  }

  private sse(body: Uint8Array): void {
    const decoder = decoderFor('sse');
    for (const item of [...decoder.push(body, 0), ...decoder.end(0)]) {
      if (typeof item.raw !== 'string') continue;
      const { bytes, at } = ssePayload(body, item.offset, item.offset + item.size);
      this.jsonText(body, bytes, at);
    }
  }

  /** JSONL, json-seq and a JSON array body alike: the top-level values between separators are the events. */
  private jsonSequence(body: Uint8Array, lines: boolean): void {
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
      if (r.node.t === 'obj') this.fill(body, null, targets(r.node, walkEvent, this.groups));
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
      } else {
        const value = ref.holder[ref.key] as number;
        const filler = Number(this.fillers.number(leaf.raw));
        // google.protobuf.Value carries a number as field 2, fixed64: tag byte 0x11.
        const at = onlyOccurrence(payload, Uint8Array.from([0x11, ...float64(value)]));
        if (at === -1) inPlace = false;
        else writes.push({ at: at + 1, bytes: float64(filler) });
        ref.holder[ref.key] = filler;
      }
      this.report.values[group]++;
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
    if (encoded.length === payload.length) {
      payload.set(encoded);
      this.report.notes.push(`${source}: the protobuf frame at byte ${offset} was re-encoded (a value's bytes were not unique in it); its size is unchanged`);
      return;
    }
    const frame = new Uint8Array(4 + encoded.length);
    new DataView(frame.buffer).setUint32(0, encoded.length, false);
    frame.set(encoded, 4);
    splices.push({ offset, size: 4 + payload.length, bytes: frame });
    this.report.notes.push(`${source}: the protobuf frame at byte ${offset} was re-encoded (a value's bytes were not unique in it); it is now ${encoded.length - payload.length > 0 ? '+' : ''}${encoded.length - payload.length} bytes`);
  }
}

/** The exchanges with the chosen groups redacted, and what was removed. */
export function redactExchanges(exchanges: CapturedExchange[], groups: Iterable<RedactionGroup>): { exchanges: CapturedExchange[]; report: RedactionReport } {
  const r = new Redactor(groups);
  return { exchanges: exchanges.map((x) => r.exchange(x)), report: r.report };
}
