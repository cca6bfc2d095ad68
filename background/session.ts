/**
 * One tab's capture: its AG-UI exchanges in the order they began, each analysed incrementally as
 * its chunks arrive, within the tab's memory caps.
 *
 * Caps: every byte the session stores counts against `maxBytes` — response chunks, request bodies, and
 * each exchange's URLs, method, content types, status text and error (a URL may be 8 KB, so 2,000
 * requests can hold 16 MB in URLs alone) — and against the `Budget` all tabs share. An exchange whose
 * head would exceed either is not recorded; a request body that would is dropped (`too-large`); a chunk
 * that would is dropped and its exchange marked `capped` (its analysis stops there, since the analyzer would
 * otherwise judge a stream with a hole in it). Event records kept for the timeline count against
 * `maxEvents`; beyond it they are dropped while the analysis itself continues. Every drop is counted.
 *
 * A recorded WebSocket is kept whole (its `SocketConnection`, every frame counted against the caps) and
 * read by a `SocketReader` as its frames come: each exchange on it becomes a session exchange like an HTTP
 * one (api `websocket`), analysed as its events arrive and ended by its requested run's terminal event or by
 * the socket's close, which truncates an unfinished run (basic/transports#the-binding-contract). A frame
 * over the caps, or one the relay or the page script reports lost (a `dropped` message naming the socket),
 * caps the socket: none of its later frames is kept and its open exchanges' analyses stop at the hole.
 *
 * Capture is queued as it arrives and applied by `work`, a bounded step at a time (one message, or one
 * frame of a chunk), so that the worker can interleave every tab's analysis with answering panels: a
 * pathological stream costs the analyzer seconds, and the worker must not stop answering meanwhile.
 */
import { overviewOf, SessionReader, type DetailPart, type Overview, type ExchangeDetail, type ExchangeReading, type ExchangeReport, type InputDetail, type ConvDiff, type ConvMessage, type StateDiff } from '../src/detail/index.ts';
import { sentAtOf, socketExchange, SocketReader, socketView, type CapturedExchange, type Chunk, type SocketConnection, type SocketView } from '../src/exchange/index.ts';
import {
  LIMITS, byThePage, eventView, noneUnsaved,
  type DropCounts, type PageMessage, type EventView, type ExchangeView, type Limits, type SessionStats,
  type OverrideMark, type SessionSummary, type SessionView, type Unsaved,
} from '../src/messages.ts';
import type { LogRecord } from './store.ts';

/** Exchanges one tab may hold; beyond this even their metadata is dropped (and counted). */
const MAX_EXCHANGES = 10_000;
/** Documents the page script did not reach, kept per tab: enough to name them, bounded whatever the page's frames do. */
const MAX_UNREACHED = 32;

interface Exchange {
  view: ExchangeView;
  chunks: Chunk[];
  events: EventView[];
  /** The analysis, with what the panel's views show of it. */
  reading: ExchangeReading | null;
  /** Events not yet sent to subscribed panels. */
  fresh: EventView[];
  /** Changed since panels were last told. */
  changed: boolean;
  /** An exchange on a WebSocket: what its socket reader made of it, which export writes and the analysis reads its close from. */
  socket?: CapturedExchange;
}

/** A recorded WebSocket and the exchanges on it, in the order their inputs were sent. */
interface Socket {
  connection: SocketConnection;
  reader: SocketReader;
  exchanges: Exchange[];
  /** A frame did not fit the caps: the rest of the socket is dropped. */
  capped: boolean;
}

/** Capture messages waiting to be applied, as the relay batched them. */
interface Batch {
  doc: string;
  /** The relay's seq; null for a batch of the stored log, which is replayed rather than logged again. */
  seq: number | null;
  msgs: PageMessage[];
  /** How many of `msgs` are applied. */
  done: number;
  /** Those applied that belong in the log. */
  kept: PageMessage[];
}

/** A relay batch applied in full: what the worker logs and, once that is stored, acknowledges. */
export interface Applied {
  doc: string;
  seq: number;
  kept: PageMessage[];
}

export const noDrops = (): DropCounts => ({ exchanges: 0, chunks: 0, bytes: 0, events: 0, rejected: 0 });

/** The bytes every session holds together; the worker shares one among its sessions. */
export class Budget {
  held = 0;
  constructor(readonly max: number = LIMITS.totalBytes) {}
}

/** What an exchange's stored strings weigh, counted as its bodies are (UTF-16 code units). */
const weight = (...texts: (string | null | undefined)[]) => texts.reduce((n, t) => n + (t?.length ?? 0), 0);

/**
 * A ref for the page script to open an exchange with (a resend, an override's answer): unguessable enough
 * that a page cannot pass its own request off as the Inspector's while one is outstanding.
 */
export function freshRef(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0]! >>> 1;
}

export class Session {
  private exchanges: Exchange[] = [];
  private byKey = new Map<string, Exchange>();
  private sockets = new Map<string, Socket>();
  private reader = new SessionReader();
  private events = 0;
  private bytes = 0;
  /** Applying the stored log: its drops were counted already, and everything in it was recorded. */
  private replaying = false;
  /** Capture received but not yet applied, in arrival order. */
  private backlog: Batch[] = [];
  /** The message being applied, paused between two frames of its chunk. */
  private step: Generator<void, boolean> | null = null;
  /** Batches of the stored log still in the backlog; `restored` resolves when none is left. */
  private replays = 0;
  private onRestored: () => void = () => undefined;
  /** Resolves once the stored log handed to `replay` is applied, so that exports and views of the tab are whole. */
  restored: Promise<void> = Promise.resolve();
  /** Off while the user has paused capture: exchanges that begin then are not recorded at all. */
  recording = true;
  /** Exchanges that began while paused; their later messages are let go as quietly as they were. */
  private readonly unrecorded = new Set<string>();
  /** Highest relay seq received per document, applied or in the backlog: a resent batch is recognised. */
  private received: Record<string, number> = {};
  /** Highest relay seq applied per document. */
  docs: Record<string, number> = {};
  /** Highest relay seq stored per document: what the relay may forget. */
  stored: Record<string, number> = {};
  /** Kept by the worker, which alone knows what is stored. */
  unsaved: Unsaved = noneUnsaved();
  /** Next log position. */
  next = 0;
  /** The tab's documents the page script did not reach (relay document id → its URL). */
  unreached: Record<string, string> = {};
  /**
   * The origin of each of the tab's documents, as the browser names the relay's sender: a resend of a
   * document's exchange goes out only from a document of the same origin, with that origin's cookies.
   */
  origins: Record<string, string> = {};
  /**
   * Resends the panel asked for and the page has yet to open, by act ref: the exchange each resends, and
   * who waits for the new one's id. A page's open naming any other ref is the page's own.
   */
  readonly acts = new Map<number, { of: string; opened: (id: string) => void }>();
  /** Answers the worker handed the page for an armed override, by the ref their exchange opens with: how each answered. */
  readonly answering = new Map<number, OverrideMark>();

  constructor(
    readonly tabId: number,
    public url: string,
    public preserve: boolean,
    public limits: Limits,
    public dropped: DropCounts = noDrops(),
    private readonly budget: Budget = new Budget(),
  ) {}

  /** Holds `n` more bytes if both this tab's cap and all tabs' budget allow it. */
  private hold(n: number): boolean {
    if (!this.fits(n)) return false;
    this.count(n);
    return true;
  }

  private fits(n: number): boolean {
    return this.bytes + n <= this.limits.maxBytes && this.budget.held + n <= this.budget.max;
  }

  private count(n: number): void {
    this.bytes += n;
    this.budget.held += n;
  }

  /**
   * Forgets everything captured; settings (preserve, limits) stay. So do the documents the page script
   * did not reach, unless the tab `navigated` away from them: cleared, they would still capture nothing.
   */
  reset(url: string, navigated = false): void {
    if (navigated) {
      this.unreached = {};
      this.origins = {};
    }
    this.exchanges = [];
    this.byKey.clear();
    this.sockets.clear();
    this.reader = new SessionReader();
    this.events = 0;
    this.budget.held -= this.bytes;
    this.bytes = 0;
    this.backlog = [];
    this.step = null;
    this.replays = 0;
    this.onRestored();
    this.received = {};
    this.docs = {};
    this.stored = {};
    this.unsaved = { ...noneUnsaved(), error: this.unsaved.error, since: this.unsaved.since };
    this.next = 0;
    this.dropped = noDrops();
    this.unrecorded.clear();
    this.url = url;
  }

  /** Queues the stored log of a session whose `docs` (all stored) were restored with it. */
  replay(log: LogRecord[]): void {
    this.received = { ...this.docs };
    this.stored = { ...this.docs };
    for (const r of log) this.backlog.push({ doc: r.doc, seq: null, msgs: r.msgs, done: 0, kept: [] });
    this.replays += log.length;
    if (this.replays > 0) this.restored = new Promise((resolve) => (this.onRestored = resolve));
  }

  /** Queues a relay batch; false when it was received already. */
  receive(doc: string, seq: number, msgs: PageMessage[]): boolean {
    if (seq <= (this.received[doc] ?? 0)) return false;
    this.received[doc] = seq;
    this.backlog.push({ doc, seq, msgs, done: 0, kept: [] });
    return true;
  }

  get busy(): boolean {
    return this.backlog.length > 0;
  }

  /**
   * Applies the backlog in order, a step at a time (at least one), until `pause()` says to stop;
   * returns the relay batches completed, whose docs seq it advanced.
   */
  work(pause: () => boolean): Applied[] {
    const applied: Applied[] = [];
    do {
      const b = this.backlog[0];
      if (!b) break;
      const msg = b.msgs[b.done];
      if (msg) {
        this.replaying = b.seq === null;
        let r: IteratorResult<void, boolean>;
        try {
          this.step ??= this.applying(b.doc, msg);
          r = this.step.next();
        } finally {
          this.replaying = false;
        }
        if (!r.done) continue;
        this.step = null;
        b.done++;
        if (r.value) b.kept.push(msg);
        if (b.done < b.msgs.length) continue;
      }
      this.backlog.shift();
      if (b.seq !== null) {
        this.docs[b.doc] = b.seq;
        applied.push({ doc: b.doc, seq: b.seq, kept: b.kept });
      } else if (--this.replays === 0) {
        this.onRestored();
      }
    } while (!pause());
    return applied;
  }

  private drop(kind: keyof DropCounts, n = 1, bytes = 0): void {
    if (this.replaying) return;
    this.dropped[kind] += n;
    this.dropped.bytes += bytes;
  }

  /** A relay says whether the page script reached its document; false when that changes nothing. */
  pageScript(doc: string, url: string, reached: boolean): boolean {
    if (reached === !(doc in this.unreached)) return false;
    if (reached) delete this.unreached[doc];
    else if (Object.keys(this.unreached).length < MAX_UNREACHED) this.unreached[doc] = url;
    else return false;
    return true;
  }

  reject(): void {
    this.drop('rejected');
  }

  private refuse(kind: 'exchanges' | 'rejected'): false {
    this.drop(kind);
    return false;
  }

  /** Applies one checked capture message, pausing between frames; returns whether it belongs in the session's log. */
  private *applying(doc: string, msg: PageMessage): Generator<void, boolean> {
    if (msg.k === 'dropped') {
      this.drop('exchanges', msg.exchanges);
      this.drop('chunks', msg.chunks, msg.bytes);
      this.drop('rejected', msg.rejected);
      if (msg.socket !== undefined) {
        const s = this.sockets.get(`${doc}:ws${msg.socket}`);
        if (!s) return false;
        this.capSocket(s);
        return true;
      }
      const x = msg.id === null ? undefined : this.byKey.get(`${doc}:${msg.id}`);
      if (!x) return false;
      this.cap(x);
      return true;
    }
    if (msg.k === 'socket' || msg.k === 'frame' || msg.k === 'close') return yield* this.applyingSocket(`${doc}:ws${msg.id}`, msg);
    const key = `${doc}:${msg.id}`;
    if (this.letGo(key, msg.k === 'end')) return false;
    if (msg.k === 'open') {
      if (!this.starts(key, this.byKey.has(key))) return false;
      if (this.exchanges.length >= MAX_EXCHANGES) return this.refuse('exchanges');
      const head = weight(msg.url, msg.method, msg.requestContentType);
      if (!this.hold(head)) {
        // Its later messages go as quietly as a paused exchange's: the drop is counted once, here.
        this.unrecorded.add(key);
        this.drop('exchanges', 1, head);
        return false;
      }
      let body = msg.requestBody;
      let note = msg.requestBodyNote;
      if (body !== null && !this.hold(body.length)) {
        this.drop('bytes', 0, body.length);
        body = null;
        note = 'too-large';
      }
      const x: Exchange = {
        view: {
          id: key, api: msg.api, url: msg.url, method: msg.method, startedAt: msg.t,
          request: { contentType: msg.requestContentType, body, note },
          response: null, bytes: 0, endedAt: null, outcome: 'pending', error: null, capped: false, report: null, firstContentMs: null, analysisError: null,
        },
        chunks: [], events: [], reading: null, fresh: [], changed: true,
      };
      // The log keeps which exchange it resends, the one thing the worker alone knows of it.
      const of = this.replaying ? msg.of : msg.by === undefined ? undefined : this.resent(msg.by, key);
      const override = this.replaying ? msg.override : msg.by === undefined ? undefined : this.answeredBy(msg.by);
      delete msg.by;
      if (of !== undefined) x.view.resentFrom = msg.of = of;
      if (override !== undefined) x.view.override = msg.override = override;
      this.exchanges.push(x);
      this.byKey.set(key, x);
      return true;
    }
    const x = this.byKey.get(key);
    if (!x || x.view.endedAt !== null) return this.refuse('rejected');
    x.changed = true;
    switch (msg.k) {
      case 'response': {
        if (x.view.response) return false;
        // The response head is kept even over the cap (the exchange cannot be read without its content
        // type); it is counted, and the exchange is capped: none of its body is stored then.
        const head = weight(msg.contentType, msg.url, msg.statusText);
        if (!this.fits(head)) this.cap(x);
        this.count(head);
        x.view.response = {
          status: msg.status, statusText: msg.statusText, contentType: msg.contentType, url: msg.url,
          redirected: msg.redirected, reconstructed: msg.reconstructed, receivedAt: msg.t,
        };
        this.read(x, msg.contentType ?? '', msg.status, x.view.startedAt);
        return true;
      }
      case 'chunk': {
        if (!x.view.response) return this.refuse('rejected');
        const bytes = msg.bytes;
        if (x.view.capped || !this.hold(bytes.byteLength)) {
          this.drop('chunks', 1, bytes.byteLength);
          this.cap(x);
          return false;
        }
        const time = msg.t - x.view.startedAt;
        x.chunks.push({ time, bytes });
        x.view.bytes += bytes.byteLength;
        yield* this.analyseChunk(x, bytes, time);
        return true;
      }
      case 'end':
        // The page's error text is bounded (LIMITS.text) and kept like the response head, counted either way.
        this.count(weight(msg.error));
        x.view.endedAt = msg.t;
        x.view.outcome = msg.outcome;
        x.view.error = msg.error;
        // A capped stream's end would read as truncation at the hole; its report stays as of the cap.
        if (!x.view.capped) this.analyse(x, () => x.reading?.end(msg.t - x.view.startedAt, byThePage(msg.outcome)));
        return true;
    }
  }

  /** Begins the exchange's analysis, once what its response is is known. */
  private read(x: Exchange, contentType: string, status: number, sentAt: number | undefined): void {
    this.analyse(x, () => {
      x.reading = this.reader.read({
        source: x.view.url,
        requestBody: x.view.request.body ?? undefined,
        contentType,
        status,
        sentAt,
        ...(x.socket ? { websocket: x.socket.socket } : {}),
        arrival: 'chunks',
        onEvent: (record) => {
          if (this.events >= this.limits.maxEvents) return this.drop('events');
          this.events++;
          const ev = eventView(record);
          x.events.push(ev);
          x.fresh.push(ev);
        },
        // The views' detail of a frame is kept with its event record, within the same cap.
        keep: (index) => x.events.at(-1)?.index === index,
      });
      // Their tool calls now say what this request did with them: the panels ask for them again.
      for (const earlier of x.reading.revisits) for (const y of this.exchanges) if (y.reading === earlier) y.changed = true;
    });
  }

  /** Whether a message of `key` goes as quietly as its unrecorded start did; `last` is its final message. */
  private letGo(key: string, last: boolean): boolean {
    if (!this.unrecorded.has(key)) return false;
    if (last) this.unrecorded.delete(key);
    return true;
  }

  /** Whether the exchange or socket `key` starting now is recorded: not one `known` already, nor begun while paused. */
  private starts(key: string, known: boolean): boolean {
    if (known) return this.refuse('rejected');
    if (this.recording || this.replaying) return true;
    this.unrecorded.add(key);
    return false;
  }

  /** Applies a message of a recorded WebSocket (`key`), pausing between frames of its exchanges' events. */
  private *applyingSocket(key: string, msg: Extract<PageMessage, { k: 'socket' | 'frame' | 'close' }>): Generator<void, boolean> {
    if (this.letGo(key, msg.k === 'close')) return false;
    if (msg.k === 'socket') {
      if (!this.starts(key, this.sockets.has(key))) return false;
      if (!this.hold(weight(msg.url))) {
        this.unrecorded.add(key);
        this.drop('exchanges', 1, weight(msg.url));
        return false;
      }
      const connection: SocketConnection = { url: msg.url, startedDateTime: new Date(msg.t).toISOString(), frames: [], close: null };
      this.sockets.set(key, { connection, reader: new SocketReader(), exchanges: [], capped: false });
      return true;
    }
    const s = this.sockets.get(key);
    if (!s || s.connection.close) return this.refuse('rejected');
    if (msg.k === 'close') {
      this.count(weight(msg.reason));
      // The HAR convention's seconds, as the frames are timed (SocketFrame).
      const close = s.connection.close = { code: msg.code, reason: msg.reason, time: msg.t / 1000, wasClean: msg.wasClean };
      for (const [k, x] of s.exchanges.entries()) {
        if (x.view.endedAt !== null) continue;
        // Read by the analysis at its end (ExchangeAnalyzerOptions.websocket): the close cut this run short.
        if (!s.reader.finished(k)) x.socket!.socket!.cutBy = close;
        this.endSocketExchange(x, msg.t, `WebSocket closed with code ${msg.code}${msg.reason === '' ? '' : ` (${JSON.stringify(msg.reason)})`}${msg.wasClean ? '' : ', not cleanly'}`);
      }
      return true;
    }
    const size = typeof msg.data === 'string' ? msg.data.length : msg.data.byteLength;
    if (s.capped || !this.hold(size)) {
      this.drop('chunks', 1, size);
      this.capSocket(s);
      return false;
    }
    const frame = { type: msg.type, time: msg.t / 1000, opcode: msg.opcode, data: msg.data };
    const index = s.connection.frames.push(frame) - 1;
    for (const step of s.reader.push(frame)) {
      if (step.k === 'open') {
        if (this.exchanges.length >= MAX_EXCHANGES) {
          this.drop('exchanges');
          continue;
        }
        const id = `${key}.${step.exchange}`;
        const x: Exchange = {
          view: {
            id, api: 'websocket', url: s.connection.url, method: 'GET', startedAt: msg.t,
            request: { contentType: null, body: frame.data as string, note: null },
            response: null, bytes: 0, endedAt: null, outcome: 'pending', error: null, capped: false, report: null, firstContentMs: null, analysisError: null,
          },
          chunks: [], events: [], reading: null, fresh: [], changed: true,
          socket: socketExchange(s.connection, index, s.connection.url),
        };
        s.exchanges[step.exchange] = x;
        this.exchanges.push(x);
        this.byKey.set(id, x);
        continue;
      }
      const x = s.exchanges[step.exchange];
      if (!x || x.view.capped) continue;
      x.changed = true;
      if (step.k === 'end') {
        this.endSocketExchange(x, msg.t, null);
        continue;
      }
      if (!x.view.response) {
        x.socket!.responseContentType = step.contentType;
        // A socket's exchange has no response head of its own: the upgrade's stands for it, as a HAR writes it.
        x.view.response = { status: 101, statusText: 'Switching Protocols', contentType: step.contentType, url: s.connection.url, redirected: false, reconstructed: false, receivedAt: msg.t };
        this.startSocketReading(x);
      }
      x.chunks.push(step.chunk);
      x.view.bytes += step.chunk.bytes.byteLength;
      yield* this.analyseChunk(x, step.chunk.bytes, step.chunk.time);
    }
    return true;
  }

  /** A frame of the socket is lost: none after it is kept, and its open exchanges' analyses stop at the hole. */
  private capSocket(s: Socket): void {
    s.capped = true;
    for (const x of s.exchanges) if (x.view.endedAt === null) this.cap(x);
  }

  private startSocketReading(x: Exchange): void {
    this.read(x, x.socket!.responseContentType, 101, sentAtOf(x.socket!));
  }

  /** Ends a socket's exchange at `t`, as `analyzeExchange` ends one read from a file: at its last event's time. */
  private endSocketExchange(x: Exchange, t: number, error: string | null): void {
    x.changed = true;
    x.view.endedAt = t;
    x.view.outcome = error === null ? 'complete' : 'error';
    x.view.error = error;
    if (x.view.capped) return;
    // An exchange whose socket closed before any event of it is read as its file would be: an empty stream.
    if (!x.reading) this.startSocketReading(x);
    this.analyse(x, () => x.reading?.end(x.chunks.at(-1)?.time ?? 0));
  }

  /** The exchange an outstanding act resends, now that its resend (exchange `key`) opened; undefined for any other ref. */
  private resent(ref: number, key: string): string | undefined {
    const act = this.acts.get(ref);
    if (!act) return undefined;
    this.acts.delete(ref);
    act.opened(key);
    return act.of;
  }

  /** How the Inspector answered the exchange that opens with `ref`, handed out for it; undefined for any other ref. */
  private answeredBy(ref: number): OverrideMark | undefined {
    const mark = this.answering.get(ref);
    this.answering.delete(ref);
    return mark;
  }

  /** The recorded chunks of an exchange, as captured so far. */
  chunksOf(id: string): readonly Chunk[] | undefined {
    return this.byKey.get(id)?.chunks;
  }

  /** What the worker holds of an exchange, as captured. */
  exchange(id: string): Readonly<ExchangeView> | undefined {
    return this.byKey.get(id)?.view;
  }

  /** `body` judged as the next input of this session, as the Input view would judge it (nothing is recorded). */
  checkInput(body: string): InputDetail {
    return this.reader.check(body, Date.now());
  }

  private cap(x: Exchange): void {
    x.view.capped = true;
    x.changed = true;
  }

  /** The analyzer must never take the worker down with it: a failure ends that exchange's analysis. */
  private analyse(x: Exchange, step: () => void): void {
    if (x.view.analysisError !== null) return;
    try {
      step();
    } catch (e) {
      x.view.analysisError = String(e).slice(0, 1024);
      x.reading = null;
    }
  }

  /** `analyse` for a chunk, a frame per step. */
  private *analyseChunk(x: Exchange, bytes: Uint8Array, time: number): Generator<void, void> {
    const steps = x.reading?.pushing(bytes, time);
    if (!steps) return;
    for (;;) {
      let more = false;
      this.analyse(x, () => (more = !steps.next().done));
      if (!more) return;
      // The frame's findings change the report even when its event record is over the cap.
      x.changed = true;
      yield;
    }
  }

  private report(x: Exchange): ExchangeReport | null {
    if (!x.reading) return null;
    try {
      return x.reading.report();
    } catch (e) {
      x.view.analysisError = String(e).slice(0, 1024);
      return null;
    }
  }

  private viewOf(x: Exchange): ExchangeView {
    x.view.report = this.report(x);
    x.view.firstContentMs = x.reading?.firstContentMs() ?? null;
    return { ...x.view };
  }

  /** One part of an exchange's detail; null for an exchange not held or whose analysis failed. */
  detail<K extends DetailPart>(id: string, part: K): ExchangeDetail[K] | null {
    const x = this.byKey.get(id);
    if (!x?.reading) return null;
    const report = this.report(x);
    if (!report) return null;
    try {
      return x.reading.part(part, report);
    } catch (e) {
      x.view.analysisError = String(e).slice(0, 1024);
      return null;
    }
  }

  /** The socket exchange `id` ran on, with whose each frame is; null for an HTTP exchange. */
  socket(id: string): SocketView | null {
    const socket = this.byKey.get(id)?.socket?.socket;
    return socket ? socketView(socket) : null;
  }

  /** Every exchange's checks of declared tools' calls, which the overview's tool problems wait on, for the worker to run in slices. */
  *allToolChecks(): Generator<void, void> {
    for (const x of this.exchanges) yield* this.toolChecks(x.view.id, true);
  }

  /** What went wrong across the session, with the ids its problems index. */
  overview(): { ids: string[]; overview: Overview } {
    return { ids: this.exchanges.map((x) => x.view.id), overview: overviewOf(this.exchanges.map((x) => x.reading)) };
  }

  /** The argument checks the Tools view of exchange `id` waits on (or, `declaredOnly`, the overview), a call per step, for the worker to run in slices. */
  *toolChecks(id: string, declaredOnly = false): Generator<void, void> {
    const steps = this.ofReading(id, (r) => r.toolChecks(declaredOnly));
    if (!steps) return;
    try {
      yield* steps;
    } catch {
      // The detail request that follows meets the same failure, and records it as the analysis's.
    }
  }

  stateAt(id: string, step: number): { state: unknown } | null {
    return this.ofReading(id, (r) => r.stateAt(step));
  }

  stateDiff(id: string, step: number): StateDiff | null {
    return this.ofReading(id, (r) => r.stateDiff(step));
  }

  conversationDiff(id: string, step: number): ConvDiff | null {
    return this.ofReading(id, (r) => r.conversationDiff(step));
  }

  conversationAt(id: string, step: number): { messages: ConvMessage[] } | null {
    return this.ofReading(id, (r) => r.conversationAt(step));
  }

  /** A question about one exchange's reading; null for an exchange not held, or a reading that fails on it. */
  private ofReading<T>(id: string, ask: (r: ExchangeReading) => T | null): T | null {
    const reading = this.byKey.get(id)?.reading;
    if (!reading) return null;
    try {
      return ask(reading);
    } catch {
      return null;
    }
  }

  stats(): SessionStats {
    return {
      exchanges: this.exchanges.length, events: this.events, bytes: this.bytes, dropped: { ...this.dropped }, limits: { ...this.limits }, unsaved: { ...this.unsaved },
      unreached: [...new Set(Object.values(this.unreached))],
    };
  }

  summary(): SessionSummary {
    return { tabId: this.tabId, url: this.url, preserve: this.preserve, recording: this.recording, stats: this.stats() };
  }

  /**
   * The session as it is now. Changes not yet taken stay for the subscribed panels: whoever asks for a
   * snapshot (a subscribing panel, a test polling the session) must not make them miss an update.
   */
  snapshot(): SessionView {
    return {
      tabId: this.tabId, url: this.url, preserve: this.preserve, recording: this.recording,
      exchanges: this.exchanges.map((x) => ({ ...this.viewOf(x), events: [...x.events] })),
      stats: this.stats(),
    };
  }

  /** What changed since the last call, for subscribed panels. */
  takeChanges(): { exchange: ExchangeView; events: EventView[] }[] {
    const out: { exchange: ExchangeView; events: EventView[] }[] = [];
    for (const x of this.exchanges) {
      if (!x.changed && x.fresh.length === 0) continue;
      out.push({ exchange: this.viewOf(x), events: x.fresh });
      x.fresh = [];
      x.changed = false;
    }
    return out;
  }

  /** Drops pending panel updates when nobody is subscribed. */
  discardChanges(): void {
    for (const x of this.exchanges) {
      x.fresh = [];
      x.changed = false;
    }
  }

  /** The tab's exchanges as captured, each with the analysis made of it here, or only those whose ids are in `only`. */
  captured(only?: ReadonlySet<string>): CapturedExchange[] {
    const out: CapturedExchange[] = [];
    for (const x of this.exchanges) {
      const v = x.view;
      if (only && !only.has(v.id)) continue;
      if (x.socket) {
        out.push({ ...x.socket, chunks: x.chunks, analysis: this.analysisOf(x) });
        continue;
      }
      out.push({
        source: v.url,
        url: v.url,
        method: v.method,
        status: v.response?.status ?? 0,
        startedDateTime: new Date(v.startedAt).toISOString(),
        requestContentType: v.request.contentType ?? undefined,
        requestBody: v.request.body ?? undefined,
        responseContentType: v.response?.contentType ?? '',
        chunks: x.chunks,
        arrival: 'chunks',
        ...(byThePage(v.outcome) ? { abandoned: true } : {}),
        ...(v.override ? { override: v.override } : {}),
        analysis: this.analysisOf(x),
      });
    }
    return out;
  }

  private analysisOf(x: Exchange): NonNullable<CapturedExchange['analysis']> {
    const v = x.view;
    return {
      tabId: this.tabId, api: v.api, outcome: v.outcome, error: v.error, capped: v.capped,
      reconstructed: v.response?.reconstructed ?? false, requestBodyNote: v.request.note,
      report: this.report(x), analysisError: v.analysisError,
    };
  }
}
