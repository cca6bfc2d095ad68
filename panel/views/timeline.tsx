/**
 * Timeline: every frame with its type, time, size and findings. Virtualised: only the rows in view are
 * in the DOM, so 100,000 events scroll and filter like ten. Filtering works on what the source already
 * has (frames and findings); decoding and enforcement happen for the selected event only, and the full
 * analysis only when chunk expansion is turned on.
 */
import type { JSX } from 'preact';
import { useMemo } from 'preact/hooks';
import { fromBase64 } from '../../src/base64.ts';
import type { Ev, StrippedMember } from '../../src/detail/index.ts';
import type { EventView } from '../../src/messages.ts';
import type { Category, Finding, ProtocolVersion, Severity as Sev } from '../../src/rules/index.ts';
import { decodeFrame } from '../frames.ts';
import { searchText } from '../search.ts';
import { formatBytes, type PanelExchange } from '../model.ts';
import { Empty, FindingLine, json } from '../ui.tsx';
import { listKeys, useVirtualRows } from '../vlist.ts';

export const ROW_HEIGHT = 22;

/** The frames from one event to another: the events that arrived while a span of the Waterfall ran. */
export interface EventRange {
  from: number;
  /** Null: through the last frame, for a span still open. */
  to: number | null;
  /** What ran then, as the chip above the rows names it. */
  label: string;
}

export interface TimelineFilter {
  type: string;
  category: Category | '';
  severity: Sev | '';
  text: string;
  expand: boolean;
  range: EventRange | null;
}

export const NO_FILTER: TimelineFilter = { type: '', category: '', severity: '', text: '', expand: false, range: null };

export function findingsByEvent(findings: Finding[]): Map<number, Finding[]> {
  const m = new Map<number, Finding[]>();
  for (const f of findings) if (f.event !== null) m.set(f.event, [...(m.get(f.event) ?? []), f]);
  return m;
}

/** Rows to show: each an event index, and for an expanded chunk the position of the event it expands to (else -1). */
export function filterRows(events: EventView[], byEvent: Map<number, Finding[]>, f: TimelineFilter, expanded: Map<number, Ev[]> | null): { event: Int32Array; sub: Int32Array; length: number } {
  const q = f.text.trim().toLowerCase();
  const texts = q ? searchText(events) : null;
  const extra = expanded ? [...expanded.values()].reduce((n, l) => n + l.length, 0) : 0;
  const event = new Int32Array(events.length + extra);
  const sub = new Int32Array(events.length + extra);
  let n = 0;
  const byFinding = f.category !== '' || f.severity !== '';
  const from = f.range ? f.range.from : 0;
  const to = f.range?.to ?? events.length - 1;
  for (let i = from; i <= to && i < events.length; i++) {
    const e = events[i]!;
    if (f.type !== '' && e.type !== f.type) continue;
    if (byFinding) {
      const fs = byEvent.get(i);
      if (!fs || !fs.some((x) => (f.category === '' || x.category === f.category) && (f.severity === '' || x.severity === f.severity))) continue;
    }
    if (texts && !texts[i]!.includes(q)) continue;
    event[n] = i;
    sub[n++] = -1;
    const children = expanded?.get(i);
    if (children) {
      for (let k = 0; k < children.length; k++) {
        event[n] = i;
        sub[n++] = k;
      }
    }
  }
  return { event, sub, length: n };
}

function rawText(e: EventView): string {
  if (e.rawEncoding === 'text') return e.raw;
  const bytes = fromBase64(e.raw);
  const hex = Array.from(bytes.subarray(0, 4096), (b) => b.toString(16).padStart(2, '0')).join(' ');
  return `${bytes.length} bytes (protobuf message, without its 4-byte length prefix)\n${hex}${bytes.length > 4096 ? ' …' : ''}`;
}

function EventDetail({ e, version, findings, stripped }: { e: EventView; version: ProtocolVersion; findings: Finding[]; stripped: StrippedMember[] }) {
  const { value, error } = useMemo(() => decodeFrame(e), [e]);
  const dropped = stripped.some((s) => s.whole);
  const strips = stripped.filter((s) => !s.whole);
  return (
    <section class="event-detail" aria-label={`Event ${e.index}`} data-testid="event-detail" data-index={e.index}>
      <h3>#{e.index} {e.type}</h3>
      <p class="muted">+{e.time.toFixed(1)} ms · byte {e.offset} · {formatBytes(e.size)} on the wire</p>
      {findings.length > 0 ? <ul class="findings-inline">{findings.map((f, i) => <FindingLine key={i} f={f} />)}</ul> : null}
      {dropped ? <p class="sev-warning">A {version} consumer drops this event whole.</p> : null}
      {strips.length > 0 ? (
        <ul class="strips">{strips.map((s) => <li key={s.path}>stripped <code>{s.path}</code>: <code>{JSON.stringify(s.removed)}</code></li>)}</ul>
      ) : null}
      <h4>Decoded</h4>
      {error !== null ? <p class="sev-error">Does not decode: {error}</p> : <pre class="json" tabIndex={0} aria-label="Decoded event">{json(value)}</pre>}
      <h4>Raw frame</h4>
      <pre class="raw" tabIndex={0} aria-label="Raw frame">{rawText(e)}</pre>
    </section>
  );
}

export interface TimelineProps {
  x: PanelExchange;
  findings: Finding[];
  version: ProtocolVersion;
  filter: TimelineFilter;
  onFilter: (f: TimelineFilter) => void;
  selected: number | null;
  onSelect: (index: number) => void;
  /** What chunk expansion rewrote, by frame: asked for only while the filter shows expansions. */
  expanded: Map<number, Ev[]> | null;
  /** What a consumer strips, by frame. */
  stripped: Map<number, StrippedMember[]>;
  /** Strips or expansions are still being asked for: the rows are shown, what they add follows. */
  busy: boolean;
}

export function TimelineView({ x, findings, version, filter, onFilter, selected, onSelect, expanded, stripped, busy }: TimelineProps) {
  const events = x.events;
  const byEvent = useMemo(() => findingsByEvent(findings), [findings]);
  const types = useMemo(() => [...new Set(events.map((e) => e.type))].sort(), [events, events.length]);
  const categories = useMemo(() => [...new Set(findings.filter((f) => f.event !== null).map((f) => f.category))].sort(), [findings]);
  const rows = useMemo(() => filterRows(events, byEvent, filter, expanded), [events, events.length, x.rev, byEvent, filter, expanded]);

  const activeRow = useMemo(() => {
    if (selected === null) return -1;
    for (let r = 0; r < rows.length; r++) if (rows.event[r] === selected && rows.sub[r] === -1) return r;
    return -1;
  }, [rows, selected]);
  const { ref: list, first, last, page, onScroll } = useVirtualRows(rows.length, ROW_HEIGHT, activeRow);
  const onKeyDown = listKeys(activeRow, rows.length, page, (r) => onSelect(rows.event[r]!));

  const visible: JSX.Element[] = [];
  for (let r = first; r < last; r++) {
    const i = rows.event[r]!;
    const k = rows.sub[r]!;
    const e = events[i]!;
    if (k >= 0) {
      const child = expanded?.get(i)?.[k];
      visible.push(
        <div key={`${i}.${k}`} id={`ev-${i}-${k}`} role="option" aria-selected={false} class="trow expanded" style={{ top: `${r * ROW_HEIGHT}px` }} data-testid="timeline-row" data-index={i} data-type={child?.type ?? ''} data-expanded="true" onClick={() => onSelect(i)}>
          <span class="c-idx" />
          <span class="c-time" />
          <span class="c-type">↳ {child?.type}</span>
          <span class="c-size muted">expanded from #{i}</span>
          <span class="c-find" />
        </div>,
      );
      continue;
    }
    const fs = byEvent.get(i) ?? [];
    const worst = fs.some((f) => f.severity === 'error') ? 'error' : fs.some((f) => f.severity === 'warning') ? 'warning' : fs.length ? 'info' : '';
    visible.push(
      <div key={i} id={`ev-${i}`} role="option" aria-selected={i === selected} class={`trow${i === selected ? ' selected' : ''}${worst ? ` has-${worst}` : ''}`} style={{ top: `${r * ROW_HEIGHT}px` }} data-testid="timeline-row" data-index={i} data-type={e.type} onClick={() => onSelect(i)}>
        <span class="c-idx">{i}</span>
        <span class="c-time">+{e.time.toFixed(0)} ms</span>
        <span class="c-type">{e.type}</span>
        <span class="c-size">{formatBytes(e.size)}</span>
        <span class="c-find">{fs.slice(0, 2).map((f, n) => <span key={n} class={`chip sev-${f.severity}`}>{f.rule}</span>)}{fs.length > 2 ? <span class="chip">+{fs.length - 2}</span> : null}</span>
      </div>,
    );
  }

  const set = (patch: Partial<TimelineFilter>): void => onFilter({ ...filter, ...patch });
  const sel = selected === null ? null : events[selected] ?? null;
  return (
    <section class="timeline" aria-busy={busy || undefined}>
      <div class="filters" role="search" aria-label="Filter events">
        <label>Type <select value={filter.type} onChange={(e) => set({ type: e.currentTarget.value })} data-testid="filter-type">
          <option value="">all</option>{types.map((t) => <option key={t} value={t}>{t}</option>)}
        </select></label>
        <label>Category <select value={filter.category} onChange={(e) => set({ category: e.currentTarget.value as Category | '' })} data-testid="filter-category">
          <option value="">all</option>{categories.map((c) => <option key={c} value={c}>{c}</option>)}
        </select></label>
        <label>Severity <select value={filter.severity} onChange={(e) => set({ severity: e.currentTarget.value as Sev | '' })} data-testid="filter-severity">
          <option value="">all</option><option value="error">error</option><option value="warning">warning</option><option value="info">info</option>
        </select></label>
        <label>Search <input type="search" value={filter.text} placeholder="text in the frame" onInput={(e) => set({ text: e.currentTarget.value })} data-testid="filter-text" id="timeline-search" /></label>
        <label><input type="checkbox" checked={filter.expand} onChange={(e) => set({ expand: e.currentTarget.checked })} data-testid="filter-expand" /> Expand chunks</label>
        {filter.range ? (
          <span class="chip filter-range" data-testid="filter-range" data-from={filter.range.from} data-to={filter.range.to ?? ''}>
            while {filter.range.label} ran: #{filter.range.from}–{filter.range.to === null ? 'the last' : `#${filter.range.to}`}
            <button type="button" class="link" onClick={() => set({ range: null })} aria-label="Show every event" title="Show every event">×</button>
          </span>
        ) : null}
        <span class="muted" data-testid="timeline-count" aria-live="polite">{rows.length === events.length ? `${events.length} events` : `${rows.length} of ${events.length} rows`}</span>
      </div>
      <div class="timeline-body">
        <div class="thead" aria-hidden="true"><span class="c-idx">#</span><span class="c-time">time</span><span class="c-type">type</span><span class="c-size">size</span><span class="c-find">findings</span></div>
        <div
          class="vlist"
          ref={list}
          role="listbox"
          aria-label={`Events of ${x.url}`}
          tabIndex={0}
          aria-activedescendant={selected !== null && activeRow >= 0 ? `ev-${selected}` : undefined}
          onScroll={onScroll}
          onKeyDown={onKeyDown}
          data-testid="timeline"
        >
          <div class="vspace" style={{ height: `${rows.length * ROW_HEIGHT}px` }}>{visible}</div>
        </div>
        {rows.length === 0 ? <Empty>{events.length === 0 ? 'No events yet.' : 'No event matches the filter.'}</Empty> : null}
      </div>
      {sel ? <EventDetail e={sel} version={version} findings={byEvent.get(sel.index) ?? []} stripped={stripped.get(sel.index) ?? []} /> : <p class="muted event-detail">Select an event to see its decoded JSON and raw frame.</p>}
    </section>
  );
}

