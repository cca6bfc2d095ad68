import { defineRules } from '../rules/index.ts';
import { describeOwner, ownerOf, str, type Ev } from './event.ts';
import type { FindingSink } from './sink.ts';

const SPEC = 'basic/patterns/streaming';

export const CHUNK_RULES = defineRules({
  firstChunkMissingField: {
    id: 'streaming/first-chunk-missing-field',
    category: 'streaming',
    severity: 'error',
    fatal: true,
    spec: `${SPEC}#the-first-chunk`,
    title: 'The first chunk of an item must carry what opening it requires',
  },
  conflictingRepeat: {
    id: 'streaming/chunk-conflicting-repeat',
    category: 'streaming',
    severity: 'error',
    fatal: true,
    spec: `${SPEC}#continuation-chunks`,
    title: 'A continuation chunk may repeat an opener field only with the same value',
  },
  ambiguousContinuation: {
    id: 'streaming/chunk-ambiguous-continuation',
    category: 'streaming',
    severity: 'error',
    fatal: true,
    spec: `${SPEC}#closing-a-chunk-stream`,
    title: 'An unattributed continuation must have a unique open stream to continue',
  },
});

type Kind = 'text' | 'tool' | 'reasoning';

interface Family {
  chunk: string;
  id: 'messageId' | 'toolCallId';
  start: string;
  content: string;
  end: string;
  /** Opener fields a continuation may repeat only unchanged, with the value an absent field implies. */
  repeatable: Record<string, string | undefined>;
  /** Fields the first chunk must carry. */
  required: string[];
}

const FAMILIES: Record<Kind, Family> = {
  text: {
    chunk: 'TEXT_MESSAGE_CHUNK',
    id: 'messageId',
    start: 'TEXT_MESSAGE_START',
    content: 'TEXT_MESSAGE_CONTENT',
    end: 'TEXT_MESSAGE_END',
    repeatable: { role: 'assistant', name: undefined },
    required: ['messageId'],
  },
  tool: {
    chunk: 'TOOL_CALL_CHUNK',
    id: 'toolCallId',
    start: 'TOOL_CALL_START',
    content: 'TOOL_CALL_ARGS',
    end: 'TOOL_CALL_END',
    repeatable: { toolCallName: undefined, parentMessageId: undefined },
    required: ['toolCallId', 'toolCallName'],
  },
  reasoning: {
    chunk: 'REASONING_MESSAGE_CHUNK',
    id: 'messageId',
    start: 'REASONING_MESSAGE_START',
    content: 'REASONING_MESSAGE_CONTENT',
    end: 'REASONING_MESSAGE_END',
    repeatable: {},
    required: ['messageId'],
  },
};
const KIND_OF_CHUNK = new Map<string, Kind>(Object.entries(FAMILIES).map(([k, f]) => [f.chunk, k as Kind]));

/** Events that stand aside from assembly and close nothing (streaming#closing-a-chunk-stream). */
const BYSTANDERS = new Set(['RAW', 'ACTIVITY_SNAPSHOT', 'ACTIVITY_DELTA', 'REASONING_ENCRYPTED_VALUE', 'SUBAGENT_STARTED']);
/** Run-level events close every lane. */
const RUN_LEVEL = new Set(['RUN_STARTED', 'RUN_FINISHED', 'RUN_ERROR', 'MESSAGES_SNAPSHOT']);
const SUBAGENT_TERMINAL = new Set(['SUBAGENT_FINISHED', 'SUBAGENT_ERROR']);

interface OpenChunk {
  kind: Kind;
  id: string;
  owner: string;
  /** Opener field values as established (explicitly or by omission). */
  fields: Record<string, unknown>;
}

/** The first few owners of `streams`: a message lists them, and must not cost the number open. */
function ownersOf(streams: Set<OpenChunk>): string {
  const shown: string[] = [];
  for (const c of streams) {
    if (shown.length === 5) return `${shown.join(', ')} and ${streams.size - 5} more`;
    shown.push(describeOwner(c.owner));
  }
  return shown.join(', ');
}

/**
 * Expands TEXT_MESSAGE_CHUNK, TOOL_CALL_CHUNK and REASONING_MESSAGE_CHUNK into the triad they stand for,
 * synthesizing the `*_END` when the chunk stream can no longer continue, so that verification sees only
 * the start/content/end form. A malformed chunk is reported and dropped, never repaired.
 */
export class ChunkExpander {
  /** owner lane → kind → the chunk stream open there */
  private readonly lanes = new Map<string, Map<Kind, OpenChunk>>();
  /** The same streams by kind and by id, so that with many lanes open an event finds its own without a scan. */
  private readonly byKind = new Map<Kind, Set<OpenChunk>>(Object.keys(FAMILIES).map((k) => [k as Kind, new Set()]));
  private readonly byId = new Map<string, Set<OpenChunk>>();

  constructor(private readonly sink: FindingSink) {}

  /** Passes `ev`, or what it expands to with any synthesized ends before it, to `emit` in order. */
  expand(ev: Ev, index: number, emit: (e: Ev) => void): void {
    const kind = KIND_OF_CHUNK.get(ev.type);
    // Most events meet no open chunk stream: nothing to close, nothing to allocate.
    if (!kind && this.lanes.size === 0) return emit(ev);
    const out: Ev[] = [];
    if (kind) this.chunk(kind, ev, index, out);
    else this.around(ev, out);
    for (const e of out) emit(e);
  }

  private around(ev: Ev, out: Ev[]): void {
    if (RUN_LEVEL.has(ev.type)) {
      for (const owner of [...this.lanes.keys()]) this.closeLane(owner, out);
    } else if (SUBAGENT_TERMINAL.has(ev.type)) {
      this.closeLane(ownerOf(ev), out);
    } else if (!BYSTANDERS.has(ev.type)) {
      this.closeLane(ownerOf(ev), out);
      // An explicit event naming an id a chunk stream in another lane is assembling ends that shorthand too.
      const id = str(ev, 'messageId') ?? str(ev, 'toolCallId');
      const named = id === undefined ? undefined : this.byId.get(id);
      if (named) for (const open of [...named]) this.close(open, out);
    }
    out.push(ev);
  }

  private chunk(kind: Kind, ev: Ev, index: number, out: Ev[]): void {
    const fam = FAMILIES[kind];
    const id = str(ev, fam.id);
    const tagged = typeof ev.subagentRunId === 'string';
    let owner = ownerOf(ev);
    if (!tagged) {
      const candidates = this.byKind.get(kind)!;
      if (id !== undefined) {
        const same = [...(this.byId.get(id) ?? [])].find((c) => c.kind === kind);
        if (same) owner = same.owner;
      } else {
        if (this.lanes.get('')?.has(kind)) owner = '';
        else if (candidates.size === 1) owner = candidates.values().next().value!.owner;
        else if (candidates.size > 1) {
          this.sink.report(
            CHUNK_RULES.ambiguousContinuation,
            `${fam.chunk} without ${fam.id} or subagentRunId could continue ${candidates.size} open streams (${ownersOf(candidates)}); a producer running parallel subagents must attribute its continuations`,
            { event: index },
          );
          return;
        }
      }
    }
    // A chunk is a message/tool/reasoning event in its lane: it ends chunk streams of the other kinds there.
    const lane = this.lanes.get(owner);
    if (lane) for (const [k, open] of lane) if (k !== kind) this.close(open, out);
    let open = lane?.get(kind);
    if (open && id !== undefined && id !== open.id) {
      this.close(open, out);
      open = undefined;
    }
    if (open) {
      for (const [field, implied] of Object.entries(fam.repeatable)) {
        if (ev[field] === undefined) continue;
        const established = open.fields[field] ?? implied;
        if (ev[field] !== established) {
          this.sink.report(
            CHUNK_RULES.conflictingRepeat,
            `${fam.chunk} ${field} ${JSON.stringify(ev[field])} does not match the open stream's ${field} ${JSON.stringify(established ?? null)} for ${fam.id} ${JSON.stringify(open.id)}`,
            { event: index, path: `/${field}` },
          );
          return;
        }
      }
    } else {
      const missing = fam.required.filter((f) => typeof ev[f] !== 'string');
      if (missing.length) {
        this.sink.report(
          CHUNK_RULES.firstChunkMissingField,
          `First ${fam.chunk} must have a ${missing.join(' and a ')}: nothing is open in ${describeOwner(owner)}'s lane for it to continue, and a consumer must not invent an identifier`,
          { event: index, path: `/${missing[0]}` },
        );
        return;
      }
      const fields: Record<string, unknown> = {};
      for (const f of Object.keys(fam.repeatable)) if (ev[f] !== undefined) fields[f] = ev[f];
      open = { kind, id: id!, owner, fields };
      let laneMap = this.lanes.get(owner);
      if (!laneMap) this.lanes.set(owner, (laneMap = new Map()));
      laneMap.set(kind, open);
      this.byKind.get(kind)!.add(open);
      let named = this.byId.get(open.id);
      if (!named) this.byId.set(open.id, (named = new Set()));
      named.add(open);
      const start: Ev = { type: fam.start, [fam.id]: open.id, ...fields };
      if (kind === 'reasoning') start.role = 'reasoning';
      this.carry(ev, start, true);
      out.push(start);
    }
    if (typeof ev.delta === 'string' && ev.delta !== '') {
      const content: Ev = { type: fam.content, [fam.id]: open.id, delta: ev.delta };
      this.carry(ev, content, false);
      out.push(content);
    }
  }

  /** Expansion carries attribution, metadata and rawEvent onto what it synthesizes (processing#where-middleware-sits). */
  private carry(from: Ev, to: Ev, opener: boolean): void {
    if (typeof from.subagentRunId === 'string') to.subagentRunId = from.subagentRunId;
    if (from.metadata !== undefined) to.metadata = from.metadata;
    if (opener && from.rawEvent !== undefined) to.rawEvent = from.rawEvent;
  }

  private closeLane(owner: string, out: Ev[]): void {
    const lane = this.lanes.get(owner);
    if (lane) for (const open of [...lane.values()]) this.close(open, out);
  }

  private close(open: OpenChunk, out: Ev[]): void {
    const fam = FAMILIES[open.kind];
    const end: Ev = { type: fam.end, [fam.id]: open.id };
    if (open.owner !== '') end.subagentRunId = open.owner;
    out.push(end);
    const lane = this.lanes.get(open.owner)!;
    lane.delete(open.kind);
    if (lane.size === 0) this.lanes.delete(open.owner);
    this.byKind.get(open.kind)!.delete(open);
    const named = this.byId.get(open.id)!;
    named.delete(open);
    if (named.size === 0) this.byId.delete(open.id);
  }
}
