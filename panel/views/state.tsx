/** State and messages: the state after each snapshot and delta, and the conversation as the application holds it. */
import { useState } from 'preact/hooks';
import type { ConvMessage, InputDetail, StateRow } from '../../src/detail/index.ts';
import { useStateAt } from '../detail.ts';
import type { PanelExchange, SessionSource } from '../model.ts';
import { Content } from './content.tsx';
import { Empty, Json } from '../ui.tsx';

/**
 * One step's state, asked for and printed only while its row is open: a step works its state out when
 * read (analyzer/state.ts), and sending or printing every step's whole state would cost steps × state size.
 */
function StateAfter({ source, x, step, row, open: initially }: { source: SessionSource; x: PanelExchange; step: number; row: StateRow; open: boolean }) {
  const [open, setOpen] = useState(initially);
  const answer = useStateAt(source, x, step, open);
  return (
    <details open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>State after</summary>
      {!open ? null : answer === undefined ? <p class="muted" aria-busy="true">Reading…</p> : answer === null ? <p class="muted">Not available.</p> : <Json value={answer.state} label={`state after event ${row.event}`} />}
    </details>
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
          <ol class="steps">
            {states.map((s, i) => (
              <li key={i} data-testid="state-step" data-event={s.event} data-failed={String(s.failed)} class={s.failed ? 'failed' : ''}>
                <button type="button" class="link" onClick={() => onEvent(s.event)} aria-label={`Show event ${s.event} in the timeline`}>#{s.event} {s.type}</button>
                {s.failed ? <strong class="sev-error"> ✖ patch failed: state kept as it was</strong> : null}
                <StateAfter key={`${x.id}:${i}`} source={source} x={x} step={i} row={s} open={i === states.length - 1} />
              </li>
            ))}
          </ol>
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
