/*
 * The AG-UI protobuf event envelope, decoded without `@ag-ui/proto`.
 *
 * `@ag-ui/proto`'s `decode` is what every AG-UI client reads a binary stream with, so its answer —
 * value or error — is the one to report; but it scans each frame twice, re-encodes it to merge
 * repeated fields, builds ts-proto objects for every arm and then strips their undefined keys,
 * which made it most of the cost of reading protobuf (and drags zod and @ag-ui/core into the CLI).
 * This module reproduces that answer exactly, value for value, key order and error text included,
 * from a table of the `.proto` messages: its stages are the same (envelope check, merge of
 * repeated singular messages, ts-proto's reading rules, the same post-processing), but a frame
 * with nothing to merge — every frame an encoder writes — is read once, straight into the final
 * objects. `test/wire/proto-decoder.test.ts` holds it equal to `@ag-ui/proto` on the differential
 * corpus and on frames mutated at every field, arm and wire type.
 */

import { concatBytes } from '../bytes.ts';

/** `application/vnd.ag-ui.event+proto`, as `@ag-ui/proto` names it (AGUI_MEDIA_TYPE). */
export const PROTO_MEDIA_TYPE = 'application/vnd.ag-ui.event+proto';

/** The frame carries only envelope arms this protocol version does not know: an event from a later version, not broken bytes. */
export class UnknownEventVariantError extends Error {
  constructor() {
    super('Unknown event type');
    this.name = 'UnknownEventVariantError';
  }
}

// ---------------------------------------------------------------------------------------------
// The schema: each message's fields in ts-proto's declaration order (the order of the keys it
// creates), as `name:number:kind`. Kinds: s string (default ""), s? optional string, s* repeated
// string, i int32 (default 0), l? int64 as a safe number, b? bool, d? double, v google.protobuf.Value,
// st Struct, lv ListValue, a message type name (optional), or Name* (repeated).
// ---------------------------------------------------------------------------------------------

const BASE = 'baseEvent:1:BaseEvent';
const SCHEMA: Record<string, string> = {
  Struct: 'fields:1:FieldsEntry*',
  FieldsEntry: 'key:1:s value:2:v',
  Value: 'nullValue:1:i? numberValue:2:d? stringValue:3:s? boolValue:4:b? structValue:5:st listValue:6:lv',
  ListValue: 'values:1:v*',
  JsonPatchOperation: 'op:1:i path:2:s from:3:s? value:4:v',
  TextInputPart: 'text:1:s id:2:s? metadata:3:v',
  ImageInputPart: 'source:1:InputContentSource metadata:2:v id:3:s?',
  InputContentDataSource: 'value:1:s mimeType:2:s',
  InputContentUrlSource: 'value:1:s mimeType:2:s?',
  InputContentFileSource: 'value:1:s provider:2:s? mimeType:3:s?',
  InputContentSource: 'data:1:InputContentDataSource url:2:InputContentUrlSource file:3:InputContentFileSource',
  AudioInputPart: 'source:1:InputContentSource metadata:2:v id:3:s?',
  VideoInputPart: 'source:1:InputContentSource metadata:2:v id:3:s?',
  DocumentInputPart: 'source:1:InputContentSource metadata:2:v id:3:s?',
  InputContent: 'text:1:TextInputPart image:2:ImageInputPart audio:3:AudioInputPart video:4:VideoInputPart document:5:DocumentInputPart',
  ToolCall: 'id:1:s type:2:s function:3:ToolCallFunction metadata:4:st encryptedValue:5:s?',
  ToolCallFunction: 'name:1:s arguments:2:s',
  Message:
    'id:1:s role:2:s content:3:s? name:4:s? toolCalls:5:ToolCall* toolCallId:6:s? error:7:s? contentParts:8:InputContent* metadata:9:st subagentRunId:10:s? encryptedValue:11:s? activityType:12:s? activityContent:13:st',
  Tool: 'name:1:s description:2:s parameters:3:v metadata:4:st',
  Context: 'description:1:s value:2:s',
  ResumeEntry: 'interruptId:1:s status:2:s payload:3:v metadata:4:st',
  RunAgentInput:
    'threadId:1:s runId:2:s parentRunId:3:s? state:4:v messages:5:Message* tools:6:Tool* context:7:Context* forwardedProps:8:v resume:9:ResumeEntry* protocolVersion:10:s?',
  Interrupt: 'id:1:s reason:2:s message:3:s? toolCallId:4:s? responseSchema:5:v expiresAt:6:s? metadata:7:v subagentRunId:8:s?',
  BaseEvent: 'type:1:i timestamp:2:l? rawEvent:3:v metadata:4:st',
  Usage:
    'provider:1:s? model:2:s? inputTokens:3:l? outputTokens:4:l? totalTokens:5:l? reasoningTokens:6:l? cachedInputTokens:7:l? cacheWriteInputTokens:8:l?',
  TextMessageStartEvent: `${BASE} messageId:2:s role:3:s? name:4:s? subagentRunId:5:s?`,
  TextMessageContentEvent: `${BASE} messageId:2:s delta:3:s subagentRunId:4:s?`,
  TextMessageEndEvent: `${BASE} messageId:2:s subagentRunId:3:s?`,
  TextMessageChunkEvent: `${BASE} messageId:2:s? role:3:s? delta:4:s? name:5:s? subagentRunId:6:s?`,
  ToolCallStartEvent: `${BASE} toolCallId:2:s toolCallName:3:s parentMessageId:4:s? subagentRunId:5:s?`,
  ToolCallArgsEvent: `${BASE} toolCallId:2:s delta:3:s subagentRunId:4:s?`,
  ToolCallEndEvent: `${BASE} toolCallId:2:s subagentRunId:3:s?`,
  ToolCallChunkEvent: `${BASE} toolCallId:2:s? toolCallName:3:s? parentMessageId:4:s? delta:5:s? subagentRunId:6:s?`,
  ToolCallResultEvent: `${BASE} subagentRunId:2:s? messageId:3:s toolCallId:4:s content:5:s? role:6:s? contentParts:7:InputContent*`,
  StateSnapshotEvent: `${BASE} snapshot:2:v subagentRunId:3:s?`,
  StateDeltaEvent: `${BASE} delta:2:JsonPatchOperation* subagentRunId:3:s?`,
  MessagesSnapshotEvent: `${BASE} messages:2:Message*`,
  ActivitySnapshotEvent: `${BASE} subagentRunId:2:s? messageId:3:s activityType:4:s content:5:st replace:6:b?`,
  ActivityDeltaEvent: `${BASE} subagentRunId:2:s? messageId:3:s activityType:4:s patch:5:JsonPatchOperation*`,
  RawEvent: `${BASE} event:2:v source:3:s? subagentRunId:4:s?`,
  CustomEvent: `${BASE} name:2:s value:3:v subagentRunId:4:s?`,
  RunStartedEvent: `${BASE} threadId:2:s runId:3:s parentRunId:4:s? input:5:RunAgentInput protocolVersion:6:s?`,
  RunFinishedEvent: `${BASE} threadId:2:s runId:3:s result:4:v outcome:5:s interrupts:6:Interrupt* usage:7:Usage* pendingToolCallIds:8:s*`,
  RunErrorEvent: `${BASE} code:2:s? message:3:s usage:4:Usage*`,
  StepStartedEvent: `${BASE} stepName:2:s subagentRunId:3:s?`,
  StepFinishedEvent: `${BASE} stepName:2:s subagentRunId:3:s?`,
  ReasoningStartEvent: `${BASE} subagentRunId:2:s? messageId:3:s`,
  ReasoningMessageStartEvent: `${BASE} subagentRunId:2:s? messageId:3:s role:4:s`,
  ReasoningMessageContentEvent: `${BASE} subagentRunId:2:s? messageId:3:s delta:4:s`,
  ReasoningMessageEndEvent: `${BASE} subagentRunId:2:s? messageId:3:s`,
  ReasoningMessageChunkEvent: `${BASE} subagentRunId:2:s? messageId:3:s? delta:4:s?`,
  ReasoningEndEvent: `${BASE} subagentRunId:2:s? messageId:3:s`,
  ReasoningEncryptedValueEvent: `${BASE} subagentRunId:2:s? subtype:3:s entityId:4:s encryptedValue:5:s`,
  SubagentStartedEvent: `${BASE} subagentRunId:2:s name:3:s description:4:s? parentSubagentRunId:5:s? parentToolCallId:6:s? parentMessageId:7:s?`,
  SubagentFinishedEvent: `${BASE} subagentRunId:2:s result:3:v outcome:4:s interruptIds:5:s*`,
  SubagentErrorEvent: `${BASE} subagentRunId:2:s message:3:s code:4:s?`,
};

/** The envelope's oneof, by field number: the event type each arm carries and its message. */
const ARMS: readonly (readonly [string, string])[] = [
  ['TEXT_MESSAGE_START', 'TextMessageStartEvent'],
  ['TEXT_MESSAGE_CONTENT', 'TextMessageContentEvent'],
  ['TEXT_MESSAGE_END', 'TextMessageEndEvent'],
  ['TOOL_CALL_START', 'ToolCallStartEvent'],
  ['TOOL_CALL_ARGS', 'ToolCallArgsEvent'],
  ['TOOL_CALL_END', 'ToolCallEndEvent'],
  ['STATE_SNAPSHOT', 'StateSnapshotEvent'],
  ['STATE_DELTA', 'StateDeltaEvent'],
  ['MESSAGES_SNAPSHOT', 'MessagesSnapshotEvent'],
  ['RAW', 'RawEvent'],
  ['CUSTOM', 'CustomEvent'],
  ['RUN_STARTED', 'RunStartedEvent'],
  ['RUN_FINISHED', 'RunFinishedEvent'],
  ['RUN_ERROR', 'RunErrorEvent'],
  ['STEP_STARTED', 'StepStartedEvent'],
  ['STEP_FINISHED', 'StepFinishedEvent'],
  ['TEXT_MESSAGE_CHUNK', 'TextMessageChunkEvent'],
  ['TOOL_CALL_CHUNK', 'ToolCallChunkEvent'],
  ['SUBAGENT_STARTED', 'SubagentStartedEvent'],
  ['SUBAGENT_FINISHED', 'SubagentFinishedEvent'],
  ['SUBAGENT_ERROR', 'SubagentErrorEvent'],
  ['TOOL_CALL_RESULT', 'ToolCallResultEvent'],
  ['ACTIVITY_SNAPSHOT', 'ActivitySnapshotEvent'],
  ['ACTIVITY_DELTA', 'ActivityDeltaEvent'],
  ['REASONING_START', 'ReasoningStartEvent'],
  ['REASONING_MESSAGE_START', 'ReasoningMessageStartEvent'],
  ['REASONING_MESSAGE_CONTENT', 'ReasoningMessageContentEvent'],
  ['REASONING_MESSAGE_END', 'ReasoningMessageEndEvent'],
  ['REASONING_MESSAGE_CHUNK', 'ReasoningMessageChunkEvent'],
  ['REASONING_END', 'ReasoningEndEvent'],
  ['REASONING_ENCRYPTED_VALUE', 'ReasoningEncryptedValueEvent'],
];

/** `BaseEvent.type`: the EventType enum's numbering, which is not the envelope's. */
const EVENT_TYPE_NUMBERS = [
  'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END',
  'STATE_SNAPSHOT', 'STATE_DELTA', 'MESSAGES_SNAPSHOT', 'RAW', 'CUSTOM', 'RUN_STARTED', 'RUN_FINISHED', 'RUN_ERROR',
  'STEP_STARTED', 'STEP_FINISHED', 'SUBAGENT_STARTED', 'SUBAGENT_FINISHED', 'SUBAGENT_ERROR', 'TEXT_MESSAGE_CHUNK',
  'TOOL_CALL_CHUNK', 'TOOL_CALL_RESULT', 'ACTIVITY_SNAPSHOT', 'ACTIVITY_DELTA', 'REASONING_START', 'REASONING_MESSAGE_START',
  'REASONING_MESSAGE_CONTENT', 'REASONING_MESSAGE_END', 'REASONING_MESSAGE_CHUNK', 'REASONING_END', 'REASONING_ENCRYPTED_VALUE',
];

const PATCH_OPS = ['add', 'remove', 'replace', 'move', 'copy', 'test'];

const enum K { String, Int32, Int64, Bool, Double, Value, Struct, List, Message }

interface Field {
  name: string;
  no: number;
  /** Position in the message's field list, and so in its slots. */
  index: number;
  kind: K;
  /** The message type of a Message field. */
  type: Msg | null;
  repeated: boolean;
  /** ts-proto's initial value: "" or 0 for proto3 scalars, undefined for optional fields. */
  initial: '' | 0 | undefined;
  /** The only tag ts-proto reads this field from; any other wire type for the number is skipped as unknown. */
  tag: number;
}

/** How `@ag-ui/proto` pre-processes a message's bytes (its SCAN_SPECS): derived from the fields. */
interface Msg {
  name: string;
  fields: Field[];
  /** Field number → field; numbers are small, so an array. */
  byNo: (Field | undefined)[];
  /** Numbers of singular message-typed fields (Value and Struct included): repeats merge. */
  singular: number;
  /** The envelope check descends into these (message fields whose type has message fields of its own). */
  scan: (Msg | undefined)[];
  /** The merge descends into these (the scanned ones, and Value/Struct/ListValue). */
  merge: (Msg | undefined)[];
  /** Oneof members (a bit per field number) and the wire type each must arrive with to count as one. */
  arms: number;
  armWireTypes: number[];
  /** Each field's initial slot value, and the indices of the repeated fields (which start as fresh arrays). */
  initial: Slots;
  repeated: number[];
}

const WIRE_TYPE: Record<K, number> = {
  [K.String]: 2, [K.Int32]: 0, [K.Int64]: 0, [K.Bool]: 0, [K.Double]: 1, [K.Value]: 2, [K.Struct]: 2, [K.List]: 2, [K.Message]: 2,
};

/** Field numbers up to 31 fit a bit set (1 << 31 is negative, which `&` handles alike). */
const bit = (no: number): number => (no < 32 ? 1 << no : 0);

function compile(): Map<string, Msg> {
  const msgs = new Map<string, Msg>();
  for (const name of Object.keys(SCHEMA)) {
    msgs.set(name, { name, fields: [], byNo: [], singular: 0, scan: [], merge: [], arms: 0, armWireTypes: [], initial: [], repeated: [] });
  }
  for (const [name, spec] of Object.entries(SCHEMA)) {
    const msg = msgs.get(name)!;
    for (const entry of spec.split(' ')) {
      const [fieldName, no, code] = entry.split(':') as [string, string, string];
      const repeated = code.endsWith('*');
      const optional = code.endsWith('?');
      const base = code.replace(/[*?]$/, '');
      const kind = ({ s: K.String, i: K.Int32, l: K.Int64, b: K.Bool, d: K.Double, v: K.Value, st: K.Struct, lv: K.List } as Record<string, K>)[base] ?? K.Message;
      const type = kind === K.Message ? msgs.get(base)! : null;
      const n = Number(no);
      const initial = repeated || optional || kind >= K.Value ? undefined : kind === K.String ? '' : kind === K.Int32 ? 0 : undefined;
      const field: Field = { name: fieldName, no: n, index: msg.fields.length, kind, type, repeated, initial, tag: (n << 3) | WIRE_TYPE[kind] };
      msg.fields.push(field);
      msg.byNo[n] = field;
      msg.initial.push(initial);
      if (repeated) msg.repeated.push(field.index);
    }
  }
  const value = msgs.get('Value')!;
  const struct = msgs.get('Struct')!;
  const list = msgs.get('ListValue')!;
  const hasMessages = (m: Msg): boolean => m.fields.some((f) => f.kind >= K.Value);
  for (const msg of msgs.values()) {
    for (const f of msg.fields) {
      if (f.kind >= K.Value && !f.repeated) msg.singular |= bit(f.no);
      if (f.type && hasMessages(f.type)) msg.scan[f.no] = msg.merge[f.no] = f.type;
      if (f.kind === K.Value) msg.merge[f.no] = value;
      if (f.kind === K.Struct) msg.merge[f.no] = struct;
      if (f.kind === K.List) msg.merge[f.no] = list;
    }
  }
  // The oneofs: Value's kinds, a content part's and a source's arms. An arm counts only with its own wire type.
  value.arms = 0b1111110;
  value.armWireTypes = [2, 0, 1, 2, 0, 2, 2];
  for (const name of ['InputContent', 'InputContentSource']) {
    const m = msgs.get(name)!;
    for (const f of m.fields) m.arms |= bit(f.no);
  }
  return msgs;
}

/** The envelope itself: 31 arms, each a singular message; no oneof clearing (its check rejects mixed arms first). */
function envelopeOf(msgs: Map<string, Msg>): Msg {
  const m: Msg = { name: 'Event', fields: [], byNo: [], singular: 0, scan: [], merge: [], arms: 0, armWireTypes: [], initial: [], repeated: [] };
  ARMS.forEach(([, name], i) => {
    const no = i + 1;
    const type = msgs.get(name)!;
    const f: Field = { name, no, index: i, kind: K.Message, type, repeated: false, initial: undefined, tag: (no << 3) | 2 };
    m.fields.push(f);
    m.byNo[no] = f;
    m.initial.push(undefined);
    m.singular |= bit(no);
    m.scan[no] = m.merge[no] = type;
  });
  return m;
}

interface Codec {
  msgs: Map<string, Msg>;
  envelope: Msg;
  value: Msg;
  fieldsEntry: Msg;
  message: Msg;
  runAgentInput: Msg;
}

let compiled: Codec | null = null;

/** The message tables, compiled by the first protobuf frame: a process reading only SSE never builds them. */
function codec(): Codec {
  if (compiled !== null) return compiled;
  const msgs = compile();
  const get = (name: string): Msg => msgs.get(name)!;
  return (compiled = { msgs, envelope: envelopeOf(msgs), value: get('Value'), fieldsEntry: get('FieldsEntry'), message: get('Message'), runAgentInput: get('RunAgentInput') });
}

const msg = (name: string): Msg => codec().msgs.get(name)!;
const ENVELOPE_TAG_MAX = ARMS.length;

// ---------------------------------------------------------------------------------------------
// Reading. Errors carry the texts @bufbuild/protobuf's reader and @ag-ui/proto throw.
// ---------------------------------------------------------------------------------------------

const INVALID = 'Invalid event';
const lenient = new TextDecoder('utf-8', { ignoreBOM: true });

/** Strings shorter than this are built by `Reader.string` itself. */
const SHORT = 24;
/**
 * The last short ASCII string read of each length, with its bytes: an id repeats in event after event
 * (every delta of a message names it), and building a string a character at a time costs an allocation
 * per character, where comparing the bytes with the last ones costs none.
 */
const shortStrings = Array.from({ length: SHORT }, (_, len) => ({ bytes: new Uint8Array(len), text: null as string | null }));

class Reader {
  pos = 0;
  len: number;
  constructor(public buf: Uint8Array) {
    this.len = buf.length;
  }

  /** Points the reader at other bytes: decodeEvent reuses one reader for every frame. */
  reset(buf: Uint8Array): this {
    this.buf = buf;
    this.len = buf.length;
    this.pos = 0;
    return this;
  }

  assertBounds(): void {
    if (this.pos > this.len) throw new RangeError('premature EOF');
  }

  /** bufbuild's varint32read: 5 bytes of value, up to 5 more ignored, unsigned. */
  uint32(): number {
    const buf = this.buf;
    let b = buf[this.pos++]!;
    if ((b & 0x80) === 0) return this.assertBounds(), b | 0;
    let result = b & 0x7f;
    b = buf[this.pos++]!;
    result |= (b & 0x7f) << 7;
    if ((b & 0x80) === 0) return this.assertBounds(), result;
    b = buf[this.pos++]!;
    result |= (b & 0x7f) << 14;
    if ((b & 0x80) === 0) return this.assertBounds(), result;
    b = buf[this.pos++]!;
    result |= (b & 0x7f) << 21;
    if ((b & 0x80) === 0) return this.assertBounds(), result;
    b = buf[this.pos++]!;
    result |= (b & 0x0f) << 28;
    for (let read = 5; (b & 0x80) !== 0 && read < 10; read++) b = buf[this.pos++]!;
    if ((b & 0x80) !== 0) throw new Error('invalid varint');
    this.assertBounds();
    return result >>> 0;
  }

  /** bufbuild's varint64read, as [lo, hi] in `lo`/`hi`. */
  lo = 0;
  hi = 0;
  varint64(): void {
    const buf = this.buf;
    let lo = 0;
    let hi = 0;
    for (let shift = 0; shift < 28; shift += 7) {
      const b = buf[this.pos++]!;
      lo |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return this.done64(lo, hi);
    }
    const middle = buf[this.pos++]!;
    lo |= (middle & 0x0f) << 28;
    hi = (middle & 0x70) >> 4;
    if ((middle & 0x80) === 0) return this.done64(lo, hi);
    for (let shift = 3; shift <= 31; shift += 7) {
      const b = buf[this.pos++]!;
      hi |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return this.done64(lo, hi);
    }
    throw new Error('invalid varint');
  }

  private done64(lo: number, hi: number): void {
    this.assertBounds();
    this.lo = lo;
    this.hi = hi;
  }

  /** int64 read through ts-proto's longToNumber: exact, or an error past the safe range. */
  int64(): number {
    this.varint64();
    const n = this.hi * 4294967296 + (this.lo >>> 0);
    if (n > Number.MAX_SAFE_INTEGER) throw new Error('Value is larger than Number.MAX_SAFE_INTEGER');
    if (n < Number.MIN_SAFE_INTEGER) throw new Error('Value is smaller than Number.MIN_SAFE_INTEGER');
    return n;
  }

  bool(): boolean {
    const b = this.buf[this.pos]!;
    if (b < 0x80) {
      this.pos++;
      return b !== 0;
    }
    this.varint64();
    return this.lo !== 0 || this.hi !== 0;
  }

  double(): number {
    const at = (this.pos += 8) - 8;
    if (this.pos > this.len) throw new RangeError('Offset is outside the bounds of the DataView');
    return new DataView(this.buf.buffer, this.buf.byteOffset + at, 8).getFloat64(0, true);
  }

  string(): string {
    const len = this.uint32();
    const start = this.pos;
    this.pos += len;
    this.assertBounds();
    // Short ASCII strings (ids, types, names) are cheaper built here than through a decoder call.
    if (len < SHORT) {
      const seen = shortStrings[len]!;
      const buf = this.buf;
      let same = seen.text !== null;
      for (let i = 0; same && i < len; i++) same = buf[start + i] === seen.bytes[i];
      if (same) return seen.text!;
      let text = '';
      for (let i = start; i < this.pos; i++) {
        const c = buf[i]!;
        if (c >= 0x80) return lenient.decode(buf.subarray(start, this.pos));
        text += String.fromCharCode(c);
      }
      seen.bytes.set(buf.subarray(start, this.pos));
      seen.text = text;
      return text;
    }
    return lenient.decode(this.buf.subarray(start, this.pos));
  }

  bytes(): Uint8Array {
    const len = this.uint32();
    const start = this.pos;
    this.pos += len;
    this.assertBounds();
    return this.buf.subarray(start, start + len);
  }

  /** bufbuild's tag(): a field number above 0 and a wire type up to 5, or an error. */
  tag(): number {
    const start = this.pos;
    const tag = this.uint32();
    const read = this.pos - start;
    if (read > 5 || (read === 5 && this.buf[this.pos - 1]! > 0x0f)) throw new Error('illegal tag: varint overflows uint32');
    const no = tag >>> 3;
    const wt = tag & 7;
    if (no <= 0 || wt > 5) throw new Error(`illegal tag: field no ${no} wire type ${wt}`);
    return tag;
  }

  skip(wireType: number, fieldNo: number | undefined, depth = 100): void {
    switch (wireType) {
      case 0:
        while (this.buf[this.pos++]! & 0x80) { /* the varint's continuation bytes */ }
        break;
      case 1:
        this.pos += 8;
        break;
      case 5:
        this.pos += 4;
        break;
      case 2:
        {
          const length = this.uint32();
          this.pos += length;
        }
        break;
      case 3:
        if (depth <= 0) throw new Error('maximum recursion depth reached');
        for (;;) {
          const tag = this.tag();
          if ((tag & 7) === 4) {
            if (fieldNo !== undefined && tag >>> 3 !== fieldNo) throw new Error('invalid end group tag');
            break;
          }
          this.skip(tag & 7, tag >>> 3, depth - 1);
        }
        break;
      default:
        throw new Error(`cant skip wire type ${wireType}`);
    }
    this.assertBounds();
  }
}

// ---------------------------------------------------------------------------------------------
// Stage 1: the envelope check (assertWellFormedEnvelope): one known arm kind, no broken framing.
// ---------------------------------------------------------------------------------------------

/** The check's own varint: overflow bits masked, never an error but running off the end. */
function scanVarint(r: Reader): number {
  let result = 0;
  let shift = 0;
  for (;;) {
    if (r.pos >= r.len) throw new Error(INVALID);
    const byte = r.buf[r.pos++]!;
    if (shift < 28) result += (byte & 127) * 2 ** shift;
    else if (shift === 28) result += (byte & 15) * 2 ** 28;
    shift += 7;
    if ((byte & 128) === 0) return result;
  }
}

function scanMessage(data: Uint8Array, spec: Msg, envelope: boolean): void {
  const r = new Reader(data);
  let groupDepth = 0;
  let seenArm = 0;
  while (r.pos < r.len) {
    const tag = scanVarint(r);
    const field = Math.floor(tag / 8);
    const wireType = tag % 8;
    if (field === 0) throw new Error(INVALID);
    if (wireType === 3) {
      groupDepth += 1;
      continue;
    }
    if (wireType === 4) {
      groupDepth -= 1;
      if (groupDepth < 0) throw new Error(INVALID);
      continue;
    }
    if (envelope && groupDepth === 0 && field <= ENVELOPE_TAG_MAX) {
      if (seenArm !== 0 && seenArm !== field) throw new Error(INVALID);
      seenArm = field;
    }
    if (wireType === 0) scanVarint(r);
    else if (wireType === 1) r.pos += 8;
    else if (wireType === 2) {
      const length = scanVarint(r);
      if (r.pos + length > r.len) throw new Error(INVALID);
      if (groupDepth === 0) {
        if (!envelope && spec.arms & bit(field)) {
          if (seenArm !== 0 && seenArm !== field) throw new Error(INVALID);
          seenArm = field;
        }
        const child = spec.scan[field];
        if (child !== undefined) scanMessage(data.subarray(r.pos, r.pos + length), child, false);
      }
      r.pos += length;
    } else if (wireType === 5) r.pos += 4;
    else throw new Error(INVALID);
    if (r.pos > r.len) throw new Error(INVALID);
  }
  if (groupDepth !== 0) throw new Error(INVALID);
}

// ---------------------------------------------------------------------------------------------
// Stage 2: merging (mergeMessageFields). ts-proto replaces a repeated singular message where
// protobuf merges it, so @ag-ui/proto first rewrites the bytes: repeated payloads concatenated,
// an earlier oneof arm dropped when another follows. `mergeNeeded` finds, without allocating,
// whether a frame has anything to rewrite; only then is the rewrite run.
// ---------------------------------------------------------------------------------------------

function isArm(spec: Msg, no: number, wireType: number): boolean {
  return (spec.arms & bit(no)) !== 0 && wireType === (spec.armWireTypes[no] ?? 2);
}

/** True when the rewrite would change the bytes — or would throw, so that the rewrite throws it. */
function mergeNeeded(data: Uint8Array, spec: Msg): boolean {
  const r = new Reader(data);
  let present = 0;
  let activeArm = 0;
  let children = false;
  try {
    while (r.pos < r.len) {
      const tag = r.tag();
      const no = tag >>> 3;
      const wireType = tag & 7;
      if (wireType === 3 || wireType === 4 || no > 31) return true;
      let hasPayload = false;
      if (wireType === 2) {
        r.bytes();
        hasPayload = true;
      } else r.skip(wireType, no);
      if (isArm(spec, no, wireType)) {
        if (activeArm !== 0 && activeArm !== no) return true;
        activeArm = no;
        if ((spec.singular & bit(no)) === 0 && present & bit(no)) return true;
      }
      const child = spec.merge[no];
      const singular = (spec.singular & bit(no)) !== 0;
      const isMessage = hasPayload && (singular || child !== undefined);
      if (isMessage && singular && present & bit(no)) return true;
      if (isMessage && child !== undefined) children = true;
      if (isMessage || isArm(spec, no, wireType)) present |= bit(no);
    }
  } catch {
    return true;
  }
  if (!children) return false;
  // The rewrite walks children after the whole level: a child is only read once its level is sound.
  r.pos = 0;
  while (r.pos < r.len) {
    const tag = r.tag();
    const no = tag >>> 3;
    if ((tag & 7) !== 2) {
      r.skip(tag & 7, no);
      continue;
    }
    const payload = r.bytes();
    const child = spec.merge[no];
    if (child !== undefined && mergeNeeded(payload, child)) return true;
  }
  return false;
}

/** One part is returned as itself: the merge tells "unchanged" by identity. */
function concatenate(parts: Uint8Array[]): Uint8Array {
  return parts.length === 1 ? parts[0]! : concatBytes(parts);
}

function varintBytes(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

interface MergeField {
  no: number;
  raw: Uint8Array;
  payloads?: Uint8Array[];
  child: Msg | undefined;
}

function mergeFields(data: Uint8Array, spec: Msg): Uint8Array {
  const r = new Reader(data);
  const fields: (MergeField | undefined)[] = [];
  const positions = new Map<number, number>();
  let activeArm: number | undefined;
  let changed = false;
  while (r.pos < r.len) {
    const start = r.pos;
    const tag = r.tag();
    const no = tag >>> 3;
    const wireType = tag & 7;
    const payload = wireType === 2 ? r.bytes() : undefined;
    if (payload === undefined) r.skip(wireType, no);
    const arm = isArm(spec, no, wireType);
    const singular = (spec.singular & bit(no)) !== 0;
    if (arm) {
      if (activeArm !== undefined && activeArm !== no) {
        const previous = positions.get(activeArm);
        if (previous !== undefined) fields[previous] = undefined;
        positions.delete(activeArm);
        changed = true;
      }
      activeArm = no;
      if (!singular) {
        const previous = positions.get(no);
        if (previous !== undefined) {
          fields[previous] = undefined;
          positions.delete(no);
          changed = true;
        }
      }
    }
    const child = spec.merge[no];
    const isMessage = payload !== undefined && (singular || child !== undefined);
    const previous = positions.get(no);
    const previousPayloads = previous === undefined ? undefined : fields[previous]?.payloads;
    if (isMessage && singular && previousPayloads !== undefined) {
      previousPayloads.push(payload);
      changed = true;
      continue;
    }
    if (isMessage || arm) positions.set(no, fields.length);
    fields.push({ no, raw: data.subarray(start, r.pos), ...(isMessage ? { payloads: [payload] } : {}), child });
  }
  const parts: Uint8Array[] = [];
  for (const field of fields) {
    if (field === undefined) continue;
    if (field.payloads !== undefined) {
      const combined = concatenate(field.payloads);
      const merged = field.child === undefined ? combined : mergeFields(combined, field.child);
      if (field.payloads.length > 1 || merged !== combined) {
        parts.push(new Uint8Array([...varintBytes(field.no * 8 + 2), ...varintBytes(merged.length)]), merged);
        changed = true;
        continue;
      }
    }
    parts.push(field.raw);
  }
  return changed ? concatenate(parts) : data;
}

// ---------------------------------------------------------------------------------------------
// Stage 3: ts-proto's reading rules. A field is read only from its own tag; any other wire type is
// skipped; an end-group tag or a zero tag ends the message where it stands (its parent reads on
// from there). Values land in slots, so the objects come out with ts-proto's key order and
// without its undefined keys.
// ---------------------------------------------------------------------------------------------

type Slots = unknown[];

function readSlots(r: Reader, m: Msg, end: number): Slots {
  // A copy of the initial values; only repeated fields need fresh arrays of their own.
  const slots: Slots = m.initial.slice();
  for (const i of m.repeated) slots[i] = [];
  while (r.pos < end) {
    const tag = r.uint32();
    const f = m.byNo[tag >>> 3];
    if (f !== undefined && f.tag === tag) {
      const v = readValue(r, f);
      if (f.repeated) (slots[f.index] as unknown[]).push(v);
      else slots[f.index] = v;
      continue;
    }
    if ((tag & 7) === 4 || tag === 0) break;
    r.skip(tag & 7, undefined);
  }
  return slots;
}

function readValue(r: Reader, f: Field): unknown {
  switch (f.kind) {
    case K.String: return r.string();
    case K.Int32: return r.uint32() | 0;
    case K.Int64: return r.int64();
    case K.Bool: return r.bool();
    case K.Double: return r.double();
    case K.Value: return readValueMessage(r, r.uint32() + r.pos);
    case K.Struct: return readStruct(r, r.uint32() + r.pos);
    case K.List: return readList(r, r.uint32() + r.pos);
    case K.Message: return readSlots(r, f.type!, r.uint32() + r.pos);
  }
}

/** google.protobuf.Value, unwrapped as ts-proto unwraps it: the first set arm in its order, null last. */
function readValueMessage(r: Reader, end: number): unknown {
  const s = readSlots(r, codec().value, end);
  if (s[2] !== undefined) return s[2];
  if (s[1] !== undefined) return s[1];
  if (s[3] !== undefined) return s[3];
  if (s[4] !== undefined) return s[4];
  if (s[5] !== undefined) return s[5];
  if (s[0] !== undefined) return null;
  return undefined;
}

function readStruct(r: Reader, end: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 10) {
      const entry = readSlots(r, codec().fieldsEntry, r.uint32() + r.pos);
      const key = entry[0] as string;
      // ts-proto assigns into a plain object, where `__proto__` sets the prototype instead of a key, and copies own keys only.
      if (entry[1] !== undefined && key !== '__proto__') out[key] = entry[1];
      continue;
    }
    if ((tag & 7) === 4 || tag === 0) break;
    r.skip(tag & 7, undefined);
  }
  return out;
}

function readList(r: Reader, end: number): unknown[] {
  const out: unknown[] = [];
  while (r.pos < end) {
    const tag = r.uint32();
    if (tag === 10) {
      out.push(readValueMessage(r, r.uint32() + r.pos));
      continue;
    }
    if ((tag & 7) === 4 || tag === 0) break;
    r.skip(tag & 7, undefined);
  }
  return out;
}

/** A message's slots as the object @ag-ui/proto hands on: declared order, undefined fields absent, nested messages likewise. */
function toObject(m: Msg, slots: Slots, skipFirst = false): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const fields = m.fields;
  for (let i = skipFirst ? 1 : 0; i < fields.length; i++) {
    const v = slots[i];
    if (v === undefined) continue;
    const f = fields[i]!;
    out[f.name] = f.type === null ? v : f.repeated ? (v as Slots[]).map((s) => toObject(f.type!, s)) : toObject(f.type, v as Slots);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Stage 4: @ag-ui/proto's conversions from wire shapes to the event's.
// ---------------------------------------------------------------------------------------------

type Obj = Record<string, unknown>;

const slot = (m: Msg, slots: Slots, name: string): unknown => slots[m.fields.findIndex((f) => f.name === name)];


function source(s: Slots): Obj | undefined {
  const [data, url, file] = s as [Slots | undefined, Slots | undefined, Slots | undefined];
  if ([data, url, file].filter(Boolean).length > 1) throw new Error('Invalid event: source carries more than one arm');
  if (data) return { type: 'data', value: data[0], mimeType: data[1] };
  if (url) return defined({ type: 'url', value: url[0], mimeType: url[1] });
  if (file) return defined({ type: 'file', value: file[0], provider: file[1], mimeType: file[2] });
  return undefined;
}

function defined(o: Obj): Obj {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

/** One InputContent as a content part, or undefined when its arm (or its source's) is one this schema lacks. */
function contentPart(s: Slots): Obj | undefined {
  if (s.filter(Boolean).length > 1) throw new Error('Invalid event: content part carries more than one arm');
  const text = s[0] as Slots | undefined;
  if (text) return defined({ type: 'text', id: text[1], text: text[0], metadata: text[2] });
  for (const [i, type] of [[1, 'image'], [2, 'audio'], [3, 'video'], [4, 'document']] as const) {
    const part = s[i] as Slots | undefined;
    if (!part) continue;
    const src = part[0] === undefined ? undefined : source(part[0] as Slots);
    if (part[0] !== undefined && src === undefined) return undefined;
    return defined({ type, id: part[2], source: src, metadata: part[1] });
  }
  return undefined;
}

function contentParts(parts: Slots[]): Obj[] {
  const out: Obj[] = [];
  for (const p of parts) {
    const part = contentPart(p);
    if (part !== undefined) out.push(part);
  }
  return out;
}

const KNOWN_ROLES = new Set(['developer', 'system', 'assistant', 'user', 'tool', 'activity', 'reasoning']);
const PARTS_ROLES = new Set(['user', 'tool']);

/** fromWireMessage: the one wire Message split back into its role's content form. */
function message(s: Slots): Obj {
  const role = s[1] as string;
  const content = s[2];
  const parts = s[7] as Slots[];
  const activity = s[12];
  const known = KNOWN_ROLES.has(role);
  const usesParts = known ? PARTS_ROLES.has(role) : parts.length > 0;
  const usesMap = known ? role === 'activity' : !usesParts && activity !== undefined;
  if (!known && (content !== undefined ? 1 : 0) + (parts.length > 0 ? 1 : 0) + (activity !== undefined ? 1 : 0) > 1) {
    throw new Error('Invalid event: message carries more than one content form');
  }
  if (known) {
    if (!usesParts && parts.length > 0) throw new Error('Invalid event: message carries content parts for a role that has none');
    if (activity !== undefined && !usesMap) throw new Error('Invalid event: message carries activity content for a non-activity role');
    if (usesMap && content !== undefined) throw new Error('Invalid event: activity content cannot ride with other content forms');
    if (usesParts && content !== undefined && parts.length > 0) throw new Error('Invalid event: message carries both string content and content parts');
  }
  const out: Obj = {};
  codec().message.fields.forEach((f, i) => {
    if (f.name === 'contentParts' || f.name === 'activityContent') return;
    let v = s[i];
    if (f.name === 'content') {
      if (usesParts && content === undefined) v = contentParts(parts);
      if (usesMap && activity !== undefined) v = activity;
    }
    if (f.name === 'toolCalls') {
      if ((v as Slots[]).length === 0) return;
      v = (v as Slots[]).map((t) => toObject(f.type!, t));
    }
    if (v !== undefined) out[f.name] = v;
  });
  return out;
}

/** fromWireRunAgentInput: the echo's keys in the order @ag-ui/proto writes them. */
function runAgentInput(s: Slots): Obj {
  const get = (name: string): unknown => slot(codec().runAgentInput, s, name);
  const out: Obj = {};
  for (const name of ['threadId', 'runId', 'protocolVersion', 'parentRunId', 'state']) if (get(name) !== undefined) out[name] = get(name);
  out.messages = (get('messages') as Slots[]).map(message);
  out.tools = (get('tools') as Slots[]).map((t) => toObject(msg('Tool'), t));
  out.context = (get('context') as Slots[]).map((t) => toObject(msg('Context'), t));
  if (get('forwardedProps') !== undefined) out.forwardedProps = get('forwardedProps');
  out.resume = (get('resume') as Slots[]).map((t) => toObject(msg('ResumeEntry'), t));
  return out;
}

function patchOp(s: Slots): Obj {
  const op = s[0] as number;
  const o = toObject(msg('JsonPatchOperation'), s);
  o.op = PATCH_OPS[op] ?? String(op);
  return o;
}

/** RUN_FINISHED's and SUBAGENT_FINISHED's flat wire outcome, folded back into `outcome: { type, … }`. */
function outcome(event: Obj, wire: unknown, lists: [string, unknown[]][], required?: string): void {
  const nonEmpty = (l: unknown[]): boolean => l.length > 0;
  const tail = (): Obj => Object.fromEntries(lists.filter(([k, l]) => nonEmpty(l) && k !== required));
  if (typeof wire !== 'string' || wire === '') {
    for (const [k, l] of lists) if (nonEmpty(l)) event[k] = l;
    return;
  }
  const first: Obj = { type: wire };
  if (required !== undefined && wire === 'interrupt') first[required] = lists.find(([k]) => k === required)![1];
  event.outcome = required !== undefined && wire === 'interrupt' ? { ...first, ...tail() } : { type: wire, ...Object.fromEntries(lists.filter(([, l]) => nonEmpty(l))) };
}

/**
 * Whether one message level (and every level the check or the merge descends into) is as an encoder
 * writes it: tags and varints of canonical width, lengths in bounds, no groups, field numbers the
 * bit sets hold, no repeated singular message and no second oneof arm. Such bytes pass the envelope
 * check and have nothing to merge, so both can be skipped; anything else takes the full path.
 */
function canonical(r: Reader, end: number, spec: Msg, envelope: boolean): boolean {
  const buf = r.buf;
  let present = 0;
  while (r.pos < end) {
    const tag = buf[r.pos++]!;
    // One-byte tags cover field numbers up to 15; the envelope's arms 16–31 take two.
    let no: number;
    let wireType: number;
    if (tag < 0x80) {
      no = tag >>> 3;
      wireType = tag & 7;
    } else {
      const hi = buf[r.pos++]!;
      if (hi === undefined || hi >= 0x80) return false;
      no = ((tag & 0x7f) | (hi << 7)) >>> 3;
      wireType = tag & 7;
    }
    if (no === 0 || no > 31 || (envelope && wireType !== 2)) return false;
    const b = 1 << no;
    if (wireType === 0) {
      let n = 0;
      while (buf[r.pos++]! >= 0x80) if (++n >= 9) return false;
      if (r.pos > end) return false;
    } else if (wireType === 2) {
      let len = 0;
      let shift = 0;
      for (;;) {
        const c = buf[r.pos++];
        if (c === undefined || shift > 21) return false;
        len |= (c & 0x7f) << shift;
        if (c < 0x80) break;
        shift += 7;
      }
      const stop = r.pos + len;
      if (stop > end) return false;
      const child = spec.merge[no];
      if (present & b && (spec.singular & b || spec.arms & b)) return false;
      if (spec.arms & b && present & spec.arms) return false;
      if (envelope && present !== 0) return false;
      if (child !== undefined) {
        if (!canonical(r, stop, child, false)) return false;
      } else r.pos = stop;
    } else if (wireType === 1 || wireType === 5) {
      r.pos += wireType === 1 ? 8 : 4;
      if (r.pos > end) return false;
    } else return false;
    if (spec.arms & b) {
      if (wireType !== (spec.armWireTypes[no] ?? 2)) return false;
      if (present & spec.arms & ~b) return false;
      if (wireType !== 2 && present & b) return false;
    }
    present |= b;
  }
  return r.pos === end;
}

const frameReader = new Reader(new Uint8Array(0));

/**
 * One frame's message bytes as the event `@ag-ui/proto`'s `decode` returns, or its error:
 * `UnknownEventVariantError` for a frame carrying only later-version arms, an Error otherwise.
 */
export function decodeEvent(data: Uint8Array): Obj {
  let bytes = data;
  const reader = frameReader.reset(data);
  const { envelope, message: messageType, runAgentInput: inputType } = codec();
  if (!canonical(reader, data.length, envelope, true)) {
    scanMessage(data, envelope, true);
    if (mergeNeeded(data, envelope)) bytes = mergeFields(data, envelope);
  }
  const r = bytes === data ? reader : new Reader(bytes);
  r.pos = 0;
  // Event.decode: every arm read (an error in any of them is the answer), the last of each kept.
  let index = -1;
  let s: Slots | undefined;
  let mixed = false;
  while (r.pos < r.len) {
    const tag = r.uint32();
    const no = tag >>> 3;
    const f = envelope.byNo[no];
    if (f !== undefined && f.tag === tag) {
      if (index !== -1 && index !== f.index) mixed = true;
      index = f.index;
      s = readSlots(r, f.type!, r.uint32() + r.pos);
      continue;
    }
    if ((tag & 7) === 4 || tag === 0) break;
    r.skip(tag & 7, undefined);
  }
  if (mixed) throw new Error(INVALID);
  if (index === -1 || s === undefined) {
    if (namesOnlyFutureArms(data)) throw new UnknownEventVariantError();
    throw new Error(INVALID);
  }
  const type = ARMS[index]![0];
  const m = envelope.fields[index]!.type!;
  const base = s[0] as Slots | undefined;
  if (!base) throw new Error(INVALID);
  const declared = base[0] === -1 ? 'UNRECOGNIZED' : EVENT_TYPE_NUMBERS[base[0] as number];
  if (declared !== type) throw new Error(`Invalid event: envelope carries ${type} but the base event declares ${String(declared)}`);
  if (type === 'TOOL_CALL_RESULT' && s[4] !== undefined && (s[6] as Slots[]).length > 0) {
    throw new Error('Invalid event: content carries both string content and content parts');
  }
  const event: Obj = {};
  const fields = m.fields;
  for (let i = 1; i < fields.length; i++) {
    const f = fields[i]!;
    let v = s[i];
    if (type === 'TOOL_CALL_RESULT') {
      if (f.name === 'contentParts') continue;
      if (f.name === 'content' && v === undefined) v = contentParts(s[6] as Slots[]);
    }
    if (v === undefined) continue;
    if (f.type !== null) {
      if (f.type === messageType) v = (v as Slots[]).map(message);
      else if (f.type === inputType) v = runAgentInput(v as Slots);
      else if (f.name === 'delta' || f.name === 'patch') v = (v as Slots[]).map(patchOp);
      else v = f.repeated ? (v as Slots[]).map((x) => toObject(f.type!, x)) : toObject(f.type, v as Slots);
    }
    event[f.name] = v;
  }
  event.type = type;
  // BaseEvent's slots: type, timestamp, rawEvent, metadata.
  if (base[1] !== undefined) event.timestamp = base[1];
  if (base[2] !== undefined) event.rawEvent = base[2];
  if (base[3] !== undefined) event.metadata = base[3];
  if (type === 'RUN_FINISHED') {
    const pending = event.pendingToolCallIds as unknown[];
    const interrupts = event.interrupts as unknown[];
    const wire = event.outcome;
    delete event.pendingToolCallIds;
    delete event.interrupts;
    delete event.outcome;
    outcome(event, wire, [['pendingToolCallIds', pending], ['interrupts', interrupts]], 'interrupts');
  }
  if (type === 'SUBAGENT_FINISHED') {
    const ids = event.interruptIds as unknown[];
    const wire = event.outcome;
    delete event.interruptIds;
    delete event.outcome;
    outcome(event, wire, [['interruptIds', ids]]);
  }
  if ((type === 'RUN_FINISHED' || type === 'RUN_ERROR') && (event.usage as unknown[]).length === 0) delete event.usage;
  return event;
}

// ---------------------------------------------------------------------------------------------
// namesOnlyFutureArms: with no known arm, tells an event from a later version from broken bytes.
// ---------------------------------------------------------------------------------------------

function boundedVarint(r: Reader, maxBytes: number, lastByteMax: number): number {
  let result = 0;
  let shift = 0;
  let bytes = 0;
  for (;;) {
    if (r.pos >= r.len || bytes >= maxBytes) return -1;
    const byte = r.buf[r.pos++]!;
    bytes += 1;
    if (bytes === maxBytes && byte > lastByteMax) return -1;
    result += (byte & 127) * 2 ** shift;
    shift += 7;
    if ((byte & 128) === 0) return result;
  }
}

const varint32 = (r: Reader): number => boundedVarint(r, 5, 15);
const varint64 = (r: Reader): number => boundedVarint(r, 10, 1);

/** Walks one level of any message; `topLevel` also requires unknown length-delimited arms that walk as messages. */
function walks(data: Uint8Array, topLevel: boolean): boolean {
  const r = new Reader(data);
  const groups: number[] = [];
  let future = 0;
  while (r.pos < r.len) {
    const tag = varint32(r);
    if (tag < 0) return false;
    const field = Math.floor(tag / 8);
    const wireType = tag % 8;
    if (field === 0) return false;
    const known = topLevel && groups.length === 0 && field <= ENVELOPE_TAG_MAX;
    if (wireType === 3) {
      if (known) return false;
      groups.push(field);
    } else if (wireType === 4) {
      if (groups.pop() !== field) return false;
    } else if (wireType === 0) {
      if (known) return false;
      if (varint64(r) < 0) return false;
    } else if (wireType === 1) {
      if (known) return false;
      r.pos += 8;
    } else if (wireType === 5) {
      if (known) return false;
      r.pos += 4;
    } else if (wireType === 2) {
      const length = varint32(r);
      if (length < 0 || r.pos + length > r.len) return false;
      if (topLevel && groups.length === 0) {
        if (known) return false;
        if (!walks(data.subarray(r.pos, r.pos + length), false)) return false;
        future += 1;
      }
      r.pos += length;
    } else return false;
    if (r.pos > r.len) return false;
  }
  return groups.length === 0 && (!topLevel || future > 0);
}

function namesOnlyFutureArms(data: Uint8Array): boolean {
  return walks(data, true);
}
