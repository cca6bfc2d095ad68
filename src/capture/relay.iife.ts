/**
 * ISOLATED world, document_start: the only bridge between the page and the extension.
 *
 * Threat model. The page is untrusted: its scripts share the MAIN world with page.iife.ts, can patch
 * anything there after it ran, and can post any window message. What they must not achieve:
 * - crash or stall the worker, or grow its memory without bound: every message is checked here for
 *   exact shape and size (`checkPageBatch`), per-document state is bounded (open exchanges,
 *   unacknowledged bytes), and the worker checks again and enforces the per-tab caps. Whatever is
 *   refused or dropped is counted and reported, never silently lost;
 * - pose as the capture script: page.iife.ts runs before any page script and hands us a private
 *   MessagePort in the document's first HANDSHAKE message; we accept exactly one and stop its
 *   propagation, so page scripts never see that port. Later handshakes are ignored. (A page can still
 *   lie about its own traffic by subverting page.iife.ts; that falsifies only its own capture.)
 *   The handshake is posted once and nothing repeats it, so this script must be listening before
 *   page.iife.ts runs: the manifest (and the dynamic registration) list it first. Firefox runs a
 *   document's content scripts in that order even when one is still compiling, and lets other tasks,
 *   the handshake's among them, run while it waits: listed after the page script, a relay that
 *   compiles late would miss the handshake, and with it the document's whole capture. Should the
 *   handshake still not have come when the document is parsed (an ordering gone wrong, a page script
 *   that failed to run), we tell the worker, which shows it: a capture must never be silently empty;
 * - read anything the extension holds: from the worker this script receives only acknowledgements,
 *   whether bytes may travel unencoded, and the tab's record/pause state; to the page script it passes
 *   on only that state, as `{ recording }`, and the page's own staging buffers once it copied them out;
 * - make the Inspector send anything: an act (the panel's resend) reaches this script only by the
 *   extension's `tabs.sendMessage`, never from the page, and goes to the page script over the private
 *   port; the page script's answer is taken only for an act outstanding here, in exactly its shape;
 * - arm an override: what the tab's override answers comes only from the worker, which only the panel
 *   arms. The page script's ask for an answer (`AnswerAsk`) is passed on checked; the worker answers only
 *   a request that matches what the panel armed, and that is the page's own request to answer as it likes.
 */
import browser, { type Runtime } from 'webextension-polyfill';
import {
  BINARY_PROBE, CAPTURE_PORT, HANDSHAKE, LIMITS, STAGING_BYTES, checkActed, checkAnswerAsk, checkPageBatch,
  type ActMessage, type ActResult, type CaptureMessage, type PageAnswer, type WhichDocMessage, type DroppedMessage, type OverrideMatch, type PageMessage, type RelayToPage, type RelayToWorker, type WorkerToRelay,
} from '../messages.ts';
import { fromBase64, toBase64 } from '../base64.ts';
import { scheduler } from '../scheduler.ts';

(() => {
  const doc = crypto.randomUUID();
  let pagePort: MessagePort | null = null;

  window.addEventListener('message', (ev: MessageEvent) => {
    const data: unknown = ev.data;
    if (ev.source !== window || typeof data !== 'object' || data === null || (data as Record<string, unknown>)[HANDSHAKE] !== true) return;
    ev.stopImmediatePropagation();
    if (pagePort || ev.ports.length !== 1) return;
    pagePort = ev.ports[0]!;
    pagePort.addEventListener('message', (m: MessageEvent) => receive(m.data));
    pagePort.start();
    if (toldUnreached) tellReach();
  }, true);

  // ── a handshake that never came ───────────────────────────────────────────
  /** The worker was told the page script had not reached us; each new connection restates where that stands. */
  let toldUnreached = false;

  /** Says whether the page script reached us; on a new connection, after its hello. */
  function tellReach(): void {
    if (!port) return connect();
    const m: RelayToWorker = { type: 'page-script', reached: pagePort !== null };
    port.postMessage(m);
  }

  /**
   * The page script runs at document_start, so its handshake was posted before the document was parsed.
   * Not necessarily delivered, though: a small document can be parsed, and DOMContentLoaded fired, in the
   * very task that ran the page script. A message on a channel of our own is a posted message too, and
   * so runs after the handshake's. Listeners of this world's, which page scripts cannot see.
   */
  function whenParsed(): void {
    const hop = new MessageChannel();
    hop.port1.onmessage = () => {
      hop.port1.close();
      if (pagePort || !scripting()) return;
      toldUnreached = true;
      tellReach();
    };
    hop.port2.postMessage(null);
  }

  // ── checks on what the page says ──────────────────────────────────────────
  /**
   * What a document opened, exchanges or sockets (each their own sequence): ids rising, at most
   * `LIMITS.openExchanges` open at once. Those refused or cut short have their remaining messages counted, not forwarded.
   */
  class Opened {
    readonly open = new Set<number>();
    readonly refused = new Set<number>();
    private last = 0;

    /** Takes an opening message's id, forwarding it with `size` when it is admitted. */
    admit(msg: CaptureMessage & { id: number }, size: number): void {
      if (msg.id <= this.last) return drop(null, 'rejected');
      this.last = msg.id;
      if (this.open.size >= LIMITS.openExchanges) {
        this.refused.add(msg.id);
        return drop(null, 'exchanges');
      }
      this.open.add(msg.id);
      forward(msg, size);
    }

    /** Takes a closing message's id, forwarding it when its opening was. */
    close(msg: CaptureMessage & { id: number }, size: number): void {
      if (this.open.delete(msg.id)) return forward(msg, size);
      if (!this.refused.delete(msg.id)) drop(null, 'rejected');
    }
  }
  const exchanges = new Opened();
  const sockets = new Opened();
  /** Recorded sockets that lost a frame, here or in the page: their later frames go too, up to their close. */
  const holed = new Set<number>();
  const dropped = { exchanges: 0, chunks: 0, bytes: 0, rejected: 0 };
  const droppedFor = new Set<number>();
  let dropTimer: ReturnType<typeof setTimeout> | null = null;

  function drop(id: number | null, kind: 'exchanges' | 'chunks' | 'rejected', bytes = 0): void {
    dropped[kind]++;
    dropped.bytes += bytes;
    if (id !== null) droppedFor.add(id);
    // Reported in batches: a flood of bad messages must not become a flood of reports.
    dropTimer ??= setTimeout(reportDrops, 200);
  }

  /**
   * Tells the worker at once, in order with the socket's messages, that socket `id` has a hole: a drop
   * report comes later, and the frames after the hole must not be read as if they followed on.
   */
  function hole(id: number): void {
    if (!sockets.open.has(id) || holed.has(id)) return;
    holed.add(id);
    forward({ k: 'dropped', t: performance.timeOrigin + performance.now(), id: null, exchanges: 0, chunks: 0, bytes: 0, rejected: 0, socket: id }, 0);
  }

  function reportDrops(): void {
    dropTimer = null;
    const ids = droppedFor.size > 0 ? [...droppedFor] : [null];
    droppedFor.clear();
    ids.forEach((id, i) => {
      const first = i === 0;
      const msg: DroppedMessage = {
        k: 'dropped', t: performance.timeOrigin + performance.now(), id,
        exchanges: first ? dropped.exchanges : 0, chunks: first ? dropped.chunks : 0,
        bytes: first ? dropped.bytes : 0, rejected: first ? dropped.rejected : 0,
      };
      forward(msg, 0);
    });
    Object.assign(dropped, { exchanges: 0, chunks: 0, bytes: 0, rejected: 0 });
    ship([]);
  }

  // ── acts the panel asks for (the worker's tabs.sendMessage) ────────────────
  /** Acts handed to the page script, by ref, each waiting for its answer. */
  const acting = new Map<number, (r: ActResult) => void>();
  /** Longer than any fetch takes to answer with its headers; the worker gives up before this. */
  const ACT_MS = 30_000;

  browser.runtime.onMessage.addListener((raw: unknown) => {
    const which = raw as Partial<WhichDocMessage> | null;
    // The relay's own location, which page scripts cannot rewrite in this world; an opaque origin is no one's.
    if (which?.type === 'agui-inspector/which-doc') return which.origin === location.origin && location.origin !== 'null' && pagePort ? Promise.resolve({ doc }) : undefined;
    const m = raw as Partial<ActMessage> | null;
    if (m?.type !== 'agui-inspector/act' || typeof m.ref !== 'number' || !m.act) return undefined;
    // Every frame of the tab hears it; only the document it names answers.
    if (m.doc !== doc) return undefined;
    if (!pagePort) return Promise.resolve<ActResult>({ error: 'the Inspector\'s page script did not reach this page' });
    const ref = m.ref;
    const told: RelayToPage = { ref, act: m.act };
    return new Promise<ActResult>((resolve) => {
      const timer = setTimeout(() => acting.delete(ref) && resolve({ error: 'the page did not answer' }), ACT_MS);
      acting.set(ref, (r) => {
        clearTimeout(timer);
        acting.delete(ref);
        resolve(r);
      });
      pagePort!.postMessage(told);
    });
  });

  function receive(raw: unknown): void {
    if (!Array.isArray(raw)) {
      const acted = checkActed(raw);
      const answer = acted && acting.get(acted.acted);
      if (answer) return answer(acted.result);
      const ask = checkAnswerAsk(raw);
      if (ask) return askWorker(ask.answerFor, ask.method, ask.url, ask.body);
    }
    const batch = checkPageBatch(raw);
    if (!batch) return drop(null, 'rejected');
    const buffers = new Set<ArrayBuffer>();
    let last: Item | null = null;
    for (const msg of batch) {
      if (msg?.k === 'chunk' && msg.bytes.buffer.byteLength === STAGING_BYTES) buffers.add(msg.bytes.buffer as ArrayBuffer);
      handle(msg);
      if (outgoingSize >= ITEM_BYTES) last = ship([]) ?? last;
    }
    // The staging buffers go back with the last item that holds views of them, once it is encoded.
    if (outgoing.length === 0 && last) last.buffers = [...buffers];
    else ship([...buffers]);
  }

  function handle(msg: PageMessage | null): void {
    if (!msg) return drop(null, 'rejected');
    switch (msg.k) {
      case 'open':
        return exchanges.admit(msg, msg.requestBody?.length ?? 0);
      case 'response':
        if (!exchanges.open.has(msg.id)) return exchanges.refused.has(msg.id) ? undefined : drop(null, 'rejected');
        return forward(msg, 0);
      case 'chunk': {
        const n = msg.bytes.byteLength;
        if (!exchanges.open.has(msg.id)) return exchanges.refused.has(msg.id) ? drop(null, 'chunks', n) : drop(null, 'rejected');
        if (buffered + outgoingSize + n > LIMITS.relayBuffer) return drop(msg.id, 'chunks', n);
        return forward(msg, n);
      }
      case 'end':
        return exchanges.close(msg, 0);
      case 'socket':
        return sockets.admit(msg, msg.url.length);
      case 'frame': {
        const n = typeof msg.data === 'string' ? msg.data.length : msg.data.byteLength;
        if (!sockets.open.has(msg.id)) return sockets.refused.has(msg.id) ? drop(null, 'chunks', n) : drop(null, 'rejected');
        if (holed.has(msg.id) || buffered + outgoingSize + n > LIMITS.relayBuffer) {
          hole(msg.id);
          return drop(null, 'chunks', n);
        }
        return forward(msg, n);
      }
      case 'close':
        holed.delete(msg.id);
        return sockets.close(msg, msg.reason.length);
      case 'dropped':
        if (msg.socket !== undefined) hole(msg.socket);
        dropped.exchanges += msg.exchanges;
        dropped.chunks += msg.chunks;
        dropped.bytes += msg.bytes;
        dropTimer ??= setTimeout(reportDrops, 200);
        return;
    }
  }

  /**
   * Whether the page can run scripts at all. Chrome runs this script, and not the page script, in a frame
   * sandboxed without allow-scripts; such a page makes no request to miss. Its flags show on the frame's
   * element; a sandbox without allow-same-origin hides it behind an opaque origin, and then we cannot tell
   * and say nothing rather than something wrong. (Reads of this world's, which page scripts cannot see.)
   */
  function scripting(): boolean {
    if (window.origin === 'null') return false;
    const sandbox = window.frameElement?.getAttribute('sandbox');
    return sandbox == null || sandbox.split(/\s+/).includes('allow-scripts');
  }

  // ── answers of the tab's armed override ───────────────────────────────────
  /** The page script's asks the worker has yet to answer: a lost connection answers them null (the network answers). */
  const asked = new Set<number>();

  function askWorker(ask: number, method: string, url: string, body: string | null): void {
    if (!port || !welcomed) return answerPage(ask, null);
    asked.add(ask);
    const m: RelayToWorker = { type: 'answer-for', ask, method, url, body };
    port.postMessage(m);
  }

  function answerPage(ask: number, got: PageAnswer<string> | null): void {
    asked.delete(ask);
    const answer: PageAnswer | null = got && { ...got, chunks: got.chunks.map((c) => ({ at: c.at, bytes: fromBase64(c.bytes) })) };
    const told: RelayToPage = { answered: ask, answer };
    pagePort?.postMessage(told, answer ? answer.chunks.map((c) => c.bytes.buffer as ArrayBuffer) : []);
  }

  function tellOverride(match: OverrideMatch | null): void {
    const told: RelayToPage = { override: match };
    pagePort?.postMessage(told);
  }

  // ── delivery to the worker, surviving its restarts ────────────────────────
  interface Item {
    seq: number;
    msgs: CaptureMessage[];
    /** Bytes held until acknowledged. */
    size: number;
    /** The page's staging buffers the chunks are views of, returned once the chunks are copied or encoded. */
    buffers: ArrayBuffer[];
    encoded: boolean;
  }
  let seq = 0;
  let buffered = 0;
  let outgoing: CaptureMessage[] = [];
  let outgoingSize = 0;
  const unacked: Item[] = [];
  let port: Runtime.Port | null = null;
  let welcomed = false;
  /** Items up to this seq went out on the current connection. */
  let sentUpTo = 0;
  let pumping = false;
  /** Whether the worker receives bytes as they are; unknown until the first welcome. */
  let binary: boolean | null = null;
  let dead = false;
  let connections = 0;

  function forward(msg: CaptureMessage, size: number): void {
    outgoing.push(msg);
    outgoingSize += size;
  }

  /**
   * Sends what this task forwarded (up to ITEM_BYTES) as one message: each message to the worker has
   * a fixed cost on the page's thread, so fewer is better, down to the wait that one message makes.
   */
  function ship(buffers: ArrayBuffer[]): Item | null {
    const item: Item = { seq: 0, msgs: outgoing, size: outgoingSize, buffers, encoded: false };
    outgoing = [];
    outgoingSize = 0;
    if (item.msgs.length === 0) {
      giveBack(item);
      return null;
    }
    item.seq = ++seq;
    unacked.push(item);
    buffered += item.size;
    if (port && welcomed) pump();
    else connect();
    return item;
  }

  /**
   * Posting blocks the page's thread for as long as the message takes to serialise (~5 ms per MB in
   * Chrome, by structured clone or JSON alike), and the page's next read waits behind it: items of at
   * most ~ITEM_BYTES, sent in slices of IDLE_SLICE_MS however long the idle period, keep that wait
   * short. (In the capture bench, 1 MB items in whole idle periods held reads back by up to 70 ms.)
   */
  const ITEM_BYTES = 256 * 1024;
  const IDLE_SLICE_MS = 4;

  /**
   * Sends when the page is idle: posting to the worker costs the page's thread several milliseconds
   * per megabyte in Chrome, whatever the encoding, so it must not compete with the page reading its
   * stream. A page that is never idle still gets its capture out, a slice at a time.
   */
  function pump(): void {
    if (pumping) return;
    pumping = true;
    requestIdleCallback((deadline) => {
      pumping = false;
      sendFor(deadline.didTimeout ? 8 : Math.min(deadline.timeRemaining(), IDLE_SLICE_MS));
    }, { timeout: 100 });
  }

  /**
   * Sends for about `ms`; what remains follows in a task of background priority, which runs once
   * nothing else waits (the page's reads first), and without waiting for the next idle period: those
   * come far apart when the page shows nothing new, and the backlog would take seconds to reach the worker.
   */
  function sendFor(ms: number): void {
    if (!port || !welcomed) return;
    const end = performance.now() + ms;
    for (const item of unacked) {
      if (item.seq <= sentUpTo) continue;
      if (performance.now() >= end) {
        if (!scheduler) return pump();
        if (pumping) return;
        pumping = true;
        void scheduler.postTask(() => {
          pumping = false;
          sendFor(IDLE_SLICE_MS);
        }, { priority: 'background' });
        return;
      }
      send(item);
      sentUpTo = item.seq;
    }
  }

  /**
   * Base64 for a worker that only gets JSON. Otherwise (Firefox, and Chrome with structured-clone
   * messaging) copies made in this realm: the views belong to the page's compartment, and cloning a
   * view would clone its whole staging buffer. Either way the page may then reuse its staging buffers.
   */
  function encode(item: Item): void {
    for (const m of item.msgs) {
      if (m.k === 'chunk' && typeof m.bytes !== 'string') m.bytes = binary ? new Uint8Array(m.bytes) : toBase64(m.bytes);
      else if (m.k === 'frame' && typeof m.data !== 'string') m.data = binary ? new Uint8Array(m.data) : toBase64(m.data);
    }
    item.encoded = true;
    giveBack(item);
  }

  /** The page script records new exchanges only while the user has capture on for the tab. */
  function tellPage(recording: boolean): void {
    const told: RelayToPage = { recording };
    pagePort?.postMessage(told);
  }

  function giveBack(item: Item): void {
    for (const b of item.buffers) pagePort?.postMessage(b, [b]);
    item.buffers = [];
  }

  function send(item: Item): void {
    if (!item.encoded) encode(item);
    const m: RelayToWorker = { type: 'capture', seq: item.seq, msgs: item.msgs };
    port?.postMessage(m);
  }

  function forget(upTo: number): void {
    while (unacked.length > 0 && unacked[0]!.seq <= upTo) buffered -= unacked.shift()!.size;
  }

  function connect(): void {
    if (port || dead) return;
    try {
      port = browser.runtime.connect({ name: CAPTURE_PORT });
    } catch {
      // The extension was reloaded or removed: this document's capture ends here.
      dead = true;
      return;
    }
    welcomed = false;
    port.onMessage.addListener((raw: unknown) => {
      const m = raw as WorkerToRelay;
      if (m.type === 'welcome') {
        forget(m.ack);
        tellPage(m.recording);
        tellOverride(m.override);
        binary = m.binary;
        welcomed = true;
        sentUpTo = m.ack;
        pump();
      } else if (m.type === 'ack') {
        forget(m.seq);
      } else if (m.type === 'recording') {
        tellPage(m.on);
      } else if (m.type === 'override') {
        tellOverride(m.match);
      } else if (m.type === 'answer' && asked.has(m.ask)) {
        answerPage(m.ask, m.answer);
      }
    });
    port.onDisconnect.addListener(() => {
      port = null;
      welcomed = false;
      for (const ask of [...asked]) answerPage(ask, null);
      // A stopped worker loses what it had not acknowledged; reconnecting wakes it and resends.
      if (unacked.length > 0) setTimeout(connect, 50);
    });
    const hello: RelayToWorker = { type: 'hello', doc, url: location.href.slice(0, LIMITS.url), resumed: connections++ > 0, probe: new Uint8Array(BINARY_PROBE) };
    port.postMessage(hello);
    if (toldUnreached) tellReach();
  }

  // A new top-level document tells the worker at once, so a session not preserved across reloads
  // starts empty even when the new page sends nothing.
  if (window === window.top) connect();
  // A relay that starts late (Firefox waiting for it to compile) finds the document parsed already.
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', whenParsed, { once: true });
  else whenParsed();
})();
