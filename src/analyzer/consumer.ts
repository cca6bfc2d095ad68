/**
 * The conversation a consumer ends up holding: the input's messages, then every event the consumer
 * handles (after enforcement and chunk expansion) applied as the reference consumer's default apply
 * does it (`defaultApplyEvents` of @ag-ui/client 1.0.0, and of 0.0.59 for a pre-1.0 exchange: the two
 * differ only in the snapshot's activity rule, below). MESSAGES_SNAPSHOT reconciles as events/state
 * specifies: in place for a message already held, appended for a new one, and a held message absent
 * from the snapshot dropped, except activity and reasoning messages while the snapshot carries none.
 *
 * The same model gives the findings about what it holds (CONVERSATION_RULES), the conversation the
 * views show, and, replayed, the conversation after any one event. A differential test holds it to the
 * real clients' apply (test/analyzer/consumer-differential.test.ts).
 */
import { isObject, jsonClone, jsonEqual, preview, type JsonObject } from '../json.ts';
import { defineRules } from '../rules/index.ts';
import { ownerOf, str, type Ev } from './event.ts';
import { PatchTarget } from './patch.ts';
import type { FindingSink } from './sink.ts';

export const CONVERSATION_RULES = defineRules({
  snapshotDropsOwn: {
    id: 'conversation/snapshot-drops-own-message',
    category: 'conversation',
    severity: 'warning',
    fatal: false,
    spec: 'events/state#messages_snapshot',
    title: 'A MESSAGES_SNAPSHOT leaves out a message the producer itself streamed earlier: the consumer drops it',
  },
  toolAfterAnswer: {
    id: 'conversation/tool-message-after-answer',
    category: 'conversation',
    severity: 'warning',
    fatal: false,
    spec: 'basic/run-input#messages',
    title: 'After a MESSAGES_SNAPSHOT the consumer holds a tool message after the assistant message that follows its call: every later input carries the answer before its tool result',
  },
  reopenDisagrees: {
    id: 'tool-call/reopen-disagrees',
    category: 'tool-call',
    severity: 'error',
    // The MUST binds the producer; a consumer is not required to detect a disagreement.
    fatal: false,
    spec: 'events/tool-calls#tool_call_end',
    title: 'A TOOL_CALL_START reopening a call must agree with it: the same toolCallName, parentMessageId and owner',
  },
  restreamed: {
    id: 'tool-call/restreamed',
    category: 'tool-call',
    severity: 'error',
    fatal: false,
    spec: 'events/lifecycle#several-runs-on-one-stream',
    title: 'A tool call the consumer already held is streamed again instead of restated by MESSAGES_SNAPSHOT: its arguments append',
  },
});

/** A message as the reference consumer holds it: the event's and the input's own shape, plus what apply added. */
export type HeldMessage = JsonObject & { id?: unknown; role?: unknown };

/**
 * What one `apply` did to one message, for the views' conversation diff (detail/conversation.ts): read
 * right after the apply, it costs what the event changed, never a comparison of whole conversations.
 */
export interface HeldChange {
  /** `kept`: a MESSAGES_SNAPSHOT listed a held message as it already was. */
  change: 'added' | 'replaced' | 'dropped' | 'kept';
  /** As held after the apply; for `dropped`, as it was held until then. */
  message: HeldMessage;
  /** Where a MESSAGES_SNAPSHOT lists the message, when it does. */
  listed?: number;
  /** A snapshot's `replaced`: the copy it replaced, no longer held (so never changed again). */
  was?: HeldMessage;
}

/** Where a held message came from. */
export interface Origin {
  /** `stream`: minted by this stream's own events (TEXT_MESSAGE_START, TOOL_CALL_START, TOOL_CALL_RESULT, ...). */
  how: 'input' | 'stream' | 'snapshot' | 'echo';
  /** The event that put it there (null for the input). */
  event: number | null;
  /** The run of this stream it came in: its index among the stream's RUN_STARTEDs, -1 before any. */
  run: number;
}

/** What the model knows of a call the stream opened: what a reopening start must agree with. */
interface CallOpened {
  run: number;
  event: number;
  parent: string | undefined;
  owner: string;
}

interface Restream {
  id: string;
  event: number;
  /** Where the consumer held it from, for the message. */
  since: string;
  before: string;
}

export interface ConsumerModelOptions {
  /** Where findings go; none when the model is replayed for a view. */
  sink?: FindingSink;
  /** The input's messages: what the consumer held when it sent the request (RunAgentInput.messages). */
  history: unknown;
  /** Whether the exchange reads as pre-1.0 (no declaration so far): the 0.0.59 client's snapshot rule applies. */
  legacy?: () => boolean;
  /**
   * Whether the model notes, for the views, the event that last changed each message (`eventOf`) and what
   * each apply changed (`changes`). Only the views read them, and noting costs allocations on every event.
   */
  noteChanges?: boolean;
  /**
   * Whether streamed text is held as text. When false (a report, which reads the conversation only to
   * compare a dropped message's text with a snapshot's), each streamed message keeps a digest of its text
   * instead (`TextDigest`): a long stream's text was most of what the analysis kept alive.
   */
  keepText?: boolean;
}

const encoder = new TextEncoder();
/** Longest piece of a text encoded at once, so the scratch bytes stay small whatever a delta's length. */
const PIECE = 1 << 14;
/** A piece's bytes after the bytes still short of a word (TextDigest.fold); a code unit takes at most 3. */
const scratch = new Uint8Array(PIECE * 3 + 4);
/** The same bytes as words: folded with one load each, not four. */
const words = new Int32Array(scratch.buffer);
/** Where a piece's bytes go after 0–3 bytes still short of a word. */
const after = [0, 1, 2, 3].map((k) => scratch.subarray(k));

/**
 * The length and a 32-bit FNV-1a hash of a text built delta by delta: what the findings compare the text
 * against, without holding it. Two texts of the same length collide once in about 4 billion comparisons.
 * The hash is over the text's code units as bytes (one for a unit below 0x80, three for any other: a lead
 * byte 0x80–0x8f, then two from 0x80–0xbf, so no two texts share bytes), folded a word of four at a time,
 * the bytes short of a word waiting for the next delta. Bytes, not `charCodeAt` per character: the encoder
 * writes an ASCII delta's bytes natively, and hashing character by character was a tenth of `check`.
 */
class TextDigest {
  length = 0;
  private hash = 0x811c9dc5;
  /** The bytes not folded yet (fewer than 4), the first in the lowest byte, and how many. */
  private tail = 0;
  private tailBytes = 0;

  add(s: string): void {
    for (let at = 0; at < s.length; at += PIECE) this.fold(s.length <= PIECE ? s : s.slice(at, at + PIECE));
    this.length += s.length;
  }

  matches(s: string): boolean {
    if (s.length !== this.length) return false;
    const whole = new TextDigest();
    whole.add(s);
    return whole.hash === this.hash && whole.tail === this.tail && whole.tailBytes === this.tailBytes;
  }

  private fold(piece: string): void {
    const k = this.tailBytes;
    for (let i = 0; i < k; i++) scratch[i] = this.tail >>> (8 * i);
    const n = k + TextDigest.bytes(piece, k);
    const whole = n >>> 2;
    let h = this.hash;
    for (let w = 0; w < whole; w++) h = Math.imul(h ^ words[w]!, 0x01000193);
    let tail = 0;
    for (let i = whole * 4; i < n; i++) tail |= scratch[i]! << (8 * (i & 3));
    this.hash = h;
    this.tail = tail;
    this.tailBytes = n & 3;
  }

  /** Writes `piece`'s bytes to `scratch` from `at`; how many. */
  private static bytes(piece: string, at: number): number {
    // Each byte of the UTF-8 is one code unit exactly when there are as many as units: the text is ASCII.
    const { written } = encoder.encodeInto(piece, after[at]!);
    if (written === piece.length) return written;
    let n = at;
    for (let i = 0; i < piece.length; i++) {
      const u = piece.charCodeAt(i);
      if (u < 0x80) scratch[n++] = u;
      else {
        scratch[n++] = 0x80 | (u >>> 12);
        scratch[n++] = 0x80 | ((u >>> 6) & 0x3f);
        scratch[n++] = 0x80 | (u & 0x3f);
      }
    }
    return n - at;
  }
}

const ACTIVITY_HISTORY_KEY = '@ag-ui/client';

/**
 * Activity types a snapshot names as authoritative in its metadata (1.0.0's ACTIVITY_HISTORY_METADATA
 * convention): undefined when it names none, null when it declares every type authoritative.
 */
function authoritativeActivityTypes(ev: JsonObject): string[] | null | undefined {
  const meta = ev.metadata;
  if (!isObject(meta) || !Object.prototype.hasOwnProperty.call(meta, ACTIVITY_HISTORY_KEY)) return undefined;
  const own = meta[ACTIVITY_HISTORY_KEY];
  if (!isObject(own)) return [];
  if (!Object.prototype.hasOwnProperty.call(own, 'authoritativeActivityTypes')) return undefined;
  const types = own.authoritativeActivityTypes;
  if (types === null) return null;
  return Array.isArray(types) && types.every((t) => typeof t === 'string') ? (types as string[]) : [];
}

/** A message with `subagentRunId: null` read as absent, as the reference reads snapshot and input messages. */
function withoutNullOwner(m: JsonObject): JsonObject {
  if (m.subagentRunId !== null) return m;
  const copy = { ...m };
  delete copy.subagentRunId;
  return copy;
}

interface HeldCall extends JsonObject {
  id: string;
  function: { name: unknown; arguments: string };
}

function callsOf(m: HeldMessage): HeldCall[] {
  return Array.isArray(m.toolCalls) ? (m.toolCalls.filter((c) => isObject(c) && isObject(c.function)) as HeldCall[]) : [];
}

interface FoundCall {
  holder: HeldMessage;
  call: HeldCall;
}

const describeMessage = (m: HeldMessage): string => `${String(m.role)} message ${JSON.stringify(m.id)}`;

export class ConsumerModel {
  messages: HeldMessage[];
  private readonly origins = new WeakMap<HeldMessage, Origin>();
  /** The event that last changed each message, for the views; null when they are not noted. */
  private readonly touched: WeakMap<HeldMessage, number> | null;
  /** The streamed text of each message as a digest, when text is not kept (`keepText`); its `content` then stays as it was before the deltas. */
  private readonly digests: WeakMap<HeldMessage, TextDigest> | null;
  /** Counts the changes to what the consumer holds: an event that leaves it alone leaves this alone. */
  revision = 0;
  /** What the last `apply` changed, each message once, in the order it happened; emptied by the next. Empty when changes are not noted. */
  readonly changes: HeldChange[] = [];
  private readonly changed = new Set<HeldMessage>();
  private readonly opened = new Map<string, CallOpened>();
  private readonly restreams = new Map<string, Restream>();
  /** Tool messages already reported out of order, by id: one finding each. */
  private readonly misplaced = new Set<unknown>();
  private run = -1;
  private readonly activityTargets = new WeakMap<HeldMessage, PatchTarget>();
  /**
   * Where each id first sits in `messages`, so a lookup by id is not a scan of the whole conversation
   * (n messages open at once would make a stream quadratic). Appends and inserts keep it, an insert
   * paying for the messages it moves (a tool result lands just after its call, near the end); any other
   * change drops it, and the next lookup rebuilds it from `messages`, the one truth.
   */
  private positions: { of: HeldMessage[]; length: number; at: Map<unknown, number> } | null = null;
  /**
   * Which message first holds each tool call, and which assistant message first does (where a result is
   * filed): a scan of every message's calls per TOOL_CALL_* event made n calls quadratic. Kept like `positions`.
   */
  private calls: { of: HeldMessage[]; length: number; any: Map<unknown, FoundCall>; assistant: Map<unknown, FoundCall> } | null = null;

  constructor(private readonly o: ConsumerModelOptions) {
    this.touched = o.noteChanges ? new WeakMap() : null;
    this.digests = o.keepText === false ? new WeakMap() : null;
    this.messages = (Array.isArray(o.history) ? o.history.filter(isObject) : []).map((m) => jsonClone(withoutNullOwner(m)) as JsonObject);
    for (const m of this.messages) this.origins.set(m, { how: 'input', event: null, run: -1 });
    // An input already out of order is the application's history, not something this stream did.
    for (const { tool } of this.outOfOrder()) this.misplaced.add(tool.id);
  }

  originOf(m: HeldMessage): Origin | undefined {
    return this.origins.get(m);
  }

  /** The event that last changed `m`; null for a message as the input gave it. */
  eventOf(m: HeldMessage): number | null {
    return this.touched?.get(m) ?? null;
  }

  private mark(m: HeldMessage, event: number, change: 'added' | 'replaced' = 'replaced', listed?: number): void {
    this.revision++;
    if (this.touched === null) return;
    this.touched.set(m, event);
    this.note({ change, message: m, ...(listed !== undefined ? { listed } : {}) });
  }

  /** A message's first change in this apply is the one it is listed under (a message added, then written, was added). */
  private note(c: HeldChange): void {
    if (this.touched === null || this.changed.has(c.message)) return;
    this.changed.add(c.message);
    this.changes.push(c);
  }

  /** `index` if it still describes `messages` (the same array, as long as it was), else null. */
  private current<T extends { of: HeldMessage[]; length: number }>(index: T | null, length = this.messages.length): T | null {
    return index !== null && index.of === this.messages && index.length === length ? index : null;
  }

  private indexOf(id: unknown): number {
    let p = this.current(this.positions);
    if (p === null) {
      const at = new Map<unknown, number>();
      this.messages.forEach((m, i) => at.has(m.id) || at.set(m.id, i));
      this.positions = p = { of: this.messages, length: this.messages.length, at };
    }
    return p.at.get(id) ?? -1;
  }

  private find(id: unknown): HeldMessage | undefined {
    const at = this.indexOf(id);
    return at === -1 ? undefined : this.messages[at];
  }

  private callIndex(): NonNullable<ConsumerModel['calls']> {
    let c = this.current(this.calls);
    if (c === null) {
      c = { of: this.messages, length: this.messages.length, any: new Map(), assistant: new Map() };
      for (const m of this.messages) ConsumerModel.indexCalls(c, m);
      this.calls = c;
    }
    return c;
  }

  /** Files `holder`'s calls under their ids where no earlier message holds them: `holder` comes after every indexed one. */
  private static indexCalls(c: NonNullable<ConsumerModel['calls']>, holder: HeldMessage): void {
    for (const call of callsOf(holder)) {
      if (!c.any.has(call.id)) c.any.set(call.id, { holder, call });
      if (holder.role === 'assistant' && !c.assistant.has(call.id)) c.assistant.set(call.id, { holder, call });
    }
  }

  /** The first message holding call `id`, and the first such call in it. */
  private findCall(id: unknown): FoundCall | undefined {
    return this.callIndex().any.get(id);
  }

  /** The first assistant message holding call `id`, and the first such call in it. */
  private findAssistantCall(id: unknown): FoundCall | undefined {
    return this.callIndex().assistant.get(id);
  }

  /** Where `m` sits, by its id when it is the first with it (nearly always), else by a scan. */
  private positionOf(m: HeldMessage): number {
    const at = this.indexOf(m.id);
    return this.messages[at] === m ? at : this.messages.indexOf(m);
  }

  private add(m: HeldMessage, how: Origin['how'], event: number): HeldMessage {
    this.messages.push(m);
    const p = this.current(this.positions, this.messages.length - 1);
    if (p !== null) {
      p.length++;
      if (!p.at.has(m.id)) p.at.set(m.id, this.messages.length - 1);
    }
    const c = this.current(this.calls, this.messages.length - 1);
    if (c !== null) {
      c.length++;
      ConsumerModel.indexCalls(c, m);
    }
    this.origins.set(m, { how, event, run: this.run });
    this.mark(m, event, 'added');
    return m;
  }

  /** Puts `m` at `i`, moving what follows, with the indexes moved along rather than rebuilt. */
  private insert(i: number, m: HeldMessage): void {
    const p = this.current(this.positions);
    const c = this.current(this.calls);
    this.messages.splice(i, 0, m);
    if (p !== null) {
      // Each message after i moved up one; an id's entry moves with the message it names. From the end,
      // so a later duplicate of an id, checked before its first is moved, cannot take the first's entry.
      for (let j = this.messages.length - 1; j > i; j--) {
        const id = this.messages[j]!.id;
        if (p.at.get(id) === j - 1) p.at.set(id, j);
      }
      const first = p.at.get(m.id);
      if (first === undefined || first > i) p.at.set(m.id, i);
      p.length++;
    }
    // The call index names holders, not places: only calls `m` brings can change which holder comes first.
    if (c !== null) {
      if (callsOf(m).length === 0) c.length++;
      else this.calls = null;
    }
  }

  /** The event's metadata folded into `target`'s, key by key, the last write winning (@ag-ui/core mergeMetadata). */
  private static merge(target: JsonObject | undefined, ev: JsonObject): void {
    if (!target || ev.metadata === undefined) return;
    target.metadata = { ...(isObject(target.metadata) ? target.metadata : {}), ...(jsonClone(ev.metadata) as JsonObject) };
  }

  /** Applies one event the consumer handles; `index` is the frame it came from. */
  apply(ev: Ev, index: number): void {
    if (this.changes.length > 0) {
      this.changes.length = 0;
      this.changed.clear();
    }
    const merge = ConsumerModel.merge;
    switch (ev.type) {
      case 'RUN_STARTED': {
        this.flushRestreams();
        this.run++;
        // The reference adds the echoed input's messages it does not hold yet.
        const echoed = isObject(ev.input) && Array.isArray(ev.input.messages) ? ev.input.messages.filter(isObject) : [];
        for (const m of echoed) if (!this.find(m.id)) this.add(jsonClone(withoutNullOwner(m)) as JsonObject, 'echo', index);
        return;
      }
      case 'RUN_FINISHED':
      case 'RUN_ERROR':
        return this.flushRestreams();
      case 'TEXT_MESSAGE_START':
      case 'REASONING_MESSAGE_START': {
        const held = this.find(ev.messageId);
        if (held?.role === 'activity') return;
        const reasoning = ev.type === 'REASONING_MESSAGE_START';
        const m =
          held ??
          this.add(
            {
              id: ev.messageId,
              role: reasoning ? 'reasoning' : (ev.role ?? 'assistant'),
              content: '',
              ...(!reasoning && ev.name !== undefined ? { name: ev.name } : {}),
              ...(ev.subagentRunId != null ? { subagentRunId: ev.subagentRunId } : {}),
            },
            'stream',
            index,
          );
        merge(m, ev);
        this.mark(m, index);
        return;
      }
      case 'TEXT_MESSAGE_CONTENT':
      case 'REASONING_MESSAGE_CONTENT': {
        const m = this.find(ev.messageId);
        if (!m || m.role === 'activity') return;
        if (this.digests === null) m.content = `${typeof m.content === 'string' ? m.content : ''}${String(ev.delta)}`;
        else {
          let d = this.digests.get(m);
          if (d === undefined) {
            this.digests.set(m, (d = new TextDigest()));
            if (typeof m.content === 'string') d.add(m.content);
          }
          d.add(String(ev.delta));
        }
        merge(m, ev);
        this.mark(m, index);
        return;
      }
      case 'TEXT_MESSAGE_END':
      case 'REASONING_MESSAGE_END': {
        const m = this.find(ev.messageId);
        if (!m || m.role === 'activity' || ev.metadata === undefined) return;
        merge(m, ev);
        this.mark(m, index);
        return;
      }
      case 'TOOL_CALL_START':
        return this.toolCallStart(ev, index);
      case 'TOOL_CALL_ARGS': {
        const found = this.findCall(ev.toolCallId);
        if (!found) return;
        found.call.function.arguments += String(ev.delta);
        merge(found.call, ev);
        this.mark(found.holder, index);
        return;
      }
      case 'TOOL_CALL_END': {
        const found = this.findCall(ev.toolCallId);
        if (!found) return;
        if (ev.metadata !== undefined) {
          merge(found.call, ev);
          this.mark(found.holder, index);
        }
        const r = this.restreams.get(str(ev, 'toolCallId') ?? '');
        if (r) this.reportRestream(r);
        return;
      }
      case 'TOOL_CALL_RESULT': {
        const m: HeldMessage = {
          id: ev.messageId,
          toolCallId: ev.toolCallId,
          role: ev.role || 'tool',
          content: ev.content,
          ...(ev.subagentRunId != null ? { subagentRunId: ev.subagentRunId } : {}),
        };
        merge(m, ev);
        // The reference files a result after its call's message and the tool messages already answering it.
        const call = this.findAssistantCall(ev.toolCallId);
        if (!call) return void this.add(m, 'stream', index);
        let i = this.positionOf(call.holder) + 1;
        while (i < this.messages.length && this.messages[i]!.role === 'tool') i++;
        this.insert(i, m);
        this.origins.set(m, { how: 'stream', event: index, run: this.run });
        this.mark(m, index, 'added');
        return;
      }
      case 'MESSAGES_SNAPSHOT':
        return this.snapshot(ev, index);
      case 'ACTIVITY_SNAPSHOT': {
        const at = this.indexOf(ev.messageId);
        const held = at >= 0 ? this.messages[at] : undefined;
        const replace = ev.replace ?? true;
        const fresh: HeldMessage = {
          id: ev.messageId,
          role: 'activity',
          activityType: ev.activityType,
          content: jsonClone(ev.content),
          ...(ev.subagentRunId != null ? { subagentRunId: ev.subagentRunId } : {}),
        };
        let target: HeldMessage | undefined;
        if (!held) target = this.add(fresh, 'stream', index);
        else if (held.role === 'activity') {
          if (replace) {
            const next: HeldMessage = { ...held, activityType: ev.activityType, content: jsonClone(ev.content), subagentRunId: ev.subagentRunId };
            if (ev.subagentRunId == null) delete next.subagentRunId;
            this.replaceAt(at, next, index);
          }
          target = this.messages[at];
        } else if (replace) {
          this.replaceAt(at, fresh, index);
          target = fresh;
        }
        merge(target, ev);
        return;
      }
      case 'ACTIVITY_DELTA': {
        const at = this.indexOf(ev.messageId);
        const held = at >= 0 ? this.messages[at] : undefined;
        if (!held || held.role !== 'activity') return;
        merge(held, ev);
        // A patch that does not apply leaves the activity as it was, as the reference keeps it.
        // One target per activity while its content is the one the target produced: a fresh target (or a
        // clone) per delta would copy the whole content each time, quadratic in the deltas.
        const kept = this.activityTargets.get(held);
        const target = kept && kept.doc === held.content ? kept : new PatchTarget(jsonClone(held.content ?? {}));
        const patched = target.apply(Array.isArray(ev.patch) ? ev.patch : []);
        if (!patched.ok) return;
        const next = { ...held, content: target.doc, activityType: ev.activityType };
        this.activityTargets.set(next, target);
        this.replaceAt(at, next, index);
        return;
      }
      case 'REASONING_ENCRYPTED_VALUE': {
        if (ev.subtype === 'tool-call') {
          const found = this.findAssistantCall(ev.entityId);
          if (found) {
            found.call.encryptedValue = ev.encryptedValue;
            this.mark(found.holder, index);
          }
          return;
        }
        const m = this.find(ev.entityId);
        if (m && m.role !== 'activity') {
          m.encryptedValue = ev.encryptedValue;
          this.mark(m, index);
        }
        return;
      }
    }
  }

  /** The stream ended: a re-streamed call still open says what it holds now. */
  end(): void {
    this.flushRestreams();
  }

  private replaceAt(at: number, next: HeldMessage, index: number): void {
    const was = this.messages[at]!;
    this.messages[at] = next;
    if (next.id !== was.id) this.positions = null;
    // The index names holders: a holder replaced, or calls arriving with the replacement, rebuild it.
    if (callsOf(was).length > 0 || callsOf(next).length > 0) this.calls = null;
    this.origins.set(next, this.origins.get(was) ?? { how: 'stream', event: index, run: this.run });
    this.mark(next, index);
  }

  private toolCallStart(ev: Ev, index: number): void {
    const id = str(ev, 'toolCallId') ?? '';
    const found = this.findCall(ev.toolCallId);
    if (found) {
      this.checkReopen(ev, found, index);
      const { call } = found;
      const renamed = call.function.name !== ev.toolCallName;
      if (renamed) call.function.name = ev.toolCallName;
      ConsumerModel.merge(call, ev);
      if (renamed || ev.metadata !== undefined) this.mark(found.holder, index);
      return;
    }
    const parentId = ev.parentMessageId;
    const named = parentId !== undefined && parentId !== null ? this.find(parentId) : undefined;
    let holder: HeldMessage;
    /** Whether the holder's id was held before this call: only a new one takes the call's owner. */
    let held: boolean;
    if (named?.role === 'assistant') {
      holder = named;
      held = true;
    } else {
      // No parent, or a parent that is no assistant message: the reference files the call under its own id.
      const holderId = parentId === undefined || parentId === null || named ? ev.toolCallId : parentId;
      held = this.indexOf(holderId) !== -1;
      holder = this.add({ id: holderId, role: 'assistant', toolCalls: [] }, 'stream', index);
    }
    if (!held && ev.subagentRunId != null && holder.subagentRunId === undefined) holder.subagentRunId = ev.subagentRunId;
    if (!Array.isArray(holder.toolCalls)) holder.toolCalls = [];
    const call: HeldCall = { id: ev.toolCallId as string, type: 'function', function: { name: ev.toolCallName, arguments: '' } };
    (holder.toolCalls as unknown[]).push(call);
    // No message held this call (findCall said so), and the holder is an assistant message.
    const c = this.current(this.calls);
    if (c !== null) {
      c.any.set(call.id, { holder, call });
      c.assistant.set(call.id, { holder, call });
    }
    ConsumerModel.merge(call, ev);
    this.mark(holder, index);
    const tag = typeof ev.subagentRunId === 'string' ? ev.subagentRunId : undefined;
    this.opened.set(id, { run: this.run, event: index, parent: str(ev, 'parentMessageId'), owner: tag ?? (typeof holder.subagentRunId === 'string' ? holder.subagentRunId : '') });
  }

  /**
   * A start for a call the consumer holds: a reopening within the run that opened it must agree with it
   * (events/tool-calls#tool_call_end); one the consumer held from before this run — the input, an earlier
   * run of the stream, a snapshot — is history re-streamed, whose arguments append
   * (events/lifecycle#several-runs-on-one-stream).
   */
  private checkReopen(ev: Ev, { holder, call }: { holder: HeldMessage; call: HeldCall }, index: number): void {
    const sink = this.o.sink;
    if (!sink) return;
    const id = call.id;
    const opened = this.opened.get(id);
    const origin = this.origins.get(holder);
    const sameRun = opened !== undefined && opened.run === this.run && origin?.how === 'stream';
    const parent = opened && origin?.how === 'stream' ? opened.parent : holder.id === id ? undefined : (holder.id as string);
    const owner = opened && origin?.how === 'stream' ? opened.owner : typeof holder.subagentRunId === 'string' ? holder.subagentRunId : '';
    const wrong: string[] = [];
    if (ev.toolCallName !== call.function.name) wrong.push(`toolCallName ${JSON.stringify(ev.toolCallName)}, not ${JSON.stringify(call.function.name)}`);
    const given = str(ev, 'parentMessageId');
    if (given !== parent) wrong.push(given === undefined ? `no parentMessageId, where it was opened under ${JSON.stringify(parent)}` : `parentMessageId ${JSON.stringify(given)}, not ${parent === undefined ? 'none' : JSON.stringify(parent)}`);
    if (typeof ev.subagentRunId === 'string' && ownerOf(ev) !== owner) wrong.push(`subagentRunId ${JSON.stringify(ev.subagentRunId)}, where its owner is ${owner === '' ? 'the parent agent' : JSON.stringify(owner)}`);
    if (wrong.length) {
      sink.report(CONVERSATION_RULES.reopenDisagrees, `TOOL_CALL_START reopens tool call ${JSON.stringify(id)} with ${wrong.join('; ')}`, { event: index, path: '/toolCallId' });
    }
    if (sameRun) return;
    const since =
      origin?.how === 'input' ? "the input's messages"
      : origin?.how === 'snapshot' ? `the MESSAGES_SNAPSHOT at event ${origin.event}`
      : origin?.how === 'echo' ? `RUN_STARTED.input at event ${origin.event}`
      : `event ${opened?.event ?? origin?.event} of an earlier run on this stream`;
    this.restreams.set(id, { id, event: index, since, before: call.function.arguments });
  }

  private reportRestream(r: Restream): void {
    this.restreams.delete(r.id);
    const now = this.findCall(r.id)?.call.function.arguments ?? r.before;
    const args = now === r.before ? `its arguments stay ${preview(now, 80)}` : `its TOOL_CALL_ARGS append to the arguments it held (${preview(r.before, 60)}): the consumer now holds ${preview(now, 80)}`;
    this.o.sink?.report(
      CONVERSATION_RULES.restreamed,
      `TOOL_CALL_START streams tool call ${JSON.stringify(r.id)} again, which the consumer already held from ${r.since}; ${args}. History the consumer holds is restated by MESSAGES_SNAPSHOT, not re-streamed`,
      { event: r.event, path: '/toolCallId' },
    );
  }

  private flushRestreams(): void {
    for (const r of [...this.restreams.values()]) this.reportRestream(r);
  }

  private snapshot(ev: Ev, index: number): void {
    // Copies: the model edits what it holds, and the event stays as received for the views.
    const listed = Array.isArray(ev.messages) ? ev.messages : [];
    const incoming: JsonObject[] = [];
    // Where the event lists each message, for the views (a non-object entry is skipped, yet keeps its place).
    const place = new Map<JsonObject, number>();
    listed.forEach((m, i) => {
      if (!isObject(m)) return;
      const copy = jsonClone(withoutNullOwner(m)) as JsonObject;
      incoming.push(copy);
      place.set(copy, i);
    });
    const byId = new Map(incoming.map((m) => [m.id, m]));
    const hasActivity = incoming.some((m) => m.role === 'activity');
    const hasReasoning = incoming.some((m) => m.role === 'reasoning');
    // 1.0.0 lets the snapshot's metadata name the authoritative activity types; 0.0.59 knows no such thing.
    const authoritative = this.o.legacy?.() ? undefined : authoritativeActivityTypes(ev);
    const exempt = (m: HeldMessage): boolean =>
      (m.role === 'activity' && (authoritative ? !authoritative.includes(m.activityType as string) : authoritative !== null && !hasActivity)) || (m.role === 'reasoning' && !hasReasoning);
    const dropped: HeldMessage[] = [];
    const kept: HeldMessage[] = [];
    for (const m of this.messages) {
      const next = byId.get(m.id);
      if (next !== undefined) {
        // 0.0.59 keeps an exempt message's own copy even when the snapshot lists it; 1.0.0 takes the snapshot's.
        const replacement = this.o.legacy?.() && exempt(m) ? m : next;
        const at = place.get(next);
        if (replacement !== m && !jsonEqual(replacement, m)) {
          this.origins.set(replacement, this.origins.get(m)!);
          this.touched?.set(replacement, index);
          this.note({ change: 'replaced', message: replacement, listed: at, was: m });
        } else {
          if (replacement !== m) {
            this.origins.set(replacement, this.origins.get(m)!);
            const event = this.touched?.get(m);
            if (event !== undefined) this.touched!.set(replacement, event);
          }
          this.note({ change: 'kept', message: replacement, listed: at });
        }
        kept.push(replacement);
      } else if (exempt(m)) kept.push(m);
      else {
        dropped.push(m);
        this.note({ change: 'dropped', message: m });
      }
    }
    const held = new Set(kept.map((m) => m.id));
    const added: HeldMessage[] = [];
    for (const m of incoming) {
      if (held.has(m.id)) continue;
      kept.push(m);
      added.push(m);
      this.origins.set(m, { how: 'snapshot', event: index, run: this.run });
      this.mark(m, index, 'added', place.get(m));
    }
    this.messages = kept;
    this.revision++;
    if (!this.o.sink) return;
    for (const m of dropped) if (this.origins.get(m)?.how === 'stream') this.reportDrop(m, added, incoming, index);
    for (const { tool, answer } of this.outOfOrder()) {
      if (this.misplaced.has(tool.id)) continue;
      this.misplaced.add(tool.id);
      const at = incoming.findIndex((m) => m.id === tool.id);
      this.o.sink.report(
        CONVERSATION_RULES.toolAfterAnswer,
        `After this snapshot the consumer holds tool message ${JSON.stringify(tool.id)} (the result of ${JSON.stringify(tool.toolCallId)}) after ${describeMessage(answer)}, which follows the call: the history, and every later RunAgentInput.messages, gives the answer before the result it answers`,
        { event: index, path: at >= 0 ? `/messages/${at}` : '/messages' },
      );
    }
  }

  private reportDrop(m: HeldMessage, added: HeldMessage[], incoming: JsonObject[], index: number): void {
    const origin = this.origins.get(m)!;
    // What stands in for it: a new message answering the same call, or saying the same thing.
    const same = added.find((a) =>
      m.role === 'tool' ? a.role === 'tool' && a.toolCallId === m.toolCallId
      : callsOf(m).length > 0 ? callsOf(a).some((c) => callsOf(m).some((d) => d.id === c.id))
      : a.role === m.role && this.sameContent(a, m),
    );
    const at = same ? incoming.indexOf(same) : -1;
    const instead = same ? `, listing ${m.role === 'tool' && this.sameContent(same, m) ? 'the same result' : 'its counterpart'} as ${JSON.stringify(same.id)} instead: the consumer drops ${JSON.stringify(m.id)} and appends ${JSON.stringify(same.id)} at the end` : ': the consumer drops it';
    this.o.sink!.report(
      CONVERSATION_RULES.snapshotDropsOwn,
      `MESSAGES_SNAPSHOT leaves out ${describeMessage(m)}, which this stream emitted at event ${origin.event}${instead}`,
      { event: index, path: at >= 0 ? `/messages/${at}` : '/messages' },
    );
  }

  /** Whether `a` holds the content `m` holds, as the text `m` streamed when only its digest is kept. */
  private sameContent(a: HeldMessage, m: HeldMessage): boolean {
    const d = this.digests?.get(m);
    return d === undefined ? jsonEqual(a.content, m.content) : typeof a.content === 'string' && d.matches(a.content);
  }

  /** Tool messages held after an assistant message that follows their call's message. */
  private outOfOrder(): { tool: HeldMessage; answer: HeldMessage }[] {
    const callAt = new Map<unknown, number>();
    const out: { tool: HeldMessage; answer: HeldMessage }[] = [];
    let lastAssistant = -1;
    this.messages.forEach((m, i) => {
      if (m.role === 'assistant') {
        for (const c of callsOf(m)) if (!callAt.has(c.id)) callAt.set(c.id, i);
        lastAssistant = i;
        return;
      }
      if (m.role !== 'tool') return;
      const call = callAt.get(m.toolCallId);
      if (call !== undefined && lastAssistant > call) out.push({ tool: m, answer: this.messages[lastAssistant]! });
    });
    return out;
  }
}
