/**
 * The background worker: one session per tab, fed by the relays, read by extension pages through
 * the API in src/messages.ts. It sends nothing anywhere.
 *
 * Chrome stops this worker when idle; every listener is registered synchronously below so events
 * wake it, and `ready` loads the sessions from the store before any message is handled. Their stored
 * logs are then replayed, and live capture analysed, in slices that yield to every message waiting,
 * so no tab's stream, however heavy, keeps the worker from answering the others.
 */
import browser, { type Runtime } from 'webextension-polyfill';
import { judgeEdited } from '../src/detail/index.ts';
import { exportSession } from '../src/recording/index.ts';
import { scheduler } from '../src/scheduler.ts';
import {
  CAPTURE_PORT, DEFAULT_LIMITS, PANEL_PORT, checkPanelMessage, checkRelayMessage, checkRequest,
  type Limits, type PageMessage, type Reply, type Request, type RequestMap, type RequestOf, type RequestType, type WorkerToPanel, type WorkerToRelay,
} from '../src/messages.ts';
import { resend, resendHeaders } from './acts.ts';
import { answerFor, arming, matchOf, type Armed } from './override.ts';
import { syncOrigins } from './origins.ts';
import { Budget, Session, type Applied } from './session.ts';
import { Store, type Append, type MetaRecord } from './store.ts';

interface Pending extends Append {
  messages: number;
  bytes: number;
}

/**
 * Everything the worker holds, in one place: Chrome may stop the worker at any moment, and what is
 * here is what is lost then (sessions come back from the store, `ready` below).
 */
const worker = {
  sessions: new Map<number, Session>(),
  /** What all tabs' sessions hold together, against the total cap. */
  budget: new Budget(),
  limits: { ...DEFAULT_LIMITS } as Limits,
  store: null as Store | null,
  /** Sessions with a backlog, taking turns: one tab's pathological stream does not starve another's. */
  turns: [] as Session[],
  /** A slice of analysis is scheduled. */
  ticking: false,
  /** Each document's relay, by the document id it said hello with. */
  relays: new Map<string, Runtime.Port>(),
  /** Which tab each relay captures for, so a pause reaches every frame of that tab. */
  relayTabs: new Map<Runtime.Port, number>(),
  /** Panels subscribed to each tab. */
  panels: new Map<number, Set<Runtime.Port>>(),
  /** Each tab's armed override (override.ts). */
  overrides: new Map<number, Armed>(),
  /** Panel ports that show a file while inspecting their tab: told its override, not its session. */
  watching: new WeakSet<Runtime.Port>(),
  /** Sessions whose panels have not yet been told what changed; told in one task, after the work that changed them. */
  toTell: new Set<Session>(),
  panelTimer: null as ReturnType<typeof setTimeout> | null,
  /** What is to be stored, and how storing goes. */
  persist: {
    /** Log records not yet stored, in order. */
    log: [] as Pending[],
    /** Sessions whose meta record is not yet stored. */
    dirty: new Set<Session>(),
    /** Tabs whose stored log is to be forgotten (the session was reset), or with their meta (the tab closed). */
    cleared: new Set<number>(),
    removed: new Set<number>(),
    timer: null as ReturnType<typeof setTimeout> | null,
    writing: false,
    again: false,
    /** Why the store could not be opened, if it could not. */
    openError: null as string | null,
    /** Consecutive failed writes, for the backoff. */
    failures: 0,
    failing: null as { error: string; since: number } | null,
  },
};


function sanitizeLimits(l: Partial<Limits>): Limits {
  const pick = (v: unknown, d: number): number => (Number.isSafeInteger(v) && (v as number) > 0 ? (v as number) : d);
  return { maxEvents: pick(l.maxEvents, DEFAULT_LIMITS.maxEvents), maxBytes: pick(l.maxBytes, DEFAULT_LIMITS.maxBytes) };
}

function sessionFor(tabId: number, url = ''): Session {
  let s = worker.sessions.get(tabId);
  if (!s) {
    s = new Session(tabId, url, false, worker.limits, undefined, worker.budget);
    learnHealth(s);
    worker.sessions.set(tabId, s);
  }
  return s;
}

function metaOf(s: Session): MetaRecord {
  return { tabId: s.tabId, url: s.url, preserve: s.preserve, recording: s.recording, docs: { ...s.docs }, dropped: { ...s.dropped }, next: s.next, unreached: { ...s.unreached }, origins: { ...s.origins } };
}

/** Its meta record is to be written, and its panels told. */
function touch(s: Session): void {
  worker.persist.dirty.add(s);
  schedule();
  worker.toTell.add(s);
  worker.panelTimer ??= setTimeout(notifyPanels, 0);
}

// ── analysis, a slice at a time ─────────────────────────────────────────────
/**
 * Work per slice: long enough that yielding costs little, short enough that a request or a panel
 * update waits about this long behind any tab's analysis (one frame of a chunk may take longer).
 */
const SLICE_MS = 5;

function analyse(s: Session): void {
  if (!worker.turns.includes(s)) worker.turns.push(s);
  nextSlice();
}

function nextSlice(): void {
  if (worker.ticking || worker.turns.length === 0) return;
  worker.ticking = true;
  // At background priority every message and request waiting runs before the next slice: a slice
  // posted as an ordinary task (a MessageChannel's) left requests waiting behind several, ~50 ms.
  if (scheduler) void scheduler.postTask(slice, { priority: 'background' });
  else setTimeout(slice, 0);
}

function slice(): void {
  worker.ticking = false;
  const end = performance.now() + SLICE_MS;
  const pause = (): boolean => performance.now() >= end;
  while (worker.turns.length > 0 && !pause()) {
    const s = worker.turns.shift()!;
    if (worker.sessions.get(s.tabId) !== s) continue;
    for (const a of s.work(pause)) logged(s, a);
    touch(s);
    if (s.busy) worker.turns.push(s);
  }
  nextSlice();
}

/** Runs `steps` a slice at a time, every message and request waiting running in between, as the analysis does. */
async function sliced(steps: Iterator<void>): Promise<void> {
  for (;;) {
    const end = performance.now() + SLICE_MS;
    while (performance.now() < end) if (steps.next().done) return;
    await new Promise<void>((go) => (scheduler ? void scheduler.postTask(go, { priority: 'background' }) : setTimeout(go, 0)));
  }
}

// ── persistence, then acknowledgement ───────────────────────────────────────


/** After a failed write, the next waits this long, doubling up to `RETRY_MAX_MS`. */
const RETRY_MS = 250;
const RETRY_MAX_MS = 30_000;

/**
 * One write at a time, the next as soon as the last is stored: acknowledgements come quickly when
 * traffic is light, and under load each write takes everything that arrived meanwhile, so the relays'
 * unacknowledged bytes stay bounded by the store's speed rather than by a timer. After a failure the
 * retry's timer is pending, and what arrives meanwhile waits for it.
 */
function schedule(): void {
  if (worker.persist.writing) worker.persist.again = true;
  else worker.persist.timer ??= setTimeout(() => void writeStore(), 0);
}

/** A relay batch is applied: its log record joins the next write, and counts as unsaved until then. */
function logged(s: Session, a: Applied): void {
  if (a.kept.length === 0) return;
  const bytes = a.kept.reduce((n, m) => n + sizeOf(m), 0);
  worker.persist.log.push({ tabId: s.tabId, n: s.next++, record: { doc: a.doc, msgs: a.kept }, messages: a.kept.length, bytes });
  s.unsaved.messages += a.kept.length;
  s.unsaved.bytes += bytes;
}

function sizeOf(m: PageMessage): number {
  return m.k === 'chunk' ? m.bytes.byteLength : m.k === 'open' ? m.requestBody?.length ?? 0 : 0;
}

async function writeStore(): Promise<void> {
  worker.persist.timer = null;
  worker.persist.writing = true;
  const appends = worker.persist.log;
  const touched = [...worker.persist.dirty];
  const cleared = worker.persist.cleared;
  const removed = worker.persist.removed;
  worker.persist.log = [];
  worker.persist.dirty = new Set();
  worker.persist.cleared = new Set();
  worker.persist.removed = new Set();
  const metas = touched.map(metaOf);
  /** Reset or closed while this write was under way: what it held of that tab is not to be kept. */
  const stale = (tabId: number): boolean => worker.persist.cleared.has(tabId) || worker.persist.removed.has(tabId);
  try {
    if (!worker.store) throw new Error(`the session store could not be opened: ${worker.persist.openError}`);
    await worker.store.write({ metas, appends, cleared: [...cleared], removed: [...removed] });
  } catch (e) {
    console.error('[agui-inspector] persisting failed', e);
    // Nothing of it is acknowledged: the relays keep it, and it is all written with the next attempt.
    worker.persist.log = [...appends.filter((a) => !stale(a.tabId)), ...worker.persist.log];
    for (const s of touched) if (worker.sessions.get(s.tabId) === s) worker.persist.dirty.add(s);
    for (const t of cleared) if (!removed.has(t)) worker.persist.cleared.add(t);
    for (const t of removed) worker.persist.removed.add(t);
    worker.persist.failing ??= { error: '', since: Date.now() };
    worker.persist.failing.error = String(e).slice(0, 1024);
    worker.persist.failures++;
    health();
    worker.persist.timer = setTimeout(() => void writeStore(), Math.min(RETRY_MAX_MS, RETRY_MS * 2 ** (worker.persist.failures - 1)));
    return;
  } finally {
    worker.persist.writing = false;
    if (worker.persist.again) {
      worker.persist.again = false;
      schedule();
    }
  }
  for (const a of appends) {
    const s = worker.sessions.get(a.tabId);
    if (!s || stale(a.tabId)) continue;
    s.unsaved.messages -= a.messages;
    s.unsaved.bytes -= a.bytes;
    worker.toTell.add(s);
  }
  // Acknowledged only now that it is stored: the relay resends anything a stopped worker had not stored.
  for (const m of metas) {
    const s = worker.sessions.get(m.tabId);
    for (const [doc, seq] of Object.entries(m.docs)) {
      if (s) s.stored[doc] = Math.max(s.stored[doc] ?? 0, seq);
      const ack: WorkerToRelay = { type: 'ack', seq };
      worker.relays.get(doc)?.postMessage(ack);
    }
  }
  if (worker.persist.failing) {
    worker.persist.failing = null;
    worker.persist.failures = 0;
    health();
  }
  worker.panelTimer ??= setTimeout(notifyPanels, 0);
}

/** A session's stats say how storing goes, which only the worker knows. */
function learnHealth(s: Session): void {
  s.unsaved.error = worker.persist.failing?.error ?? null;
  s.unsaved.since = worker.persist.failing?.since ?? null;
}

/** Every session, and so every panel, learns how storing goes. */
function health(): void {
  for (const s of worker.sessions.values()) {
    learnHealth(s);
    worker.toTell.add(s);
  }
  worker.panelTimer ??= setTimeout(notifyPanels, 0);
}

/** Forgets what is pending for the tab; the next write forgets what is stored of it. */
function forgetPending(tabId: number, how: 'cleared' | 'removed'): void {
  worker.persist.log = worker.persist.log.filter((a) => a.tabId !== tabId);
  worker.persist[how].add(tabId);
}

function resetSession(s: Session, url: string, navigated = false): void {
  s.reset(url, navigated);
  forgetPending(s.tabId, 'cleared');
  touch(s);
  for (const p of worker.panels.get(s.tabId) ?? []) if (!worker.watching.has(p)) post(p, { type: 'snapshot', session: s.snapshot() });
}

const ready: Promise<void> = (async () => {
  const saved = (await browser.storage.local.get('limits')).limits as Partial<Limits> | undefined;
  worker.limits = sanitizeLimits({ ...DEFAULT_LIMITS, ...saved });
  try {
    worker.store = await Store.open();
    for (const { meta, log } of await worker.store.load()) {
      const s = new Session(meta.tabId, meta.url, meta.preserve, worker.limits, meta.dropped, worker.budget);
      s.docs = meta.docs;
      s.recording = meta.recording !== false;
      s.next = meta.next;
      s.unreached = meta.unreached ?? {};
      s.origins = meta.origins ?? {};
      // Replayed in slices like live capture, so a long log does not hold up every other tab's answers.
      s.replay(log);
      worker.sessions.set(meta.tabId, s);
      analyse(s);
    }
  } catch (e) {
    // Capture still works without storage, but nothing is acknowledged and it does not survive a
    // worker restart; the first write tells the panels so.
    console.error('[agui-inspector] session store unavailable', e);
    worker.store = null;
    worker.persist.openError = String(e);
  }
})();

// ── relays ──────────────────────────────────────────────────────────────────
function onRelay(port: Runtime.Port): void {
  const tabId = port.sender?.tab?.id;
  if (tabId === undefined || tabId < 0 || isExtensionPage(port.sender)) {
    port.disconnect();
    return;
  }
  const frameId = port.sender?.frameId ?? 0;
  let doc: string | null = null;
  /** The document's URL as its last hello said. */
  let url = '';
  // Handled in arrival order, after the restore.
  let chain = ready;
  port.onMessage.addListener((raw: unknown) => {
    chain = chain.then(() => handle(raw)).catch((e: unknown) => console.error('[agui-inspector] relay message failed', e));
  });
  port.onDisconnect.addListener(() => {
    if (doc !== null && worker.relays.get(doc) === port) worker.relays.delete(doc);
    worker.relayTabs.delete(port);
  });

  async function handle(raw: unknown): Promise<void> {
    const msg = checkRelayMessage(raw);
    const s = sessionFor(tabId!);
    if (!msg) {
      s.reject();
      touch(s);
      return;
    }
    if (msg.type === 'hello') {
      if (doc !== null) return s.reject();
      doc = msg.doc;
      url = msg.url;
      worker.relays.set(doc, port);
      worker.relayTabs.set(port, tabId!);
      // A new top-level document is a navigation: the session starts over unless preserved.
      if (!msg.resumed && frameId === 0) {
        if (!s.preserve && !(doc in s.docs)) resetSession(s, msg.url, true);
        else s.url = msg.url;
      }
      s.origins[doc] = originOf(port.sender?.url);
      touch(s);
      const welcome: WorkerToRelay = { type: 'welcome', ack: s.stored[doc] ?? 0, binary: msg.binary, recording: s.recording, override: matchOf(worker.overrides.get(tabId!)) };
      port.postMessage(welcome);
      return;
    }
    if (doc === null) return s.reject();
    if (msg.type === 'page-script') {
      if (s.pageScript(doc, url, msg.reached)) touch(s);
      return;
    }
    if (msg.type === 'answer-for') {
      // Not awaited: the relay's capture keeps flowing while the answer is computed.
      void answering(port, s, msg.ask, msg.method, msg.url, msg.body);
      return;
    }
    if (s.receive(doc, msg.seq, msg.msgs)) analyse(s);
  }
}

/** Answers a relay's `answer-for`; a request that no longer matches (disarmed meanwhile) gets null and goes to the network. */
async function answering(port: Runtime.Port, s: Session, ask: number, method: string, url: string, body: string | null): Promise<void> {
  const armed = worker.overrides.get(s.tabId);
  let got: WorkerToRelay & { type: 'answer' } = { type: 'answer', ask, answer: null };
  try {
    if (armed) got = { type: 'answer', ask, answer: await answerFor(s, armed, method, url, body) };
  } catch (e) {
    console.error('[agui-inspector] the override could not answer', e);
  }
  if (got.answer && armed) {
    // Disarmed, or a "next request only" spent by another request, while this answer was computed: the network answers.
    if (worker.overrides.get(s.tabId) !== armed) {
      s.answering.delete(got.answer.by);
      got = { type: 'answer', ask, answer: null };
    } else {
      // Counted once handed out: a "next request only" override is spent by it, even if the page then goes away.
      armed.status.answered++;
      if (armed.status.once) worker.overrides.delete(s.tabId);
      tellOverride(s.tabId);
    }
  }
  try {
    port.postMessage(got);
  } catch {
    // The document is gone, and its request with it.
  }
}

/** The tab's relays learn what to answer, and its panels what is armed. */
function tellOverride(tabId: number): void {
  const armed = worker.overrides.get(tabId);
  const told: WorkerToRelay = { type: 'override', match: matchOf(armed) };
  for (const [port, tab] of worker.relayTabs) {
    if (tab !== tabId) continue;
    try {
      port.postMessage(told);
    } catch {
      // That frame is gone.
    }
  }
  for (const p of worker.panels.get(tabId) ?? []) post(p, { type: 'override', override: armed ? { ...armed.status } : null });
}

// ── panels ──────────────────────────────────────────────────────────────────

function post(port: Runtime.Port, msg: WorkerToPanel): void {
  try {
    port.postMessage(msg);
  } catch {
    // The panel closed between the update and its delivery.
  }
}

function notifyPanels(): void {
  worker.panelTimer = null;
  const touched = [...worker.toTell];
  worker.toTell.clear();
  for (const s of touched) tell(s);
}

/** Posts what changed in `s` since it was last told to the panels subscribed to its tab. */
function tell(s: Session): void {
  const ports = worker.panels.get(s.tabId);
  if (!ports || ports.size === 0) return s.discardChanges();
  const changes = s.takeChanges();
  const stats = s.stats();
  for (const p of ports) {
    if (worker.watching.has(p)) continue;
    for (const c of changes) {
      post(p, { type: 'exchange', exchange: c.exchange });
      if (c.events.length > 0) post(p, { type: 'events', exchangeId: c.exchange.id, events: c.events });
    }
    post(p, { type: 'stats', stats });
  }
}

function onPanel(port: Runtime.Port): void {
  if (!isExtensionPage(port.sender)) {
    port.disconnect();
    return;
  }
  let tabId: number | null = null;
  port.onMessage.addListener((raw: unknown) => {
    const m = checkPanelMessage(raw);
    if (!m) return;
    void ready.then(() => {
      if (tabId !== null) worker.panels.get(tabId)?.delete(port);
      tabId = m.tabId;
      const set = worker.panels.get(m.tabId) ?? new Set();
      if (m.type === 'watch') worker.watching.add(port);
      else {
        worker.watching.delete(port);
        const s = sessionFor(m.tabId);
        // The panels already subscribed are told what is pending first: the snapshot holds it, and the
        // new panel would otherwise be told it again (its fresh events twice).
        tell(s);
        post(port, { type: 'snapshot', session: s.snapshot() });
      }
      set.add(port);
      worker.panels.set(m.tabId, set);
      const armed = worker.overrides.get(m.tabId);
      post(port, { type: 'override', override: armed ? { ...armed.status } : null });
    });
  });
  port.onDisconnect.addListener(() => {
    if (tabId === null) return;
    const left = worker.panels.get(tabId);
    left?.delete(port);
    // The user can no longer see it answering: an override outlives its last panel only when pinned.
    const armed = worker.overrides.get(tabId);
    if (armed && !armed.status.pinned && (left?.size ?? 0) === 0) {
      worker.overrides.delete(tabId);
      tellOverride(tabId);
    }
  });
}

/** A URL's origin as the browser serializes it; "null" (opaque, equal to none) when it has none. */
function originOf(url: string | undefined): string {
  try {
    return new URL(url ?? '').origin;
  } catch {
    return 'null';
  }
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
/** One handler per request of `RequestMap`, each typed by what its request carries and answers. */
const handlers: { [K in RequestType]: (req: RequestOf<K>) => RequestMap[K]['answers'] | Promise<RequestMap[K]['answers']> } = {
  'agui-inspector/export': async (req) => {
    const chosen = req.tabId === undefined ? [...worker.sessions.values()] : [worker.sessions.get(req.tabId)].filter((s) => s !== undefined);
    // An export is whole: a session still replaying its stored log is exported once that is done.
    await Promise.all(chosen.map((s) => s.restored));
    const only = req.tabId !== undefined && req.exchangeIds !== undefined ? new Set(req.exchangeIds) : undefined;
    return exportSession(chosen.sort((a, b) => a.tabId - b.tabId).flatMap((s) => s.captured(only)), { redact: req.redact ?? [] });
  },
  'agui-inspector/clear': (req) => {
    const s = worker.sessions.get(req.tabId);
    if (s) resetSession(s, s.url);
    return { ok: true };
  },
  'agui-inspector/session': async (req) => (await restored(req.tabId))?.snapshot() ?? null,
  'agui-inspector/sessions': () => [...worker.sessions.values()].map((s) => s.summary()),
  'agui-inspector/record': (req) => {
    const s = sessionFor(req.tabId);
    s.recording = req.record;
    const told: WorkerToRelay = { type: 'recording', on: s.recording };
    for (const [port, tab] of worker.relayTabs) {
      if (tab !== req.tabId) continue;
      try {
        port.postMessage(told);
      } catch {
        // That frame is gone; the worker still refuses what it would have sent.
      }
    }
    touch(s);
    return { ok: true };
  },
  'agui-inspector/preserve': (req) => {
    const s = sessionFor(req.tabId);
    s.preserve = req.preserve;
    touch(s);
    return { ok: true };
  },
  'agui-inspector/limits': async (req) => {
    if (req.set) {
      worker.limits = sanitizeLimits({ ...worker.limits, ...req.set });
      await browser.storage.local.set({ limits: worker.limits });
      for (const s of worker.sessions.values()) s.limits = worker.limits;
    }
    return worker.limits;
  },
  'agui-inspector/origins': () => syncOrigins(),
  'agui-inspector/detail': async (req) => {
    const s = await restored(req.tabId);
    // Each check is bounded, but an exchange may hold many calls: they are checked a slice at a time first.
    if (s && req.part === 'toolCalls') await sliced(s.toolChecks(req.exchangeId));
    return s?.detail(req.exchangeId, req.part) ?? null;
  },
  'agui-inspector/overview': async (req) => {
    const s = await restored(req.tabId);
    if (s) await sliced(s.allToolChecks());
    return s?.overview() ?? null;
  },
  'agui-inspector/socket': async (req) => (await restored(req.tabId))?.socket(req.exchangeId) ?? null,
  'agui-inspector/state-at': async (req) => (await restored(req.tabId))?.stateAt(req.exchangeId, req.step) ?? null,
  'agui-inspector/check-input': (req) => worker.sessions.get(req.tabId)?.checkInput(req.body) ?? null,
  'agui-inspector/resend-headers': async (req) => resendHeaders(await restored(req.tabId), req.exchangeId),
  'agui-inspector/resend': async (req) => resend(await restored(req.tabId), req.exchangeId, req.body, req.reuse),
  'agui-inspector/state-diff': async (req) => (await restored(req.tabId))?.stateDiff(req.exchangeId, req.step) ?? null,
  'agui-inspector/conversation-diff': async (req) => (await restored(req.tabId))?.conversationDiff(req.exchangeId, req.step) ?? null,
  'agui-inspector/conversation-at': async (req) => (await restored(req.tabId))?.conversationAt(req.exchangeId, req.step) ?? null,
  'agui-inspector/override-arm': async (req) => {
    const armed = arming(await restored(req.tabId), req);
    if ('error' in armed) return armed;
    worker.overrides.set(req.tabId, armed);
    tellOverride(req.tabId);
    return { ok: true };
  },
  'agui-inspector/override-disarm': (req) => {
    if (worker.overrides.delete(req.tabId)) tellOverride(req.tabId);
    return { ok: true };
  },
  'agui-inspector/check-answer': (req) => judgeEdited(req.text, { responseContentType: req.contentType, ...(req.requestBody === null ? {} : { requestBody: req.requestBody }) }),
  'agui-inspector/override-status': (req) => {
    const armed = worker.overrides.get(req.tabId);
    return armed ? { ...armed.status } : null;
  },
};

/**
 * A tab's session once its stored log is replayed: a question about an exchange asked while a restarted
 * worker is still replaying would otherwise be answered "no such exchange", and the panel would keep that.
 */
async function restored(tabId: number): Promise<Session | undefined> {
  const s = worker.sessions.get(tabId);
  await s?.restored;
  return s;
}

async function answer<R extends Request>(req: R): Promise<Reply<R>> {
  await ready;
  // The map pairs each type with its handler; TypeScript cannot follow that through a union, hence the one cast.
  return (handlers[req.type] as (r: R) => Reply<R> | Promise<Reply<R>>)(req);
}

browser.runtime.onMessage.addListener((message: unknown, sender: Runtime.MessageSender) => {
  const type = (message as { type?: unknown } | null)?.type;
  if (typeof type !== 'string' || !type.startsWith('agui-inspector/') || !isExtensionPage(sender)) return undefined;
  const req = checkRequest(message);
  return req ? answer(req) : Promise.reject(new Error(`malformed request: ${JSON.stringify(type).slice(0, 80)} with members the message API does not name`));
});

// ── lifecycle ───────────────────────────────────────────────────────────────
browser.tabs.onRemoved.addListener((tabId) => {
  void ready.then(() => {
    const s = worker.sessions.get(tabId);
    if (!s) return;
    // Also lets go of its backlog, and of requests waiting for its replay.
    s.reset(s.url);
    worker.sessions.delete(tabId);
    worker.panels.delete(tabId);
    worker.overrides.delete(tabId);
    worker.persist.dirty.delete(s);
    forgetPending(tabId, 'removed');
    schedule();
  });
});

browser.runtime.onStartup.addListener(() => {
  // Capture never outlives the browser session.
  void ready.then(async () => {
    for (const s of worker.sessions.values()) s.reset(s.url);
    worker.sessions.clear();
    worker.persist.log = [];
    worker.persist.dirty.clear();
    await worker.store?.clearAll();
  });
  void syncOrigins();
});
browser.runtime.onInstalled.addListener(() => void syncOrigins());
browser.permissions.onAdded.addListener(() => void syncOrigins());
browser.permissions.onRemoved.addListener(() => void syncOrigins());
