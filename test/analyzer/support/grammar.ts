import type { Rng } from './prng.ts';

export type Event = { type: string } & Record<string, unknown>;

/** One request/response pair: the input the app POSTed and the events a conforming producer answers with. */
export interface Scenario {
  input: Record<string, unknown>;
  events: Event[];
}

type ItemKind = 'text' | 'tool' | 'reasoning-span' | 'reasoning-message';

interface OpenItem {
  kind: ItemKind;
  id: string;
  owner: string;
}

const OPENERS: Record<ItemKind, { start: string; content?: string; end: string; key: 'messageId' | 'toolCallId' }> = {
  text: { start: 'TEXT_MESSAGE_START', content: 'TEXT_MESSAGE_CONTENT', end: 'TEXT_MESSAGE_END', key: 'messageId' },
  tool: { start: 'TOOL_CALL_START', content: 'TOOL_CALL_ARGS', end: 'TOOL_CALL_END', key: 'toolCallId' },
  'reasoning-span': { start: 'REASONING_START', end: 'REASONING_END', key: 'messageId' },
  'reasoning-message': { start: 'REASONING_MESSAGE_START', content: 'REASONING_MESSAGE_CONTENT', end: 'REASONING_MESSAGE_END', key: 'messageId' },
};

const TOOL_NAMES = ['search', 'get_weather', 'write_file', 'approve'];

/**
 * Builds the body of one run as a conforming producer would: every item opened is closed before
 * RUN_FINISHED, ids are unique, attribution follows the subagent that opened an item, and chunk
 * shorthand is emitted in one unbroken burst so expansion closes it where the producer meant.
 */
class RunBuilder {
  readonly events: Event[] = [];
  private readonly open: OpenItem[] = [];
  private readonly steps: { name: string; owner: string }[] = [];
  private readonly activeSubagents: string[] = [];
  private readonly finishedSubagents: string[] = [];
  /** Closed text messages by owner: tool calls may name one as their parent. */
  private readonly messages: { id: string; owner: string }[] = [];
  private readonly closedTools: { id: string; owner: string }[] = [];
  private readonly activities: { id: string; owner: string }[] = [];

  constructor(
    private readonly rng: Rng,
    private readonly ids: () => number,
    private state: Record<string, unknown>,
    /** Shared by the stream's runs: a later run's snapshot restates what earlier runs minted too. */
    private readonly minted: Map<string, Event>,
  ) {}

  private emit(ev: Event, owner: string): void {
    if (owner !== '') ev.subagentRunId = owner;
    this.events.push(ev);
    this.mint(ev, owner);
  }

  /**
   * The messages this stream minted, as a conforming MESSAGES_SNAPSHOT restates them ("the complete set of
   * messages the producer owns", events/state#messages_snapshot): each under the id the consumer holds it
   * by, a tool call under the assistant message the reference files it in.
   */
  private mint(ev: Event, owner: string): void {
    const tag = owner === '' ? {} : { subagentRunId: owner };
    const id = (k: string) => (typeof ev[k] === 'string' ? (ev[k] as string) : undefined);
    if ((ev.type === 'TEXT_MESSAGE_START' || ev.type === 'TEXT_MESSAGE_CHUNK') && id('messageId') && !this.minted.has(id('messageId')!)) {
      this.minted.set(id('messageId')!, { id: id('messageId')!, role: ev.role ?? 'assistant', content: '', ...tag } as unknown as Event);
    }
    if ((ev.type === 'TOOL_CALL_START' || ev.type === 'TOOL_CALL_CHUNK') && id('toolCallId') && typeof ev.toolCallName === 'string') {
      const parent = id('parentMessageId');
      const holderId = parent !== undefined && this.minted.get(parent)?.role === 'assistant' ? parent : id('toolCallId')!;
      const holder = this.minted.get(holderId) ?? { id: holderId, role: 'assistant', ...tag } as unknown as Event;
      this.minted.set(holderId, holder);
      holder.toolCalls = [...((holder.toolCalls as unknown[]) ?? []), { id: id('toolCallId'), type: 'function', function: { name: ev.toolCallName, arguments: '' } }];
    }
    if (ev.type === 'TOOL_CALL_RESULT') this.minted.set(id('messageId')!, { id: id('messageId'), role: 'tool', toolCallId: ev.toolCallId, content: ev.content, ...tag } as unknown as Event);
  }

  private owner(): string {
    return this.activeSubagents.length > 0 && this.rng.chance(0.4) ? this.rng.pick(this.activeSubagents) : '';
  }

  body(actions: number): void {
    for (let i = 0; i < actions; i++) this.action();
  }

  private action(): void {
    const { rng } = this;
    const roll = rng.int(0, 21);
    if (roll <= 2 && this.open.length < 4) return this.openItem(rng.pick<ItemKind>(['text', 'text', 'tool', 'reasoning-span', 'reasoning-message']));
    if (roll <= 6 && this.open.length > 0) return this.continueItem(rng.pick(this.open));
    if (roll <= 8 && this.open.length > 0) return this.closeItem(rng.pick(this.open));
    switch (roll) {
      case 9:
        return this.chunkBurst(rng.pick(['text', 'tool', 'reasoning'] as const));
      case 10:
        return this.stepAction();
      case 11:
        return this.stateAction();
      case 12:
        return this.subagentAction();
      case 13:
        return this.toolResult();
      case 14:
        return this.activity();
      case 15:
        return this.passthrough();
      case 16:
        return this.encrypted();
      case 17:
        if (rng.chance(0.3)) return this.messagesSnapshot();
        return this.chunkBurst('text');
      default:
        return this.openItem(rng.pick<ItemKind>(['text', 'tool']));
    }
  }

  private openItem(kind: ItemKind): void {
    const owner = this.owner();
    const op = OPENERS[kind];
    const id = `${kind === 'tool' ? 'call' : kind === 'text' ? 'msg' : 'rsn'}-${this.ids()}`;
    const ev: Event = { type: op.start, [op.key]: id };
    if (kind === 'text' && this.rng.chance(0.5)) ev.role = this.rng.pick(['assistant', 'assistant', 'developer', 'system', 'user']);
    if (kind === 'tool') {
      ev.toolCallName = this.rng.pick(TOOL_NAMES);
      const parents = this.messages.filter((m) => m.owner === owner);
      if (parents.length > 0 && this.rng.chance(0.6)) ev.parentMessageId = this.rng.pick(parents).id;
    }
    if (kind === 'reasoning-message') ev.role = 'reasoning';
    this.emit(ev, owner);
    this.open.push({ kind, id, owner });
  }

  private continueItem(item: OpenItem): void {
    const op = OPENERS[item.kind];
    if (!op.content) return this.closeItem(item);
    const delta = item.kind === 'tool' ? JSON.stringify({ q: this.rng.text(0, 12) }).slice(0, this.rng.int(1, 16)) : this.rng.text(1, 40);
    this.emit({ type: op.content, [op.key]: item.id, delta }, item.owner);
  }

  private closeItem(item: OpenItem): void {
    const op = OPENERS[item.kind];
    this.emit({ type: op.end, [op.key]: item.id }, item.owner);
    this.open.splice(this.open.indexOf(item), 1);
    if (item.kind === 'text') this.messages.push({ id: item.id, owner: item.owner });
    if (item.kind === 'tool') this.closedTools.push({ id: item.id, owner: item.owner });
  }

  /** Chunk shorthand: the first chunk names the item, continuations may omit it. */
  private chunkBurst(kind: 'text' | 'tool' | 'reasoning'): void {
    const owner = this.owner();
    const n = this.rng.int(1, 4);
    const type = kind === 'text' ? 'TEXT_MESSAGE_CHUNK' : kind === 'tool' ? 'TOOL_CALL_CHUNK' : 'REASONING_MESSAGE_CHUNK';
    const key = kind === 'tool' ? 'toolCallId' : 'messageId';
    const id = `${kind === 'tool' ? 'call' : kind === 'text' ? 'msg' : 'rsn'}-${this.ids()}`;
    for (let i = 0; i < n; i++) {
      const ev: Event = { type };
      if (i === 0 || this.rng.chance(0.3)) ev[key] = id;
      if (i === 0 && kind === 'tool') ev.toolCallName = this.rng.pick(TOOL_NAMES);
      if (i === 0 && kind === 'text' && this.rng.chance(0.3)) ev.role = 'assistant';
      if (i > 0 || this.rng.chance(0.7)) ev.delta = kind === 'tool' ? `{"k":${i}}`.slice(0, this.rng.int(1, 7)) : this.rng.text(1, 30);
      this.emit(ev, owner);
    }
    if (kind === 'text') this.messages.push({ id, owner });
    if (kind === 'tool') this.closedTools.push({ id, owner });
  }

  private stepAction(): void {
    if (this.steps.length > 0 && this.rng.chance(0.5)) return this.finishStep(this.rng.pick(this.steps));
    const owner = this.owner();
    const name = `step-${this.ids()}`;
    this.steps.push({ name, owner });
    this.emit({ type: 'STEP_STARTED', stepName: name }, owner);
  }

  private stateAction(): void {
    if (this.rng.chance(0.25)) {
      this.state = { counter: this.rng.int(0, 9), items: ['a'] };
      return this.emit({ type: 'STATE_SNAPSHOT', snapshot: structuredClone(this.state) }, this.owner());
    }
    const keys = Object.keys(this.state);
    const ops: Record<string, unknown>[] = [];
    if (keys.length > 0 && this.rng.chance(0.5)) {
      const key = this.rng.pick(keys);
      ops.push({ op: 'replace', path: `/${key}`, value: this.rng.int(0, 99) });
      this.state[key] = ops[0]!.value;
    } else {
      const key = `k${this.ids()}`;
      ops.push({ op: 'add', path: `/${key}`, value: this.rng.text(1, 10) });
      this.state[key] = ops[0]!.value;
    }
    this.emit({ type: 'STATE_DELTA', delta: ops }, this.owner());
  }

  private subagentAction(): void {
    const idle = this.activeSubagents.filter((s) => !this.open.some((o) => o.owner === s) && !this.steps.some((st) => st.owner === s));
    if (idle.length > 0 && this.rng.chance(0.5)) return this.finishSubagent(this.rng.pick(idle));
    const id = `sub-${this.ids()}`;
    const ev: Event = { type: 'SUBAGENT_STARTED', subagentRunId: id, name: this.rng.pick(['researcher', 'coder', 'critic']) };
    if (this.activeSubagents.length > 0 && this.rng.chance(0.4)) ev.parentSubagentRunId = this.rng.pick(this.activeSubagents);
    if (this.rng.chance(0.3)) ev.description = 'delegated work';
    this.events.push(ev);
    this.activeSubagents.push(id);
  }

  private finishSubagent(id: string): void {
    this.activeSubagents.splice(this.activeSubagents.indexOf(id), 1);
    this.finishedSubagents.push(id);
    if (this.rng.chance(0.2)) {
      this.events.push({ type: 'SUBAGENT_ERROR', subagentRunId: id, message: 'subagent failed' });
      return;
    }
    const ev: Event = { type: 'SUBAGENT_FINISHED', subagentRunId: id };
    if (this.rng.chance(0.4)) ev.outcome = this.rng.chance(0.5) ? { type: 'success' } : { type: 'suspended', interruptIds: [] };
    if (this.rng.chance(0.3)) ev.result = { ok: true };
    this.events.push(ev);
  }

  private toolResult(): void {
    if (this.closedTools.length === 0) return this.openItem('tool');
    const call = this.rng.pick(this.closedTools);
    const ev: Event = { type: 'TOOL_CALL_RESULT', messageId: `res-${this.ids()}`, toolCallId: call.id, content: this.rng.text(0, 30) };
    if (this.rng.chance(0.5)) ev.role = 'tool';
    this.emit(ev, call.owner);
  }

  private activity(): void {
    if (this.activities.length > 0 && this.rng.chance(0.5)) {
      const a = this.rng.pick(this.activities);
      return this.emit({ type: 'ACTIVITY_DELTA', messageId: a.id, activityType: 'progress', patch: [{ op: 'replace', path: '/pct', value: this.rng.int(0, 100) }] }, a.owner);
    }
    const owner = this.owner();
    const id = `act-${this.ids()}`;
    this.activities.push({ id, owner });
    this.emit({ type: 'ACTIVITY_SNAPSHOT', messageId: id, activityType: 'progress', content: { pct: 0 } }, owner);
  }

  private passthrough(): void {
    if (this.rng.chance(0.5)) return this.emit({ type: 'CUSTOM', name: 'vendor.note', value: { n: this.rng.int(0, 9) } }, this.owner());
    this.emit({ type: 'RAW', event: { upstream: 'provider', n: this.rng.int(0, 9) }, source: 'openai' }, this.owner());
  }

  private encrypted(): void {
    const targets = [...this.messages.map((m) => ({ ...m, subtype: 'message' })), ...this.closedTools.map((t) => ({ ...t, subtype: 'tool-call' }))];
    if (targets.length === 0) return this.openItem('reasoning-span');
    const target = this.rng.pick(targets);
    const subtype = target.subtype;
    this.emit({ type: 'REASONING_ENCRYPTED_VALUE', subtype, entityId: target.id, encryptedValue: 'b64:' + this.rng.text(4, 12) }, target.owner);
  }

  private messagesSnapshot(): void {
    this.events.push({
      type: 'MESSAGES_SNAPSHOT',
      messages: [
        ...[...this.minted.values()].map((m) => structuredClone(m)),
        { id: `u-${this.ids()}`, role: 'user', content: 'hello' },
        { id: `a-${this.ids()}`, role: 'assistant', content: this.rng.text(0, 20) },
      ],
    });
  }

  /** Closes everything in a shuffled order, subagents last (after their lanes are empty). */
  closeAll(): void {
    while (this.open.length > 0) this.closeItem(this.rng.pick(this.open));
    while (this.steps.length > 0) this.finishStep(this.rng.pick(this.steps));
    while (this.activeSubagents.length > 0) this.finishSubagent(this.activeSubagents.at(-1)!);
  }

  private finishStep(step: { name: string; owner: string }): void {
    this.steps.splice(this.steps.indexOf(step), 1);
    this.emit({ type: 'STEP_FINISHED', stepName: step.name }, step.owner);
  }

  get currentState(): Record<string, unknown> {
    return this.state;
  }
}

/**
 * A valid exchange: one to three runs on one thread, the last being the requested one, each ending
 * with RUN_FINISHED (any outcome) or RUN_ERROR; sometimes a pre-run RUN_ERROR or a late RUN_ERROR.
 * `actions` scales the body; the benchmark uses large values to build long runs.
 */
export function generateScenario(rng: Rng, seq: number, actions?: () => number): Scenario {
  let next = 0;
  const ids = (): number => ++next;
  const threadId = `thread-${seq}`;
  const runId = `run-${seq}`;
  const startState: Record<string, unknown> = { counter: 0 };
  const input: Record<string, unknown> = {
    threadId,
    runId,
    protocolVersion: '1.0',
    messages: [{ id: `m-${seq}`, role: 'user', content: 'Plan my trip' }],
    tools: [],
    context: [],
    state: startState,
    forwardedProps: { tenant: 'acme' },
  };
  const events: Event[] = [];
  if (rng.chance(0.04)) events.push({ type: 'RUN_ERROR', message: 'upstream refused before the run began', code: 'refused' });
  const runs = rng.chance(0.7) ? 1 : rng.int(2, 3);
  let state = structuredClone(startState);
  const minted = new Map<string, Event>();
  for (let r = 0; r < runs; r++) {
    const last = r === runs - 1;
    const id = last ? runId : `replay-${seq}-${r}`;
    const started: Event = { type: 'RUN_STARTED', threadId, runId: id };
    if (rng.chance(0.85)) started.protocolVersion = '1.0';
    if (last && rng.chance(0.2)) started.input = structuredClone(input);
    if (rng.chance(0.1)) started.parentRunId = `parent-${seq}`;
    events.push(started);
    const b = new RunBuilder(rng, ids, state, minted);
    b.body(actions ? actions() : rng.int(0, 28));
    if (rng.chance(0.1)) {
      events.push(...b.events, { type: 'RUN_ERROR', message: 'model overloaded', ...(rng.chance(0.5) ? { code: 'overloaded' } : {}) });
    } else {
      b.closeAll();
      events.push(...b.events, finished(rng, threadId, id, ids));
      if (rng.chance(0.05)) events.push({ type: 'RUN_ERROR', message: 'late failure after the run finished' });
    }
    state = b.currentState;
  }
  return { input, events };
}

function finished(rng: Rng, threadId: string, runId: string, ids: () => number): Event {
  const ev: Event = { type: 'RUN_FINISHED', threadId, runId };
  switch (rng.int(0, 4)) {
    case 1:
      ev.outcome = { type: 'success' };
      break;
    case 2:
      ev.outcome = { type: 'interrupt', interrupts: [{ id: `int-${ids()}`, reason: 'approval', message: 'Approve the booking?' }] };
      break;
    case 3:
      ev.outcome = { type: 'cancelled' };
      break;
    case 4:
      ev.outcome = { type: 'success', pendingToolCallIds: [] };
      break;
  }
  if (rng.chance(0.3)) ev.result = { answer: rng.text(0, 20) };
  return ev;
}
