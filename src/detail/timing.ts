/**
 * Where the time of one exchange went, read from when each event arrived: the arrival of the chunk that
 * completed its frame, ms after the request started (CapturedExchange.arrival `chunks`). It is fed by the
 * same pass that analyses the exchange (the analyzer's `onArrival`, `onReceived` and `onItem`, and each chunk
 * as it is pushed). The events that one chunk completed arrived at one time, zero apart: it keeps one entry
 * per arrival time, not per event, in typed arrays, told once per chunk, and the figures that need every gap
 * (percentiles, stalls against a threshold) are worked out from those when they are asked for.
 *
 * A source that recorded only a HAR entry's timings gives time to first byte and duration; the members
 * that need each event's arrival are null. A source that recorded no time at all has no timing.
 */
import type { Ev, InputAnalysis } from '../analyzer/index.ts';
import type { Arrival, Chunk } from '../exchange/index.ts';
import { asString, isObject, type JsonObject } from '../json.ts';
import { declaredTools, toolSide, type ToolSide } from './tool-side.ts';

/** A gap between two events at least this long is a stall, unless the reader is told otherwise (`--stall-ms`). */
export const DEFAULT_STALL_MS = 1000;
/** Events arriving no further apart than this arrived in one burst: one read, one flush of a buffer. */
const BURST_GAP_MS = 10;
/** The farthest a Date reaches from the epoch, ms (ECMA-262 time values): a `timestamp` beyond it is no time, and the differences of those within it stay finite. */
const MAX_DATE_MS = 8.64e15;
/** A burst whose events were produced over at least this long (their `timestamp`s)… */
const HELD_MIN_MS = 500;
/** …and arrived within at most this share of that time was held back on its way. */
const HELD_SHARE = 0.1;

export const SPAN_KINDS = ['run', 'step', 'message', 'tool', 'reasoning', 'subagent'] as const;
export type SpanKind = (typeof SPAN_KINDS)[number];

/** Something that started and ended in the stream, on the exchange's time axis. */
export interface Span {
  id: string;
  name?: string;
  startMs: number;
  /** Null while it is open: it never ended, or has not yet. */
  endMs: number | null;
  /** The frames of the events that opened and closed it, to select them in the Timeline. */
  startEvent: number;
  endEvent: number | null;
  /** The subagent invocation (its subagentRunId) whose work it is; absent for the parent agent's. */
  subagent?: string;
}

export interface ToolSpan extends Span {
  /** Who executes it (toolSide). */
  side: ToolSide;
  /** When TOOL_CALL_END closed its arguments. */
  argsEndMs: number | null;
  /** When its result came in the stream, if it did: then it is `endMs`, the call's whole round trip. */
  resultMs: number | null;
  /** The run it was called in. */
  runId: string | null;
}

export interface Stall {
  /** The frame after which nothing arrived for `ms`. */
  afterEvent: number;
  ms: number;
  /** When that frame arrived: where the stall starts on the time axis. */
  atMs: number;
}

/** What the producer's clock (events' `timestamp`) says against when the events arrived. */
export interface Buffering {
  /** Events produced over `producedOverMs` arrived within `arrivedWithinMs`: something between agent and page held them back. */
  suspected: boolean;
  producedOverMs: number;
  arrivedWithinMs: number;
}

export interface RunUsage {
  runId: string | null;
  /** The run's terminal event's `usage`, as sent: one TokenUsage per provider and model. */
  usage: unknown[];
}

/** A frontend tool call's round trip: from the run that left it pending to the request that carried its result. */
export interface ToolRoundTrip {
  toolCallId: string;
  name?: string;
  /** The run that left it pending. */
  runId: string | null;
  ms: number;
}

/** The `timing` of one exchange (`--format json`, the panel's Waterfall and timing summary). */
export interface Timing {
  /** `chunks`: every member is measured; `entry`: only a HAR entry's timings were recorded, and the per-event members are null. */
  source: 'chunks' | 'entry';
  /** Present when the recorded times could not be when things arrived (chunks dated out of order): why, and the figures that needed them are null. */
  unusableTimes?: string;
  /** Request start → first response byte. */
  ttfbMs: number | null;
  firstEventMs: number | null;
  /** The first text, tool-arguments or reasoning content, chunk events included. */
  firstContentMs: number | null;
  /** Request start → last response byte. */
  durationMs: number | null;
  /** Between consecutive events' arrivals; null with fewer than two events. */
  gaps: { p50: number; p95: number; max: number } | null;
  /** The threshold the stalls were found with. */
  stallMs: number;
  /** Every gap of at least `stallMs`. */
  stalls: Stall[] | null;
  runs: Span[] | null;
  steps: Span[] | null;
  messages: Span[] | null;
  toolCalls: ToolSpan[] | null;
  reasoning: Span[] | null;
  subagents: Span[] | null;
  /** Null when no event carried a `timestamp`. */
  buffering: Buffering | null;
  usage: RunUsage[];
  /** Frontend tool calls of earlier exchanges of the thread whose results this request carries. */
  toolRoundTrips: ToolRoundTrip[];
}

/** The spans of every kind, as the Timing lists them. */
export function spansOf(t: Timing, kind: SpanKind): Span[] {
  return (kind === 'run' ? t.runs : kind === 'step' ? t.steps : kind === 'message' ? t.messages : kind === 'tool' ? t.toolCalls : kind === 'reasoning' ? t.reasoning : t.subagents) ?? [];
}

/**
 * The `k`th smallest of `xs[lo..hi]`, moving smaller values before it and larger after (Hoare's
 * selection): percentiles of every gap in linear time, where sorting them would cost the most of all.
 */
function select(xs: Float64Array, lo: number, hi: number, k: number): number {
  while (hi > lo) {
    const pivot = xs[(lo + hi) >>> 1]!;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (xs[i]! < pivot) i++;
      while (xs[j]! > pivot) j--;
      if (i <= j) {
        const t = xs[i]!;
        xs[i++] = xs[j]!;
        xs[j--] = t;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else break;
  }
  return xs[k]!;
}

/** One burst of timestamped events: when the first and last of them were produced and arrived. */
interface Burst {
  producedFrom: number;
  producedTo: number;
  arrivedFrom: number;
  arrivedTo: number;
}

export interface TimingOptions {
  arrival: Arrival;
  stallMs?: number;
  /** The session's frontend tool calls left pending, which this exchange's input may answer and its runs may leave. */
  thread?: ThreadTiming;
  /** When the request was sent, ms since epoch: the round trips are measured across exchanges with it. */
  sentAt?: number;
}

/** The timing of one exchange as its analysis goes; `hooks` go to the analyzer, `chunk` sees every chunk pushed. */
export class TimingReading {
  /** Each arrival time, in order, and the last frame that arrived at it. */
  private times = new Float64Array(256);
  private lastFrames = new Int32Array(256);
  private arrivals = 0;
  /** Events enforced so far. */
  private n = 0;
  private ttfb: number | null = null;
  private lastByte: number | null = null;
  private firstContent: number | null = null;
  /** When the frame being handled arrived: the time of the events its expansion emits. */
  private now = 0;
  private readonly lists: Record<SpanKind, Span[]> = { run: [], step: [], message: [], tool: [], reasoning: [], subagent: [] };
  private readonly open: Record<Exclude<SpanKind, 'run'>, Map<string, Span>> = { step: new Map(), message: new Map(), tool: new Map(), reasoning: new Map(), subagent: new Map() };
  /** Subagents seen only through their work's attribution: their span runs from its first event to its last. */
  private readonly unannounced = new Map<string, Span>();
  /** Every subagent with a span, announced or not: an event of one that has ended adds nothing. */
  private readonly subagentIds = new Set<string>();
  private run: Span | null = null;
  private readonly usage: RunUsage[] = [];
  private declared = new Map<string, JsonObject>();
  private toolRoundTrips: ToolRoundTrip[] = [];
  private readonly stallMs: number;
  private burst: Burst | null = null;
  private held: Burst | null = null;
  private stamped: Burst | null = null;
  private ended = false;

  constructor(private readonly o: TimingOptions) {
    this.stallMs = o.stallMs ?? DEFAULT_STALL_MS;
  }

  /** The chunks as they are read, each seen on its way to the analyzer. */
  *tap(chunks: Iterable<Chunk>): Generator<Chunk> {
    for (const c of chunks) {
      this.chunk(c.time, c.bytes.length);
      yield c;
    }
  }

  /** The exchange ended: the frontend calls its runs left without a result wait for a later request of the thread. */
  end(): void {
    this.ended = true;
    this.o.thread?.ended(this, this.o.sentAt);
  }

  /** A chunk of `size` bytes arrived at `time`. */
  chunk(time: number, size: number): void {
    if (size === 0) return;
    this.ttfb ??= time;
    this.lastByte = time;
  }

  readonly hooks = {
    /** Which tools the input declares (a tool call's side), and which pending calls it answers. */
    onInput: (input: Pick<InputAnalysis, 'value'>): void => {
      this.declared = declaredTools(input.value);
      this.toolRoundTrips = this.o.thread?.answered(input.value, this.o.sentAt) ?? [];
    },
    /** Once per chunk: the frames enforced since the last call arrived at the time before this one. */
    onArrival: (time: number, enforced: number, latest: number): void => {
      if (enforced > this.n) this.arrived(enforced, latest);
      if (time === this.now) return;
      const a = this.arrivals;
      if (a > 0 && time - this.times[a - 1]! > BURST_GAP_MS) this.burst = null;
      this.now = time;
    },
    onReceived: (received: unknown): void => {
      if (isObject(received) && typeof received.timestamp === 'number' && Math.abs(received.timestamp) <= MAX_DATE_MS) this.stamp(received.timestamp, this.now);
    },
    // Content deltas, most events, can only tell when the content began: the analyzer hands over the first
    // of them and none after. A subagent's are inside a message or call whose start and end carry its
    // attribution too, so they need no look for it.
    onItem: (ev: Ev, index: number, content: boolean): void => {
      if (content) this.firstContent ??= this.now;
      else this.event(ev, index);
    },
  };

  /** Events up to `enforced` in all, the latest frame `latest`, arrived at `now`: one entry per arrival time. */
  private arrived(enforced: number, latest: number): void {
    this.n = enforced;
    const a = this.arrivals;
    if (a > 0 && this.times[a - 1] === this.now) {
      this.lastFrames[a - 1] = latest;
      return;
    }
    if (a === this.times.length) {
      const times = new Float64Array(a * 2);
      times.set(this.times);
      this.times = times;
      const lastFrames = new Int32Array(a * 2);
      lastFrames.set(this.lastFrames);
      this.lastFrames = lastFrames;
    }
    this.times[a] = this.now;
    this.lastFrames[a] = latest;
    this.arrivals = a + 1;
  }

  /** Follows the producer's clock against the arrivals: over the whole stream, and within each burst. */
  private stamp(produced: number, arrived: number): void {
    const whole = (this.stamped ??= { producedFrom: produced, producedTo: produced, arrivedFrom: arrived, arrivedTo: arrived });
    whole.producedFrom = Math.min(whole.producedFrom, produced);
    whole.producedTo = Math.max(whole.producedTo, produced);
    whole.arrivedTo = arrived;
    const b = (this.burst ??= { producedFrom: produced, producedTo: produced, arrivedFrom: arrived, arrivedTo: arrived });
    b.producedFrom = Math.min(b.producedFrom, produced);
    b.producedTo = Math.max(b.producedTo, produced);
    b.arrivedTo = arrived;
    if (!this.held || b.producedTo - b.producedFrom > this.held.producedTo - this.held.producedFrom) this.held = b;
  }

  /** `open` keeps it findable by id until it closes; a run is closed by the next boundary instead. Each kind's list and map are named where it is called: loads keyed by a kind would see them all. */
  private openSpan(list: Span[], open: Map<string, Span> | null, id: string, index: number, owner: string | undefined, name?: string): Span {
    const s: Span = { id, startMs: this.now, endMs: null, startEvent: index, endEvent: null };
    if (name !== undefined) s.name = name;
    if (owner !== undefined) s.subagent = owner;
    list.push(s);
    open?.set(id, s);
    return s;
  }

  private close(s: Span | undefined, index: number): void {
    if (!s || s.endMs !== null) return;
    s.endMs = this.now;
    s.endEvent = index;
  }

  private closeOpen(open: Map<string, Span>, id: string | undefined, index: number): void {
    if (id === undefined) return;
    this.close(open.get(id), index);
    open.delete(id);
  }

  /** An event other than a content delta: it may open or close a span. */
  private event(ev: Ev, index: number): void {
    const owner = asString(ev.subagentRunId);
    switch (ev.type) {
      case 'RUN_STARTED':
        this.close(this.run ?? undefined, index);
        this.run = this.openSpan(this.lists.run, null, asString(ev.runId) ?? '', index, owner);
        break;
      case 'RUN_FINISHED':
      case 'RUN_ERROR':
        if (Array.isArray(ev.usage)) this.usage.push({ runId: this.run?.id ?? asString(ev.runId) ?? null, usage: ev.usage });
        this.close(this.run ?? undefined, index);
        this.run = null;
        break;
      case 'STEP_STARTED': {
        const name = asString(ev.stepName) ?? '';
        this.openSpan(this.lists.step, this.open.step, name, index, owner, name);
        break;
      }
      case 'STEP_FINISHED':
        this.closeOpen(this.open.step, asString(ev.stepName), index);
        break;
      case 'TEXT_MESSAGE_START':
        this.openSpan(this.lists.message, this.open.message, asString(ev.messageId) ?? '', index, owner, asString(ev.role));
        break;
      case 'TEXT_MESSAGE_END':
        this.closeOpen(this.open.message, asString(ev.messageId), index);
        break;
      case 'TOOL_CALL_START': {
        const name = asString(ev.toolCallName);
        const s = this.openSpan(this.lists.tool, this.open.tool, asString(ev.toolCallId) ?? '', index, owner, name) as ToolSpan;
        s.side = toolSide(name !== undefined && this.declared.has(name), false);
        s.argsEndMs = null;
        s.resultMs = null;
        s.runId = this.run ? this.run.id : null;
        break;
      }
      case 'TOOL_CALL_END': {
        const s = this.open.tool.get(asString(ev.toolCallId) ?? '') as ToolSpan | undefined;
        if (s && s.argsEndMs === null) {
          s.argsEndMs = this.now;
          this.close(s, index);
        }
        break;
      }
      case 'TOOL_CALL_RESULT': {
        const id = asString(ev.toolCallId);
        const s = (id === undefined ? undefined : this.open.tool.get(id)) as ToolSpan | undefined;
        if (s && s.resultMs === null) {
          s.side = toolSide(s.side === 'frontend', true);
          s.resultMs = this.now;
          s.endMs = this.now;
          s.endEvent = index;
          this.open.tool.delete(id!);
        }
        break;
      }
      case 'REASONING_START':
        this.openSpan(this.lists.reasoning, this.open.reasoning, asString(ev.messageId) ?? '', index, owner);
        break;
      case 'REASONING_END':
        this.closeOpen(this.open.reasoning, asString(ev.messageId), index);
        break;
      case 'SUBAGENT_STARTED': {
        const id = owner ?? '';
        this.unannounced.delete(id);
        this.subagentIds.add(id);
        this.openSpan(this.lists.subagent, this.open.subagent, id, index, undefined, asString(ev.name));
        return;
      }
      case 'SUBAGENT_FINISHED':
      case 'SUBAGENT_ERROR':
        this.closeOpen(this.open.subagent, owner, index);
        return;
    }
    if (owner !== undefined) this.attributed(owner, index);
  }

  /** An event of a subagent that was never announced stretches that subagent's span to it. */
  private attributed(owner: string, index: number): void {
    if (this.open.subagent.has(owner)) return;
    let s = this.unannounced.get(owner);
    if (!s) {
      if (this.subagentIds.has(owner)) return;
      s = { id: owner, startMs: this.now, endMs: this.now, startEvent: index, endEvent: index };
      this.lists.subagent.push(s);
      this.unannounced.set(owner, s);
      this.subagentIds.add(owner);
    }
    s.endMs = this.now;
    s.endEvent = index;
  }

  /** The frontend tool calls left without a result: what a later request of the thread may answer. */
  pendingTools(): ToolSpan[] {
    return (this.lists.tool as ToolSpan[]).filter((s) => s.side === 'frontend' && s.resultMs === null);
  }

  /** The `firstContentMs` of `timing()`, as of now, without building the rest: the exchange list's TTFT column. */
  firstContentMs(): number | null {
    return this.o.arrival === 'chunks' ? this.firstContent : null;
  }

  /** The tool spans as they stand, shared, not copied: for the Tools view's durations. */
  toolSpans(): readonly ToolSpan[] {
    return this.lists.tool as ToolSpan[];
  }

  /** When the run `runId` ended, or null (open, or unknown). */
  runEnd(runId: string | null): number | null {
    return this.lists.run.find((r) => r.id === runId)?.endMs ?? null;
  }

  timing(): Timing {
    const arrival = this.o.arrival;
    const base = { stallMs: this.stallMs, usage: this.usage.map((u) => ({ ...u })), toolRoundTrips: this.toolRoundTrips.map((r) => ({ ...r })) };
    if (arrival !== 'chunks') {
      return {
        source: 'entry', ttfbMs: arrival.ttfbMs, firstEventMs: null, firstContentMs: null, durationMs: arrival.durationMs, gaps: null, stalls: null,
        runs: null, steps: null, messages: null, toolCalls: null, reasoning: null, subagents: null, buffering: null, ...base,
        ...(arrival.unusableTimes !== undefined ? { unusableTimes: arrival.unusableTimes } : {}),
      };
    }
    // Spans still change while the stream is open: a reader then gets copies. Once it ended they are final,
    // and a hundred thousand-event exchange's thousands of them are handed over as they are.
    const copy = (kind: SpanKind) => (this.ended ? this.lists[kind] : this.lists[kind].map((s) => ({ ...s })));
    return {
      source: 'chunks',
      ttfbMs: this.ttfb,
      firstEventMs: this.arrivals > 0 ? this.times[0]! : null,
      firstContentMs: this.firstContentMs(),
      durationMs: this.lastByte,
      ...this.gapFigures(),
      runs: copy('run'), steps: copy('step'), messages: copy('message'), toolCalls: copy('tool') as ToolSpan[], reasoning: copy('reasoning'), subagents: copy('subagent'),
      buffering: this.buffering(),
      ...base,
    };
  }

  /**
   * Of the n − 1 gaps between consecutive events, all but those between arrival times are zero: the
   * percentiles are ranks in that many zeros merged with the gaps between times, found by selection
   * (linear time, where sorting every gap would cost the most of all). A zero gap is no stall.
   */
  private gapFigures(): Pick<Timing, 'gaps' | 'stalls'> {
    const n = this.n;
    const stalls: Stall[] = [];
    if (n < 2) return { gaps: null, stalls };
    const a = this.arrivals;
    const times = this.times;
    const between = new Float64Array(a - 1);
    let negative = 0;
    let max = a < n ? 0 : -Infinity;
    for (let i = 1; i < a; i++) {
      const gap = times[i]! - times[i - 1]!;
      between[i - 1] = gap;
      if (gap < 0) negative++;
      if (gap > max) max = gap;
      if (gap >= this.stallMs && gap > 0) stalls.push({ afterEvent: this.lastFrames[i - 1]!, ms: gap, atMs: times[i - 1]! });
    }
    const zeros = n - a;
    const count = n - 1;
    // The gap of rank k among all: the negative ones first, then the zeros, then the positive ones.
    const ranked = (p: number): number => {
      const k = Math.min(count - 1, Math.max(0, Math.ceil(p * count) - 1));
      if (k < negative) return select(between, 0, between.length - 1, k);
      if (k < negative + zeros) return 0;
      return select(between, 0, between.length - 1, k - zeros);
    };
    return { gaps: { p50: ranked(0.5), p95: ranked(0.95), max }, stalls };
  }

  private buffering(): Buffering | null {
    const whole = this.stamped;
    if (!whole) return null;
    const held = this.held!;
    const producedOverMs = held.producedTo - held.producedFrom;
    const arrivedWithinMs = held.arrivedTo - held.arrivedFrom;
    if (producedOverMs >= HELD_MIN_MS && arrivedWithinMs <= producedOverMs * HELD_SHARE) return { suspected: true, producedOverMs, arrivedWithinMs };
    return { suspected: false, producedOverMs: whole.producedTo - whole.producedFrom, arrivedWithinMs: whole.arrivedTo - whole.arrivedFrom };
  }
}

/**
 * The frontend tool calls a thread's runs left pending, by id, and when (ms since epoch): the request that
 * carries a result for one closes its round trip. One per session, like the ThreadTracker beside it.
 */
export class ThreadTiming {
  private readonly pending = new Map<string, { at: number; runId: string | null; name?: string }>();

  /** The round trips the input closes: each tool message answering a call left pending earlier. */
  answered(input: JsonObject | null, sentAt: number | undefined): ToolRoundTrip[] {
    const messages = input?.messages;
    if (sentAt === undefined || !Array.isArray(messages)) return [];
    const out: ToolRoundTrip[] = [];
    for (const m of messages) {
      if (!isObject(m) || m.role !== 'tool' || typeof m.toolCallId !== 'string') continue;
      const p = this.pending.get(m.toolCallId);
      if (!p) continue;
      this.pending.delete(m.toolCallId);
      out.push({ toolCallId: m.toolCallId, ...(p.name !== undefined ? { name: p.name } : {}), runId: p.runId, ms: Math.max(0, sentAt - p.at) });
    }
    return out;
  }

  /** An exchange sent at `sentAt` ended: its frontend calls without a result wait from the end of their run. */
  ended(t: TimingReading, sentAt: number | undefined): void {
    if (sentAt === undefined) return;
    for (const s of t.pendingTools()) {
      const at = t.runEnd(s.runId) ?? s.endMs ?? s.startMs;
      this.pending.set(s.id, { at: sentAt + at, runId: s.runId, ...(s.name !== undefined ? { name: s.name } : {}) });
    }
  }
}
