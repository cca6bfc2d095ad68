/** The panel: the session's exchanges on top, the selected one's views below. */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { OriginControl } from './origin.tsx';
import { LIMITS, type SessionStats } from '../src/messages.ts';
import type { Finding } from '../src/rules/index.ts';
import type { DetailPart, ExchangeDetail, Problem, StrippedMember } from '../src/detail/index.ts';
import { useDetail } from './detail.ts';
import {
  durationOf, endpointOf, formatBytes, formatMs, rowHintOf, threadOf, transportLabel, verdictOf,
  type PanelExchange, type SessionSource, type SessionState,
} from './model.ts';
import { CopyActions, ExportMenu, ImportButton, ImportProgressBar } from './recording.tsx';
import { Empty, EraBadge, presentFindings } from './ui.tsx';
import { allFindings, FindingsView } from './views/findings.tsx';
import { IdentityView } from './views/identity.tsx';
import { RunTreeView } from './views/run-tree.tsx';
import { InputView } from './views/input.tsx';
import { ActOnExchange, type Sent } from './views/resend.tsx';
import { OverrideBanner } from './views/override.tsx';
import { NegotiationView } from './views/negotiation.tsx';
import { StateView } from './views/state.tsx';
import { StrippedView } from './views/stripped.tsx';
import { NO_FILTER, TimelineView, type EventRange, type TimelineFilter } from './views/timeline.tsx';
import { ToolsView } from './views/tools.tsx';
import { OverviewView } from './views/overview.tsx';
import { SocketSummary } from './views/socket.tsx';
import { TimingSummary, WaterfallView } from './views/waterfall.tsx';
import { VIEWS, type ViewId } from './tabs.ts';

const EMPTY: SessionState = { status: 'connecting', label: '', exchanges: [], stats: null, preserve: false, recording: true, progress: null, error: null };

function useSession(source: SessionSource): SessionState {
  const [state, setState] = useState<SessionState>(EMPTY);
  useEffect(() => source.subscribe(setState), [source]);
  return state;
}

const isTyping = (t: EventTarget | null): boolean =>
  t instanceof HTMLElement && (t.isContentEditable || ['INPUT', 'SELECT', 'TEXTAREA'].includes(t.tagName));

/** How the panel changes source: a file the user selectedId or dropped, and back to the inspected tab. */
export interface SourceActions {
  importFile(file: File): void;
  /** Absent when there is no tab to go back to, or it is shown already. */
  live?: () => void;
}

const STATUS_TEXT: Partial<Record<SessionState['status'], string>> = {
  live: 'Live', 'no-tab': 'No tab to inspect', loading: 'Importing', file: 'File', failed: 'Import failed',
};

function Toolbar({ source, state, actions, ticked }: { source: SessionSource; state: SessionState; actions: SourceActions; ticked: Set<string> }) {
  const s = state.stats;
  const dropped = s ? s.dropped.exchanges + s.dropped.chunks + s.dropped.events + s.dropped.rejected + s.dropped.bytes : 0;
  return (
    <div class="toolbar" role="toolbar" aria-label="Capture">
      {source.setRecording ? (
        <button type="button" class={`record${state.recording ? ' on' : ''}`} aria-pressed={state.recording} onClick={() => source.setRecording!(!state.recording)} data-testid="record"
          title={state.recording ? 'Pause: exchanges that begin while paused are not captured' : 'Record'}>
          <span aria-hidden="true">{state.recording ? '●' : '○'}</span> {state.recording ? 'Recording' : 'Paused'}
        </button>
      ) : null}
      {source.clear ? <button type="button" onClick={() => void source.clear!()} data-testid="clear">Clear</button> : null}
      {source.setPreserve ? (
        <label class="check"><input type="checkbox" checked={state.preserve} onChange={(e) => void source.setPreserve!(e.currentTarget.checked)} data-testid="preserve" /> Preserve across reloads</label>
      ) : null}
      <ImportButton onImport={actions.importFile} />
      <ExportMenu source={source} exchanges={state.exchanges} ticked={ticked} label={state.label} ready={state.status !== 'loading' && state.status !== 'failed'} />
      {actions.live ? <button type="button" onClick={actions.live} data-testid="back-live">Back to the inspected tab</button> : null}
      {state.status === 'live' ? <OriginControl /> : null}
      <span class="status" data-testid="status" data-status={state.status} role="status">
        {STATUS_TEXT[state.status] ?? state.status}
        {state.label ? <> · <span class="muted">{state.label}</span></> : null}
      </span>
      {state.progress ? <ImportProgressBar progress={state.progress} /> : null}
      {s ? (
        <span class="stats muted" data-testid="stats">
          {s.exchanges} exchanges · {s.events} events · {formatBytes(s.bytes)}{dropped > 0 ? (
            <strong class="sev-warning" data-testid="drop-notice" title={`A tab holds at most ${formatBytes(s.limits.maxBytes)} and ${s.limits.maxEvents} events, all tabs together ${formatBytes(LIMITS.totalBytes)}: URLs, bodies and every other stored byte count.`}>
              {' '}· dropped: {s.dropped.exchanges} exchanges, {s.dropped.chunks} chunks, {formatBytes(s.dropped.bytes)}, {s.dropped.events} events, {s.dropped.rejected} rejected
            </strong>
          ) : null}
        </span>
      ) : null}
    </div>
  );
}

/**
 * The worker cannot store this tab's capture: what failed, and what a worker stop would lose. The
 * page's relay keeps everything unacknowledged and resends it to a restarted worker, so what is at
 * risk is what a closed page, or one holding more than its buffer, can no longer resend.
 */
function StorageWarning({ stats }: { stats: SessionStats }) {
  const u = stats.unsaved;
  if (u.error === null) return null;
  return (
    <div class="banner sev-warning" role="alert" data-testid="storage-warning" data-unsaved-messages={u.messages} data-unsaved-bytes={u.bytes}>
      <strong>Capture is not being stored</strong>{u.since !== null ? <> since {new Date(u.since).toLocaleTimeString()}</> : null}: {u.error.replace(/\.$/, '')}.{' '}
      {u.messages > 0
        ? <>{u.messages} captured messages ({formatBytes(u.bytes)}) of this tab are held only in memory, by the extension and by the page. If the browser stops the extension's worker, the page sends them again — unless it was closed or reloaded, or held more than {formatBytes(LIMITS.relayBuffer)} unstored and dropped the rest (counted as dropped). </>
        : <>Nothing of this tab is at risk yet; what it captures next is held only in memory until storing works. </>}
      Retrying.
    </div>
  );
}

/**
 * Documents of the tab that capture nothing because the page script never reached the relay: their list
 * would look like a page making no AG-UI request. Said above the list, where an empty one is looked at.
 */
function UnreachedWarning({ stats }: { stats: SessionStats }) {
  const urls = stats.unreached;
  if (urls.length === 0) return null;
  return (
    <div class="banner sev-warning" role="alert" data-testid="unreached-warning" data-urls={JSON.stringify(urls)}>
      <strong>Requests not captured:</strong> the Inspector's page script did not reach {urls.length === 1 ? 'this page' : 'these pages'} ({urls.join(', ')}).
      Reloading the page usually restores capture.
    </div>
  );
}

interface ListProps {
  state: SessionState;
  selected: string | null;
  onSelect: (id: string) => void;
  /** Ticked for export. */
  ticked: Set<string>;
  onTick: (ids: string[], on: boolean) => void;
  actions: SourceActions;
}

function EmptyList({ state, actions }: { state: SessionState; actions: SourceActions }) {
  if (state.status === 'failed') return <Empty><span class="sev-error">Cannot import {state.label}: {state.error}</span></Empty>;
  if (state.status === 'loading') return <Empty>Reading {state.label}…</Empty>;
  if (state.status === 'no-tab') {
    return (
      <div class="empty import-empty">
        <p>No page is attached. Drop a recording here — a HAR saved by Chrome or Firefox DevTools, an Inspector export, raw SSE or JSONL — or</p>
        <ImportButton onImport={actions.importFile} label="Choose a file…" />
      </div>
    );
  }
  // The warning above says why nothing is here; inviting the user to run the app again would contradict it.
  if (state.stats && state.stats.unreached.length > 0) return <Empty>Nothing captured from this page: see the warning above.</Empty>;
  return <Empty>No AG-UI exchange captured yet. Run your app: requests carrying a RunAgentInput appear here.</Empty>;
}

/** What the list can be ordered by: each a column; `null` is capture order. */
type SortKey = 'endpoint' | 'verdict' | 'duration' | 'ttft' | 'findings';
const VERDICT_ORDER: Record<string, number> = { failed: 0, unanalysed: 1, pending: 2, completed: 3 };
/** A column's value to order by; a missing figure sorts last whichever way. */
const SORT_VALUE: Record<SortKey, (x: PanelExchange) => string | number | null> = {
  endpoint: (x) => `${endpointOf(x.url)} ${x.method}`,
  verdict: (x) => VERDICT_ORDER[verdictOf(x)] ?? 9,
  duration: (x) => durationOf(x),
  ttft: (x) => x.firstContentMs,
  findings: (x) => (x.report ? presentFindings(allFindings(x.report)).length : null),
};

/** The rows shown: the exchanges that pass the filters, in the chosen order, each with its capture number. */
function rowsOf(exchanges: readonly PanelExchange[], verdict: string, endpoint: string, sort: { key: SortKey; dir: 1 | -1 } | null): { x: PanelExchange; n: number }[] {
  const needle = endpoint.trim().toLowerCase();
  const rows = exchanges.map((x, n) => ({ x, n })).filter(({ x }) => (verdict === '' || verdictOf(x) === verdict) && (needle === '' || `${x.method} ${x.url}`.toLowerCase().includes(needle)));
  if (!sort) return rows;
  const value = SORT_VALUE[sort.key];
  return rows.sort((a, b) => {
    const [va, vb] = [value(a.x), value(b.x)];
    if (va === null || vb === null) return va === vb ? a.n - b.n : va === null ? 1 : -1;
    return (va < vb ? -1 : va > vb ? 1 : 0) * sort.dir || a.n - b.n;
  });
}

function ExchangeList({ state, selected, onSelect, ticked, onTick, actions }: ListProps) {
  const { exchanges } = state;
  const [verdictFilter, setVerdictFilter] = useState('');
  const [endpointFilter, setEndpointFilter] = useState('');
  const [sort, setSort] = useState<{ key: SortKey; dir: 1 | -1 } | null>(null);
  const rows = rowsOf(exchanges, verdictFilter, endpointFilter, sort);
  const at = exchanges.findIndex((x) => x.id === selected);
  const shownAt = rows.findIndex((r) => r.x.id === selected);
  const tickedCount = exchanges.filter((x) => ticked.has(x.id)).length;
  /** A column's header: ascending, then descending, then capture order again. */
  const sortBy = (key: SortKey, label: string, cls = '', title?: string) => {
    const on = sort?.key === key ? sort.dir : 0;
    return (
      <span class={cls}>
        <button type="button" class="link sort" title={title ?? `Sort by ${label.toLowerCase()}`} data-testid={`sort-${key}`} data-sort={on === 1 ? 'asc' : on === -1 ? 'desc' : ''}
          aria-label={`Sort by ${label.toLowerCase()}${on === 1 ? ', ascending' : on === -1 ? ', descending' : ''}`}
          onClick={() => setSort(on === 0 ? { key, dir: 1 } : on === 1 ? { key, dir: -1 } : null)}>
          {label}{on === 1 ? ' ▲' : on === -1 ? ' ▼' : ''}
        </button>
      </span>
    );
  };
  const onKeyDown = (e: KeyboardEvent): void => {
    if (e.key === ' ' && e.target === e.currentTarget && selected !== null) {
      e.preventDefault();
      onTick([selected], !ticked.has(selected));
      return;
    }
    const to = e.key === 'ArrowDown' ? shownAt + 1 : e.key === 'ArrowUp' ? shownAt - 1 : e.key === 'Home' ? 0 : e.key === 'End' ? rows.length - 1 : null;
    if (to === null) return;
    e.preventDefault();
    const row = rows[Math.max(0, Math.min(rows.length - 1, to))];
    if (row) onSelect(row.x.id);
  };
  const filtered = rows.length !== exchanges.length;
  return (
    <div class="exchanges">
      {exchanges.length > 0 ? (
        <div class="xfilter" role="search" aria-label="Filter the exchanges">
          <select value={verdictFilter} onChange={(e) => setVerdictFilter(e.currentTarget.value)} aria-label="Show exchanges of one verdict" data-testid="list-filter-verdict">
            <option value="">All verdicts</option>
            {['failed', 'completed', 'pending', 'unanalysed'].map((v) => <option key={v} value={v}>{v}</option>)}
          </select>
          <input type="search" value={endpointFilter} placeholder="Filter endpoints" aria-label="Show exchanges whose method and URL contain" onInput={(e) => setEndpointFilter(e.currentTarget.value)} data-testid="list-filter-endpoint" />
          {filtered ? <span class="muted" data-testid="list-shown" data-shown={rows.length}>{rows.length} of {exchanges.length} shown</span> : null}
        </div>
      ) : null}
      <div class="xhead xrow">
        <span>
          <input type="checkbox" aria-label="Select every exchange for export" checked={exchanges.length > 0 && tickedCount === exchanges.length}
            ref={(el) => { if (el) el.indeterminate = tickedCount > 0 && tickedCount < exchanges.length; }}
            onChange={(e) => onTick(exchanges.map((x) => x.id), e.currentTarget.checked)} disabled={exchanges.length === 0} />
        </span>
        <span aria-hidden="true">#</span>{sortBy('endpoint', 'Endpoint')}<span aria-hidden="true" class="c-status">Status</span><span aria-hidden="true" class="c-transport">Transport</span>{sortBy('verdict', 'Verdict')}
        <span aria-hidden="true" class="c-runs">Runs</span><span aria-hidden="true" class="c-events">Events</span>{sortBy('duration', 'Duration', 'c-duration')}{sortBy('ttft', 'TTFT', 'c-ttft', 'Time to first content: request start → the first text, tool-arguments or reasoning delta; sort by it')}{sortBy('findings', 'Findings')}
      </div>
      <div class="xlist" role="listbox" aria-label="Exchanges, newest last; Space ticks one for export" tabIndex={0} onKeyDown={onKeyDown} aria-activedescendant={selected ? `x-${at}` : undefined} data-testid="exchanges">
        {exchanges.length === 0 ? <EmptyList state={state} actions={actions} /> : null}
        {filtered && rows.length === 0 ? <Empty>No exchange passes the filters.</Empty> : null}
        {rows.map(({ x, n: i }) => {
          const verdict = verdictOf(x);
          const hint = rowHintOf(x);
          const all = x.report ? allFindings(x.report) : null;
          const findings = all ? presentFindings(all).length : null;
          const readiness = all ? all.length - findings! : 0;
          return (
            <div
              key={x.id}
              id={`x-${i}`}
              role="option"
              aria-selected={x.id === selected}
              class={`xrow${x.id === selected ? ' selected' : ''}`}
              onClick={() => onSelect(x.id)}
              data-testid="exchange-row"
              data-id={x.id}
              data-verdict={verdict}
              data-era={x.report?.era ?? ''}
              data-status={x.status ?? ''}
              data-transport={transportLabel(x)}
              data-origin={x.override ? 'override' : x.resentFrom === undefined ? 'page' : 'inspector'}
              data-first-content-ms={x.firstContentMs ?? ''}
            >
              <span>
                <input type="checkbox" checked={ticked.has(x.id)} aria-label={`Select exchange ${i + 1} for export`} tabIndex={-1}
                  onClick={(e) => e.stopPropagation()} onChange={(e) => onTick([x.id], e.currentTarget.checked)}
                  data-testid="exchange-select" data-id={x.id} />
              </span>
              <span class="muted">{i + 1}</span>
              <span class="endpoint" title={x.url}>
                <span class="path">{x.method} {endpointOf(x.url)}{x.resentFrom === undefined ? null : <span class="badge sent" title="Sent from the Inspector: a resend"> sent from the Inspector</span>}{x.override ? <span class="badge sent" title={`Answered by the Inspector from the recording of ${x.override.from}, not by the agent`}> answered from a recording</span> : null}</span>
                <span class="hint muted" data-testid="exchange-hint">{[hint.time, hint.ids, hint.words].filter(Boolean).join(' · ')}</span>
              </span>
              <span class="c-status">{x.status ?? '…'}</span>
              <span class="c-transport">{transportLabel(x)}</span>
              <span><span class={`badge v-${verdict}`}>{verdict}</span>{x.report?.era === 'pre-1.0' ? <> <EraBadge /></> : null}</span>
              <span class="c-runs">{x.report?.runs.length ?? '—'}</span>
              <span class="c-events">{x.events.length}</span>
              <span class="c-duration">{formatMs(durationOf(x))}</span>
              <span class="c-ttft">{formatMs(x.firstContentMs)}</span>
              <span title={readiness > 0 ? `${findings} findings, and ${readiness} 1.0-readiness items` : undefined}>
                {findings ?? '—'}{readiness > 0 ? <span class="muted" data-testid="readiness-count"> +{readiness}</span> : null}
              </span>
            </div>
          );
        })}
      </div>
    </div>
  );
}

const hasFiles = (e: DragEvent): boolean => e.dataTransfer?.types.includes('Files') ?? false;

export function App({ source, initialView = 'overview', actions }: { source: SessionSource; initialView?: ViewId; actions: SourceActions }) {
  const state = useSession(source);
  const [ticked, setTicked] = useState<Set<string>>(new Set());
  const [dragging, setDragging] = useState(false);
  const tick = (ids: string[], on: boolean): void => {
    setTicked((prev) => {
      const next = new Set(prev);
      for (const id of ids) if (on) next.add(id); else next.delete(id);
      return next;
    });
  };
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [view, setView] = useState<ViewId>(initialView);
  const [filter, setFilter] = useState<TimelineFilter>(NO_FILTER);
  const [event, setEvent] = useState<number | null>(null);
  const [focusField, setFocusField] = useState<string | null>(null);
  const [sent, setSent] = useState<Sent | null>(null);
  const tabs = useRef<HTMLDivElement>(null);

  // Until the user selects one, the newest exchange is shown, as it arrives.
  const x = state.exchanges.find((e) => e.id === selectedId) ?? state.exchanges.at(-1) ?? null;
  const selectExchange = (id: string): void => {
    setSelectedId(id);
    setEvent(null);
    setFocusField(null);
  };
  /** The Timeline on `index`, every other filter cleared; within `range` when one is given. */
  const goEvent = (index: number, range: EventRange | null = null): void => {
    setFilter((f) => ({ ...NO_FILTER, expand: f.expand, range }));
    setEvent(index);
    setView('timeline');
  };
  /** Exchange `id` on `to`, at frame `at` (on the Timeline, with every other filter cleared). */
  const openAt = (id: string, to: ViewId, at: number | null): void => {
    selectExchange(id);
    if (to === 'timeline' && at !== null) return goEvent(at);
    if (at !== null) setEvent(at);
    setView(to);
  };
  /** A problem of the overview: its exchange, on the view and frame that show it. */
  const openProblem = (id: string, p: Problem): void => openAt(id, p.view, p.event);
  const [query, setQuery] = useState('');
  const showFinding = (f: Finding): void => {
    if (f.event !== null) return goEvent(f.event);
    if (f.category === 'identity') return setView('identity');
    if (f.category === 'version' && f.path === '/protocolVersion') setFocusField('protocolVersion');
    else setFocusField(f.path?.split('/')[1] ?? null);
    setView('input');
  };

  useEffect(() => {
    if (view !== 'input' || !focusField) return;
    document.getElementById(`field-${focusField}`)?.focus();
  }, [view, focusField, x?.id]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      // The browser's own find searches only what is on screen: Ctrl+F searches every exchange instead.
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'f') {
        e.preventDefault();
        setView('overview');
        requestAnimationFrame(() => document.getElementById('session-search')?.focus());
        return;
      }
      if (e.altKey || e.ctrlKey || e.metaKey || isTyping(e.target)) return;
      // 1 … 9, and 0 for the tenth view, as a keyboard's row of digits runs.
      const n = e.key === '0' ? 10 : Number(e.key);
      if (Number.isInteger(n) && n >= 1 && n <= VIEWS.length) {
        setView(VIEWS[n - 1]!.id);
        e.preventDefault();
      } else if (e.key === 'j' || e.key === 'k') {
        const list = state.exchanges;
        const at = x ? list.indexOf(x) : -1;
        const next = list[Math.max(0, Math.min(list.length - 1, at + (e.key === 'j' ? 1 : -1)))];
        if (next) selectExchange(next.id);
      } else if (e.key === '/') {
        e.preventDefault();
        setView('timeline');
        requestAnimationFrame(() => document.getElementById('timeline-search')?.focus());
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [state.exchanges, x]);

  const onTabKey = (e: KeyboardEvent): void => {
    const at = VIEWS.findIndex((v) => v.id === view);
    const to = e.key === 'ArrowRight' ? at + 1 : e.key === 'ArrowLeft' ? at - 1 : e.key === 'Home' ? 0 : e.key === 'End' ? VIEWS.length - 1 : null;
    if (to === null) return;
    e.preventDefault();
    const next = VIEWS[(to + VIEWS.length) % VIEWS.length]!;
    setView(next.id);
    requestAnimationFrame(() => tabs.current?.querySelector<HTMLElement>(`#tab-${next.id}`)?.focus());
  };

  return (
    <div
      class={`app${dragging ? ' dragging' : ''}`} data-testid="import-drop"
      onDragOver={(e) => {
        if (!hasFiles(e)) return;
        e.preventDefault();
        e.dataTransfer!.dropEffect = 'copy';
        setDragging(true);
      }}
      onDragLeave={(e) => {
        // Leaving for one of the panel's own elements is not leaving the panel.
        if (!(e.relatedTarget instanceof Node && e.currentTarget.contains(e.relatedTarget))) setDragging(false);
      }}
      onDrop={(e) => {
        if (!hasFiles(e)) return;
        e.preventDefault();
        setDragging(false);
        const file = e.dataTransfer?.files[0];
        if (file) actions.importFile(file);
      }}
    >
      <Toolbar source={source} state={state} actions={actions} ticked={ticked} />
      {state.stats ? <StorageWarning stats={state.stats} /> : null}
      {state.stats ? <UnreachedWarning stats={state.stats} /> : null}
      <OverrideBanner armed={state.override} overriding={source.overriding} />
      {sent ? (
        <p class="banner" role="status" data-testid="resend-sent" data-exchange={sent.exchangeId}>
          Sent {sent.method} {sent.url} from the page; its answer is selected below. <button type="button" onClick={() => setSent(null)}>Dismiss</button>
        </p>
      ) : null}
      <ExchangeList state={state} selected={x?.id ?? null} onSelect={selectExchange} ticked={ticked} onTick={tick} actions={actions} />
      {dragging ? <div class="drop-hint" aria-hidden="true">Drop to import the recording</div> : null}
      {x ? (
        <main class="detail" aria-label={`Exchange ${x.method} ${endpointOf(x.url)}`}>
          <div class="detail-head">
            <div class="tabs" role="tablist" aria-label="Views" ref={tabs} onKeyDown={onTabKey}>
              {VIEWS.map((v, i) => (
                <button key={v.id} type="button" role="tab" id={`tab-${v.id}`} aria-selected={v.id === view} aria-controls="view" tabIndex={v.id === view ? 0 : -1}
                  aria-keyshortcuts={String((i + 1) % 10)} onClick={() => setView(v.id)} data-testid={`tab-${v.id}`}>
                  {v.label}{v.id === 'findings' && x.report ? <span class="count"> {presentFindings(allFindings(x.report)).length}</span> : null}
                </button>
              ))}
            </div>
            <CopyActions key={x.id} source={source} x={x} ready={x.outcome !== 'pending' || source.kind === 'live'} />
          </div>
          {view === 'overview' ? null : <Timing source={source} x={x} />}
          {view === 'overview' || x.transport !== 'websocket' ? null : <SocketSummary source={source} x={x} />}
          <div id="view" role="tabpanel" aria-labelledby={`tab-${view}`} class={`view view-${view}`} data-view={view}>
            {view === 'overview' ? <OverviewView source={source} exchanges={state.exchanges} onOpen={openProblem} onOpenAt={openAt} query={query} setQuery={setQuery} /> : <View source={source} x={x} view={view} focusField={focusField} filter={filter} setFilter={setFilter} event={event} setEvent={setEvent} goEvent={goEvent} showFinding={showFinding}
              thread={threadExchanges(state.exchanges, x)} exchanges={state.exchanges} numberOf={(id) => state.exchanges.findIndex((e) => e.id === id) + 1} select={selectExchange}
              onSent={(s) => { setSent(s); selectExchange(s.exchangeId); }} />}
          </div>
        </main>
      ) : null}
    </div>
  );
}

interface ViewProps {
  source: SessionSource;
  x: PanelExchange;
  view: ViewId;
  focusField: string | null;
  filter: TimelineFilter;
  setFilter: (f: TimelineFilter) => void;
  event: number | null;
  setEvent: (n: number) => void;
  goEvent: (n: number, range?: EventRange | null) => void;
  showFinding: (f: Finding) => void;
  onSent: (s: Sent) => void;
  /** The exchanges of x's thread, in capture order (x alone when it names none). */
  thread: PanelExchange[];
  /** Every exchange of the session, in capture order. */
  exchanges: PanelExchange[];
  /** An exchange's number in the list. */
  numberOf: (id: string) => number;
  select: (id: string) => void;
}

/**
 * Why a view has nothing to show yet: no report (still waiting, or the analysis failed), or its detail
 * not yet answered. A view waiting for its answer is `aria-busy` (tests wait for it too).
 */
function NotYet({ x, asked }: { x: PanelExchange; asked: boolean }) {
  if (x.analysisError !== null) return <Empty>The analysis of this exchange failed: {x.analysisError}</Empty>;
  if (!x.report) return <Empty>{x.outcome === 'pending' ? 'Waiting for the response…' : 'This exchange was not analysed.'}</Empty>;
  return asked ? <p class="muted" aria-busy="true">Reading…</p> : <Empty>Not available.</Empty>;
}

/** Each view shows the parts of the source's detail it reads, asked for while it is on screen. */
function View(p: ViewProps) {
  const { source, x, view } = p;
  const needs = view === 'timeline' && p.filter.expand ? [...NEEDS.timeline, 'expanded' as const] : NEEDS[view];
  // As many questions as any view asks, so the hooks are the same on every render.
  const answers = [useDetail(source, x, needs[0] ?? null), useDetail(source, x, needs[1] ?? null), useDetail(source, x, needs[2] ?? null)];
  const d: Partial<ExchangeDetail> = {};
  needs.forEach((k, i) => Object.assign(d, { [k]: answers[i] ?? undefined }));
  const stripped = useMemo(() => byEvent(d.stripped ?? []), [d.stripped]);
  const expanded = useMemo(() => (d.expanded ? new Map(d.expanded) : null), [d.expanded]);
  const report = x.report;
  // The timeline lists the frames it holds at once; what the detail adds (strips, expansions) follows.
  const waits = view !== 'timeline';
  // No timing is an answer of its own: the source recorded no times, which the Waterfall says.
  if (view === 'waterfall' && report && answers[0] !== undefined) return <WaterfallView timing={d.timing ?? null} onSpan={(s, label) => p.goEvent(s.startEvent, { from: s.startEvent, to: s.endEvent, label })} />;
  if (!report || (waits && answers.some((a) => a === null))) return <NotYet x={x} asked={false} />;
  if (waits && needs.some((_, i) => answers[i] === undefined)) return <NotYet x={x} asked />;
  switch (view) {
    case 'input':
      return <><ActOnExchange key={x.id} source={source} x={x} inp={d.input!} exchanges={p.exchanges} onSent={p.onSent} /><InputView inp={d.input!} focusField={p.focusField} /></>;
    case 'negotiation':
      return <NegotiationView report={report} inp={d.input!} runs={d.runs!} />;
    case 'stripped':
      return <StrippedView stripped={d.stripped!} version={report.consumerVersion} onEvent={p.goEvent} />;
    case 'identity':
      return <><IdentityView inp={d.input!} runs={d.runs!} /><RunTreeView source={source} x={x} thread={p.thread} numberOf={p.numberOf} onSelect={p.select} /></>;
    case 'timeline':
      return (
        <TimelineView x={x} findings={report.findings} version={report.consumerVersion} filter={p.filter} onFilter={p.setFilter} selected={p.event} onSelect={p.setEvent}
          stripped={stripped} expanded={expanded} busy={needs.some((_, i) => answers[i] === undefined)} />
      );
    case 'findings':
      return <FindingsView report={report} onPick={p.showFinding} />;
    case 'state':
      return <StateView source={source} x={x} inp={d.input!} states={d.states!} conversation={d.conversation!} onEvent={p.goEvent} thread={p.thread} numberOf={p.numberOf} select={p.select} />;
    case 'waterfall':
      return <NotYet x={x} asked />;
    case 'tools':
      return <ToolsView key={x.id} source={source} x={x} calls={d.toolCalls!} thread={p.thread} numberOf={p.numberOf} onSelect={p.select} onEvent={p.goEvent} />;
  }
}

/** The timing summary above the views, asked for whatever view is shown. */
function Timing({ source, x }: { source: SessionSource; x: PanelExchange }) {
  return <TimingSummary timing={useDetail(source, x, 'timing')} />;
}

/** The detail parts each view reads (the timeline asks for expansions too, while it shows them); three at most. */
function threadExchanges(all: readonly PanelExchange[], x: PanelExchange): PanelExchange[] {
  const thread = threadOf(x);
  return thread === null ? [x] : all.filter((e) => e === x || threadOf(e) === thread);
}

const NEEDS: Record<ViewId, DetailPart[]> = {
  overview: [],
  input: ['input'],
  negotiation: ['input', 'runs'],
  stripped: ['stripped'],
  identity: ['input', 'runs'],
  timeline: ['stripped'],
  findings: [],
  state: ['input', 'states', 'conversation'],
  waterfall: ['timing'],
  tools: ['toolCalls'],
};

function byEvent(stripped: StrippedMember[]): Map<number, StrippedMember[]> {
  const out = new Map<number, StrippedMember[]>();
  for (const s of stripped) {
    if (s.at === 'input') continue;
    const list = out.get(s.at);
    if (list) list.push(s);
    else out.set(s.at, [s]);
  }
  return out;
}
