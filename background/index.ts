/**
 * The background worker: one session per tab, fed by the relays, read by extension pages through
 * the API in src/messages.ts. It sends nothing anywhere.
 *
 * Chrome stops this worker when idle; every listener is registered synchronously below so events
 * wake it, and `ready` restores the sessions from the store before any message is handled.
 */
import browser, { type Runtime } from 'webextension-polyfill';
import { writeHar } from '../src/formats/har.ts';
import {
  CAPTURE_PORT, DEFAULT_LIMITS, PANEL_PORT, checkRelayMessage,
  type Limits, type PanelToWorker, type Request, type WorkerToPanel, type WorkerToRelay,
} from '../src/messages.ts';
import { syncOrigins } from './origins.ts';
import { Session } from './session.ts';
import { Store, type LogRecord, type MetaRecord } from './store.ts';

const sessions = new Map<number, Session>();
let limits: Limits = { ...DEFAULT_LIMITS };
let store: Store | null = null;

const ready: Promise<void> = (async () => {
  const saved = (await browser.storage.local.get('limits')).limits as Partial<Limits> | undefined;
  limits = sanitizeLimits({ ...DEFAULT_LIMITS, ...saved });
  try {
    store = await Store.open();
    for (const { meta, log } of await store.load()) {
      const s = new Session(meta.tabId, meta.url, meta.preserve, limits, meta.dropped);
      for (const r of log) for (const m of r.msgs) s.replay(r.doc, m);
      s.docs = meta.docs;
      s.recording = meta.recording !== false;
      s.next = meta.next;
      sessions.set(meta.tabId, s);
    }
  } catch (e) {
    // Without storage the capture still works; it just does not survive a worker restart.
    console.error('[agui-inspector] session store unavailable', e);
    store = null;
  }
})();

function sanitizeLimits(l: Partial<Limits>): Limits {
  const pick = (v: unknown, d: number): number => (Number.isSafeInteger(v) && (v as number) > 0 ? (v as number) : d);
  return { maxEvents: pick(l.maxEvents, DEFAULT_LIMITS.maxEvents), maxBytes: pick(l.maxBytes, DEFAULT_LIMITS.maxBytes) };
}

function sessionFor(tabId: number, url = ''): Session {
  let s = sessions.get(tabId);
  if (!s) {
    s = new Session(tabId, url, false, limits);
    sessions.set(tabId, s);
  }
  return s;
}

function metaOf(s: Session): MetaRecord {
  return { tabId: s.tabId, url: s.url, preserve: s.preserve, recording: s.recording, docs: { ...s.docs }, dropped: { ...s.dropped }, next: s.next };
}

// ── persistence, then acknowledgement ───────────────────────────────────────
const relays = new Map<string, Runtime.Port>();
/** Which tab each relay captures for, so a pause reaches every frame of that tab. */
const relayTabs = new Map<Runtime.Port, number>();
const pendingLog: { tabId: number; n: number; record: LogRecord }[] = [];
const dirty = new Set<Session>();
let flushTimer: ReturnType<typeof setTimeout> | null = null;
let writing = false;
let again = false;

/**
 * One write at a time, the next as soon as the last is stored: acknowledgements come quickly when
 * traffic is light, and under load each write takes everything that arrived meanwhile, so the relays'
 * unacknowledged bytes stay bounded by the store's speed rather than by a timer.
 */
function schedule(): void {
  if (writing) again = true;
  else flushTimer ??= setTimeout(() => void flush(), 0);
}

async function flush(): Promise<void> {
  flushTimer = null;
  writing = true;
  try {
    const appends = pendingLog.splice(0);
    const touched = [...dirty];
    dirty.clear();
    const metas = touched.map(metaOf);
    try {
      await store?.write(metas, appends);
    } catch (e) {
      console.error('[agui-inspector] persisting failed', e);
    }
    // Acknowledged only once stored: the relay resends anything a stopped worker had not stored.
    for (const m of metas) {
      for (const [doc, seq] of Object.entries(m.docs)) {
        const ack: WorkerToRelay = { type: 'ack', seq };
        relays.get(doc)?.postMessage(ack);
      }
    }
    notifyPanels(touched);
  } finally {
    writing = false;
    if (again) {
      again = false;
      schedule();
    }
  }
}

async function resetSession(s: Session, url: string): Promise<void> {
  s.reset(url);
  pendingLog.splice(0, pendingLog.length, ...pendingLog.filter((a) => a.tabId !== s.tabId));
  dirty.delete(s);
  await store?.remove(s.tabId, metaOf(s)).catch((e: unknown) => console.error('[agui-inspector] clearing failed', e));
  for (const p of panels.get(s.tabId) ?? []) post(p, { type: 'snapshot', session: s.snapshot() });
}

// ── relays ──────────────────────────────────────────────────────────────────
function onRelay(port: Runtime.Port): void {
  const tabId = port.sender?.tab?.id;
  if (tabId === undefined || tabId < 0 || isExtensionPage(port.sender)) {
    port.disconnect();
    return;
  }
  const frameId = port.sender?.frameId ?? 0;
  let doc: string | null = null;
  // Handled in arrival order, after the restore.
  let chain = ready;
  port.onMessage.addListener((raw: unknown) => {
    chain = chain.then(() => handle(raw)).catch((e: unknown) => console.error('[agui-inspector] relay message failed', e));
  });
  port.onDisconnect.addListener(() => {
    if (doc !== null && relays.get(doc) === port) relays.delete(doc);
    relayTabs.delete(port);
  });

  async function handle(raw: unknown): Promise<void> {
    const msg = checkRelayMessage(raw);
    const s = sessionFor(tabId!);
    if (!msg) {
      s.reject();
      dirty.add(s);
      schedule();
      return;
    }
    if (msg.type === 'hello') {
      if (doc !== null) return s.reject();
      doc = msg.doc;
      relays.set(doc, port);
      relayTabs.set(port, tabId!);
      // A new top-level document is a navigation: the session starts over unless preserved.
      if (!msg.resumed && frameId === 0) {
        if (!s.preserve && !(doc in s.docs)) await resetSession(s, msg.url);
        else s.url = msg.url;
        dirty.add(s);
        schedule();
      }
      const welcome: WorkerToRelay = { type: 'welcome', ack: s.docs[doc] ?? 0, binary: msg.binary, recording: s.recording };
      port.postMessage(welcome);
      return;
    }
    if (doc === null) return s.reject();
    if (msg.seq <= (s.docs[doc] ?? 0)) return;
    s.docs[doc] = msg.seq;
    const kept = msg.msgs.filter((m) => s.apply(doc!, m));
    if (kept.length > 0) pendingLog.push({ tabId: s.tabId, n: s.next++, record: { doc, msgs: kept } });
    dirty.add(s);
    schedule();
  }
}

// ── panels ──────────────────────────────────────────────────────────────────
const panels = new Map<number, Set<Runtime.Port>>();

function post(port: Runtime.Port, msg: WorkerToPanel): void {
  try {
    port.postMessage(msg);
  } catch {
    // The panel closed between the update and its delivery.
  }
}

function notifyPanels(touched: Session[]): void {
  for (const s of touched) {
    const ports = panels.get(s.tabId);
    if (!ports || ports.size === 0) {
      s.discardChanges();
      continue;
    }
    const changes = s.takeChanges();
    const stats = s.stats();
    for (const p of ports) {
      for (const c of changes) {
        post(p, { type: 'exchange', exchange: c.exchange });
        if (c.events.length > 0) post(p, { type: 'events', exchangeId: c.exchange.id, events: c.events });
      }
      post(p, { type: 'stats', stats });
    }
  }
}

function onPanel(port: Runtime.Port): void {
  if (!isExtensionPage(port.sender)) {
    port.disconnect();
    return;
  }
  let tabId: number | null = null;
  port.onMessage.addListener((raw: unknown) => {
    const m = raw as PanelToWorker;
    if (m?.type !== 'subscribe' || !Number.isSafeInteger(m.tabId)) return;
    void ready.then(() => {
      if (tabId !== null) panels.get(tabId)?.delete(port);
      tabId = m.tabId;
      const set = panels.get(tabId) ?? new Set();
      set.add(port);
      panels.set(tabId, set);
      post(port, { type: 'snapshot', session: sessionFor(tabId).snapshot() });
    });
  });
  port.onDisconnect.addListener(() => {
    if (tabId !== null) panels.get(tabId)?.delete(port);
  });
}

function isExtensionPage(sender: Runtime.MessageSender | undefined): boolean {
  return sender?.id === browser.runtime.id && (sender.url ?? '').startsWith(browser.runtime.getURL(''));
}

browser.runtime.onConnect.addListener((port) => {
  if (port.name === CAPTURE_PORT) onRelay(port);
  else if (port.name === PANEL_PORT) onPanel(port);
  else port.disconnect();
});

// ── requests from extension pages ───────────────────────────────────────────
async function answer(req: Request): Promise<unknown> {
  await ready;
  switch (req.type) {
    case 'agui-inspector/export': {
      const chosen = req.tabId === undefined ? [...sessions.values()] : [sessions.get(req.tabId)].filter((s) => s !== undefined);
      const only = req.tabId !== undefined && Array.isArray(req.exchangeIds) ? new Set(req.exchangeIds.filter((id) => typeof id === 'string')) : undefined;
      const parts = chosen.sort((a, b) => a.tabId - b.tabId).map((s) => s.captured(only));
      return writeHar(parts.flatMap((p) => p.exchanges), {
        creator: { name: 'agui-inspector', version: browser.runtime.getManifest().version },
        analysis: parts.flatMap((p) => p.analysis),
      });
    }
    case 'agui-inspector/clear': {
      const s = sessions.get(req.tabId);
      if (s) await resetSession(s, s.url);
      return { ok: true };
    }
    case 'agui-inspector/session':
      return sessions.get(req.tabId)?.snapshot() ?? null;
    case 'agui-inspector/sessions':
      return [...sessions.values()].map((s) => s.summary());
    case 'agui-inspector/record': {
      const s = sessionFor(req.tabId);
      s.recording = req.record === true;
      const told: WorkerToRelay = { type: 'recording', on: s.recording };
      for (const [port, tab] of relayTabs) {
        if (tab !== req.tabId) continue;
        try {
          port.postMessage(told);
        } catch {
          // That frame is gone; the worker still refuses what it would have sent.
        }
      }
      dirty.add(s);
      schedule();
      return { ok: true };
    }
    case 'agui-inspector/preserve': {
      const s = sessionFor(req.tabId);
      s.preserve = req.preserve === true;
      dirty.add(s);
      schedule();
      return { ok: true };
    }
    case 'agui-inspector/limits':
      if (req.set) {
        limits = sanitizeLimits({ ...limits, ...req.set });
        await browser.storage.local.set({ limits });
        for (const s of sessions.values()) s.limits = limits;
      }
      return limits;
    case 'agui-inspector/origins':
      return syncOrigins();
  }
}

browser.runtime.onMessage.addListener((message: unknown, sender: Runtime.MessageSender) => {
  const type = (message as { type?: unknown } | null)?.type;
  if (typeof type !== 'string' || !type.startsWith('agui-inspector/') || !isExtensionPage(sender)) return undefined;
  return answer(message as Request);
});

// ── lifecycle ───────────────────────────────────────────────────────────────
browser.tabs.onRemoved.addListener((tabId) => {
  void ready.then(async () => {
    sessions.delete(tabId);
    panels.delete(tabId);
    await store?.remove(tabId);
  });
});

browser.runtime.onStartup.addListener(() => {
  // Capture never outlives the browser session.
  void ready.then(async () => {
    sessions.clear();
    await store?.clearAll();
  });
  void syncOrigins();
});
browser.runtime.onInstalled.addListener(() => void syncOrigins());
browser.permissions.onAdded.addListener(() => void syncOrigins());
browser.permissions.onRemoved.addListener(() => void syncOrigins());
