/**
 * The two places a session comes from: the background worker capturing a tab (`LiveSource`) and a file
 * read with the CLI's readers (`FileSource`). Both hand the panel the same `SessionState`.
 */
import browser, { type Runtime } from 'webextension-polyfill';
import { ExchangeAnalyzer } from '../src/analyzer/exchange.ts';
import { ThreadTracker } from '../src/analyzer/thread.ts';
import type { CapturedExchange } from '../src/formats/exchange.ts';
import { readExchanges } from '../src/formats/read.ts';
import {
  eventView, PANEL_PORT,
  type ExchangeView, type PanelToWorker, type Request, type SessionStats, type WorkerToPanel,
} from '../src/messages.ts';
import type { PanelExchange, SessionSource, SessionState } from './model.ts';

type Listener = (state: SessionState) => void;

/** Coalesces bursts of updates (the worker flushes every 20 ms; a file slice every few ms) into one render. */
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
    status: null, contentType: null, requestBody: null, requestNote: null, report: null, analysisError: null,
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
  x.analysisError = v.analysisError;
  x.capped = v.capped;
  x.rev++;
  return x;
}

/** The inspected tab's capture, from the worker: a snapshot on subscribe, then changes as they happen. */
export class LiveSource implements SessionSource {
  readonly kind = 'live';
  private port: Runtime.Port | null = null;
  private byId = new Map<string, PanelExchange>();
  private order: PanelExchange[] = [];
  /** Exchanges that began while recording was off: never shown, even once recording resumes. */
  private ignored = new Set<string>();
  private state: Omit<SessionState, 'exchanges'> = { status: 'connecting', label: '', stats: null, preserve: false, recording: true };
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
        const previous = this.byId;
        this.byId = new Map();
        this.order = [];
        for (const v of m.session.exchanges) {
          if (this.ignored.has(v.id)) continue;
          if (!this.state.recording && !previous.has(v.id)) {
            this.ignored.add(v.id);
            continue;
          }
          const x = fromView(v);
          x.events = v.events;
          this.byId.set(x.id, x);
          this.order.push(x);
        }
        this.state = { ...this.state, status: 'live', label: m.session.url, stats: m.session.stats, preserve: m.session.preserve };
        this.emitter.now();
        return;
      }
      case 'exchange': {
        const known = this.byId.get(m.exchange.id);
        if (known) fromView(m.exchange, known);
        else if (this.state.recording && !this.ignored.has(m.exchange.id)) {
          const x = fromView(m.exchange);
          this.byId.set(x.id, x);
          this.order.push(x);
        } else this.ignored.add(m.exchange.id);
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
    }
    this.emitter.soon();
  }

  setRecording(on: boolean): void {
    this.state.recording = on;
    this.emitter.now();
  }

  async clear(): Promise<void> {
    this.ignored.clear();
    await request({ type: 'agui-inspector/clear', tabId: this.tabId });
  }

  async setPreserve(on: boolean): Promise<void> {
    await request({ type: 'agui-inspector/preserve', tabId: this.tabId, preserve: on });
    this.state.preserve = on;
    this.emitter.now();
  }

  close(): void {
    this.closed = true;
    this.port?.disconnect();
    this.emitter.stop();
  }
}

function request(req: Request): Promise<unknown> {
  return browser.runtime.sendMessage(req);
}

/** Work done between yields while a file is analysed: the panel stays responsive and shows the first rows at once. */
const SLICE_MS = 12;
const SLICE_BYTES = 256 * 1024;

const yieldToBrowser = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

/**
 * A recorded session (HAR, SSE, JSONL, protobuf or a conformance fixture), analysed in the panel the way
 * the worker analyses a live tab, in order and with one thread tracker so resume coverage spans exchanges.
 */
export class FileSource implements SessionSource {
  readonly kind = 'file';
  private readonly order: PanelExchange[] = [];
  private state: Omit<SessionState, 'exchanges'>;
  private readonly emitter = new Emitter(() => ({ ...this.state, exchanges: this.order.slice() }));
  private closed = false;
  /** Resolves once every exchange is analysed. */
  readonly done: Promise<void>;

  constructor(exchanges: CapturedExchange[], label: string) {
    this.state = { status: 'loading', label, stats: null, preserve: false, recording: true };
    this.done = this.analyse(exchanges);
  }

  /** Throws FormatError for bytes no reader recognises. */
  static fromBytes(bytes: Uint8Array, name: string): FileSource {
    return new FileSource(readExchanges(bytes, name), name);
  }

  subscribe(l: Listener): () => void {
    return this.emitter.subscribe(l);
  }

  private async analyse(exchanges: CapturedExchange[]): Promise<void> {
    const thread = new ThreadTracker();
    let sliceStart = performance.now();
    const pause = async (): Promise<void> => {
      if (performance.now() - sliceStart < SLICE_MS) return;
      this.emitter.now();
      await yieldToBrowser();
      sliceStart = performance.now();
    };
    for (const [i, c] of exchanges.entries()) {
      if (this.closed) return;
      const started = c.startedDateTime ? Date.parse(c.startedDateTime) : NaN;
      const x: PanelExchange = {
        id: `file:${i}`, url: c.url ?? c.source, method: c.method ?? 'POST',
        startedAt: Number.isNaN(started) ? null : started, endedAt: null, outcome: 'pending', error: null,
        status: c.status ?? null, contentType: c.responseContentType, requestBody: c.requestBody ?? null, requestNote: null,
        report: null, analysisError: null, capped: false, events: [], chunks: c.chunks, rev: 0,
      };
      this.order.push(x);
      let analyzer: ExchangeAnalyzer | null = null;
      try {
        analyzer = new ExchangeAnalyzer({
          source: c.source, requestBody: c.requestBody, contentType: c.responseContentType, status: c.status,
          thread, sentAt: x.startedAt ?? undefined,
          onEvent: (r) => x.events.push(eventView(r)),
        });
        for (const chunk of c.chunks) {
          for (let at = 0; at < chunk.bytes.length; at += SLICE_BYTES) {
            analyzer.push(chunk.bytes.subarray(at, at + SLICE_BYTES), chunk.time);
            x.report = analyzer.report();
            x.rev++;
            await pause();
            if (this.closed) return;
          }
        }
        const last = c.chunks.at(-1)?.time ?? 0;
        analyzer.end(last);
        x.report = analyzer.report();
        x.endedAt = x.startedAt === null ? null : x.startedAt + last;
      } catch (e) {
        x.analysisError = String(e);
      }
      x.outcome = 'complete';
      x.rev++;
    }
    this.state.status = 'file';
    this.state.stats = statsOf(this.order);
    this.emitter.now();
  }

  close(): void {
    this.closed = true;
    this.emitter.stop();
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
  };
}
