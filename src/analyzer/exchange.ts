import { isObject } from '../json.ts';
import type { Finding, ProtocolVersion } from '../rules/index.ts';
import { enforce, enforcementFindings, SCHEMA_RULES } from '../schema/index.ts';
import type { Enforcement } from '../schema/index.ts';
import { createDecoder, TRANSPORT_RULES } from '../wire/index.ts';
import type { WireItem } from '../wire/index.ts';
import type { Ev } from './event.ts';
import { analyzeInput, type InputAnalysis } from './input.ts';
import { pre10ReadinessOnly, splitReadiness, withoutPre10Nulls } from './era.ts';
import { consumerDeclaration } from './negotiation.ts';
import { FindingSink } from './sink.ts';
import type { StateStep } from './state.ts';
import type { ConsumerModel } from './consumer.ts';
import { Verifier } from './runs.ts';
import type { ThreadTracker } from './thread.ts';
import type { Era, EventRecord, ExchangeOptions, ExchangeReport, NegotiationVerdict, PendingInterrupt } from './types.ts';
import { HTTP_RULES } from './http.ts';
import { reportWebSocket } from './binding.ts';
import type { SocketExchange } from '../exchange/index.ts';

export interface ExchangeAnalyzerOptions extends ExchangeOptions {
  /** HTTP status of the response, when known; an error status means the producer rejected the input. */
  status?: number;
  /**
   * The exchange ran on a WebSocket (CapturedExchange.socket): a custom binding, to which HTTP's rules do not
   * apply. `cutBy` is read at `end()`: a live socket's close is known only then.
   */
  websocket?: Pick<SocketExchange, 'cutBy'>;
  /** Cross-exchange state of the session this exchange belongs to (resume coverage). */
  thread?: ThreadTracker;
  /** When the request was sent (ms since epoch): interrupt expiry is judged against it. */
  sentAt?: number;
  onState?: (step: StateStep) => void;
  /** The input as judged, once, before any of the response is. */
  onInput?: (input: InputAnalysis) => void;
  /** Each decoded frame's enforcement, the one its findings come from, with the value as received and when the chunk completing it arrived. */
  onEnforced?: (index: number, enforcement: Enforcement, received: unknown, time: number) => void;
  /**
   * Each decoded event as received, before it is enforced: for a reader that needs only what the producer
   * said of it (the timing reads its `timestamp`). Unlike `onEnforced`, it leaves a valid event's fast path.
   */
  onReceived?: (received: unknown) => void;
  /**
   * Before and after each push, and the end: how many frames were enforced so far and the index of the
   * latest, and that the frames handled next arrive at `time` (their chunk's). A reader that needs only when
   * the events arrived (the timing) learns it once per chunk, where `onEnforced` would be once per event.
   */
  onArrival?: (time: number, enforced: number, latest: number) => void;
  /** Each event the consumer handles, after chunk expansion (Verifier's `onEmit`). */
  onEmit?: (ev: Ev, index: number, own: boolean) => void;
  /** Of those, the ones that begin, end or stand for an item, and the first content delta (Verifier's `onItem`). */
  onItem?: (ev: Ev, index: number, content: boolean) => void;
  /** Whether the conversation notes its changes for the views (ConsumerModelOptions.noteChanges); a report reads none. */
  noteChanges?: boolean;
  /** Whether the conversation holds streamed text as text (ConsumerModelOptions.keepText); a report needs only its digest. */
  keepText?: boolean;
}

/** Bytes handed to the decoder at a time; chunks from a network are smaller already. */
const SLICE = 64 * 1024;

/**
 * The whole pipeline for one request/response pair, incremental over the response's chunks:
 * wire decoding → enforcement → chunk expansion → verification. Findings are available at any
 * moment; memory grows with what is open (runs, items, state), not with the number of events.
 */
export class ExchangeAnalyzer {
  readonly input: InputAnalysis;
  readonly version: ProtocolVersion;
  /** What the input's resume list answers, as its thread stood when the input was judged (ThreadTracker.pendingOf). */
  readonly pending: PendingInterrupt[] | null;
  private readonly sink: FindingSink;
  private readonly decoder;
  private readonly verifier: Verifier;
  private index = 0;
  /** Frames enforced so far, and the index of the latest (`onArrival`). */
  private enforced = 0;
  private latest = -1;
  private ended = false;
  private readonly rejected: boolean;

  constructor(private readonly o: ExchangeAnalyzerOptions) {
    const thread = o.thread;
    this.input = analyzeInput(o.requestBody, o.as, thread && ((sink, input) => thread.checkInput(sink, input, o.sentAt ?? Date.now())));
    this.version = this.input.version;
    const threadId = this.input.value?.threadId;
    this.pending = thread && typeof threadId === 'string' ? thread.pendingOf(threadId) : null;
    o.onInput?.(this.input);
    this.sink = new FindingSink(this.version);
    this.decoder = createDecoder(o.contentType);
    this.verifier = new Verifier({
      sink: this.sink,
      version: this.version,
      input: this.input.value,
      effectiveInput: this.input.effective,
      consumerDeclared: consumerDeclaration(this.input.value),
      onState: o.onState,
      onEmit: o.onEmit,
      onItem: o.onItem,
      noteChanges: o.noteChanges,
      keepText: o.keepText,
      pre10: () => this.o.as === undefined && this.input.declared === null && !this.verifier.someRunDeclared,
    });
    // A socket's upgrade status (101) answers the handshake, not the input (basic/transports#custom-transports).
    this.rejected = !o.websocket && o.status !== undefined && (o.status < 200 || o.status >= 300);
    if (this.rejected) {
      this.sink.report(HTTP_RULES.httpStatus, `The agent answered HTTP ${o.status}: the input was rejected before any run started${this.input.verdict === 'invalid' ? ' (as it must be: the input is malformed)' : ''}`);
    }
  }

  /** Keeps nothing of `chunk` (the decoders copy what they hold), so a reader may reuse its buffer. */
  push(chunk: Uint8Array, time: number): void {
    // The loop of `pushing` without its pause per frame: a body read from a file has a hundred thousand of them.
    if (this.ended || this.rejected) return;
    this.o.onArrival?.(time, this.enforced, this.latest);
    for (let at = 0; at < chunk.length; at += SLICE) for (const item of this.decoder.push(chunk.subarray(at, at + SLICE), time)) this.item(item);
    this.o.onArrival?.(time, this.enforced, this.latest);
  }

  /**
   * `push`, pausing after each frame: a caller that must stay responsive (the extension's worker)
   * resumes it when it has time, and the result is the same as pushing in one go.
   */
  *pushing(chunk: Uint8Array, time: number): Generator<void, void> {
    if (this.ended || this.rejected) return;
    this.o.onArrival?.(time, this.enforced, this.latest);
    // A body read whole (a file) is fed in slices: each slice's events are judged and let go while
    // young, instead of every event of the body being decoded, held and promoted before the first is judged.
    for (let at = 0; at < chunk.length; at += SLICE) {
      for (const item of this.decoder.push(chunk.subarray(at, at + SLICE), time)) {
        this.item(item);
        yield;
      }
    }
    this.o.onArrival?.(time, this.enforced, this.latest);
  }

  /** The body ended; `abandoned` when the consumer itself aborted it or stopped reading (not the producer's doing). */
  end(time: number, abandoned = false): void {
    if (this.ended) return;
    this.ended = true;
    if (this.rejected) return;
    if (this.o.websocket) reportWebSocket(this.sink, this.o.websocket.cutBy);
    this.o.onArrival?.(time, this.enforced, this.latest);
    for (const item of this.decoder.end(time)) this.item(item);
    this.o.onArrival?.(time, this.enforced, this.latest);
    this.verifier.end(abandoned);
    const threadId = this.input.value?.threadId;
    if (this.o.thread && typeof threadId === 'string') this.o.thread.record(threadId, this.verifier.runs, (r) => this.verifier.interrupts.get(r) ?? new Map());
  }

  private item(item: WireItem): void {
    const index = item.kind === 'event' || item.frame ? this.index++ : null;
    if (index !== null && this.o.onEvent) {
      const value = item.kind === 'event' ? item.value : undefined;
      const type = isObject(value) && typeof value.type === 'string' ? value.type : item.kind === 'problem' ? '(undecodable)' : '(not an event)';
      const record: EventRecord = { index, type, offset: item.offset, size: item.size, time: item.time, raw: item.raw ?? '', value };
      this.o.onEvent(record);
    }
    if (item.kind === 'problem') {
      // An invalid-UTF-8 note is no frame of its own: it follows the frame whose bytes it is about (wire/frame.ts).
      const about = index ?? (item.rule === TRANSPORT_RULES.invalidUtf8 ? this.index - 1 : null);
      this.sink.report(item.rule, item.message, { event: about });
      return;
    }
    this.o.onReceived?.(item.value);
    // The usual event, valid as received, needs no enforcement result unless a caller keeps it: no finding,
    // no pre-1.0 reading (it matters only for findings and for a malformed event), straight to the verifier.
    if (this.o.onEnforced === undefined && enforce.valid(item.value, this.version)) {
      this.enforced++;
      this.latest = index!;
      this.verifier.handle(item.value as Ev, index!);
      return;
    }
    const result = enforce.event(item.value, this.version);
    const pre10 = this.mayBePre10(item.value);
    const legacy = pre10 ? withoutPre10Nulls(item.value) : null;
    if (result.verdict !== 'ok' || result.stripped.length > 0) {
      for (const f of enforcementFindings(result, this.version, index)) {
        this.sink.add(f, result.verdict === 'fatal' && f.rule === SCHEMA_RULES.malformed.id, pre10 && pre10ReadinessOnly(f, item.value, legacy?.paths ?? []));
      }
    }
    this.enforced++;
    this.latest = index!;
    this.o.onEnforced?.(index!, result, item.value, item.time);
    // The 1.0 reading loses an event its nulls make malformed; a pre-1.0 client reads it with them absent.
    const judged = legacy && result.verdict === 'fatal' ? enforce.event(legacy.event, this.version) : result;
    if (judged.verdict === 'ok' && isObject(judged.value)) this.verifier.handle(judged.value as Ev, index!);
    else if (judged.verdict === 'fatal' && isObject(item.value) && (item.value.type === 'RUN_FINISHED' || item.value.type === 'RUN_ERROR')) this.verifier.rejectedTerminal(item.value.type, index!);
  }

  /** Whether the exchange can still turn out pre-1.0 (report's era) with this event: nothing declared a version so far. */
  private mayBePre10(event: unknown): boolean {
    if (this.o.as !== undefined || this.input.declared !== null) return false;
    return !(isObject(event) && event.protocolVersion !== undefined) && !this.verifier.someRunDeclared;
  }

  /** The report as of now: final after `end()`, live before it. */
  report(): ExchangeReport {
    const runs = this.verifier.runs.map((r) => ({ ...r }));
    const requested = runs.filter((r) => r.startedAt !== null).at(-1);
    // Which run was requested is settled at the end (the stream's last to start, Verifier.checkRequested);
    // until then a live report takes the last so far for it, or every view would show a live stream's
    // requested run as a replayed one carrying the input's runId.
    if (!this.ended && requested) requested.requested = true;
    const producer = requested?.protocolVersion ?? null;
    const verdicts = this.verifier.negotiations;
    const negotiation: NegotiationVerdict = verdicts.at(-1) ?? 'undeclared';
    const era: Era = this.input.declared === null && !this.verifier.someRunDeclared ? 'pre-1.0' : '1.x';
    const input = { present: this.input.present, verdict: this.input.verdict, findings: this.input.findings };
    const findings: Finding[] = this.sink.list();
    const verdict = this.sink.fatal || this.input.verdict === 'invalid' ? 'failed' : 'completed';
    const base = {
      source: this.o.source, era, consumerVersion: this.version, negotiation: { consumer: this.input.declared, producer, verdict: negotiation }, runs,
      ...(this.o.websocket ? { transport: 'websocket' as const } : {}),
    };
    // `--as` asks for one version's reading: no split.
    if (era === '1.x' || this.o.as !== undefined) return { ...base, input, verdict, readiness: null, findings };
    const pre = splitReadiness(findings, this.sink.fatalRules, this.sink.pre10Readiness);
    const preInput = splitReadiness(input.findings, this.input.fatalRules, this.input.pre10Readiness);
    return {
      ...base,
      input: { ...input, verdict: preInput.fatal ? 'invalid' : 'valid', findings: preInput.findings },
      verdict: pre.fatal || preInput.fatal ? 'failed' : 'completed',
      readiness: { verdict },
      findings: pre.findings,
    };
  }

  get eventCount(): number {
    return this.index;
  }

  get state(): unknown {
    return this.verifier.currentState;
  }

  /** The conversation the consumer holds, as of now. */
  get consumer(): ConsumerModel {
    return this.verifier.consumer;
  }
}
