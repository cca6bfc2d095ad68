/**
 * The detailed reading of one exchange, computed in the panel with the browser-free core: decoded
 * values, what a consumer of the judged version strips, state after each step, the conversation, and
 * each run's identity and negotiation. Findings stay the source's (the worker judged resume coverage
 * across the tab's exchanges); this pass supplies what reports do not carry.
 */
import { ChunkExpander } from '../src/analyzer/chunks.ts';
import type { Ev } from '../src/analyzer/event.ts';
import { ExchangeAnalyzer } from '../src/analyzer/exchange.ts';
import { analyzeInput, type FieldStatus, type InputAnalysis } from '../src/analyzer/input.ts';
import { FindingSink } from '../src/analyzer/sink.ts';
import type { StateStep } from '../src/analyzer/state.ts';
import type { ExchangeReport, RunReport } from '../src/analyzer/types.ts';
import { isObject, type JsonObject } from '../src/json.ts';
import { byThePage } from '../src/messages.ts';
import type { Finding } from '../src/rules/types.ts';
import { enforce } from '../src/schema/enforce.ts';
import type { Enforcement } from '../src/schema/types.ts';
import { Conversation, type ConvMessage } from './conversation.ts';
import { decodeFrame, rebuildChunks } from './frames.ts';
import type { PanelExchange } from './model.ts';

export interface StrippedMember {
  /** 'input', or the index of the event it was stripped from. */
  at: 'input' | number;
  eventType: string | null;
  path: string;
  trigger: string;
  why: string;
  removed: unknown;
  /** The whole event is dropped, not one of its members. */
  whole: boolean;
}

export interface RunRow {
  run: RunReport;
  started: JsonObject | null;
  finished: JsonObject | null;
}

export interface FieldRow {
  name: string;
  present: boolean;
  status: FieldStatus;
  note: string;
  spec: string;
  value: unknown;
  findings: Finding[];
}

/** The input as a producer receives it: cheap, so the Input view never waits for the stream. */
export interface InputDetail {
  input: InputAnalysis;
  fields: FieldRow[];
  /** What the producer strips from it. */
  stripped: StrippedMember[];
  /** The source's input findings (resume coverage included). */
  findings: Finding[];
  /** The source's input verdict: for a pre-1.0 exchange, its own client's reading (readiness items do not count). */
  verdict: 'valid' | 'invalid';
  era: ExchangeReport['era'];
}

/** The whole stream read again: every event decoded, enforced, expanded and applied. */
export interface Full {
  report: ExchangeReport;
  values: unknown[];
  /** Events that chunk expansion rewrote, and what they became (START/CONTENT/END, synthesised ends). */
  expanded: Map<number, Ev[]>;
  states: StateStep[];
  /** In the input, then in each event. */
  stripped: StrippedMember[];
  conversation: ConvMessage[];
}

function aboutField(name: string, f: Finding): boolean {
  return f.event === null && f.path !== null && (f.path === `/${name}` || f.path.startsWith(`/${name}/`));
}

function stripsOf(result: Enforcement, at: 'input' | number, eventType: string | null, value: unknown): StrippedMember[] {
  if (result.verdict === 'dropped') {
    return [{
      at, eventType, path: '', trigger: result.cause?.trigger ?? '/type', removed: value, whole: true,
      why: result.cause ? `unrecognised ${result.cause.definition} in a required position: the whole event goes` : `event type ${JSON.stringify(result.type)} is not described by this version: dropped`,
    }];
  }
  return result.stripped.map((s) => ({
    at, eventType, path: s.path, trigger: s.trigger, removed: s.removed, whole: false,
    why: s.reason === 'unknown-property' ? `${s.definition} has no member ${JSON.stringify(s.path.split('/').at(-1))}` : s.discriminator ? `${s.definition} has no variant with this ${s.discriminator}` : `not a value of ${s.definition}`,
  }));
}

/** Results cached per exchange revision: a view switch costs nothing, a new frame recomputes. */
function cached<T>(compute: (x: PanelExchange) => T): (x: PanelExchange) => T {
  const cache = new WeakMap<PanelExchange, { rev: number; value: T }>();
  return (x) => {
    const hit = cache.get(x);
    if (hit && hit.rev === x.rev) return hit.value;
    const value = compute(x);
    cache.set(x, { rev: x.rev, value });
    return value;
  };
}

/** The source's report, else the panel's own reading of what was captured. */
export function reportOf(x: PanelExchange): ExchangeReport {
  return x.report ?? fullOf(x).report;
}

export const inputOf = cached((x: PanelExchange): InputDetail => {
  const report = reportOf(x);
  const input = analyzeInput(x.requestBody ?? undefined, report.consumerVersion);
  const findings = report.input.findings;
  const fields: FieldRow[] = input.fields.map((f) => {
    const about = findings.filter((g) => aboutField(f.name, g));
    // A readiness item is shown on its field but is no defect of it today.
    const today = about.filter((g) => !g.readiness);
    const status: FieldStatus = today.some((g) => g.severity === 'error') ? 'error' : today.some((g) => g.severity === 'warning') ? 'warning' : 'fine';
    return { ...f, status, value: input.value?.[f.name], findings: about };
  });
  const stripped = input.value ? stripsOf(enforce.input(input.value, input.version), 'input', null, input.value) : [];
  return { input, fields, stripped, findings, verdict: report.input.verdict, era: report.era };
});

/** Each run with its boundary events decoded: only those frames are read. */
export const runsOf = cached((x: PanelExchange): RunRow[] => {
  const report = reportOf(x);
  const at = (n: number | null): JsonObject | null => {
    const e = n === null ? undefined : x.events[n];
    const v = e ? decodeFrame(e).value : undefined;
    return isObject(v) ? v : null;
  };
  return report.runs.map((run) => {
    const started = at(run.startedAt);
    return {
      run,
      started,
      finished: at(run.finishedAt),
    };
  });
});

export const fullOf = cached((x: PanelExchange): Full => {
  const values: unknown[] = [];
  const states: StateStep[] = [];
  const analyzer = new ExchangeAnalyzer({
    source: x.url,
    requestBody: x.requestBody ?? undefined,
    contentType: x.contentType ?? '',
    status: x.status ?? undefined,
    as: x.report?.consumerVersion,
    onEvent: (r) => (values[r.index] = r.value),
    onState: (s) => states.push(s),
  });
  const chunks = x.chunks ?? rebuildChunks(x.events, x.contentType);
  for (const c of chunks) analyzer.push(c.bytes, c.time);
  if (x.outcome !== 'pending') analyzer.end(chunks.at(-1)?.time ?? 0, byThePage(x.outcome));
  const input = analyzer.input;
  const version = analyzer.version;

  const stripped: StrippedMember[] = input.value ? stripsOf(enforce.input(input.value, version), 'input', null, input.value) : [];
  const expanded = new Map<number, Ev[]>();
  const expander = new ChunkExpander(new FindingSink(version));
  const conversation = new Conversation(input.value?.messages);
  values.forEach((value, i) => {
    if (value === undefined) return;
    const result = enforce.event(value, version);
    const type = isObject(value) && typeof value.type === 'string' ? value.type : null;
    stripped.push(...stripsOf(result, i, type, value));
    if (result.verdict !== 'ok' || !isObject(result.value)) return;
    const out: Ev[] = [];
    expander.expand(result.value as Ev, i, (e) => out.push(e));
    // Chunks, and events before which expansion synthesised the ends of chunk streams they close.
    if (out.length !== 1 || out[0] !== result.value) expanded.set(i, out);
    for (const e of out) conversation.apply(e, i);
  });
  return { report: analyzer.report(), values, expanded, states, stripped, conversation: conversation.messages };
});

/** The interrupts an input's resume list answers: those of the thread's last interrupted run before it. */
export interface PendingInterrupt {
  id: string;
  reason: string | null;
  message: string | null;
  /** The exchange and run that raised it. */
  exchangeId: string;
  runId: string | null;
}

export function pendingInterruptsFor(exchanges: readonly PanelExchange[], x: PanelExchange): PendingInterrupt[] | null {
  // The input as analysed: a framework envelope's inner input, when the binding wraps it.
  const threadOf = (e: PanelExchange): string | undefined => {
    const v = inputOf(e).input.value?.threadId;
    return typeof v === 'string' ? v : undefined;
  };
  const thread = threadOf(x);
  if (thread === undefined) return null;
  const at = exchanges.indexOf(x);
  for (let i = at - 1; i >= 0; i--) {
    const prev = exchanges[i]!;
    if (threadOf(prev) !== thread) continue;
    const last = prev.report?.runs.at(-1);
    if (!last || last.outcome !== 'interrupt') return [];
    const frame = last.finishedAt === null ? undefined : prev.events[last.finishedAt];
    const finished = frame ? decodeFrame(frame).value : undefined;
    const outcome = isObject(finished) && isObject(finished.outcome) ? finished.outcome : {};
    const given = (Array.isArray(outcome.interrupts) ? outcome.interrupts : []).filter(isObject);
    return last.interrupts.map((id) => {
      const i = given.find((g) => g.id === id) ?? {};
      return {
        id,
        reason: typeof i.reason === 'string' ? i.reason : null,
        message: typeof i.message === 'string' ? i.message : null,
        exchangeId: prev.id,
        runId: last.runId,
      };
    });
  }
  return null;
}
