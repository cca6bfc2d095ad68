/**
 * The Waterfall: an exchange's runs, steps, messages, tool calls, reasoning and subagents as bars on one
 * time axis, a lane per kind (each subagent's work in a lane of its own), stalls marked across them.
 *
 * Only what is on screen is rendered: each lane's spans are packed into rows once (per timing), and a
 * render walks the rows for the bars that meet the visible window. Spans too thin to tell apart at the
 * zoom that lie next to each other are drawn as one cluster, so a row holds at most one element per few
 * pixels of its width whatever the exchange's length: scrolling and zooming touch a screenful of
 * elements, not the exchange's, and a zoom step renders once, its scroll position set with it.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { SPAN_KINDS, spansOf, type Span, type SpanKind, type Timing, type ToolSpan } from '../../src/detail/index.ts';
import { formatMs } from '../model.ts';
import { Empty } from '../ui.tsx';

const KIND_LABEL: Record<SpanKind, string> = { run: 'Runs', step: 'Steps', message: 'Messages', tool: 'Tool calls', reasoning: 'Reasoning', subagent: 'Subagents' };
/** Rows a lane packs overlapping spans into; beyond, they share its last row. */
const MAX_ROWS = 6;
const ROW_PX = 16;
const LABEL_PX = 92;
const MAX_ZOOM = 4096;
/** A span narrower than this at the zoom cannot be told apart from a neighbour as close… */
const THIN_PX = 6;
/** …as this, past the end of what is drawn before it: such neighbours are drawn as one cluster. */
const NEAR_PX = 3;
/** The narrowest a bar or cluster is drawn, so that it can be seen and clicked. */
const MIN_DRAWN_PX = 2;

/** A span and the kind it is (its colour and hook): a subagent's lane holds spans of every kind. */
interface Placed {
  span: Span;
  kind: SpanKind;
}

interface Lane {
  key: string;
  label: string;
  kind: SpanKind;
  rows: Placed[][];
}

function pack(spans: Placed[], end: number): Placed[][] {
  const rows: Placed[][] = [];
  const ends: number[] = [];
  for (const p of spans) {
    const s = p.span;
    let r = ends.findIndex((e) => e <= s.startMs);
    if (r === -1) r = rows.length < MAX_ROWS ? rows.length : MAX_ROWS - 1;
    (rows[r] ??= []).push(p);
    ends[r] = Math.max(ends[r] ?? 0, s.endMs ?? end);
  }
  return rows;
}

/** The lanes: one per kind for the parent agent's work, then one per subagent holding its own span and its work. */
function lanesOf(t: Timing, end: number): Lane[] {
  const lanes: Lane[] = [];
  const bySubagent = new Map<string, { self: Span | null; work: Placed[] }>();
  for (const s of spansOf(t, 'subagent')) {
    const lane = bySubagent.get(s.id);
    if (lane) lane.work.push({ span: s, kind: 'subagent' });
    else bySubagent.set(s.id, { self: s, work: [{ span: s, kind: 'subagent' }] });
  }
  for (const kind of SPAN_KINDS) {
    if (kind === 'subagent') continue;
    const own: Placed[] = [];
    for (const s of spansOf(t, kind)) {
      if (s.subagent === undefined) own.push({ span: s, kind });
      else {
        const lane = bySubagent.get(s.subagent);
        if (lane) lane.work.push({ span: s, kind });
        else bySubagent.set(s.subagent, { self: null, work: [{ span: s, kind }] });
      }
    }
    if (own.length > 0) lanes.push({ key: kind, label: KIND_LABEL[kind], kind, rows: pack(own, end) });
  }
  for (const [id, { self, work }] of bySubagent) {
    work.sort((a, b) => a.span.startMs - b.span.startMs);
    lanes.push({ key: `subagent:${id}`, label: self?.name ?? id, kind: 'subagent', rows: pack(work, end) });
  }
  return lanes;
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

/** How far in the view is zoomed and where it is scrolled to: changed together, so a zoom step renders once. */
interface Place {
  zoom: number;
  /** The scroll offset, px. */
  left: number;
}

/** `onSpan`: a bar was clicked, to show the events that arrived while its span ran (`label` names it). */
export function WaterfallView({ timing, onSpan }: { timing: Timing | null; onSpan: (s: Span, label: string) => void }) {
  const scroller = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(600);
  const [{ zoom, left }, setPlace] = useState<Place>({ zoom: 1, left: 0 });
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setWidth(Math.max(100, el.clientWidth - LABEL_PX)));
    ro.observe(el);
    return () => ro.disconnect();
  }, [timing === null]);
  // A zoom step sets where the view is scrolled to with its zoom: the scroller follows before the frame is painted.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && Math.abs(el.scrollLeft - left) >= 1) el.scrollLeft = left;
  }, [zoom]);
  const end = useMemo(() => {
    if (!timing) return 0;
    let e = timing.durationMs ?? 0;
    for (const k of SPAN_KINDS) for (const s of spansOf(timing, k)) e = Math.max(e, s.endMs ?? s.startMs);
    return Math.max(1, e);
  }, [timing]);
  const lanes = useMemo(() => (timing ? lanesOf(timing, end) : []), [timing, end]);
  if (!timing) return <Empty>This source recorded no arrival times, so there is nothing to place on a time axis.</Empty>;
  if (timing.unusableTimes !== undefined) return <Empty>The recorded times cannot be when the response arrived ({timing.unusableTimes}), so nothing is placed on a time axis.</Empty>;
  if (timing.source === 'entry') return <Empty>Only the HAR entry's timings were recorded (time to first byte {formatMs(timing.ttfbMs)}, duration {formatMs(timing.durationMs)}): no event's arrival to place.</Empty>;

  const total = width * zoom;
  const pxPerMs = total / end;
  const x = (ms: number): number => ms * pxPerMs;
  // A pixel beyond each edge: a span at the exchange's very end (every span of a buffered stream, which
  // arrived at one instant) lies at `to` itself, which the division may round just below it.
  const from = (left - 1) / pxPerMs;
  const to = (left + width + 1) / pxPerMs;
  const zoomTo = (z: number, anchorPx = width / 2): void => {
    const next = Math.max(1, Math.min(MAX_ZOOM, z));
    const at = (left + anchorPx) / pxPerMs;
    // As far as the scroller can go: its content is the axis, `width * next` wide.
    const most = Math.max(0, width * next - (scroller.current?.clientWidth ?? width));
    setPlace({ zoom: next, left: Math.min(most, Math.max(0, at * ((width * next) / end) - anchorPx)) });
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
  const bar = ({ span: s, kind }: Placed, l: number, w: number, y: number): void => {
    const label = describe(kind, s, end);
    bars.push(
      <button key={`${kind}:${s.id}:${s.startEvent}`} type="button" class={`wf-bar wf-${kind}${s.endMs === null ? ' wf-open' : ''}`} data-testid="span" data-kind={kind} data-id={s.id}
        data-start-ms={s.startMs} data-end-ms={s.endMs ?? ''} title={label} aria-label={label}
        style={{ left: `${l}px`, top: `${y}px`, width: `${Math.max(MIN_DRAWN_PX, w)}px` }} onClick={() => onSpan(s, spanLabel(kind, s))}>
        {w > 40 ? s.name ?? s.id : null}
      </button>,
    );
  };
  for (const lane of lanes) {
    laneHeads.push(<div key={lane.key} class="wf-lane-label" style={{ top: `${top}px`, height: `${lane.rows.length * ROW_PX}px` }} title={lane.label}>{lane.label}</div>);
    lane.rows.forEach((row, r) => {
      const y = top + r * ROW_PX;
      // Spans in a row start in order and do not overlap (but for the overflow row): the first to draw is found by bisection.
      let lo = 0;
      let hi = row.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if ((row[mid]!.span.endMs ?? end) < from) lo = mid + 1;
        else hi = mid;
      }
      // Thin spans wait here until the next shows whether they stand alone (a bar) or among neighbours (a cluster).
      let thin: { first: Placed; left: number; right: number; n: number } | null = null;
      const flush = (): void => {
        if (!thin) return;
        if (thin.n === 1) bar(thin.first, thin.left, thin.right - thin.left, y);
        else {
          const { first, n } = thin;
          bars.push(<div key={`c:${first.kind}:${first.span.id}:${first.span.startEvent}`} class="wf-cluster" data-testid="span-cluster" style={{ left: `${thin.left}px`, top: `${y}px`, width: `${Math.max(MIN_DRAWN_PX, thin.right - thin.left)}px` }} title={`${n} ${KIND_LABEL[lane.kind].toLowerCase()} too short to tell apart at this zoom`} />);
        }
        thin = null;
      };
      for (let i = Math.max(0, lo - 1); i < row.length; i++) {
        const p = row[i]!;
        const s = p.span;
        if (s.startMs > to) break;
        const sEnd = s.endMs ?? end;
        if (sEnd < from) continue;
        const l = x(s.startMs);
        const w = x(sEnd) - l;
        if (w >= THIN_PX) {
          flush();
          bar(p, l, w, y);
        } else if (thin && l < thin.left + Math.max(MIN_DRAWN_PX, thin.right - thin.left) + NEAR_PX) {
          thin.right = Math.max(thin.right, l + w);
          thin.n++;
        } else {
          flush();
          thin = { first: p, left: l, right: l + w, n: 1 };
        }
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
        <div class="wf-scroll" ref={scroller} onScroll={(e) => {
          const at = e.currentTarget.scrollLeft;
          // The browser's offset may round the one a zoom step set: a pixel's difference draws the same window.
          setPlace((p) => (Math.abs(p.left - at) < 1 ? p : { zoom: p.zoom, left: at }));
        }}
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
