/**
 * ISOLATED world, document_start: the only bridge between the page and the extension.
 *
 * Threat model. The page is untrusted: its scripts share the MAIN world with page.iife.ts, can patch
 * anything there after it ran, and can post any window message. What they must not achieve:
 * - crash or stall the worker, or grow its memory without bound: every message is checked here for
 *   exact shape and size (`checkPageMessage`), per-document state is bounded (open exchanges,
 *   unacknowledged bytes), and the worker checks again and enforces the per-tab caps. Whatever is
 *   refused or dropped is counted and reported, never silently lost;
 * - pose as the capture script: page.iife.ts runs before any page script and hands us a private
 *   MessagePort in the document's first HANDSHAKE message; we accept exactly one and stop its
 *   propagation, so page scripts never see that port. Later handshakes are ignored. (A page can still
 *   lie about its own traffic by subverting page.iife.ts; that falsifies only its own capture);
 * - read anything the extension holds: this script sends to the worker and receives only acks.
 */
import browser, { type Runtime } from 'webextension-polyfill';
import {
  CAPTURE_PORT, HANDSHAKE, LIMITS, checkPageMessage, toBase64,
  type CaptureMessage, type DroppedMessage, type RelayToWorker, type WorkerToRelay,
} from '../messages.ts';

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
  }, true);

  // ── checks on what the page says ──────────────────────────────────────────
  const open = new Set<number>();
  /** Exchanges this relay refused or cut short: their remaining messages are counted, not forwarded. */
  const refused = new Set<number>();
  let lastId = 0;
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
  }

  function receive(raw: unknown): void {
    const msg = checkPageMessage(raw);
    if (!msg) return drop(null, 'rejected');
    switch (msg.k) {
      case 'open':
        if (msg.id <= lastId) return drop(null, 'rejected');
        lastId = msg.id;
        if (open.size >= LIMITS.openExchanges) {
          refused.add(msg.id);
          return drop(null, 'exchanges');
        }
        open.add(msg.id);
        return forward(msg, msg.requestBody?.length ?? 0);
      case 'response':
        if (!open.has(msg.id)) return refused.has(msg.id) ? undefined : drop(null, 'rejected');
        return forward(msg, 0);
      case 'chunk': {
        if (!open.has(msg.id)) return refused.has(msg.id) ? drop(null, 'chunks', msg.bytes.byteLength) : drop(null, 'rejected');
        const b64 = toBase64(msg.bytes);
        if (buffered + b64.length > LIMITS.relayBuffer) return drop(msg.id, 'chunks', msg.bytes.byteLength);
        return forward({ k: 'chunk', id: msg.id, t: msg.t, bytes: b64 }, b64.length);
      }
      case 'end':
        if (!open.delete(msg.id)) {
          if (!refused.delete(msg.id)) drop(null, 'rejected');
          return;
        }
        return forward(msg, 0);
      case 'dropped':
        dropped.exchanges += msg.exchanges;
        dropped.chunks += msg.chunks;
        dropped.bytes += msg.bytes;
        dropTimer ??= setTimeout(reportDrops, 200);
        return;
    }
  }

  // ── delivery to the worker, surviving its restarts ────────────────────────
  let seq = 0;
  let buffered = 0;
  const unacked: { seq: number; msg: CaptureMessage; size: number }[] = [];
  let port: Runtime.Port | null = null;
  let welcomed = false;
  let dead = false;
  let connections = 0;

  function forward(msg: CaptureMessage, size: number): void {
    const item = { seq: ++seq, msg, size };
    unacked.push(item);
    buffered += size;
    if (port && welcomed) send(item);
    else connect();
  }

  function send(item: { seq: number; msg: CaptureMessage }): void {
    const m: RelayToWorker = { type: 'capture', seq: item.seq, msg: item.msg };
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
        welcomed = true;
        for (const item of unacked) send(item);
      } else if (m.type === 'ack') {
        forget(m.seq);
      }
    });
    port.onDisconnect.addListener(() => {
      port = null;
      welcomed = false;
      // A stopped worker loses what it had not acknowledged; reconnecting wakes it and resends.
      if (unacked.length > 0) setTimeout(connect, 50);
    });
    const hello: RelayToWorker = { type: 'hello', doc, url: location.href.slice(0, LIMITS.url), resumed: connections++ > 0 };
    port.postMessage(hello);
  }

  // A new top-level document tells the worker at once, so a session not preserved across reloads
  // starts empty even when the new page sends nothing.
  if (window === window.top) connect();
})();
