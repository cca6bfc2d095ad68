/** State and messages: the state after each snapshot and delta, and the conversation as the application holds it, each with time travel. */
import { useState } from 'preact/hooks';
import type { JSX } from 'preact';
import type { ConvChange, ConvContent, ConvDiff, ConvMessage, InputDetail, OpOutcome, StateDiff, StateRow } from '../../src/detail/index.ts';
import { preview } from '../../src/json.ts';
import { useConversationAt, useConversationDiff, useDetail, useDetails, useStateAt, useStateDiff } from '../detail.ts';
import type { PanelExchange, SessionSource } from '../model.ts';
import { Content } from './content.tsx';
import { Empty, Json, SpecLink, json } from '../ui.tsx';

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

/** An answer as it stands: Reading… while asked, Not available when there is none, else what `show` makes of it. */
function answered<T>(value: T | null | undefined, show: (v: T) => JSX.Element): JSX.Element {
  return value === undefined ? <p class="muted" aria-busy="true">Reading…</p> : value === null ? <p class="muted">Not available.</p> : show(value);
}

/** What a step holds, asked for and printed only once opened: a whole state or conversation can be large. */
function OnDemand<T>({ summary, use, show }: { summary: string; use: (open: boolean) => T | null | undefined; show: (v: T) => JSX.Element }) {
  const [open, setOpen] = useState(false);
  const answer = use(open);
  return (
    <details open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>{summary}</summary>
      {open ? answered(answer, show) : null}
    </details>
  );
}

interface TravelProps<D> {
  /** Prefixes the test hooks: `state-scrub`, `conv-scrub`, `state-latest`, ... */
  hook: 'state' | 'conv';
  label: string;
  /** `where` names another exchange a step is on; `against`, what a step is diffed against when not the step before. */
  steps: readonly { event: number; type: string; failed?: boolean; where?: string; against?: string }[];
  /** What the first step is diffed against. */
  first: string;
  /** What step `at` changed, asked of whoever analysed the exchange (a hook). */
  useDiff: (at: number) => D | null | undefined;
  showDiff: (d: D) => JSX.Element;
  /** What the step holds, on demand. */
  held: (at: number, event: number) => JSX.Element;
  /** The step's event was asked for (`at`: the step). */
  onEvent: (at: number) => void;
}

/**
 * Time travel over a list of steps: a scrubber on the latest step unless pinned (so a growing exchange
 * keeps showing its newest), the diff of the step it is on (worked out by the worker, so moving costs one
 * small answer), what the step holds on demand, and back to latest. Keys: ← → on the range, [ and ]
 * anywhere in the scrubber.
 */
function Travel<D>({ hook, label, steps, first, useDiff, showDiff, held, onEvent }: TravelProps<D>) {
  const last = steps.length - 1;
  const [pinned, setPinned] = useState<number | null>(null);
  const at = pinned === null ? last : Math.min(pinned, last);
  const go = (n: number): void => setPinned(n >= last ? null : Math.max(0, n));
  const keys = (e: KeyboardEvent): void => {
    if (e.key !== '[' && e.key !== ']') return;
    e.preventDefault();
    go(at + (e.key === ']' ? 1 : -1));
  };
  const row = steps[at]!;
  const diff = useDiff(at);
  return (
    <div class="scrubber" onKeyDown={keys} data-testid={`${hook}-scrubber`}>
      <label class="scrub">
        <span>Step {at + 1} of {steps.length}</span>
        <input type="range" min={0} max={last} value={at} data-testid={`${hook}-scrub`} data-step={at} aria-label={label}
          onInput={(e) => go(Number(e.currentTarget.value))} />
      </label>
      <button type="button" onClick={() => go(at - 1)} disabled={at === 0} aria-label="Step back" title="Step back ([)">◀</button>
      <button type="button" onClick={() => go(at + 1)} disabled={at === last} aria-label="Step forward" title="Step forward (])">▶</button>
      <button type="button" data-testid={`${hook}-latest`} onClick={() => setPinned(null)} disabled={pinned === null}>Back to latest</button>
      <p>
        <button type="button" class="link" onClick={() => onEvent(at)} aria-label={row.where ? `Show ${row.where}` : `Show event ${row.event} in the timeline`}>#{row.event} {row.type}{row.where ? ` (${row.where})` : ''}</button>
        {row.failed ? <strong class="sev-error"> ✖ patch failed</strong> : null}
        <span class="muted" data-testid={`${hook}-against`}> — against {row.against ?? (at === 0 ? first : `step ${at}`)}</span>
      </p>
      {answered(diff, showDiff)}
      {held(at, row.event)}
    </div>
  );
}

/** A message's content on one line: its text, its tool calls, or its parts as sent. */
function brief(c: ConvContent): string {
  const calls = c.toolCalls.map((t) => `${t.name}(${t.arguments})`).join(', ');
  const text = [typeof c.content === 'string' ? c.content : preview(c.content, 200), calls && `→ ${calls}`].filter(Boolean).join(' ');
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

const CONV_MARK: Record<ConvChange['change'], string> = { added: '+', replaced: '~', dropped: '−', reordered: '↕' };

/** What a message is: an activity is UI state the app shows, never conversation (events/activity). */
function Who({ role, kind, activityType }: { role: string; kind: 'message' | 'activity'; activityType?: string }) {
  return kind === 'activity' ? <span class="role role-activity">activity{activityType ? <span class="kind"> {activityType}</span> : null}</span> : <span class={`role role-${role}`}>{role}</span>;
}

/** What one conversation step changed, message by message. */
function ConversationDiff({ diff }: { diff: ConvDiff }) {
  const snapshot = diff.type === 'MESSAGES_SNAPSHOT';
  return (
    <div class="conv-diff">
      {snapshot ? (
        <p class="muted">
          Reconciled by id (<SpecLink spec="events/state#messages_snapshot" />): a held message is replaced in place, a new one appended, one left out dropped — except activity and reasoning while the snapshot carries none — and what the consumer holds is never reordered.
        </p>
      ) : null}
      {diff.changes.length === 0 ? <p class="muted">{snapshot ? 'The snapshot restates what the consumer holds: no change.' : 'No change.'}</p> : (
        <ul class="diff-changes" aria-label="Conversation changes">
          {diff.changes.map((c, i) => (
            <li key={i} data-testid="conv-diff" data-change={c.change} data-id={c.id} data-kind={c.kind} class={`change-${c.change}`}>
              <span class="diff-mark" aria-hidden="true">{CONV_MARK[c.change]}</span> <strong>{c.change}</strong> <Who role={c.role} kind={c.kind} activityType={c.activityType} /> <code>{c.id}</code>
              {c.change === 'reordered' ? <span class="muted"> — listed at position {c.listed! + 1}, kept where the consumer holds it</span> : null}
              {c.was || c.now ? (
                <div class="conv-brief">
                  {c.was ? <s><q>{brief(c.was)}</q></s> : null}
                  {c.was && c.now ? ' → ' : null}
                  {c.now && (c.was || c.change !== 'reordered') ? <q>{brief(c.now)}</q> : null}
                </div>
              ) : null}
            </li>
          ))}
          {diff.truncated ? <li class="muted">… and more changes, not listed.</li> : null}
        </ul>
      )}
    </div>
  );
}

function Messages({ messages, hook, label }: { messages: ConvMessage[]; hook: 'conv-message' | 'conv-at-message'; label: string }) {
  return (
    <ol class="conversation" aria-label={label}>
      {messages.map((m, i) => (
        <li key={i} data-testid={hook} data-role={m.role} data-id={m.id} data-kind={m.role === 'activity' ? 'activity' : 'message'}>
          <Who role={m.role} kind={m.role === 'activity' ? 'activity' : 'message'} activityType={m.activityType} /> <code class="muted">{m.id}</code>
          {m.event === null ? <span class="muted"> (sent by the app)</span> : <span class="muted"> (event #{m.event})</span>}
          {m.role === 'activity' ? <span class="muted"> — UI state the app shows, never sent to the agent</span> : null}
          <Content content={m.content} />
          {m.toolCalls.map((c) => <p key={c.id} class="tool-call">→ <code>{c.name}</code>({c.arguments}) <span class="muted">{c.id}</span></p>)}
          {m.toolCallId ? <p class="muted">answers tool call <code>{m.toolCallId}</code></p> : null}
        </li>
      ))}
    </ol>
  );
}

export interface StateViewProps {
  source: SessionSource;
  x: PanelExchange;
  inp: InputDetail;
  states: StateRow[];
  conversation: ConvMessage[];
  onEvent: (index: number) => void;
  /** The exchanges of x's thread, in capture order, for the scrubber across them. */
  thread: PanelExchange[];
  numberOf: (id: string) => number;
  select: (id: string) => void;
}

/** One state step of the scrubber: which exchange's, and its index among that exchange's steps. */
interface ThreadStep extends StateRow {
  x: PanelExchange;
  step: number;
  where?: string;
  against?: string;
}

/**
 * The state steps the scrubber goes over: the exchange's own, or, across the thread, every exchange's in
 * order, each exchange's first step diffed against the state its own input sent (what the app held then).
 */
function useThreadSteps(source: SessionSource, x: PanelExchange, states: StateRow[], thread: PanelExchange[], across: boolean, numberOf: (id: string) => number): ThreadStep[] {
  const others = useDetails(source, across ? thread : [], 'states');
  if (!across) return states.map((s, step) => ({ ...s, x, step }));
  return thread.flatMap((t, i) => {
    const rows = t === x ? states : others[i] ?? [];
    const n = numberOf(t.id);
    return rows.map((s, step) => ({ ...s, x: t, step, ...(t === x ? {} : { where: `exchange #${n}` }), ...(step === 0 ? { against: `exchange #${n}'s input state` } : {}) }));
  });
}

export function StateView({ source, x, inp, states, conversation, onEvent, thread, numberOf, select }: StateViewProps) {
  const sent = inp.input.value;
  const initial = sent && 'state' in sent ? sent.state : {};
  const steps = useDetail(source, x, 'conversationSteps');
  const [across, setAcross] = useState(false);
  const stateSteps = useThreadSteps(source, x, states, thread, across && thread.length > 1, numberOf);
  // A step of another exchange of the thread opens that exchange; one of this exchange shows its event.
  const showStep = (at: number): void => {
    const s = stateSteps[at];
    if (s) s.x === x ? onEvent(s.event) : select(s.x.id);
  };
  return (
    <section class="state-view">
      <section aria-label="State">
        <h3>State</h3>
        <details>
          <summary>Initial state {sent && 'state' in sent ? '(from the input)' : '(absent in the input: {})'}</summary>
          <Json value={initial} label="initial state" />
        </details>
        {thread.length > 1 ? (
          <label class="check">
            <input type="checkbox" checked={across} onChange={(e) => setAcross(e.currentTarget.checked)} data-testid="state-thread" />
            {' '}Across the thread ({thread.length} exchanges)
          </label>
        ) : null}
        {stateSteps.length === 0 ? <Empty>No STATE_SNAPSHOT or STATE_DELTA on this stream.</Empty> : (
          <>
            <Travel key={across ? 'thread' : 'exchange'} hook="state" label="State step" steps={stateSteps} first="the input's state" onEvent={showStep}
              useDiff={(at) => useStateDiff(source, stateSteps[at]!.x, stateSteps[at]!.step)} showDiff={(d) => <StepDiff diff={d} />}
              held={(at, event) => (
                <OnDemand key={`${stateSteps[at]!.x.id}:${stateSteps[at]!.step}`} summary="State at this step" use={(open) => useStateAt(source, stateSteps[at]!.x, stateSteps[at]!.step, open)}
                  show={(a) => <Json value={a.state} label={`state after event ${event}`} />} />
              )} />
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
        {steps === undefined ? <p class="muted" aria-busy="true">Reading…</p> : steps && steps.length > 0 ? (
          <Travel hook="conv" label="Conversation step" steps={steps} first="the input's messages" onEvent={(at) => onEvent(steps[at]!.event)}
            useDiff={(at) => useConversationDiff(source, x, at)} showDiff={(d) => <ConversationDiff diff={d} />}
            held={(at, event) => (
              <OnDemand key={`${x.id}:${at}`} summary="Conversation at this step" use={(open) => useConversationAt(source, x, at, open)}
                show={(a) => <Messages messages={a.messages} hook="conv-at-message" label={`conversation after event ${event}`} />} />
            )} />
        ) : null}
        {conversation.length === 0 ? <Empty>No messages.</Empty> : <Messages messages={conversation} hook="conv-message" label="conversation after the stream" />}
      </section>
    </section>
  );
}
