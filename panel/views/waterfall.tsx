/**
 * The Waterfall: an exchange's runs, steps, messages, tool calls, reasoning and subagents as bars on one
 * time axis, a lane per kind (each subagent's work in a lane of its own), stalls marked across them.
 *
 * Only what is on screen is rendered: each lane's spans are packed into rows once, and a render walks
 * the rows for the bars that meet the visible window, drawing those narrower than a pixel next to the
 * last drawn one as one cluster. Scrolling and zooming touch a screenful of bars, not the exchange's.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { SPAN_KINDS, spansOf, type Span, type SpanKind, type Timing, type ToolSpan } from '../../src/detail/index.ts';
import { formatMs } from '../model.ts';
import { Empty } from '../ui.tsx';

const KIND_LABEL: Record<SpanKind, string> = { run: 'Runs', step: 'Steps', message: 'Messages', tool: 'Tool calls', reasoning: 'Reasoning', subagent: 'Subagents' };
/** Rows a lane packs overlapping spans into; beyond, they share its last row. */
const MAX_ROWS = 6;
const ROW_PX = 16;
const LABEL_PX = 92;
const MAX_ZOOM = 4096;

interface Lane {
  key: string;
  label: string;
  kind: SpanKind;
  rows: Span[][];
}

function pack(spans: Span[], end: number): Span[][] {
  const rows: Span[][] = [];
  const ends: number[] = [];
  for (const s of spans) {
    let r = ends.findIndex((e) => e <= s.startMs);
    if (r === -1) r = rows.length < MAX_ROWS ? rows.length : MAX_ROWS - 1;
    (rows[r] ??= []).push(s);
    ends[r] = Math.max(ends[r] ?? 0, s.endMs ?? end);
  }
  return rows;
}

/** The lanes: one per kind for the parent agent's work, then one per subagent holding its own span and its work. */
function lanesOf(t: Timing, end: number): Lane[] {
  const lanes: Lane[] = [];
  const bySubagent = new Map<string, Span[]>();
  for (const s of spansOf(t, 'subagent')) bySubagent.set(s.id, [s]);
  for (const kind of SPAN_KINDS) {
    if (kind === 'subagent') continue;
    const own: Span[] = [];
    for (const s of spansOf(t, kind)) {
      if (s.subagent === undefined) own.push(s);
      else {
        const list = bySubagent.get(s.subagent) ?? [];
        list.push(s);
        bySubagent.set(s.subagent, list);
      }
    }
    if (own.length > 0) lanes.push({ key: kind, label: KIND_LABEL[kind], kind, rows: pack(own, end) });
  }
  for (const [id, spans] of bySubagent) {
    const self = spansOf(t, 'subagent').find((s) => s.id === id);
    spans.sort((a, b) => a.startMs - b.startMs);
    lanes.push({ key: `subagent:${id}`, label: self?.name ?? id, kind: 'subagent', rows: pack(spans, end) });
  }
  return lanes;
}

/** The kind a span of a subagent's lane is, for its colour and hook. */
function kindIn(t: Timing, s: Span, lane: Lane): SpanKind {
  if (lane.kind !== 'subagent') return lane.kind;
  for (const k of SPAN_KINDS) if (spansOf(t, k).includes(s)) return k;
  return 'subagent';
}

/** A span in a few words: a message by its id (its name is its role), a tool call by its tool. */
function spanLabel(kind: SpanKind, s: Span): string {
  return kind === 'message' ? `message ${s.id}` : `${kind === 'tool' ? 'tool call' : kind} ${s.name ?? s.id}`;
}

function describe(kind: SpanKind, s: Span, end: number): string {
  const took = s.endMs === null ? `open, ${formatMs(end - s.startMs)} so far` : formatMs(s.endMs - s.startMs);
  const tool = kind === 'tool' ? (s as ToolSpan) : null;
  const extra = tool ? ` · ${tool.side}${tool.resultMs !== null && tool.argsEndMs !== null ? ` · result ${formatMs(tool.resultMs - tool.argsEndMs)} after its arguments` : ''}` : '';
  return `${kind} ${s.name ?? ''} ${s.id}: ${took} (from ${formatMs(s.startMs)})${extra}`.replace(/\s+/g, ' ');
}

/** `onSpan`: a bar was clicked, to show the events that arrived while its span ran (`label` names it). */
export function WaterfallView({ timing, onSpan }: { timing: Timing | null; onSpan: (s: Span, label: string) => void }) {
  const scroller = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(600);
  const [zoom, setZoom] = useState(1);
  const [left, setLeft] = useState(0);
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setWidth(Math.max(100, el.clientWidth - LABEL_PX)));
    ro.observe(el);
    return () => ro.disconnect();
  }, [timing === null]);
  const end = useMemo(() => {
    if (!timing) return 0;
    let e = timing.durationMs ?? 0;
    for (const k of SPAN_KINDS) for (const s of spansOf(timing, k)) e = Math.max(e, s.endMs ?? s.startMs);
    return Math.max(1, e);
  }, [timing]);
  const lanes = useMemo(() => (timing ? lanesOf(timing, end) : []), [timing, end]);
  if (!timing) return <Empty>This source recorded no arrival times, so there is nothing to place on a time axis.</Empty>;
  if (timing.source === 'entry') return <Empty>Only the HAR entry's timings were recorded (time to first byte {formatMs(timing.ttfbMs)}, duration {formatMs(timing.durationMs)}): no event's arrival to place.</Empty>;

  const total = width * zoom;
  const pxPerMs = total / end;
  const x = (ms: number): number => ms * pxPerMs;
  const from = left / pxPerMs;
  const to = (left + width) / pxPerMs;
  const zoomTo = (z: number, anchorPx = width / 2): void => {
    const next = Math.max(1, Math.min(MAX_ZOOM, z));
    const at = (left + anchorPx) / pxPerMs;
    setZoom(next);
    requestAnimationFrame(() => {
      const el = scroller.current;
      if (el) el.scrollLeft = Math.max(0, at * ((width * next) / end) - anchorPx);
    });
  };
  const onKey = (e: KeyboardEvent): void => {
    if (e.key === '+' || e.key === '=') zoomTo(zoom * 2);
    else if (e.key === '-') zoomTo(zoom / 2);
    else if (e.key === '0') zoomTo(1);
    else return;
    e.preventDefault();
  };

  const bars: preact.JSX.Element[] = [];
  let top = 0;
  const laneHeads: preact.JSX.Element[] = [];
  for (const lane of lanes) {
    laneHeads.push(<div key={lane.key} class="wf-lane-label" style={{ top: `${top}px`, height: `${lane.rows.length * ROW_PX}px` }} title={lane.label}>{lane.label}</div>);
    lane.rows.forEach((row, r) => {
      const y = top + r * ROW_PX;
      // Spans in a row start in order and do not overlap (but for the overflow row): the first to draw is found by bisection.
      let lo = 0;
      let hi = row.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if ((row[mid]!.endMs ?? end) < from) lo = mid + 1;
        else hi = mid;
      }
      let clusterEnd = -Infinity;
      let cluster: { left: number; right: number; n: number } | null = null;
      const flush = (): void => {
        if (cluster) bars.push(<div key={`c${lane.key}${r}:${cluster.left}`} class="wf-cluster" data-testid="span-cluster" style={{ left: `${cluster.left}px`, top: `${y}px`, width: `${Math.max(1, cluster.right - cluster.left)}px` }} title={`${cluster.n} ${KIND_LABEL[lane.kind].toLowerCase()} too short to tell apart at this zoom`} />);
        cluster = null;
      };
      for (let i = Math.max(0, lo - 1); i < row.length; i++) {
        const s = row[i]!;
        if (s.startMs > to) break;
        const sEnd = s.endMs ?? end;
        if (sEnd < from) continue;
        const l = x(s.startMs);
        const w = x(sEnd) - l;
        if (w < 2 && l < clusterEnd + 1) {
          if (cluster) {
            cluster.right = Math.max(cluster.right, l + w);
            cluster.n++;
          } else cluster = { left: l, right: l + w, n: 1 };
          clusterEnd = l + w;
          continue;
        }
        flush();
        const kind = kindIn(timing, s, lane);
        const label = describe(kind, s, end);
        bars.push(
          <button key={`${kind}:${s.id}:${s.startEvent}`} type="button" class={`wf-bar wf-${kind}${s.endMs === null ? ' wf-open' : ''}`} data-testid="span" data-kind={kind} data-id={s.id}
            data-start-ms={s.startMs} data-end-ms={s.endMs ?? ''} title={label} aria-label={label}
            style={{ left: `${l}px`, top: `${y}px`, width: `${Math.max(2, w)}px` }} onClick={() => onSpan(s, spanLabel(kind, s))}>
            {w > 40 ? s.name ?? s.id : null}
          </button>,
        );
        clusterEnd = l + Math.max(2, w);
      }
      flush();
    });
    top += lane.rows.length * ROW_PX + 4;
  }
  const stalls = (timing.stalls ?? []).filter((s) => s.atMs + s.ms >= from && s.atMs <= to).map((s) => (
    <div key={`stall${s.afterEvent}`} class="wf-stall" data-testid="stall" data-after-event={s.afterEvent} data-ms={s.ms} style={{ left: `${x(s.atMs)}px`, width: `${Math.max(1, x(s.ms))}px`, height: `${top}px` }}
      title={`stall: nothing arrived for ${formatMs(s.ms)} after event #${s.afterEvent}`} />
  ));
  const ticks: preact.JSX.Element[] = [];
  const step = niceStep((to - from) / 6);
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) ticks.push(<span key={t} class="wf-tick" style={{ left: `${x(t)}px` }}>{formatMs(t)}</span>);

  return (
    <section class="waterfall" data-testid="waterfall" aria-label="Waterfall" tabIndex={0} onKeyDown={onKey}>
      <div class="wf-tools">
        <button type="button" onClick={() => zoomTo(zoom * 2)} aria-label="Zoom in" title="Zoom in (+)">+</button>
        <button type="button" onClick={() => zoomTo(zoom / 2)} aria-label="Zoom out" title="Zoom out (−)">−</button>
        <button type="button" onClick={() => zoomTo(1)} title="Fit the exchange (0)">Fit</button>
        <span class="muted">{formatMs(end)} · {zoom}× · Ctrl+wheel zooms, a bar shows its events</span>
      </div>
      <div class="wf-body">
        <div class="wf-labels" style={{ height: `${top}px` }}>{laneHeads}</div>
        <div class="wf-scroll" ref={scroller} onScroll={(e) => setLeft(e.currentTarget.scrollLeft)}
          onWheel={(e) => {
            if (!e.ctrlKey) return;
            e.preventDefault();
            const rect = e.currentTarget.getBoundingClientRect();
            zoomTo(e.deltaY < 0 ? zoom * 1.5 : zoom / 1.5, e.clientX - rect.left);
          }}>
          <div class="wf-axis" style={{ width: `${total}px` }}>{ticks}</div>
          {/* Stalls under the bars: a bar across a stall stays clickable, the stall's title shows around it. */}
          <div class="wf-lanes" style={{ width: `${total}px`, height: `${top}px` }}>{stalls}{bars}</div>
        </div>
      </div>
    </section>
  );
}

function niceStep(raw: number): number {
  const p = 10 ** Math.floor(Math.log10(Math.max(raw, 1e-3)));
  const m = raw / p;
  return (m < 2 ? 2 : m < 5 ? 5 : 10) * p;
}

/** TTFT, duration, gaps, stalls and tokens at a glance, above the views. */
export function TimingSummary({ timing }: { timing: Timing | null | undefined }) {
  if (!timing) return null;
  const tokens = timing.usage.flatMap((u) => u.usage).reduce((n: number, u) => n + (typeof (u as { totalTokens?: unknown }).totalTokens === 'number' ? (u as { totalTokens: number }).totalTokens : 0), 0);
  const stalls = timing.stalls;
  return (
    <div class="timing-summary" data-testid="timing-summary" data-ttfb-ms={timing.ttfbMs ?? ''} data-first-content-ms={timing.firstContentMs ?? ''} data-duration-ms={timing.durationMs ?? ''}
      data-buffering-suspected={timing.buffering ? String(timing.buffering.suspected) : undefined} data-produced-over-ms={timing.buffering?.producedOverMs} data-arrived-within-ms={timing.buffering?.arrivedWithinMs}>
      <span title="Request start → first response byte">TTFB <b>{formatMs(timing.ttfbMs)}</b></span>
      {timing.source === 'chunks' ? <span title="Request start → first text, tool-arguments or reasoning content">TTFT <b>{formatMs(timing.firstContentMs)}</b></span> : null}
      <span>duration <b>{formatMs(timing.durationMs)}</b></span>
      {timing.gaps ? <span title="Gaps between consecutive events' arrivals">gaps p50 {formatMs(timing.gaps.p50)} · p95 {formatMs(timing.gaps.p95)} · max {formatMs(timing.gaps.max)}</span> : null}
      {stalls ? <span class={stalls.length ? 'warn' : ''}>{stalls.length} stall{stalls.length === 1 ? '' : 's'} ≥ {formatMs(timing.stallMs)}</span> : null}
      {timing.buffering?.suspected ? <span class="warn" title="Events produced over a long time arrived at once: something between agent and page held the stream back">buffered: produced over {formatMs(timing.buffering.producedOverMs)}, arrived within {formatMs(timing.buffering.arrivedWithinMs)}</span> : null}
      {tokens > 0 ? <span>{tokens.toLocaleString('en')} tokens</span> : null}
    </div>
  );
}
