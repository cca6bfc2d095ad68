/**
 * Tools: every tool call the stream started (the `toolCalls` part, src/detail/tools.ts), who executes
 * it, its arguments checked against the schema the input declared for a frontend tool, its result and
 * duration. Virtualised like the Timeline: 10,000 calls cost one screen of rows.
 */
import type { JSX } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import type { ToolCallRow } from '../../src/detail/index.ts';
import { useDetails } from '../detail.ts';
import { formatMs, type PanelExchange, type SessionSource } from '../model.ts';
import { Empty, Json, SpecLink } from '../ui.tsx';
import { listKeys, useVirtualRows } from '../vlist.ts';

const ROW_HEIGHT = 22;

const SIDE_TEXT: Record<ToolCallRow['side'], string> = {
  frontend: 'frontend — the input declares it: the application executes it',
  backend: 'backend — its result came in the stream: the agent executed it',
  unknown: 'unknown — the input does not declare it and no result came in the stream',
};
const ARGS_TEXT: Record<ToolCallRow['args']['status'], string> = {
  valid: 'match the declared parameters schema',
  invalid: 'rejected by the declared parameters schema',
  unparsed: 'do not parse',
  unchecked: 'not checked',
};
const RESULT_TEXT: Record<ToolCallRow['result'], string> = {
  present: 'present',
  pending: 'pending — waiting on the application',
  absent: 'absent — none will come',
};

/** A call, and the exchange of the thread that started it. */
interface Item {
  c: ToolCallRow;
  exchange: string;
}

function Detail({ c, elsewhere, onEvent }: { c: ToolCallRow; elsewhere: { n: number; select: () => void } | null; onEvent: (i: number) => void }) {
  const go = (i: number | null, label: string) => (i === null || elsewhere ? null : <button type="button" class="link" onClick={() => onEvent(i)}>{label} #{i}</button>);
  const r = c.resultMessage;
  return (
    <section class="event-detail tool-detail" aria-label={`Tool call ${c.id}`} data-testid="tool-detail" data-tool-call-id={c.id}>
      <h3><code>{c.name || '(no name)'}</code> <span class="muted">{c.id}</span></h3>
      <p>{SIDE_TEXT[c.side]}{c.runId !== null ? <> · run <code>{c.runId}</code></> : null}{c.subagent !== undefined ? <> · subagent <code>{c.subagent}</code></> : null}</p>
      {elsewhere ? <p><button type="button" class="link" onClick={elsewhere.select}>started in exchange {elsewhere.n}</button></p> : null}
      <p class="muted">{go(c.startEvent, 'start')} {go(c.endEvent, 'end')} {go(c.resultEvent, 'result')}{c.durationMs !== null ? ` · ${formatMs(c.durationMs)}` : ''}{c.argsMs !== null ? ` (arguments ${formatMs(c.argsMs)})` : ''}</p>
      <h4>Arguments: <span class={`args-${c.args.status}`} data-testid="args-status" data-args={c.args.status}>{ARGS_TEXT[c.args.status]}</span></h4>
      {c.args.reason !== null ? <p class="muted">{c.args.reason}</p> : null}
      {c.args.status === 'invalid' ? (
        <>
          <p class="note" data-testid="args-note">
            The agent called the application's tool with arguments its schema rejects. The protocol carries arguments as text and does not validate them, so this is no protocol
            violation; the application must treat them as untrusted and validate them before executing the call: information, not a finding.
          </p>
          <ul class="args-errors">
            {c.args.errors.map((e, i) => (
              <li key={i} data-testid="args-error" data-path={e.path} data-keyword={e.keyword}><code>{e.path || '(the arguments)'}</code> {e.message} <span class="muted">({e.keyword})</span></li>
            ))}
          </ul>
        </>
      ) : null}
      {c.args.spec.length > 0 ? <p class="specs">{c.args.spec.map((s) => <SpecLink key={s} spec={s} />)}</p> : null}
      {c.parsed !== undefined ? <Json value={c.parsed} label="Parsed arguments" /> : <pre class="raw" tabIndex={0} aria-label="Argument text">{c.arguments || '(empty)'}</pre>}
      <h4>Result: {RESULT_TEXT[c.result]}</h4>
      {c.listedPending !== null ? <p class="muted">RUN_FINISHED {c.listedPending ? 'lists it' : 'does not list it'} in <code>pendingToolCallIds</code></p> : null}
      {c.later ? <p data-testid="tool-later">The thread's next request (run <code>{c.later.runId ?? '?'}</code>) {c.later.answered ? 'answered it with a tool message' : 'went on without answering it'}</p> : null}
      {r ? <Json value={r.content} label="Result content" /> : null}
    </section>
  );
}

export interface ToolsProps {
  source: SessionSource;
  x: PanelExchange;
  calls: ToolCallRow[];
  /** The exchanges of x's thread, in capture order: their calls are listed too on request. */
  thread: PanelExchange[];
  numberOf: (id: string) => number;
  onSelect: (id: string) => void;
  onEvent: (i: number) => void;
}

export function ToolsView({ source, x, calls, thread, numberOf, onSelect, onEvent }: ToolsProps) {
  const [whole, setWhole] = useState(false);
  const held = thread.filter((t) => t.report !== null);
  const others = useDetails(source, whole ? held.filter((t) => t !== x) : [], 'toolCalls');
  const items: Item[] = useMemo(() => {
    if (!whole) return calls.map((c) => ({ c, exchange: x.id }));
    let k = 0;
    return held.flatMap((t) => (t === x ? calls : others[k++] ?? []).map((c) => ({ c, exchange: t.id })));
  }, [whole, calls, x, ...held, ...others]);
  // The first call whose arguments are rejected is what the view is opened for, most of the time.
  const initial = useMemo(() => Math.max(0, items.findIndex((i) => i.exchange === x.id && i.c.args.status === 'invalid')), [items]);
  const [picked, setPicked] = useState<string | null>(null);
  const keyOf = (i: Item): string => `${i.exchange}\0${i.c.id}`;
  const at = picked === null ? -1 : items.findIndex((i) => keyOf(i) === picked);
  const active = at >= 0 ? at : items.length > 0 ? initial : -1;
  const { ref, first, last, page, onScroll } = useVirtualRows(items.length, ROW_HEIGHT, active);
  const onKeyDown = listKeys(active, items.length, page, (r) => setPicked(keyOf(items[r]!)));
  const counts = useMemo(() => {
    const n = { frontend: 0, invalid: 0, pending: 0 };
    for (const { c } of items) {
      if (c.side === 'frontend') n.frontend++;
      if (c.args.status === 'invalid') n.invalid++;
      if (c.result === 'pending') n.pending++;
    }
    return n;
  }, [items]);
  const toggle = held.length > 1 ? (
    <label><input type="checkbox" checked={whole} onChange={(e) => setWhole(e.currentTarget.checked)} data-testid="tools-thread" /> the whole thread ({held.length} exchanges)</label>
  ) : null;
  if (items.length === 0) return <>{toggle ? <p class="filters">{toggle}</p> : null}<Empty>{whole ? 'No exchange of this thread started a tool call.' : 'The stream started no tool call.'}</Empty></>;
  const rows: JSX.Element[] = [];
  for (let i = first; i < last; i++) {
    const { c, exchange } = items[i]!;
    const here = exchange === x.id;
    rows.push(
      <div key={keyOf(items[i]!)} id={`tool-${i}`} role="option" aria-selected={i === active} class={`trow tool-row${i === active ? ' selected' : ''}${c.args.status === 'invalid' || c.args.status === 'unparsed' ? ' has-warning' : ''}${here ? '' : ' elsewhere'}`}
        style={{ top: `${i * ROW_HEIGHT}px` }} onClick={() => setPicked(keyOf(items[i]!))}
        data-testid="tool-call" data-tool-call-id={c.id} data-name={c.name} data-side={c.side} data-args={c.args.status} data-result={c.result} data-exchange={exchange}>
        <span class="c-idx">{whole ? `${numberOf(exchange)}·` : ''}{c.startEvent}</span>
        <span class="c-type"><code>{c.name}</code></span>
        <span>{c.side}</span>
        <span class={`args-${c.args.status}`}>{c.args.status}</span>
        <span>{c.result}</span>
        <span class="c-time">{c.durationMs !== null ? formatMs(c.durationMs) : ''}</span>
      </div>,
    );
  }
  const sel = active >= 0 ? items[active] : undefined;
  return (
    <section class="timeline tools">
      <p class="filters" data-testid="tools-summary">
        <span>{items.length} tool calls · {counts.frontend} frontend · {counts.invalid} with arguments their schema rejects · {counts.pending} pending</span>
        {toggle}
        <span class="muted" title="Checked where the exchange was analysed (the extension's worker, or the import worker for a file): the extension's content security policy forbids the code ajv compiles schemas to">
          arguments checked by a JSON Schema interpreter, not ajv (the extension's CSP forbids compiled code)
        </span>
      </p>
      <div class="timeline-body">
        <div class="thead tool-row" aria-hidden="true"><span class="c-idx">#</span><span class="c-type">tool</span><span>side</span><span>arguments</span><span>result</span><span class="c-time">duration</span></div>
        <div class="vlist" ref={ref} role="listbox" aria-label="Tool calls" tabIndex={0} aria-activedescendant={active >= 0 ? `tool-${active}` : undefined} onScroll={onScroll} onKeyDown={onKeyDown} data-testid="tools">
          <div class="vspace" style={{ height: `${items.length * ROW_HEIGHT}px` }}>{rows}</div>
        </div>
      </div>
      {sel ? <Detail c={sel.c} elsewhere={sel.exchange === x.id ? null : { n: numberOf(sel.exchange), select: () => onSelect(sel.exchange) }} onEvent={onEvent} /> : null}
    </section>
  );
}
