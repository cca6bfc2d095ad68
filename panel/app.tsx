/** The panel: the session's exchanges on top, the selected one's views below. */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Finding } from '../src/rules/types.ts';
import { fullOf, inputOf, pendingInterruptsFor, reportOf, runsOf } from './analysis.ts';
import {
  durationOf, endpointOf, formatBytes, formatMs, transportLabel, verdictOf,
  type PanelExchange, type SessionSource, type SessionState,
} from './model.ts';
import { Empty } from './ui.tsx';
import { allFindings, FindingsView } from './views/findings.tsx';
import { IdentityView } from './views/identity.tsx';
import { InputView } from './views/input.tsx';
import { NegotiationView } from './views/negotiation.tsx';
import { StateView } from './views/state.tsx';
import { StrippedView } from './views/stripped.tsx';
import { NO_FILTER, TimelineView, type TimelineFilter } from './views/timeline.tsx';

export const VIEWS = [
  { id: 'input', label: 'Input' },
  { id: 'negotiation', label: 'Negotiation' },
  { id: 'stripped', label: 'Stripped members' },
  { id: 'identity', label: 'Identity' },
  { id: 'timeline', label: 'Timeline' },
  { id: 'findings', label: 'Findings' },
  { id: 'state', label: 'State & messages' },
] as const;
export type ViewId = (typeof VIEWS)[number]['id'];

const EMPTY: SessionState = { status: 'connecting', label: '', exchanges: [], stats: null, preserve: false, recording: true };

function useSession(source: SessionSource): SessionState {
  const [state, setState] = useState<SessionState>(EMPTY);
  useEffect(() => source.subscribe(setState), [source]);
  return state;
}

const isTyping = (t: EventTarget | null): boolean =>
  t instanceof HTMLElement && (t.isContentEditable || ['INPUT', 'SELECT', 'TEXTAREA'].includes(t.tagName));

function Toolbar({ source, state }: { source: SessionSource; state: SessionState }) {
  const s = state.stats;
  const dropped = s ? s.dropped.exchanges + s.dropped.chunks + s.dropped.events + s.dropped.rejected : 0;
  return (
    <div class="toolbar" role="toolbar" aria-label="Capture">
      {source.setRecording ? (
        <button type="button" class={`record${state.recording ? ' on' : ''}`} aria-pressed={state.recording} onClick={() => source.setRecording!(!state.recording)} data-testid="record"
          title={state.recording ? 'Pause: exchanges that begin are not added' : 'Record'}>
          <span aria-hidden="true">{state.recording ? '●' : '○'}</span> {state.recording ? 'Recording' : 'Paused'}
        </button>
      ) : null}
      {source.clear ? <button type="button" onClick={() => void source.clear!()} data-testid="clear">Clear</button> : null}
      {source.setPreserve ? (
        <label class="check"><input type="checkbox" checked={state.preserve} onChange={(e) => void source.setPreserve!(e.currentTarget.checked)} data-testid="preserve" /> Preserve across reloads</label>
      ) : null}
      <span class="status" data-testid="status" data-status={state.status} role="status">
        {state.status === 'live' ? 'Live' : state.status === 'no-tab' ? 'No tab to inspect' : state.status}
        {state.label ? <> · <span class="muted">{state.label}</span></> : null}
      </span>
      {s ? (
        <span class="stats muted" data-testid="stats">
          {s.exchanges} exchanges · {s.events} events · {formatBytes(s.bytes)}{dropped > 0 ? <strong class="sev-warning"> · dropped: {s.dropped.exchanges} exchanges, {s.dropped.chunks} chunks, {s.dropped.events} events, {s.dropped.rejected} rejected</strong> : null}
        </span>
      ) : null}
    </div>
  );
}

function ExchangeList({ exchanges, selected, onSelect }: { exchanges: PanelExchange[]; selected: string | null; onSelect: (id: string) => void }) {
  const at = exchanges.findIndex((x) => x.id === selected);
  const onKeyDown = (e: KeyboardEvent): void => {
    const to = e.key === 'ArrowDown' ? at + 1 : e.key === 'ArrowUp' ? at - 1 : e.key === 'Home' ? 0 : e.key === 'End' ? exchanges.length - 1 : null;
    if (to === null) return;
    e.preventDefault();
    const x = exchanges[Math.max(0, Math.min(exchanges.length - 1, to))];
    if (x) onSelect(x.id);
  };
  return (
    <div class="exchanges">
      <div class="xhead xrow" aria-hidden="true">
        <span>#</span><span>Endpoint</span><span>Status</span><span>Transport</span><span>Verdict</span><span>Runs</span><span>Events</span><span>Duration</span><span>Findings</span>
      </div>
      <div class="xlist" role="listbox" aria-label="Exchanges, newest last" tabIndex={0} onKeyDown={onKeyDown} aria-activedescendant={selected ? `x-${at}` : undefined} data-testid="exchanges">
        {exchanges.length === 0 ? <Empty>No AG-UI exchange captured yet. Run your app: requests carrying a RunAgentInput appear here.</Empty> : null}
        {exchanges.map((x, i) => {
          const verdict = verdictOf(x);
          const findings = x.report ? x.report.findings.length + x.report.input.findings.length : null;
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
              data-status={x.status ?? ''}
              data-transport={transportLabel(x.contentType)}
            >
              <span class="muted">{i + 1}</span>
              <span class="endpoint" title={x.url}>{x.method} {endpointOf(x.url)}</span>
              <span>{x.status ?? '…'}</span>
              <span>{transportLabel(x.contentType)}</span>
              <span><span class={`badge v-${verdict}`}>{verdict}</span></span>
              <span>{x.report?.runs.length ?? '—'}</span>
              <span>{x.events.length}</span>
              <span>{formatMs(durationOf(x))}</span>
              <span>{findings ?? '—'}</span>
            </div>
          );
        })}
      </div>
    </div>
  );
}

export function App({ source, initialView = 'input' }: { source: SessionSource; initialView?: ViewId }) {
  const state = useSession(source);
  const [picked, setPicked] = useState<string | null>(null);
  const [view, setView] = useState<ViewId>(initialView);
  const [filter, setFilter] = useState<TimelineFilter>(NO_FILTER);
  const [event, setEvent] = useState<number | null>(null);
  const [focusField, setFocusField] = useState<string | null>(null);
  const tabs = useRef<HTMLDivElement>(null);

  // Until the user picks one, the newest exchange is shown, as it arrives.
  const x = state.exchanges.find((e) => e.id === picked) ?? state.exchanges.at(-1) ?? null;
  const select = (id: string): void => {
    setPicked(id);
    setEvent(null);
    setFocusField(null);
  };
  const goEvent = (index: number): void => {
    setFilter((f) => ({ ...NO_FILTER, expand: f.expand }));
    setEvent(index);
    setView('timeline');
  };
  const pick = (f: Finding): void => {
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
      if (e.altKey || e.ctrlKey || e.metaKey || isTyping(e.target)) return;
      const n = Number(e.key);
      if (Number.isInteger(n) && n >= 1 && n <= VIEWS.length) {
        setView(VIEWS[n - 1]!.id);
        e.preventDefault();
      } else if (e.key === 'j' || e.key === 'k') {
        const list = state.exchanges;
        const at = x ? list.indexOf(x) : -1;
        const next = list[Math.max(0, Math.min(list.length - 1, at + (e.key === 'j' ? 1 : -1)))];
        if (next) select(next.id);
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

  const pending = useMemo(() => (x && view === 'input' ? pendingInterruptsFor(state.exchanges, x) : null), [x, x?.rev, view, state.exchanges]);

  return (
    <div class="app">
      <Toolbar source={source} state={state} />
      <ExchangeList exchanges={state.exchanges} selected={x?.id ?? null} onSelect={select} />
      {x ? (
        <main class="detail" aria-label={`Exchange ${x.method} ${endpointOf(x.url)}`}>
          <div class="tabs" role="tablist" aria-label="Views" ref={tabs} onKeyDown={onTabKey}>
            {VIEWS.map((v, i) => (
              <button key={v.id} type="button" role="tab" id={`tab-${v.id}`} aria-selected={v.id === view} aria-controls="view" tabIndex={v.id === view ? 0 : -1}
                aria-keyshortcuts={String(i + 1)} onClick={() => setView(v.id)} data-testid={`tab-${v.id}`}>
                {v.label}{v.id === 'findings' && x.report ? <span class="count"> {allFindings(x.report).length}</span> : null}
              </button>
            ))}
          </div>
          <div id="view" role="tabpanel" aria-labelledby={`tab-${view}`} class={`view view-${view}`} data-view={view}>
            <View x={x} view={view} pending={pending} focusField={focusField} filter={filter} setFilter={setFilter} event={event} setEvent={setEvent} goEvent={goEvent} pick={pick} />
          </div>
        </main>
      ) : null}
    </div>
  );
}

interface ViewProps {
  x: PanelExchange;
  view: ViewId;
  pending: ReturnType<typeof pendingInterruptsFor>;
  focusField: string | null;
  filter: TimelineFilter;
  setFilter: (f: TimelineFilter) => void;
  event: number | null;
  setEvent: (n: number) => void;
  goEvent: (n: number) => void;
  pick: (f: Finding) => void;
}

function View({ x, view, pending, focusField, filter, setFilter, event, setEvent, goEvent, pick }: ViewProps) {
  const report = reportOf(x);
  switch (view) {
    case 'input':
      return <InputView inp={inputOf(x)} pending={pending} focusField={focusField} />;
    case 'negotiation':
      return <NegotiationView report={report} inp={inputOf(x)} runs={runsOf(x)} />;
    case 'stripped':
      return <StrippedView full={fullOf(x)} version={report.consumerVersion} onEvent={goEvent} />;
    case 'identity':
      return <IdentityView inp={inputOf(x)} runs={runsOf(x)} />;
    case 'timeline':
      return <TimelineView x={x} findings={report.findings} version={report.consumerVersion} filter={filter} onFilter={setFilter} selected={event} onSelect={setEvent} detail={() => fullOf(x)} />;
    case 'findings':
      return <FindingsView findings={allFindings(report)} onPick={pick} />;
    case 'state':
      return <StateView full={fullOf(x)} inp={inputOf(x)} onEvent={goEvent} />;
  }
}
