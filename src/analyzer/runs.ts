import { isObject, jsonEqual, preview, type JsonObject } from '../json.ts';
import { defineRules, type ProtocolVersion } from '../rules/index.ts';
import { ChunkExpander } from './chunks.ts';
import { ConsumerModel } from './consumer.ts';
import { RunDiscipline } from './discipline.ts';
import { str, type Ev } from './event.ts';
import { judgeProducer } from './negotiation.ts';
import type { FindingSink } from './sink.ts';
import { StateTracker, type StateStep } from './state.ts';
import type { NegotiationVerdict, RunReport } from './types.ts';

export const LIFECYCLE_RULES = defineRules({
  firstEvent: {
    id: 'lifecycle/first-event',
    category: 'lifecycle',
    severity: 'error',
    fatal: true,
    spec: 'events/lifecycle#the-run',
    title: 'A stream must begin with RUN_STARTED or RUN_ERROR',
  },
  nestedRunStarted: {
    id: 'lifecycle/nested-run-started',
    category: 'lifecycle',
    severity: 'error',
    fatal: true,
    spec: 'events/lifecycle#several-runs-on-one-stream',
    title: 'RUN_STARTED while a run is still active',
  },
  afterClose: {
    id: 'lifecycle/event-after-close',
    category: 'lifecycle',
    severity: 'error',
    fatal: true,
    spec: 'events/lifecycle#after-a-run-closes',
    title: 'Only RUN_STARTED (or a late RUN_ERROR after RUN_FINISHED) may follow a closed run',
  },
  lateRunError: {
    id: 'lifecycle/late-run-error',
    category: 'lifecycle',
    severity: 'info',
    fatal: false,
    spec: 'events/lifecycle#after-a-run-closes',
    title: 'A RUN_ERROR after RUN_FINISHED makes that run failed',
  },
  truncated: {
    id: 'lifecycle/truncated',
    category: 'lifecycle',
    severity: 'error',
    fatal: true,
    spec: 'basic/transports#truncation',
    title: 'A stream that ends without a terminal event is truncated, never a success',
  },
  abandoned: {
    id: 'lifecycle/abandoned',
    category: 'lifecycle',
    severity: 'info',
    fatal: false,
    spec: 'events/lifecycle#cancelled-runs',
    title: 'The consumer abandoned the stream (aborted it, or stopped reading): a truncated run of its own making, not a producer fault',
  },
  runError: {
    id: 'lifecycle/run-error',
    category: 'lifecycle',
    severity: 'info',
    fatal: false,
    spec: 'events/lifecycle#run_error',
    title: 'The producer reported that the run failed (a well-formed stream, not a rejection)',
  },
  duplicateInterruptId: {
    id: 'interrupt/duplicate-id',
    category: 'interrupt',
    severity: 'error',
    fatal: false,
    spec: 'basic/patterns/interrupt-resume#interrupting',
    title: "Each interrupt's id must be unique within the run",
  },
  askedAsSuccess: {
    id: 'interrupt/asked-as-success',
    category: 'interrupt',
    severity: 'error',
    fatal: false,
    spec: 'basic/patterns/interrupt-resume#interrupting',
    title: 'A run that stopped to ask must end with the interrupt outcome, never as success',
  },
});

/**
 * CUSTOM event names by which pre-1.0 adapters say that the run stopped to ask — `on_interrupt`, which
 * `@ag-ui/langgraph` and `@ag-ui/mastra` emit for an interrupt and then end the run as success. 1.0's only
 * conforming way to end such a run is the interrupt outcome (basic/patterns/interrupt-resume#interrupting).
 */
const ASKING_CUSTOM_EVENTS: ReadonlySet<string> = new Set(['on_interrupt']);

export const IDENTITY_RULES = defineRules({
  threadMismatch: {
    id: 'identity/thread-id-mismatch',
    category: 'identity',
    severity: 'error',
    fatal: true,
    spec: 'basic/run-input#identity',
    title: "Every run's boundary events carry the input's threadId",
  },
  runIdMismatch: {
    id: 'identity/run-id-mismatch',
    category: 'identity',
    severity: 'error',
    fatal: true,
    spec: 'basic/run-input#identity',
    title: "Each run's RUN_STARTED and RUN_FINISHED must agree on runId",
  },
  requestedRunId: {
    id: 'identity/requested-run-id',
    category: 'identity',
    severity: 'error',
    fatal: true,
    spec: 'basic/run-input#identity',
    title: "The requested run (the stream's last) echoes the input's runId",
  },
  replayedRunId: {
    id: 'identity/replayed-run-reuses-run-id',
    category: 'identity',
    severity: 'warning',
    fatal: false,
    spec: 'basic/run-input#identity',
    title: "A replayed run carries its own runId, not the input's",
  },
  echoAltered: {
    id: 'input/forwarded-props-altered',
    category: 'input',
    severity: 'error',
    fatal: false,
    spec: 'basic/run-input#forwardedprops',
    title: 'forwardedProps must arrive unaltered: RUN_STARTED.input echoes a different value',
  },
  echoDiffers: {
    id: 'input/echo-differs',
    category: 'input',
    severity: 'info',
    fatal: false,
    spec: 'events/lifecycle#run_started',
    title: 'RUN_STARTED.input differs from the input that was sent',
  },
});

interface Run {
  report: RunReport;
  status: 'active' | 'finished' | 'errored';
  discipline: RunDiscipline;
  /** The first event by which the run said it stopped to ask (ASKING_CUSTOM_EVENTS), if any. */
  asked: number | null;
}

export interface VerifierOptions {
  sink: FindingSink;
  version: ProtocolVersion;
  /** The input as sent (before any stripping), or null when the request is unknown. */
  input: JsonObject | null;
  /** The input as a producer of the judged version acts on it, after stripping; an echo may be either. */
  effectiveInput: JsonObject | null;
  consumerDeclared: string | null;
  onState?: (step: StateStep) => void;
  /**
   * Each event as the consumer handles it, after chunk expansion, with the index of the frame it came
   * from; `own` when it is that frame's event itself, not one expansion made or synthesised.
   */
  onEmit?: (ev: Ev, index: number, own: boolean) => void;
  /**
   * Of the same events, those that can begin, end or stand for something that lasts (a run, step, message,
   * tool call, reasoning, subagent): every one but the content deltas, and of those only the first, when
   * the content began (`content`, as item discipline tells it). A reader that needs no deltas is called for
   * one event in six of a typical stream, not for every one.
   */
  onItem?: (ev: Ev, index: number, content: boolean) => void;
  /** Whether the exchange still reads as pre-1.0: the conversation is then kept as the 0.0.59 client keeps it. */
  pre10?: () => boolean;
  /** Whether the conversation notes its changes for the views (ConsumerModelOptions.noteChanges). */
  noteChanges?: boolean;
  /** Whether the conversation holds streamed text as text (ConsumerModelOptions.keepText). */
  keepText?: boolean;
}

/**
 * Verifies the order and identity of a response's events — chunk expansion first, then run lifecycle,
 * item discipline, negotiation and state — as a consumer of one protocol version would.
 */
export class Verifier {
  readonly runs: RunReport[] = [];
  readonly negotiations: NegotiationVerdict[] = [];
  /** Some run's RUN_STARTED declared a protocolVersion: kept as runs start, so no caller scans the runs per event. */
  someRunDeclared = false;
  /** Each interrupted run's interrupts as given, by id, for the next input's resume check. */
  readonly interrupts = new Map<RunReport, Map<string, JsonObject>>();
  private current: Run | null = null;
  /** A terminal event of the current run that enforcement rejected: the truncation it leaves is told as what happened. */
  private rejected: { type: string; index: number } | null = null;
  private seenAny = false;
  private readonly expander: ChunkExpander;
  private readonly state: StateTracker;
  /** The conversation the consumer holds as the events apply (consumer.ts). */
  readonly consumer: ConsumerModel;
  /** Where events go when no run is open, so discipline keeps being checked after a lifecycle violation. */
  private orphan: RunDiscipline;

  constructor(private readonly o: VerifierOptions) {
    this.expander = new ChunkExpander(o.sink);
    this.orphan = new RunDiscipline(o.sink);
    const start = o.input && o.input.state !== undefined ? o.input.state : {};
    this.state = new StateTracker(o.sink, start, o.onState);
    this.state.unknown = o.input === null;
    this.consumer = new ConsumerModel({ sink: o.sink, history: o.input?.messages, legacy: o.pre10, noteChanges: o.noteChanges, keepText: o.keepText });
  }

  /** A RUN_FINISHED or RUN_ERROR arrived but was rejected (malformed): the run it meant to end stays active. */
  rejectedTerminal(type: string, index: number): void {
    if (this.current?.status === 'active') this.rejected ??= { type, index };
  }

  handle(ev: Ev, index: number): void {
    this.at = index;
    this.handed = ev;
    this.expander.expand(ev, index, this.emit);
  }

  /** The frame index and event expanded events come from, for `emit`, which the expander calls once per event. */
  private at = 0;
  private handed: Ev | null = null;
  /** A content delta was handed to `onItem`: the later ones are not. */
  private contentBegan = false;
  private readonly emit = (e: Ev): void => {
    this.o.onEmit?.(e, this.at, e === this.handed);
    const content = this.one(e, this.at);
    const onItem = this.o.onItem;
    if (onItem !== undefined && (!content || !this.contentBegan)) {
      this.contentBegan ||= content;
      onItem(e, this.at, content);
    }
    this.consumer.apply(e, this.at);
  };

  /**
   * The body ended: a run still active has no outcome. When the consumer itself abandoned the stream, that
   * truncation is its own doing (events/lifecycle#cancelled-runs), not a stream it must reject, and whether
   * the requested run would have come is unknowable.
   */
  end(abandoned = false): void {
    const run = this.current;
    const truncated = run && run.status === 'active' ? run : null;
    if (truncated) truncated.report.outcome = 'truncated';
    this.consumer.end();
    if (abandoned && (truncated || !this.seenAny)) {
      this.o.sink.report(LIFECYCLE_RULES.abandoned, `The page abandoned the stream ${truncated ? `while run ${JSON.stringify(truncated.report.runId)} was active` : 'before any event arrived'} (it aborted the request or stopped reading): the run has no outcome, by the consumer's own doing`, { event: null });
    } else if (truncated && this.rejected) {
      const { type, index } = this.rejected;
      this.o.sink.report(LIFECYCLE_RULES.truncated, `The stream ended while run ${JSON.stringify(truncated.report.runId)} was active: the ${type} at event ${index} was malformed and rejected, and no well-formed RUN_FINISHED or RUN_ERROR followed, so the run has no outcome`, { event: null });
    } else if (truncated) {
      this.o.sink.report(LIFECYCLE_RULES.truncated, `The stream ended while run ${JSON.stringify(truncated.report.runId)} was active: no RUN_FINISHED or RUN_ERROR arrived, so the run has no outcome`, { event: null });
    } else if (!this.seenAny) {
      this.o.sink.report(LIFECYCLE_RULES.truncated, 'The stream ended before any event arrived: no run started or reported an outcome', { event: null });
    }
    this.checkRequested(abandoned);
  }

  /** Whether `ev` carried an item's content (RunDiscipline.handle). */
  private one(ev: Ev, index: number): boolean {
    const first = !this.seenAny;
    this.seenAny = true;
    const { sink } = this.o;
    switch (ev.type) {
      case 'RUN_STARTED':
        this.started(ev, index);
        return false;
      case 'RUN_FINISHED':
        this.finished(ev, index, first);
        return false;
      case 'RUN_ERROR':
        this.errored(ev, index);
        return false;
    }
    if (first) sink.report(LIFECYCLE_RULES.firstEvent, `First event must be 'RUN_STARTED' or 'RUN_ERROR', not '${ev.type}'`, { event: index, path: '/type' });
    else if (this.current && this.current.status !== 'active') {
      sink.report(LIFECYCLE_RULES.afterClose, `'${ev.type}' arrived after run ${JSON.stringify(this.current.report.runId)} closed with '${this.current.status === 'finished' ? 'RUN_FINISHED' : 'RUN_ERROR'}'`, { event: index, path: '/type' });
    }
    if (this.current?.status === 'active' && ev.type === 'CUSTOM' && ASKING_CUSTOM_EVENTS.has(str(ev, 'name') ?? '')) this.current.asked ??= index;
    const content = (this.current?.status === 'active' ? this.current.discipline : this.orphan).handle(ev, index);
    this.state.handle(ev, index);
    return content;
  }

  private started(ev: Ev, index: number): void {
    const { sink, input } = this.o;
    if (this.current?.status === 'active') {
      sink.report(LIFECYCLE_RULES.nestedRunStarted, `Cannot send 'RUN_STARTED' while a run is still active (run ${JSON.stringify(this.current.report.runId)} has not finished)`, { event: index });
      // The nested run replaces the active one, so what follows is still judged against a run.
      this.current.report.outcome = 'truncated';
    }
    const report: RunReport = {
      runId: str(ev, 'runId') ?? null,
      threadId: str(ev, 'threadId') ?? null,
      parentRunId: str(ev, 'parentRunId') ?? null,
      requested: false,
      outcome: 'running',
      protocolVersion: typeof ev.protocolVersion === 'string' ? ev.protocolVersion : null,
      negotiation: 'undeclared',
      startedAt: index,
      finishedAt: null,
      interrupts: [],
    };
    this.runs.push(report);
    this.current = { report, status: 'active', discipline: new RunDiscipline(sink), asked: null };
    this.rejected = null;
    this.orphan = new RunDiscipline(sink);
    // A replayed run (basic/transports#the-binding-contract) is history: its declaration and its input echo
    // are that run's own, from its own request, so only the requested run's are judged against this input.
    const requestedId = input ? str(input, 'runId') : undefined;
    const replayed = requestedId !== undefined && report.runId !== requestedId;
    report.negotiation = judgeProducer(replayed ? null : sink, this.o.consumerDeclared, this.o.version, ev.protocolVersion, index);
    this.negotiations.push(report.negotiation);
    if (report.protocolVersion !== null) this.someRunDeclared = true;
    this.checkThread(ev, index);
    if (input && isObject(ev.input) && !replayed) this.compareEcho(ev.input, input, index);
  }

  private finished(ev: Ev, index: number, first: boolean): void {
    const { sink } = this.o;
    const run = this.current;
    if (!run) {
      // Without a run there is nothing to finish; a stream that opened this way was already reported.
      if (first) sink.report(LIFECYCLE_RULES.firstEvent, "First event must be 'RUN_STARTED' or 'RUN_ERROR', not 'RUN_FINISHED'", { event: index, path: '/type' });
      return;
    }
    if (run.status !== 'active') {
      sink.report(LIFECYCLE_RULES.afterClose, `The run has already finished with '${run.status === 'finished' ? 'RUN_FINISHED' : 'RUN_ERROR'}': a second terminal event for run ${JSON.stringify(run.report.runId)} is not allowed`, { event: index });
      return;
    }
    run.discipline.finish(index);
    run.status = 'finished';
    run.report.finishedAt = index;
    const runId = str(ev, 'runId');
    if (runId !== undefined && run.report.runId !== null && runId !== run.report.runId) {
      sink.report(IDENTITY_RULES.runIdMismatch, `RUN_FINISHED runId ${JSON.stringify(runId)} differs from its RUN_STARTED runId ${JSON.stringify(run.report.runId)}`, { event: index, path: '/runId' });
    }
    this.checkThread(ev, index);
    const outcome = isObject(ev.outcome) ? ev.outcome : undefined;
    const kind = outcome ? str(outcome, 'type') : undefined;
    if (kind === 'interrupt') {
      run.report.outcome = 'interrupt';
      const given = (Array.isArray(outcome!.interrupts) ? outcome!.interrupts : []).filter(isObject);
      const ids = given.map((i) => str(i, 'id')).filter((i): i is string => i !== undefined);
      run.report.interrupts = ids;
      this.interrupts.set(run.report, new Map(given.filter((i) => typeof i.id === 'string').map((i) => [i.id as string, i])));
      const dup = ids.find((id, i) => ids.indexOf(id) !== i);
      if (dup !== undefined) sink.report(LIFECYCLE_RULES.duplicateInterruptId, `Interrupt id ${JSON.stringify(dup)} appears more than once in run ${JSON.stringify(run.report.runId)}: a resume entry could not tell them apart`, { event: index, path: '/outcome/interrupts' });
    } else {
      run.report.outcome = kind === 'cancelled' ? 'cancelled' : 'success';
      if (run.report.outcome === 'success' && run.asked !== null) {
        sink.report(LIFECYCLE_RULES.askedAsSuccess, `Run ${JSON.stringify(run.report.runId)} said at event ${run.asked} that it stopped to ask (CUSTOM on_interrupt), then finished as success: a consumer reading the outcome sees a completed run with nothing to answer`, { event: index, path: kind === undefined ? null : '/outcome' });
      }
    }
  }

  private errored(ev: Ev, index: number): void {
    const { sink } = this.o;
    const run = this.current;
    const message = preview(ev.message, 120);
    if (run?.status === 'errored') {
      sink.report(LIFECYCLE_RULES.afterClose, `'RUN_ERROR' arrived after run ${JSON.stringify(run.report.runId)} already ended with 'RUN_ERROR'`, { event: index });
      return;
    }
    if (run?.status === 'finished') {
      sink.report(LIFECYCLE_RULES.lateRunError, `A late RUN_ERROR (${message}) after RUN_FINISHED: run ${JSON.stringify(run.report.runId)} is failed after all`, { event: index });
    } else {
      sink.report(LIFECYCLE_RULES.runError, `The producer reported ${run ? `run ${JSON.stringify(run.report.runId)}` : 'a failure before any run began'} failed: ${message}`, { event: index });
    }
    if (!run) {
      // A run that failed before it began: it still has an outcome to report.
      const report: RunReport = { runId: null, threadId: null, parentRunId: null, requested: false, outcome: 'error', protocolVersion: null, negotiation: 'undeclared', startedAt: null, finishedAt: index, interrupts: [] };
      this.runs.push(report);
      this.current = { report, status: 'errored', discipline: new RunDiscipline(sink), asked: null };
      return;
    }
    run.status = 'errored';
    run.report.outcome = 'error';
    run.report.finishedAt = index;
  }

  private checkThread(ev: Ev, index: number): void {
    const input = this.o.input;
    const expected = input ? str(input, 'threadId') : undefined;
    const got = str(ev, 'threadId');
    if (expected !== undefined && got !== undefined && got !== expected) {
      this.o.sink.report(IDENTITY_RULES.threadMismatch, `${ev.type} threadId ${JSON.stringify(got)} differs from the input's threadId ${JSON.stringify(expected)}`, { event: index, path: '/threadId' });
    }
  }

  /**
   * The stream's last run is the one the input asked for; earlier ones are replayed history. A stream the
   * consumer abandoned may have ended before the requested run began: only a run that names it is it.
   */
  private checkRequested(abandoned: boolean): void {
    const last = this.runs.filter((r) => r.startedAt !== null).at(-1);
    if (!last) return;
    const expected = this.o.input ? str(this.o.input, 'runId') : undefined;
    if (abandoned && expected !== undefined && last.runId !== expected) return;
    last.requested = true;
    if (expected === undefined) return;
    if (last.runId !== expected) {
      this.o.sink.report(IDENTITY_RULES.requestedRunId, `The requested run (the stream's last) has runId ${JSON.stringify(last.runId)}, not the input's ${JSON.stringify(expected)}`, { event: last.startedAt, path: '/runId' });
    }
    for (const r of this.runs) {
      if (r !== last && r.runId === expected) {
        this.o.sink.report(IDENTITY_RULES.replayedRunId, `Replayed run at event ${r.startedAt} reuses the input's runId ${JSON.stringify(expected)}; a replayed run carries its own`, { event: r.startedAt, path: '/runId' });
      }
    }
  }

  private compareEcho(echo: JsonObject, sent: JsonObject, index: number): void {
    const { sink } = this.o;
    if (!jsonEqual(echo.forwardedProps, sent.forwardedProps)) {
      sink.report(IDENTITY_RULES.echoAltered, `RUN_STARTED.input.forwardedProps is ${preview(echo.forwardedProps)}, but ${preview(sent.forwardedProps)} was sent: intermediaries must not alter it`, { event: index, path: '/input/forwardedProps' });
    }
    const keys = new Set([...Object.keys(echo), ...Object.keys(sent)]);
    keys.delete('forwardedProps');
    const effective = this.o.effectiveInput;
    const differing = [...keys].filter((k) => !jsonEqual(echo[k], sent[k]) && !(effective && jsonEqual(echo[k], effective[k])));
    if (differing.length) {
      sink.report(IDENTITY_RULES.echoDiffers, `RUN_STARTED.input differs from the input that was sent in ${differing.map((k) => `/${k}`).join(', ')}`, { event: index, path: '/input' });
    }
  }

  /** The state as the consumer holds it now. */
  get currentState(): unknown {
    return this.state.state;
  }
}
