/**
 * The tool calls of one exchange as the Tools view lists them: each call its stream started, with who
 * executes it, the arguments as the consumer model assembled them from TOOL_CALL_ARGS (analyzer/consumer.ts,
 * the one truth for what a consumer holds), parsed and, for a frontend tool, checked against the
 * `parameters` schema the input declared (basic/run-input#tools), its result, its duration from the
 * timing's tool spans, and whether it waits on the application (events/tool-calls#frontend-tools).
 *
 * A mismatch against the schema is information, not a finding: the protocol carries the arguments as text
 * and does not validate them (events/tool-calls#tool_call_args); validating them against the declared
 * schema is the application's duty before it executes the call (events/tool-calls#security-considerations).
 */
import { isObject, type JsonObject } from '../json.ts';
import type { Ev, ExchangeReport, RunReport } from '../analyzer/index.ts';
import type { ProtocolVersion } from '../rules/index.ts';
import type { ConvMessage } from './conversation.ts';
import { CheckedSchema, type SchemaError } from './json-schema.ts';
import type { ToolSpan } from './timing.ts';
import { declaredTools, toolSide, type ToolSide } from './tool-side.ts';

export type ArgsStatus = 'valid' | 'invalid' | 'unparsed' | 'unchecked';

export interface ArgsCheck {
  status: ArgsStatus;
  /** Each mismatch against the declared schema, its path a JSON Pointer into the parsed arguments. */
  errors: SchemaError[];
  /** Why the arguments were not checked, or did not parse. */
  reason: string | null;
  /** The sections the check rests on, absolute (`/spec/1.0/...`). */
  spec: string[];
}

/** What a later request of the thread did with a call this exchange left without a result. */
export interface LaterRequest {
  runId: string | null;
  /** Its messages carry a tool message for the call. */
  answered: boolean;
}

export interface ToolCallRow {
  id: string;
  name: string;
  side: ToolSide;
  /** The frames of its first TOOL_CALL_START, its TOOL_CALL_END, its TOOL_CALL_RESULT. */
  startEvent: number;
  endEvent: number | null;
  resultEvent: number | null;
  runId: string | null;
  subagent?: string;
  /** The argument text as the consumer holds it. */
  arguments: string;
  /** The arguments parsed, when they parse. */
  parsed?: unknown;
  args: ArgsCheck;
  /** `present`: the consumer holds a result, or a later request answered it; `pending`: it waits on the application; `absent`: no result will come (its run failed, or the thread went on without one). */
  result: 'present' | 'pending' | 'absent';
  /** The tool message holding its result, as the consumer holds it. */
  resultMessage: ConvMessage | null;
  /** Whether the run's RUN_FINISHED listed it in `pendingToolCallIds`; null when it sent no list. */
  listedPending: boolean | null;
  /** From its start to its result, or to its TOOL_CALL_END without one; null when no arrival times were recorded. */
  durationMs: number | null;
  /** From its start to its TOOL_CALL_END. */
  argsMs: number | null;
  later: LaterRequest | null;
}

/**
 * A closed call of a tool the input declares whose arguments the application cannot take: text that is
 * not JSON, or a value the tool's `parameters` schema rejects. What the session overview lists.
 */
export interface RejectedCall {
  id: string;
  name: string;
  startEvent: number;
  status: 'invalid' | 'unparsed';
  /** The schema's mismatches (`invalid`). */
  errors: SchemaError[];
}

/** A call's closed arguments as checked: the text, what it parsed to (absent when it did not parse), and the check. */
interface Verdict {
  text: string;
  /** The version its spec sections are of. */
  v: ProtocolVersion;
  args: ArgsCheck;
  parsed?: unknown;
}

/** Where each call started, as the stream went; everything else is read from what the analysis holds. */
interface Started {
  id: string;
  startEvent: number;
  endEvent: number | null;
  resultEvent: number | null;
  subagent?: string;
  later: LaterRequest | null;
}

/**
 * The calls a thread's exchanges left without a result, by thread: the next request on the thread answers
 * each (a tool message for it) or goes on without. One per session, like the ThreadTracker beside it.
 */
export class ToolThread {
  private readonly open = new Map<string, { owner: object; calls: Started[] }[]>();

  /** A request on its thread was sent: what it does with each call left open there; returns the owners of those calls. */
  sent(input: JsonObject | null): object[] {
    const thread = typeof input?.threadId === 'string' ? input.threadId : null;
    const left = thread === null ? undefined : this.open.get(thread);
    if (!left) return [];
    this.open.delete(thread!);
    const answers = new Set(Array.isArray(input!.messages) ? input!.messages.filter((m) => isObject(m) && m.role === 'tool').map((m) => (m as JsonObject).toolCallId) : []);
    const runId = typeof input!.runId === 'string' ? input!.runId : null;
    for (const { calls } of left) for (const c of calls) c.later = { runId, answered: answers.has(c.id) };
    return left.map((l) => l.owner);
  }

  /** `owner`'s exchange ended on `threadId` leaving `calls` without a result. */
  left(threadId: string | null, owner: object, calls: Started[]): void {
    if (threadId === null || calls.length === 0) return;
    this.open.set(threadId, [...(this.open.get(threadId) ?? []), { owner, calls }]);
  }
}

/** Each tool call the conversation holds, by id: the first of an id. */
function heldCalls(conversation: ConvMessage[]): Map<string, { name: string; arguments: string }> {
  const held = new Map<string, { name: string; arguments: string }>();
  for (const m of conversation) for (const c of m.toolCalls) if (!held.has(c.id)) held.set(c.id, c);
  return held;
}

const spec = (v: ProtocolVersion, ...sections: string[]): string[] => sections.map((s) => `/spec/${v}/${s}`);

/** The tool calls of one exchange as its analysis goes: fed each event after chunk expansion. */
export class ToolCallsReading {
  private readonly calls: Started[] = [];
  private readonly byId = new Map<string, Started>();
  private declared = new Map<string, JsonObject>();
  private threadId: string | null = null;
  private readonly schemas = new Map<string, CheckedSchema>();
  /**
   * Each call's arguments as last checked, with the verdict: the rows are asked for again and again, and a
   * check may cost up to the schema checker's budget, so it is made once per argument text.
   */
  private readonly verdicts = new Map<string, Verdict>();

  /** The owners (`owner` of their readings) of the earlier calls this exchange's request answered or went on without. */
  revisits: readonly object[] = [];

  /** `owner` names this exchange to the thread: a later request's answer is reported against it. */
  constructor(private readonly owner: object, private readonly thread?: ToolThread) {}

  readonly hooks = {
    onInput: (input: JsonObject | null): void => {
      this.declared = declaredTools(input);
      this.threadId = typeof input?.threadId === 'string' ? input.threadId : null;
      this.revisits = this.thread?.sent(input) ?? [];
    },
    onEmit: (ev: Ev, index: number): void => {
      const type = ev.type;
      if (type !== 'TOOL_CALL_START' && type !== 'TOOL_CALL_END' && type !== 'TOOL_CALL_RESULT') return;
      const id = typeof ev.toolCallId === 'string' ? ev.toolCallId : null;
      if (id === null) return;
      const c = this.byId.get(id);
      if (type === 'TOOL_CALL_START') {
        if (c) return;
        const s: Started = { id, startEvent: index, endEvent: null, resultEvent: null, later: null };
        if (typeof ev.subagentRunId === 'string') s.subagent = ev.subagentRunId;
        this.calls.push(s);
        this.byId.set(id, s);
      } else if (c && type === 'TOOL_CALL_END') c.endEvent ??= index;
      else if (c) c.resultEvent ??= index;
    },
  };

  /** Whether the input declares any tool: without one, no call can be `rejected`. */
  get declaresAny(): boolean {
    return this.declared.size > 0;
  }

  /** Whether `name` is a tool the input declares: a call of it is a frontend call. */
  declares(name: string | undefined): boolean {
    return name !== undefined && this.declared.has(name);
  }

  /** The exchange ended: the calls it left without a result wait for the thread's next request. */
  end(): void {
    this.thread?.left(this.threadId, this.owner, this.calls.filter((c) => c.resultEvent === null));
  }

  /** The rows, from the conversation the consumer holds, the exchange's runs and (when recorded) its tool spans. */
  rows(conversation: ConvMessage[], runs: { run: RunReport; finished: JsonObject | null }[], report: ExchangeReport, spans: readonly ToolSpan[] | null): ToolCallRow[] {
    const held = heldCalls(conversation);
    const results = new Map<string, ConvMessage>();
    for (const m of conversation) if (m.role === 'tool' && m.toolCallId !== undefined && !results.has(m.toolCallId)) results.set(m.toolCallId, m);
    const spanOf = new Map<string, ToolSpan>();
    for (const s of spans ?? []) if (!spanOf.has(s.id)) spanOf.set(s.id, s);
    const v = report.consumerVersion;
    return this.calls.map((c) => {
      const call = held.get(c.id);
      const name = call?.name ?? '';
      const run = runs.find((r) => r.run.startedAt !== null && r.run.startedAt <= c.startEvent && (r.run.finishedAt === null || r.run.finishedAt >= c.startEvent)) ?? null;
      const side = toolSide(this.declares(name), c.resultEvent !== null);
      const text = call?.arguments ?? '';
      const resultMessage = results.get(c.id) ?? null;
      const outcome = run?.finished?.outcome;
      const listed = isObject(outcome) && Array.isArray(outcome.pendingToolCallIds) ? outcome.pendingToolCallIds : null;
      const span = spanOf.get(c.id);
      const failed = run !== null && ['error', 'cancelled', 'truncated'].includes(run.run.outcome);
      const row: ToolCallRow = {
        id: c.id, name, side, startEvent: c.startEvent, endEvent: c.endEvent, resultEvent: c.resultEvent, runId: run?.run.runId ?? null,
        arguments: text, args: { status: 'unchecked', errors: [], reason: null, spec: [] },
        result: resultMessage || c.later?.answered ? 'present' : failed || c.later ? 'absent' : 'pending',
        resultMessage, listedPending: listed === null ? null : listed.includes(c.id),
        durationMs: span && span.endMs !== null ? span.endMs - span.startMs : null,
        argsMs: span && span.argsEndMs !== null ? span.argsEndMs - span.startMs : null,
        later: c.later ? { ...c.later } : null,
      };
      if (c.subagent !== undefined) row.subagent = c.subagent;
      if (c.endEvent === null) {
        row.args.reason = 'TOOL_CALL_END has not come: the text is a prefix of the arguments, which a consumer must not act on yet';
        row.args.spec = spec(v, 'events/tool-calls#tool_call_args');
      } else {
        const verdict = this.verdict(c.id, name, text, v);
        row.args = { ...verdict.args, errors: verdict.args.errors.slice(), spec: verdict.args.spec.slice() };
        if ('parsed' in verdict) row.parsed = verdict.parsed;
      }
      return row;
    });
  }

  /**
   * Checks, one call per step, the arguments of the closed calls not checked yet, so that a worker can
   * spread them over slices (background/session.ts) before it asks for the rows; with `declaredOnly`, only
   * the calls `rejected` reads, and without a tool declared the conversation is not even read.
   */
  *settle(conversation: () => ConvMessage[], v: ProtocolVersion, declaredOnly = false): Generator<void, void> {
    if (declaredOnly && !this.declaresAny) return;
    const held = heldCalls(conversation());
    for (const c of this.calls) {
      const call = held.get(c.id);
      if (declaredOnly && !this.declared.has(call?.name ?? '')) continue;
      if (c.endEvent === null || this.known(c.id, call?.arguments ?? '', v)) continue;
      this.verdict(c.id, call?.name ?? '', call?.arguments ?? '', v);
      yield;
    }
  }

  /** The closed calls of declared tools whose arguments are no JSON or fail the tool's schema, checking those not checked yet. */
  rejected(conversation: () => ConvMessage[], v: ProtocolVersion): RejectedCall[] {
    // Only an application's own tools are its to execute: without one declared, the conversation is not even read.
    if (this.calls.length === 0 || !this.declaresAny) return [];
    const held = heldCalls(conversation());
    const out: RejectedCall[] = [];
    for (const c of this.calls) {
      const call = held.get(c.id);
      if (c.endEvent === null || !call || !this.declared.has(call.name)) continue;
      const { args } = this.verdict(c.id, call.name, call.arguments, v);
      // No argument text at all is how agents commonly call a tool that takes none: not listed as a defect.
      if (args.status === 'invalid' || (args.status === 'unparsed' && call.arguments !== '')) out.push({ id: c.id, name: call.name, startEvent: c.startEvent, status: args.status, errors: args.errors.slice() });
    }
    return out;
  }

  private known(id: string, text: string, v: ProtocolVersion): Verdict | undefined {
    const known = this.verdicts.get(id);
    return known?.text === text && known.v === v ? known : undefined;
  }

  private verdict(id: string, name: string, text: string, v: ProtocolVersion): Verdict {
    const known = this.known(id, text, v);
    if (known) return known;
    const verdict = { text, v, ...this.check(name, text, v) };
    this.verdicts.set(id, verdict);
    return verdict;
  }

  /** The closed arguments `text` of a call of `name`: parsed, and checked against the tool's declared schema. */
  private check(name: string, text: string, v: ProtocolVersion): Omit<Verdict, 'text' | 'v'> {
    const args: ArgsCheck = { status: 'unchecked', errors: [], reason: null, spec: [] };
    const unchecked = (reason: string, ...sections: string[]) => ({ args: { ...args, reason, spec: spec(v, ...sections) } });
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      return { args: { ...args, status: 'unparsed', reason: text === '' ? 'no argument text came' : `not JSON: ${(e as Error).message}`, spec: spec(v, 'events/tool-calls#tool_call_end') } };
    }
    const tool = this.declared.get(name);
    if (!tool) return { ...unchecked('the input declares no tool of this name, so no parameters schema', 'basic/run-input#tools'), parsed };
    if (tool.parameters === undefined) return { ...unchecked('the input declares this tool without a parameters schema', 'basic/run-input#tools'), parsed };
    let schema = this.schemas.get(name);
    if (!schema) this.schemas.set(name, (schema = new CheckedSchema(tool.parameters)));
    const r = schema.check(parsed);
    const sections = ['basic/run-input#tools', 'events/tool-calls#security-considerations'];
    if (r.status === 'unchecked') return { ...unchecked(r.costly ? r.reason : `its parameters schema cannot be checked here: ${r.reason}`, ...sections), parsed };
    return { args: { ...args, status: r.status, errors: r.status === 'invalid' ? r.errors : [], spec: spec(v, ...sections) }, parsed };
  }
}
