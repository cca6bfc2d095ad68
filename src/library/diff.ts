/**
 * `diff`: two recordings compared as a consumer sees them — the conversation it holds, the tool calls with
 * their parsed arguments and results, the state after each run, each run's outcome and interrupts, the
 * verdict and the rules raised. What a consumer does not keep is set aside: chunking (content is compared
 * assembled), keep-alives, timing, frame indices, and — unless `strictIds` — the ids the producer minted.
 *
 * The view is read from the one pass that analyses each exchange (src/detail's ExchangeReading), so it is
 * what the panel's Conversation and State views show.
 */
import type { ExchangeReport } from '../analyzer/index.ts';
import { SessionReader, type ConvMessage } from '../detail/index.ts';
import { analysedToTheEnd, sentAtOf, type CapturedExchange } from '../exchange/index.ts';
import { isObject, type JsonObject } from '../json.ts';
import type { ProtocolVersion } from '../rules/index.ts';

export interface DiffOptions {
  /** Compare message, tool-call, run, thread and interrupt ids too. */
  strictIds?: boolean;
  as?: ProtocolVersion;
}

export interface ToolCallSeen {
  id?: string;
  name: string;
  /** The assembled arguments, parsed when they are JSON. */
  arguments: unknown;
  /** The result's content (parsed when it is JSON text), or null when no result arrived. */
  result: unknown;
}

export interface MessageSeen {
  id?: string;
  role: string;
  content: unknown;
  activityType?: string;
  /** A tool message: which of the exchange's tool calls it answers (an index, so ids can be set aside). */
  answers?: number | null;
}

export interface RunSeen {
  runId?: string | null;
  threadId?: string | null;
  outcome: ExchangeReport['runs'][number]['outcome'];
  /** The state a consumer holds when the run ends; null when it cannot know it (no input, no snapshot). */
  state: unknown;
  interrupts: unknown[];
}

/** One exchange as a consumer ends up holding it. */
export interface ExchangeSeen {
  conversation: MessageSeen[];
  toolCalls: ToolCallSeen[];
  runs: RunSeen[];
  verdict: ExchangeReport['verdict'];
  /** The rules raised, each once, sorted: how often a rule fires follows the chunking. */
  findings: string[];
}

export const DIFFERENCE_KINDS = ['exchanges', 'conversation', 'tool-call', 'runs', 'state', 'outcome', 'interrupt', 'verdict', 'findings'] as const;
export type DifferenceKind = (typeof DIFFERENCE_KINDS)[number];

export interface Difference {
  kind: DifferenceKind;
  /** 1-based; null for a difference in how many exchanges there are. */
  exchange: number | null;
  /** JSON Pointer into the exchange's view (`ExchangeSeen`). */
  path: string;
  /** Absent on the side that has nothing there. */
  a?: unknown;
  b?: unknown;
}

function parsed(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

/** What a consumer holds after each exchange, read in order so resume coverage is judged across them. */
export function consumerView(exchanges: CapturedExchange[], o: DiffOptions = {}): ExchangeSeen[] {
  const session = new SessionReader();
  return exchanges.map((x) => {
    const reading = session.read({ source: x.source, requestBody: x.requestBody, contentType: x.responseContentType, status: x.status, sentAt: sentAtOf(x), as: o.as });
    for (const c of x.chunks) reading.push(c.bytes, c.time);
    if (analysedToTheEnd(x.analysis)) reading.end(x.chunks.at(-1)?.time ?? 0, x.abandoned);
    // Only the parts read below: the tool-call rows, for one, check every call's arguments against its schema.
    const report = reading.report();
    const d = { report, conversation: reading.part('conversation', report), runs: reading.part('runs', report), states: reading.part('states', report), input: reading.part('input', report) };
    const id = <T>(v: T): { id?: T } => (o.strictIds ? { id: v } : {});
    const calls = d.conversation.flatMap((m) => m.toolCalls);
    const callIndex = new Map(calls.map((c, i) => [c.id, i]));
    const results = new Map(d.conversation.filter((m) => m.toolCallId !== undefined).map((m) => [m.toolCallId!, m.content]));
    const conversation = d.conversation.map((m: ConvMessage): MessageSeen => ({
      ...id(m.id),
      role: m.role,
      content: m.content,
      ...(m.activityType === undefined ? {} : { activityType: m.activityType }),
      ...(m.toolCallId === undefined ? {} : { answers: callIndex.get(m.toolCallId) ?? null }),
    }));
    const toolCalls = calls.map((c): ToolCallSeen => ({ ...id(c.id), name: c.name, arguments: parsed(c.arguments), result: results.has(c.id) ? parsed(results.get(c.id)) : null }));
    // The state each run ends with: its last state step's, else what the consumer held before it.
    const inputState = d.input.input.value ? (d.input.input.value.state ?? {}) : null;
    let held: unknown = inputState;
    const runs = d.runs.map(({ run, finished }): RunSeen => {
      const end = run.finishedAt ?? Infinity;
      let last = -1;
      d.states.forEach((s, n) => {
        if (s.event <= end && s.event >= (run.startedAt ?? -1)) last = n;
      });
      if (last !== -1) held = reading.stateAt(last)?.state ?? held;
      const outcome = isObject(finished) && isObject(finished.outcome) ? finished.outcome : null;
      const given = outcome && Array.isArray(outcome.interrupts) ? outcome.interrupts : [];
      const interrupts = given.map((i) => (isObject(i) && !o.strictIds ? Object.fromEntries(Object.entries(i).filter(([k]) => k !== 'id')) : i));
      return { ...(o.strictIds ? { runId: run.runId, threadId: run.threadId } : {}), outcome: run.outcome, state: held, interrupts };
    });
    const findings = [...new Set([...d.report.input.findings, ...d.report.findings].map((f) => f.rule))].sort();
    return { conversation, toolCalls, runs, verdict: d.report.verdict, findings };
  });
}

const KIND_OF: Record<keyof ExchangeSeen, DifferenceKind> = { conversation: 'conversation', toolCalls: 'tool-call', runs: 'runs', verdict: 'verdict', findings: 'findings' };

function kindOf(path: string[]): DifferenceKind {
  const top = KIND_OF[path[0] as keyof ExchangeSeen];
  if (top !== 'runs' || path.length < 3) return top;
  return path[2] === 'state' ? 'state' : path[2] === 'interrupts' ? 'interrupt' : 'outcome';
}

const pointer = (path: string[]) => path.map((p) => '/' + p.replace(/~/g, '~0').replace(/\//g, '~1')).join('');

/**
 * Every difference between two values, in document order: arrays item by item, objects member by member
 * (own members only: a `constructor` or `__proto__` member is a member like any other). Iterative, since
 * state and arguments nest as deep as the producer made them.
 */
function compare(a: unknown, b: unknown, out: (path: string[], a: unknown, b: unknown, present: [boolean, boolean]) => void): void {
  const stack: { a: unknown; b: unknown; path: string[]; present: [boolean, boolean] }[] = [{ a, b, path: [], present: [true, true] }];
  while (stack.length > 0) {
    const at = stack.pop()!;
    const [x, y, path] = [at.a, at.b, at.path];
    if (!at.present[0] || !at.present[1]) {
      out(path, x, y, at.present);
      continue;
    }
    if (Object.is(x, y)) continue;
    const pairs: [string, boolean, boolean][] | null =
      Array.isArray(x) && Array.isArray(y) ? Array.from({ length: Math.max(x.length, y.length) }, (_, i) => [String(i), i < x.length, i < y.length])
      : isObject(x) && isObject(y) ? [...Object.keys(x), ...Object.keys(y).filter((k) => !Object.hasOwn(x, k))].map((k) => [k, Object.hasOwn(x, k), Object.hasOwn(y, k)])
      : null;
    if (pairs === null) {
      out(path, x, y, [true, true]);
      continue;
    }
    // Pushed last to first, so they come off the stack in document order.
    for (let i = pairs.length - 1; i >= 0; i--) {
      const [k, inA, inB] = pairs[i]!;
      stack.push({ a: inA ? (x as JsonObject)[k] : undefined, b: inB ? (y as JsonObject)[k] : undefined, path: [...path, k], present: [inA, inB] });
    }
  }
}

/** Every difference between what a consumer holds after `a` and after `b`, in order; none when they are the same. */
export function diff(a: CapturedExchange[], b: CapturedExchange[], o: DiffOptions = {}): Difference[] {
  const [va, vb] = [consumerView(a, o), consumerView(b, o)];
  const out: Difference[] = [];
  if (va.length !== vb.length) out.push({ kind: 'exchanges', exchange: null, path: '', a: va.length, b: vb.length });
  for (let i = 0; i < Math.min(va.length, vb.length); i++) {
    compare(va[i], vb[i], (path, x, y, [hasA, hasB]) => {
      out.push({ kind: kindOf(path), exchange: i + 1, path: pointer(path), ...(hasA ? { a: x } : {}), ...(hasB ? { b: y } : {}) });
    });
  }
  return out;
}
