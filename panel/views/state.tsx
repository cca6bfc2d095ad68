/** State and messages: the state after each snapshot and delta, and the conversation as the application holds it. */
import { useState } from 'preact/hooks';
import type { ConvMessage, InputDetail, OpOutcome, StateDiff, StateRow } from '../../src/detail/index.ts';
import { useStateAt, useStateDiff } from '../detail.ts';
import type { PanelExchange, SessionSource } from '../model.ts';
import { Content } from './content.tsx';
import { Empty, Json, SpecLink, json } from '../ui.tsx';

/** The state at one step, asked for and printed only on demand: it can be large, and a step works it out when read. */
function StateAt({ source, x, step, event }: { source: SessionSource; x: PanelExchange; step: number; event: number }) {
  const [open, setOpen] = useState(false);
  const answer = useStateAt(source, x, step, open);
  return (
    <details open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>State at this step</summary>
      {!open ? null : answer === undefined ? <p class="muted" aria-busy="true">Reading…</p> : answer === null ? <p class="muted">Not available.</p> : <Json value={answer.state} label={`state after event ${event}`} />}
    </details>
  );
}

const OUTCOME_TEXT: Record<OpOutcome, string> = { applied: 'applied', failed: 'failed', undone: 'undone (the patch failed)', 'not-reached': 'not reached' };

function Value({ v }: { v: unknown }) {
  return <code class="diff-value">{json(v)}</code>;
}

/** What one step changed: its net changes, and for a delta each operation as it went. */
function StepDiff({ diff }: { diff: StateDiff }) {
  return (
    <div class="state-diff">
      {diff.ops ? (
        <table class="diff-ops" aria-label="Operations">
          <thead><tr><th>op</th><th>path</th><th>was</th><th>value</th><th>outcome</th></tr></thead>
          <tbody>
            {diff.ops.map((o, i) => (
              <tr key={i} data-testid="state-diff" data-kind="op" data-op={o.op} data-path={o.path} data-failed={String(o.outcome === 'failed')} class={`outcome-${o.outcome}`}>
                <td><code>{o.op}</code></td>
                <td><code>{o.path}</code>{o.from !== undefined ? <span class="muted"> from <code>{o.from}</code></span> : null}</td>
                <td>{'old' in o ? <Value v={o.old} /> : <span class="muted">—</span>}</td>
                <td>{'value' in o ? <Value v={o.value} /> : <span class="muted">—</span>}</td>
                <td>{o.outcome === 'failed' ? <strong class="sev-error">✖ failed: {o.error}</strong> : OUTCOME_TEXT[o.outcome]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {diff.failed ? <p class="sev-error">The patch failed: the state is kept as it was (<SpecLink spec="basic/patterns/snapshots" />).</p> : diff.changes.length === 0 ? <p class="muted">No change to the state.</p> : (
        <ul class="diff-changes" aria-label="Changes">
          {diff.changes.map((c, i) => (
            <li key={i} data-testid="state-diff" data-kind="change" data-op={c.op} data-path={c.path} data-failed="false" class={`change-${c.op}`}>
              <span class="diff-mark" aria-hidden="true">{c.op === 'add' ? '+' : c.op === 'remove' ? '−' : '~'}</span> <code>{c.path || '(whole state)'}</code>{' '}
              {c.op === 'add' ? <Value v={c.value} /> : c.op === 'remove' ? <s><Value v={c.old} /></s> : <><s><Value v={c.old} /></s> → <Value v={c.value} /></>}
            </li>
          ))}
          {diff.truncated ? <li class="muted">… and more changes, not listed.</li> : null}
        </ul>
      )}
    </div>
  );
}

/**
 * Time travel over the state steps: a scrubber, the diff of the step it is on (worked out by the
 * worker, so moving costs one small answer), the state there on demand, and back to latest.
 * Keys: ← → on the scrubber, or [ and ] anywhere in the view.
 */
function Scrubber({ source, x, states, onEvent }: { source: SessionSource; x: PanelExchange; states: StateRow[]; onEvent: (index: number) => void }) {
  const last = states.length - 1;
  const [pinned, setPinned] = useState<number | null>(null);
  const at = pinned === null ? last : Math.min(pinned, last);
  const row = states[at]!;
  const diff = useStateDiff(source, x, at);
  const go = (n: number): void => setPinned(n >= last ? null : Math.max(0, n));
  const keys = (e: KeyboardEvent): void => {
    if (e.key !== '[' && e.key !== ']') return;
    e.preventDefault();
    go(at + (e.key === ']' ? 1 : -1));
  };
  return (
    <div class="scrubber" onKeyDown={keys} data-testid="state-scrubber">
      <label class="scrub">
        <span>Step {at + 1} of {states.length}</span>
        <input type="range" min={0} max={last} value={at} data-testid="state-scrub" data-step={at} aria-label="State step"
          onInput={(e) => go(Number(e.currentTarget.value))} />
      </label>
      <button type="button" onClick={() => go(at - 1)} disabled={at === 0} aria-label="Step back" title="Step back ([)">◀</button>
      <button type="button" onClick={() => go(at + 1)} disabled={at === last} aria-label="Step forward" title="Step forward (])">▶</button>
      <button type="button" data-testid="state-latest" onClick={() => setPinned(null)} disabled={pinned === null}>Back to latest</button>
      <p>
        <button type="button" class="link" onClick={() => onEvent(row.event)} aria-label={`Show event ${row.event} in the timeline`}>#{row.event} {row.type}</button>
        {row.failed ? <strong class="sev-error"> ✖ patch failed</strong> : null}
        <span class="muted"> — against {at === 0 ? "the input's state" : `step ${at}`}</span>
      </p>
      {diff === undefined ? <p class="muted" aria-busy="true">Reading…</p> : diff === null ? <p class="muted">Not available.</p> : <StepDiff diff={diff} />}
      <StateAt key={`${x.id}:${at}`} source={source} x={x} step={at} event={row.event} />
    </div>
  );
}

export interface StateViewProps {
  source: SessionSource;
  x: PanelExchange;
  inp: InputDetail;
  states: StateRow[];
  conversation: ConvMessage[];
  onEvent: (index: number) => void;
}

export function StateView({ source, x, inp, states, conversation, onEvent }: StateViewProps) {
  const sent = inp.input.value;
  const initial = sent && 'state' in sent ? sent.state : {};
  return (
    <section class="state-view">
      <section aria-label="State">
        <h3>State</h3>
        <details>
          <summary>Initial state {sent && 'state' in sent ? '(from the input)' : '(absent in the input: {})'}</summary>
          <Json value={initial} label="initial state" />
        </details>
        {states.length === 0 ? <Empty>No STATE_SNAPSHOT or STATE_DELTA on this stream.</Empty> : (
          <>
            <Scrubber source={source} x={x} states={states} onEvent={onEvent} />
            <ol class="steps">
              {states.map((s, i) => (
                <li key={i} data-testid="state-step" data-event={s.event} data-failed={String(s.failed)} class={s.failed ? 'failed' : ''}>
                  <button type="button" class="link" onClick={() => onEvent(s.event)} aria-label={`Show event ${s.event} in the timeline`}>#{s.event} {s.type}</button>
                  {s.failed ? <strong class="sev-error"> ✖ patch failed: state kept as it was</strong> : null}
                </li>
              ))}
            </ol>
          </>
        )}
      </section>
      <section aria-label="Messages">
        <h3>Messages</h3>
        {conversation.length === 0 ? <Empty>No messages.</Empty> : (
          <ol class="conversation">
            {conversation.map((m, i) => (
              <li key={i} data-testid="conv-message" data-role={m.role} data-id={m.id}>
                <span class={`role role-${m.role}`}>{m.role}</span> <code class="muted">{m.id}</code>
                {m.event === null ? <span class="muted"> (sent by the app)</span> : <span class="muted"> (event #{m.event})</span>}
                {m.activityType ? <span class="kind"> {m.activityType}</span> : null}
                <Content content={m.content} />
                {m.toolCalls.map((c) => <p key={c.id} class="tool-call">→ <code>{c.name}</code>({c.arguments}) <span class="muted">{c.id}</span></p>)}
                {m.toolCallId ? <p class="muted">answers tool call <code>{m.toolCallId}</code></p> : null}
              </li>
            ))}
          </ol>
        )}
      </section>
    </section>
  );
}
