/**
 * One exchange analysed, keeping what its views show. It wraps the analyzer and listens to what the
 * analyzer does anyway (each frame's enforcement, each event after chunk expansion, each state step),
 * so nothing is decoded, enforced or expanded a second time for the views.
 *
 * Kept per frame only where a view needs it: stripped members, expansions that rewrote a frame, the
 * run boundaries' values. The conversation and the state steps are kept as they evolve.
 */
import { ConsumerModel, ExchangeAnalyzer, ThreadTracker, uncoveredBy, type Ev, type ExchangeAnalyzerOptions, type ExchangeReport, type StateStep } from '../analyzer/index.ts';
import { isObject, type JsonObject } from '../json.ts';
import type { Finding } from '../rules/index.ts';
import type { Enforcement } from '../schema/index.ts';
import { conversationOf, convDiff, keptChanges, type ConvDiff, type ConvMessage, type KeptChange } from './conversation.ts';
import { SubagentTracker } from './run-tree.ts';
import { stateDiff, type StateDiff } from './state-diff.ts';
import { ThreadTiming, TimingReading } from './timing.ts';
import { ToolCallsReading, ToolThread, type RejectedCall } from './tools.ts';
import type { Arrival } from '../exchange/index.ts';
import { overview, type Overview } from './overview.ts';
import { DETAIL_PARTS, type DetailPart, type ExchangeDetail, type FieldRow, type FieldStatus, type InputDetail, type RunRow, type StrippedMember } from './types.ts';

export interface ReadingOptions extends ExchangeAnalyzerOptions {
  /**
   * Whether frame `index` is kept for the views: a holder with an event cap (the extension's worker)
   * keeps the detail of the frames it keeps. The conversation and state steps are kept regardless.
   */
  keep?: (index: number) => boolean;
  /** What the source recorded of when the response arrived; without it the exchange has no timing. */
  arrival?: Arrival;
  /** The stall threshold of the timing (DEFAULT_STALL_MS). */
  stallMs?: number;
  /** The session's frontend tool calls left pending: this exchange's request may answer some. */
  threadTiming?: ThreadTiming;
  /** The session's tool calls left without a result: this exchange's request answers some, or goes on without. */
  toolThread?: ToolThread;
}

const BOUNDARIES = new Set(['RUN_STARTED', 'RUN_FINISHED', 'RUN_ERROR']);

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

function aboutField(name: string, f: Finding): boolean {
  return f.event === null && f.path !== null && (f.path === `/${name}` || f.path.startsWith(`/${name}/`));
}

export class ExchangeReading {
  readonly analyzer: ExchangeAnalyzer;
  private readonly stripped: StrippedMember[];
  private readonly expanded = new Map<number, Ev[]>();
  private readonly boundaries = new Map<number, JsonObject>();
  private readonly steps: { step: StateStep; type: string }[] = [];
  /** Each event that changed the conversation, kept to replay it up to any step (`conversationAt`). */
  private readonly convSteps: Ev[] = [];
  private readonly convAt: number[] = [];
  /** What each of those steps changed, as the model noted it. */
  private readonly convChanges: KeptChange[][] = [];
  /** The event just handed to the consumer model and the model's revision before it: a step once the revision moved. */
  private convPending: { ev: Ev; index: number; revision: number } | null = null;
  /**
   * The frame whose expansion is being collected, and what it expanded to so far: nothing is allocated
   * until expansion adds an event of its own (most frames are handled as they came).
   */
  private frame = -1;
  private own: Ev | null = null;
  private out: Ev[] | null = null;
  private lastType = '';
  private readonly timing: TimingReading | null;
  private readonly tools: ToolCallsReading;
  private readonly subagents = new SubagentTracker();

  constructor(o: ReadingOptions) {
    const keep = o.keep ?? (() => true);
    const timing = o.arrival ? new TimingReading({ arrival: o.arrival, stallMs: o.stallMs, thread: o.threadTiming, sentAt: o.sentAt }) : null;
    this.timing = timing;
    const tools = (this.tools = new ToolCallsReading(this, o.toolThread));
    this.analyzer = new ExchangeAnalyzer({
      ...o,
      noteChanges: true,
      onInput: (input) => {
        o.onInput?.(input);
        timing?.hooks.onInput(input);
        tools.hooks.onInput(input.value);
      },
      onArrival: timing && o.onArrival ? (time, enforced, latest) => { o.onArrival!(time, enforced, latest); timing.hooks.onArrival(time, enforced, latest); } : timing?.hooks.onArrival ?? o.onArrival,
      onReceived: timing && o.onReceived ? (received) => { o.onReceived!(received); timing.hooks.onReceived(received); } : timing?.hooks.onReceived ?? o.onReceived,
      onEnforced: (index, result, received, time) => {
        o.onEnforced?.(index, result, received, time);
        this.settle();
        const type = isObject(received) && typeof received.type === 'string' ? received.type : null;
        this.lastType = type ?? '';
        if (!keep(index)) return;
        this.frame = index;
        if (result.verdict !== 'ok' || result.stripped.length > 0) for (const s of stripsOf(result, index, type, received)) this.stripped.push(s);
        if (type !== null && BOUNDARIES.has(type) && isObject(received)) this.boundaries.set(index, received);
      },
      onEmit: (ev, index, own) => {
        o.onEmit?.(ev, index, own);
        tools.hooks.onEmit(ev, index);
        this.subagents.see(ev, index);
        this.settleConversation();
        this.convPending = { ev, index, revision: this.analyzer.consumer.revision };
        if (index !== this.frame) return;
        if (this.out) this.out.push(ev);
        else if (!own) this.out = this.own ? [this.own, ev] : [ev];
        else this.own = ev;
      },
      // Only the timing reads items alone: without it, and no one else asking, the analyzer looks for none.
      onItem: timing && o.onItem ? (ev, index, content) => { o.onItem!(ev, index, content); timing.hooks.onItem(ev, index, content); } : timing?.hooks.onItem ?? o.onItem,
      onState: (step) => {
        o.onState?.(step);
        this.steps.push({ step, type: this.lastType });
      },
    });
    const input = this.analyzer.input;
    this.stripped = input.enforcement && input.value ? stripsOf(input.enforcement, 'input', null, input.value) : [];
  }

  /** The event handed to the model last changed what it holds: it is a step of the conversation. */
  private settleConversation(): void {
    const p = this.convPending;
    if (!p) return;
    this.convPending = null;
    if (this.analyzer.consumer.revision === p.revision) return;
    this.convSteps.push(p.ev);
    this.convAt.push(p.index);
    this.convChanges.push(keptChanges(this.analyzer.consumer.changes));
  }

  /** The frame before this one is complete: its expansion is kept when it rewrote the frame. */
  private settle(): void {
    if (this.out) this.expanded.set(this.frame, this.out);
    this.out = null;
    this.own = null;
    this.frame = -1;
  }

  push(chunk: Uint8Array, time: number): void {
    this.timing?.chunk(time, chunk.length);
    this.analyzer.push(chunk, time);
  }

  pushing(chunk: Uint8Array, time: number): Generator<void, void> {
    this.timing?.chunk(time, chunk.length);
    return this.analyzer.pushing(chunk, time);
  }

  end(time: number, abandoned = false): void {
    this.analyzer.end(time, abandoned);
    this.timing?.end();
    this.tools.end();
  }

  report(): ExchangeReport {
    return this.analyzer.report();
  }

  /**
   * The earlier readings of the session whose tool calls this exchange's request answered, or went on
   * without: their `toolCalls` part changed when this one began.
   */
  get revisits(): readonly ExchangeReading[] {
    return this.tools.revisits as ExchangeReading[];
  }

  /** The timing's time to first content as of now; null without one (no times recorded, or no content yet). */
  firstContentMs(): number | null {
    return this.timing?.firstContentMs() ?? null;
  }

  /** One part of the detail, as of now (`report` given when the caller holds it already). */
  part<K extends DetailPart>(k: K, report: ExchangeReport = this.report()): ExchangeDetail[K] {
    return this.parts[k](report) as ExchangeDetail[K];
  }

  /** Every part at once (tests, and a reader that wants it all). */
  detail(): ExchangeDetail {
    const report = this.report();
    return Object.fromEntries(DETAIL_PARTS.map((k) => [k, this.parts[k](report)])) as unknown as ExchangeDetail;
  }

  private readonly parts: { [K in DetailPart]: (r: ExchangeReport) => ExchangeDetail[K] } = {
    report: (r) => r,
    input: (r) => this.inputDetail(r),
    runs: (r) => this.runs(r),
    stripped: () => this.stripped.slice(),
    expanded: () => this.expansions(),
    states: () => this.states(),
    conversation: () => conversationOf(this.analyzer.consumer),
    conversationSteps: () => {
      this.settleConversation();
      return this.convSteps.map((ev, i) => ({ event: this.convAt[i]!, type: ev.type }));
    },
    timing: () => this.timing?.timing() ?? null,
    toolCalls: (r) => this.tools.rows(conversationOf(this.analyzer.consumer), this.runs(r), r, this.timing?.toolSpans() ?? null),
    subagents: (r) => this.subagents.rows(r.findings),
  };

  /**
   * The conversation after conversation step `n` (an index into the `conversationSteps` part); null when
   * there is no such step. Replayed from the input by a model that reports nothing, so it costs the steps
   * up to `n`: it is asked for on demand, as the state at a step is.
   */
  conversationAt(n: number, report: ExchangeReport = this.report()): { messages: ConvMessage[] } | null {
    this.settleConversation();
    if (!Number.isInteger(n) || n < 0 || n >= this.convSteps.length) return null;
    const pre10 = report.era === 'pre-1.0';
    const model = new ConsumerModel({ history: this.analyzer.input.value?.messages, legacy: () => pre10, noteChanges: true });
    for (let i = 0; i <= n; i++) model.apply(this.convSteps[i]!, this.convAt[i]!);
    return { messages: conversationOf(model) };
  }

  /** What conversation step `n` changed, as noted when it was applied: costs what it changed. Null when there is no such step. */
  conversationDiff(n: number): ConvDiff | null {
    this.settleConversation();
    if (!Number.isInteger(n) || n < 0 || n >= this.convSteps.length) return null;
    return convDiff(n, this.convAt[n]!, this.convSteps[n]!, this.convChanges[n]!);
  }

  /**
   * Checks the tool calls' arguments not checked yet, a call per step: the `toolCalls` part then only reads
   * the verdicts; `declaredOnly`, those of declared tools, which is all `rejectedCalls` reads.
   */
  toolChecks(declaredOnly = false): Generator<void, void> {
    return this.tools.settle(() => conversationOf(this.analyzer.consumer), this.report().consumerVersion, declaredOnly);
  }

  /** The closed tool calls whose arguments their declared schema rejects (checking those not checked yet: settle `toolChecks` first to spread them). */
  rejectedCalls(report: ExchangeReport = this.report()): RejectedCall[] {
    return this.tools.rejected(() => conversationOf(this.analyzer.consumer), report.consumerVersion);
  }

  /** The state after state step `n` (an index into the `states` part); null when there is no such step. */
  stateAt(n: number): { state: unknown } | null {
    const step = this.steps[n];
    return step ? { state: step.step.state } : null;
  }

  /** What state step `n` changed against the step before it; null when there is no such step. */
  stateDiff(n: number): StateDiff | null {
    const step = this.steps[n];
    return step ? stateDiff(n, step.step) : null;
  }

  private inputDetail(report: ExchangeReport): InputDetail {
    const input = this.analyzer.input;
    const findings = report.input.findings;
    const fields: FieldRow[] = input.fields.map((f) => {
      const about = findings.filter((g) => aboutField(f.name, g));
      // A readiness item is shown on its field but is no defect of it today.
      const today = about.filter((g) => !g.readiness);
      const status: FieldStatus = today.some((g) => g.severity === 'error') ? 'error' : today.some((g) => g.severity === 'warning') ? 'warning' : 'fine';
      return { ...f, status, value: input.value?.[f.name], findings: about };
    });
    return {
      input: { present: input.present, value: input.value, declared: input.declared, version: input.version }, fields,
      stripped: this.stripped.filter((s) => s.at === 'input'),
      findings, verdict: report.input.verdict, era: report.era, pending: this.analyzer.pending,
      uncovered: this.analyzer.pending && input.value ? uncoveredBy(this.analyzer.pending.map((p) => p.id), input.value.resume) : null,
    };
  }

  private runs(report: ExchangeReport): RunRow[] {
    const at = (n: number | null): JsonObject | null => (n === null ? null : this.boundaries.get(n) ?? null);
    return report.runs.map((run) => ({ run, started: at(run.startedAt), finished: at(run.finishedAt) }));
  }

  private expansions(): [number, Ev[]][] {
    const out = [...this.expanded];
    // The frame being read may have rewritten itself already.
    if (this.out) out.push([this.frame, this.out.slice()]);
    return out;
  }

  private states(): ExchangeDetail['states'] {
    return this.steps.map(({ step, type }) => ({ event: step.event, type, failed: step.failed }));
  }

}

/**
 * The exchanges of one session, read in the order they began: one thread tracker spans them, so an
 * input's resume list is judged against what earlier exchanges left open (basic/patterns/interrupt-resume).
 */
export class SessionReader {
  private readonly thread = new ThreadTracker();
  private readonly threadTiming = new ThreadTiming();
  private readonly toolThread = new ToolThread();

  read(o: Omit<ReadingOptions, 'thread' | 'threadTiming' | 'toolThread'>): ExchangeReading {
    return new ExchangeReading({ ...o, thread: this.thread, threadTiming: this.threadTiming, toolThread: this.toolThread });
  }

  /**
   * `body` judged as the session's next input, sent at `sentAt`, without becoming one: the Input view's
   * detail of it, resume coverage included. Only reading the input records nothing on its thread.
   */
  check(body: string, sentAt: number): InputDetail {
    return new ExchangeReading({ source: 'check', requestBody: body, contentType: '', sentAt, thread: this.thread }).part('input');
  }
}

/**
 * The session overview of readings as they stand (a tab's, an import's), in capture order: each one's report
 * and timing; a reading not yet begun, or one that fails, keeps its place and adds nothing.
 */
export function overviewOf(readings: readonly (ExchangeReading | null)[]): Overview {
  return overview(readings.map((r) => {
    if (!r) return null;
    try {
      const report = r.report();
      return { report, timing: r.part('timing', report), rejected: r.rejectedCalls(report) };
    } catch {
      return null;
    }
  }));
}
