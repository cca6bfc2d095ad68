/**
 * The two places a session comes from: the background worker capturing a tab (`LiveSource`) and a file
 * read with the CLI's readers (`FileSource`). Both hand the panel the same `SessionState`; a file shown
 * while the panel inspects a tab can answer that tab (`overriding`), its recording sent with the request.
 */
import browser, { type Runtime } from 'webextension-polyfill';
import type { ConvDiff, ConvMessage, DetailPart, ExchangeDetail, Overview, StateDiff } from '../src/detail/index.ts';
import { bytesOnlyAnalysis, sentAtOf, type CapturedExchange, type SocketView } from '../src/exchange/index.ts';
import { toBase64 } from '../src/base64.ts';
import {
  MAX_RECORDED_BYTES, PANEL_PORT, noneUnsaved,
  type ExchangeView, type PanelToWorker, type RecordedAnswer, type Reply, type Request, type SessionStats, type WorkerToPanel,
} from '../src/messages.ts';
import type { ExchangeMeta, ExchangeSet, ImportMessage } from './files.ts';
import { unpackEvents } from './transfer.ts';
import { startImport, type ImportJob } from './jobs.ts';
import type { Acts, ArmOptions, Overriding, PanelExchange, SessionOverview, SessionSource, SessionState } from './model.ts';

type Listener = (state: SessionState) => void;

/** Coalesces bursts of updates (the worker posts as soon as it has analysed a batch, an import at most every 40 ms) into one render per frame. */
class Emitter {
  private listeners = new Set<Listener>();
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly current: () => SessionState) {}

  subscribe(l: Listener): () => void {
    this.listeners.add(l);
    l(this.current());
    return () => this.listeners.delete(l);
  }

  now(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const s = this.current();
    for (const l of this.listeners) l(s);
  }

  soon(): void {
    this.timer ??= setTimeout(() => this.now(), 16);
  }

  stop(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.listeners.clear();
  }
}

function fromView(v: ExchangeView, into?: PanelExchange): PanelExchange {
  const x: PanelExchange = into ?? {
    id: v.id, url: v.url, method: v.method, startedAt: v.startedAt, endedAt: null, outcome: 'pending', error: null,
    status: null, contentType: null, requestBody: null, requestNote: null, report: null, firstContentMs: null, analysisError: null,
    capped: false, events: [], chunks: null, rev: 0,
  };
  x.url = v.url;
  x.method = v.method;
  x.startedAt = v.startedAt;
  x.endedAt = v.endedAt;
  x.outcome = v.outcome;
  x.error = v.error;
  x.status = v.response?.status ?? null;
  x.contentType = v.response?.contentType ?? null;
  x.requestBody = v.request.body;
  x.requestNote = v.request.note;
  x.report = v.report;
  x.firstContentMs = v.firstContentMs;
  x.analysisError = v.analysisError;
  x.capped = v.capped;
  if (v.resentFrom !== undefined) x.resentFrom = v.resentFrom;
  if (v.override !== undefined) x.override = v.override;
  if (v.api === 'websocket') x.transport = 'websocket';
  x.rev++;
  return x;
}

/** The inspected tab's capture, from the worker: a snapshot on subscribe, then changes as they happen. */
export class LiveSource implements SessionSource {
  readonly kind = 'live';
  private port: Runtime.Port | null = null;
  private byId = new Map<string, PanelExchange>();
  private order: PanelExchange[] = [];
  private state: Omit<SessionState, 'exchanges'> = { status: 'connecting', label: '', stats: null, preserve: false, recording: true, progress: null, error: null };
  private readonly emitter = new Emitter(() => ({ ...this.state, exchanges: this.order.slice() }));
  private closed = false;
  private retry = 0;

  constructor(private readonly tabId: number) {
    this.connect();
  }

  subscribe(l: Listener): () => void {
    return this.emitter.subscribe(l);
  }

  private connect(): void {
    const port = browser.runtime.connect({ name: PANEL_PORT });
    this.port = port;
    port.onMessage.addListener((m: unknown) => this.receive(m as WorkerToPanel));
    port.onDisconnect.addListener(() => {
      if (this.closed || this.port !== port) return;
      this.port = null;
      this.state.status = 'disconnected';
      this.emitter.now();
      // The worker was stopped or restarted: its restored session arrives as a fresh snapshot.
      setTimeout(() => !this.closed && this.connect(), Math.min(2000, 100 * 2 ** this.retry++));
    });
    const subscribe: PanelToWorker = { type: 'subscribe', tabId: this.tabId };
    port.postMessage(subscribe);
  }

  private receive(m: WorkerToPanel): void {
    switch (m.type) {
      case 'snapshot': {
        this.retry = 0;
        this.byId = new Map();
        this.order = [];
        for (const v of m.session.exchanges) {
          const x = fromView(v);
          x.events = v.events;
          this.byId.set(x.id, x);
          this.order.push(x);
        }
        this.state = { ...this.state, status: 'live', label: m.session.url, stats: m.session.stats, preserve: m.session.preserve, recording: m.session.recording };
        this.emitter.now();
        return;
      }
      case 'exchange': {
        const known = this.byId.get(m.exchange.id);
        if (known) fromView(m.exchange, known);
        else {
          const x = fromView(m.exchange);
          this.byId.set(x.id, x);
          this.order.push(x);
        }
        break;
      }
      case 'events': {
        const x = this.byId.get(m.exchangeId);
        if (!x) return;
        for (const e of m.events) x.events.push(e);
        x.rev++;
        break;
      }
      case 'stats':
        this.state.stats = m.stats;
        break;
      case 'override':
        this.state.override = m.override;
        break;
    }
    this.emitter.soon();
  }

  /** The worker stops recording what begins while paused; the panel shows the switch at once. */
  setRecording(on: boolean): void {
    this.state.recording = on;
    this.emitter.now();
    void request({ type: 'agui-inspector/record', tabId: this.tabId, record: on });
  }

  async clear(): Promise<void> {
    await request({ type: 'agui-inspector/clear', tabId: this.tabId });
  }

  async setPreserve(on: boolean): Promise<void> {
    await request({ type: 'agui-inspector/preserve', tabId: this.tabId, preserve: on });
    this.state.preserve = on;
    this.emitter.now();
  }

  /** The worker holds the exact bytes; it exports just the chosen exchanges, named by their ids. */
  async captured(ids: string[]): Promise<ExchangeSet> {
    const wanted = new Set(ids);
    const exchangeIds = this.order.filter((x) => wanted.has(x.id)).map((x) => x.id);
    const har = await request({ type: 'agui-inspector/export', tabId: this.tabId, exchangeIds });
    // Typed is not checked: a worker of another build could still answer otherwise.
    if (typeof har !== 'string') throw new Error('the background worker did not answer with a HAR');
    return { har, count: exchangeIds.length };
  }

  detail<K extends DetailPart>(x: PanelExchange, part: K): Promise<ExchangeDetail[K] | null> {
    // The worker answers the part asked for; the map types the union of parts.
    return request({ type: 'agui-inspector/detail', tabId: this.tabId, exchangeId: x.id, part }) as Promise<ExchangeDetail[K] | null>;
  }

  stateAt(x: PanelExchange, step: number): Promise<{ state: unknown } | null> {
    return request({ type: 'agui-inspector/state-at', tabId: this.tabId, exchangeId: x.id, step });
  }

  overview(): Promise<SessionOverview | null> {
    return request({ type: 'agui-inspector/overview', tabId: this.tabId });
  }

  socket(x: PanelExchange): Promise<SocketView | null> {
    return request({ type: 'agui-inspector/socket', tabId: this.tabId, exchangeId: x.id });
  }

  readonly acts: Acts = {
    check: (body) => request({ type: 'agui-inspector/check-input', tabId: this.tabId, body }),
    headers: (x) => request({ type: 'agui-inspector/resend-headers', tabId: this.tabId, exchangeId: x.id }),
    send: (x, body, reuse) => request({ type: 'agui-inspector/resend', tabId: this.tabId, exchangeId: x.id, body, reuse }),
  };

  readonly overriding: Overriding = {
    arm: (x, o) => request({ type: 'agui-inspector/override-arm', tabId: this.tabId, exchangeId: x.id, ...o }),
    disarm: () => disarm(this.tabId),
    judge,
  };

  stateDiff(x: PanelExchange, step: number): Promise<StateDiff | null> {
    return request({ type: 'agui-inspector/state-diff', tabId: this.tabId, exchangeId: x.id, step });
  }

  conversationDiff(x: PanelExchange, step: number): Promise<ConvDiff | null> {
    return request({ type: 'agui-inspector/conversation-diff', tabId: this.tabId, exchangeId: x.id, step });
  }

  conversationAt(x: PanelExchange, step: number): Promise<{ messages: ConvMessage[] } | null> {
    return request({ type: 'agui-inspector/conversation-at', tabId: this.tabId, exchangeId: x.id, step });
  }

  close(): void {
    this.closed = true;
    this.port?.disconnect();
    this.emitter.stop();
  }
}

/** Asks the worker; the answer's type is the one `RequestMap` pairs with the request. */
function request<R extends Request>(req: R): Promise<Reply<R>> {
  return browser.runtime.sendMessage(req) as Promise<Reply<R>>;
}

const disarm = async (tabId: number): Promise<void> => void (await request({ type: 'agui-inspector/override-disarm', tabId }));
const judge = (x: PanelExchange, text: string) => request({ type: 'agui-inspector/check-answer', text, contentType: x.contentType ?? '', requestBody: x.requestBody });

/**
 * A recorded session (HAR, SSE, JSONL, protobuf or a conformance fixture), read and analysed in
 * `import-worker.ts` the way the worker analyses a live tab: in order, with one thread tracker so resume
 * coverage spans exchanges. Exchanges appear as the worker reaches them, each with its exact bytes.
 */
export class FileSource implements SessionSource {
  readonly kind = 'file';
  private readonly order: PanelExchange[] = [];
  private readonly metas: ExchangeMeta[] = [];
  private state: Omit<SessionState, 'exchanges'>;
  private readonly emitter = new Emitter(() => ({ ...this.state, exchanges: this.order.slice() }));
  private readonly job: ImportJob;
  /** Resolves once every exchange is analysed; rejects with the reason a file could not be read. */
  readonly done: Promise<void>;

  /** While the panel inspects a tab: its port to the worker, told the tab's override (a `watch`, not a subscription). */
  private readonly watch: Runtime.Port | null = null;
  readonly overriding?: Overriding;

  /** `tabId` is the tab the panel inspects, if any: a file's exchange can answer it. */
  constructor(file: Blob, name: string, tabId: number | null = null) {
    this.state = { status: 'loading', label: name, stats: null, preserve: false, recording: true, progress: null, error: null };
    if (tabId !== null) {
      const port = browser.runtime.connect({ name: PANEL_PORT });
      port.onMessage.addListener((m: unknown) => {
        if ((m as WorkerToPanel).type !== 'override') return;
        this.state.override = (m as Extract<WorkerToPanel, { type: 'override' }>).override;
        this.emitter.now();
      });
      const watch: PanelToWorker = { type: 'watch', tabId };
      port.postMessage(watch);
      this.watch = port;
      this.overriding = { arm: (x, o) => this.arm(tabId, x, o), disarm: () => disarm(tabId), judge };
    }
    let settle!: (error: string | null) => void;
    this.done = new Promise((resolve, reject) => {
      settle = (error) => (error === null ? resolve() : reject(new Error(error)));
    });
    this.job = startImport(file, name, (m) => {
      this.receive(m);
      if (m.type === 'done') settle(null);
      else if (m.type === 'failed') settle(m.message);
    });
  }

  subscribe(l: Listener): () => void {
    return this.emitter.subscribe(l);
  }

  private receive(m: ImportMessage): void {
    switch (m.type) {
      case 'progress':
        this.state.progress = m.progress;
        break;
      case 'exchange': {
        const c = m.meta;
        this.metas[m.index] = c;
        this.order[m.index] = {
          id: `file:${m.index}`, url: c.url ?? c.source, method: c.method ?? 'POST',
          startedAt: sentAtOf(c) ?? null, endedAt: null, outcome: 'pending', error: null,
          status: c.status ?? null, contentType: c.responseContentType, requestBody: c.requestBody ?? null,
          // A recording of the Inspector's says how its capture went.
          requestNote: c.analysis?.requestBodyNote ?? null, capped: c.analysis?.capped ?? false,
          report: m.report, firstContentMs: null, analysisError: null, events: [], chunks: null, rev: 0,
          ...(c.transport ? { transport: c.transport } : {}),
        };
        // The file's first exchange is its first screen: shown at once, its views' questions asked sooner.
        if (m.index === 0) {
          this.emitter.now();
          return;
        }
        break;
      }
      case 'events': {
        const x = this.order[m.index]!;
        for (const e of unpackEvents(m)) x.events.push(e);
        x.report = m.report;
        x.firstContentMs = m.firstContentMs;
        x.rev++;
        break;
      }
      case 'end': {
        const x = this.order[m.index]!;
        x.chunks = m.chunks;
        x.report = m.report;
        x.firstContentMs = m.firstContentMs;
        x.analysisError = m.analysisError;
        const last = m.chunks.at(-1)?.time ?? 0;
        x.endedAt = x.startedAt === null ? null : x.startedAt + last;
        const recorded = this.metas[m.index]!.analysis;
        x.outcome = recorded?.outcome ?? (this.metas[m.index]!.abandoned ? 'aborted' : 'complete');
        x.error = recorded?.error ?? null;
        x.rev++;
        break;
      }
      case 'done':
        this.state = { ...this.state, status: 'file', progress: null, stats: statsOf(this.order) };
        this.emitter.now();
        return;
      case 'failed':
        this.state = { ...this.state, status: 'failed', progress: null, error: m.message };
        this.emitter.now();
        return;
    }
    this.emitter.soon();
  }

  captured(ids: string[]): Promise<ExchangeSet> {
    const wanted = new Set(ids);
    const exchanges: CapturedExchange[] = [];
    this.order.forEach((x, i) => {
      if (!wanted.has(x.id) || !x.chunks) return;
      const meta = this.metas[i]!;
      // The record the file carries (its writer's analysis), else the import's: the export does not make another.
      exchanges.push({ ...meta, chunks: x.chunks, analysis: meta.analysis ?? bytesOnlyAnalysis(x.report, x.analysisError) });
    });
    return Promise.resolve({ exchanges });
  }

  detail<K extends DetailPart>(x: PanelExchange, part: K): Promise<ExchangeDetail[K] | null> {
    return this.job.ask({ type: 'detail', index: this.order.indexOf(x), part }) as Promise<ExchangeDetail[K] | null>;
  }

  stateAt(x: PanelExchange, step: number): Promise<{ state: unknown } | null> {
    return this.job.ask({ type: 'state-at', index: this.order.indexOf(x), step }) as Promise<{ state: unknown } | null>;
  }

  async overview(): Promise<SessionOverview | null> {
    const overview = (await this.job.ask({ type: 'overview' })) as Overview | null;
    // The file's exchanges are indexed in the order the worker posted them, which is the list's.
    return overview && { overview, ids: this.order.map((x) => x.id) };
  }

  socket(x: PanelExchange): Promise<SocketView | null> {
    return this.job.ask({ type: 'socket', index: this.order.indexOf(x) }) as Promise<SocketView | null>;
  }

  stateDiff(x: PanelExchange, step: number): Promise<StateDiff | null> {
    return this.job.ask({ type: 'state-diff', index: this.order.indexOf(x), step }) as Promise<StateDiff | null>;
  }

  conversationDiff(x: PanelExchange, step: number): Promise<ConvDiff | null> {
    return this.job.ask({ type: 'conversation-diff', index: this.order.indexOf(x), step }) as Promise<ConvDiff | null>;
  }

  conversationAt(x: PanelExchange, step: number): Promise<{ messages: ConvMessage[] } | null> {
    return this.job.ask({ type: 'conversation-at', index: this.order.indexOf(x), step }) as Promise<{ messages: ConvMessage[] } | null>;
  }

  /** The worker holds no file: the exchange's recorded bytes go with the arming request. */
  private arm(tabId: number, x: PanelExchange, o: ArmOptions): Promise<{ ok: true } | { error: string }> {
    if (!x.chunks || x.status === null) return Promise.resolve({ error: 'the exchange is still being read: arm once the file is' });
    if (x.capped) return Promise.resolve({ error: 'bytes of this exchange were dropped for the memory cap when it was recorded: its recording is incomplete' });
    if (x.chunks.reduce((n, c) => n + c.bytes.length, 0) > MAX_RECORDED_BYTES) return Promise.resolve({ error: `the recording is larger than an arming request may carry (${MAX_RECORDED_BYTES} bytes)` });
    const recorded: RecordedAnswer = {
      status: x.status, contentType: x.contentType ?? '', requestBody: x.requestBody,
      chunks: x.chunks.map((c) => ({ time: c.time, bytes: toBase64(c.bytes) })),
    };
    return request({ type: 'agui-inspector/override-arm', tabId, exchangeId: x.id, ...o, recorded });
  }

  close(): void {
    this.job.cancel();
    this.emitter.stop();
    this.watch?.disconnect();
  }
}
function statsOf(xs: PanelExchange[]): SessionStats {
  let events = 0;
  let bytes = 0;
  for (const x of xs) {
    events += x.events.length;
    bytes += (x.requestBody?.length ?? 0) + (x.chunks ?? []).reduce((n, c) => n + c.bytes.length, 0);
  }
  return {
    exchanges: xs.length, events, bytes,
    dropped: { exchanges: 0, chunks: 0, bytes: 0, events: 0, rejected: 0 },
    limits: { maxEvents: Number.POSITIVE_INFINITY, maxBytes: Number.POSITIVE_INFINITY },
    unsaved: noneUnsaved(),
    unreached: [],
  };
}
