/**
 * Acting on a live exchange of the inspected tab: edit its input and resend it, compose the resume that
 * answers its interrupts, or the tool messages answering the frontend tool calls it left pending. The
 * editor's text is judged as the tab's next input while the user types (the worker's check, the Input
 * view's reading); only Send sends, through the worker, from the page itself.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import {
  composeResend, composeResume, composeToolResult, openInterrupts, pendingToolCalls,
  type ExchangeDetail, type InputDetail, type OpenInterrupt,
} from '../../src/detail/index.ts';
import { isObject, type JsonObject } from '../../src/json.ts';
import { useDetail } from '../detail.ts';
import type { Acts, PanelExchange, ResendHeaders, SessionSource } from '../model.ts';
import { FindingLine, presentFindings, useJudged } from '../ui.tsx';
import { ArmOverride } from './override.tsx';

/** What was sent, for the panel to confirm and select. */
export interface Sent {
  method: string;
  url: string;
  exchangeId: string;
}

type Mode = 'resend' | 'resume' | 'tool-result';

const pretty = (v: unknown): string => JSON.stringify(v, null, 2);
const newId = (): string => crypto.randomUUID();

/** Where the exchange left its state: after its last state step, else as its input sent it. */
async function stateAfter(source: SessionSource, x: PanelExchange, states: ExchangeDetail['states'], input: JsonObject): Promise<unknown> {
  const last = states.length - 1;
  const at = last < 0 ? null : await source.stateAt(x, last);
  return at ? at.state : input.state;
}

/** The buttons that open the editor, and the editor once one is pressed. */
export function ActOnExchange({ source, x, inp, exchanges, onSent }: { source: SessionSource; x: PanelExchange; inp: InputDetail; exchanges: PanelExchange[]; onSent: (s: Sent) => void }) {
  const input = inp.input.value;
  // Sending needs an input and a live tab; answering the tab needs only a recording, a file's too.
  const acts = source.acts && input && x.method !== 'GET' && x.method !== 'HEAD' ? source.acts : null;
  const overriding = source.overriding;
  const runs = useDetail(source, x, acts ? 'runs' : null);
  const conversation = useDetail(source, x, acts ? 'conversation' : null);
  const states = useDetail(source, x, acts ? 'states' : null);
  const [editing, setEditing] = useState<{ mode: Mode; text: string; interrupts: OpenInterrupt[] } | null>(null);
  const [arming, setArming] = useState(false);
  if (!acts && !overriding) return null;
  const interrupts = runs ? openInterrupts(runs) : [];
  const lastRun = runs?.at(-1)?.run;
  const calls = conversation && lastRun?.outcome === 'success' ? pendingToolCalls(conversation) : [];
  const ready = conversation && states;

  const open = async (mode: Mode): Promise<void> => {
    if (!input) return;
    if (mode === 'resend') return setEditing({ mode, text: pretty(composeResend(input, newId())), interrupts: [] });
    if (!conversation || !states) return;
    const state = await stateAfter(source, x, states, input);
    const body = mode === 'resume'
      ? composeResume(input, conversation, state, interrupts, newId())
      : composeToolResult(input, conversation, state, calls, newId(), () => newId());
    setEditing({ mode, text: pretty(body), interrupts: mode === 'resume' ? interrupts : [] });
  };

  return (
    <section class="act" aria-label="Act on this exchange">
      <div class="act-buttons">
        {acts ? <button type="button" onClick={() => void open('resend')} data-testid="resend" aria-pressed={editing?.mode === 'resend'}>Edit and resend…</button> : null}
        {overriding ? (
          <button type="button" onClick={() => setArming(!arming)} disabled={x.outcome === 'pending'} data-testid="override-open" aria-pressed={arming}
            title={x.outcome === 'pending' ? 'Once its recording is complete' : undefined}>Answer from this recording…</button>
        ) : null}
        {interrupts.length > 0 ? (
          <button type="button" disabled={!ready} onClick={() => void open('resume')} data-testid="compose-resume" aria-pressed={editing?.mode === 'resume'}>
            Compose resume ({interrupts.length} interrupt{interrupts.length === 1 ? '' : 's'})…
          </button>
        ) : null}
        {calls.length > 0 ? (
          <button type="button" disabled={!ready} onClick={() => void open('tool-result')} data-testid="compose-tool-result" aria-pressed={editing?.mode === 'tool-result'}>
            Compose tool result ({calls.map((c) => c.name).join(', ')})…
          </button>
        ) : null}
      </div>
      {arming && overriding ? <ArmOverride key={x.id} overriding={overriding} x={x} exchanges={exchanges} onClose={() => setArming(false)} /> : null}
      {editing && acts ? <Editor key={`${editing.mode}:${x.id}`} acts={acts} x={x} initial={editing.text} interrupts={editing.interrupts} onSent={onSent} onClose={() => setEditing(null)} /> : null}
    </section>
  );
}

/** How the edited text fares: not JSON (or not an object), or the worker's reading of it as the next input. */
type Judged = { kind: 'unparsable'; why: string } | { kind: 'judged'; detail: InputDetail } | { kind: 'judging' };

function parse(text: string): { value: JsonObject } | { why: string } {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? { value } : { why: 'the input must be a JSON object' };
  } catch (e) {
    return { why: e instanceof Error ? e.message : String(e) };
  }
}

function Editor({ acts, x, initial, interrupts, onSent, onClose }: {
  acts: Acts; x: PanelExchange; initial: string; interrupts: OpenInterrupt[]; onSent: (s: Sent) => void; onClose: () => void;
}) {
  const [text, setText] = useState(initial);
  const [headers, setHeaders] = useState<ResendHeaders | null>(null);
  const [reuse, setReuse] = useState(true);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    acts.headers(x).then((h) => live && setHeaders(h), () => live && setHeaders({ live: false, names: null, origin: null, sendable: false }));
    return () => void (live = false);
  }, [x.id]);

  const parsed = useMemo(() => parse(text), [text]);
  const asked = useJudged(text, 'why' in parsed ? null : acts.check);
  const judged: Judged = 'why' in parsed ? { kind: 'unparsable', why: parsed.why }
    : asked.kind === 'failed' ? { kind: 'unparsable', why: asked.why }
    : asked.kind === 'judging' ? asked
    : asked.value ? { kind: 'judged', detail: asked.value } : { kind: 'unparsable', why: 'the tab has no session to judge it in' };

  const kept = headers?.names ?? null;
  const withHeaders = reuse && kept !== null;
  const verdict = judged.kind === 'judged' ? judged.detail.verdict : judged.kind === 'judging' ? 'judging' : 'unparsable';
  const findings = judged.kind === 'judged' ? presentFindings(judged.detail.findings) : [];
  const uncovered = judged.kind === 'judged' ? judged.detail.uncovered : null;

  const send = async (): Promise<void> => {
    setSending(true);
    setError(null);
    try {
      const r = await acts.send(x, text, withHeaders);
      if ('error' in r) setError(r.error);
      else onSent({ method: x.method, url: x.url, exchangeId: r.exchangeId });
    } catch (e) {
      setError(String(e));
    } finally {
      setSending(false);
    }
  };

  return (
    <div class="resend-editor">
      <label class="resend-label" for="resend-text">The input to send, a new <code>runId</code> already in it; edit as you like</label>
      <textarea id="resend-text" spellcheck={false} rows={Math.min(24, text.split('\n').length + 1)} value={text}
        onInput={(e) => setText(e.currentTarget.value)} data-testid="resend-editor" />
      <div class="resend-findings" data-testid="resend-findings" data-verdict={verdict} role="status">
        {judged.kind === 'unparsable' ? <span class="sev-error">Not an input: {judged.why}</span> : null}
        {judged.kind === 'judging' ? <span class="muted">Judging…</span> : null}
        {judged.kind === 'judged' ? (
          <>
            <span>Judged as the tab's next input: <strong class={`verdict-${verdict}`}>{verdict}</strong>{verdict === 'invalid' ? ' — a producer must reject it' : ''}</span>
            {findings.length > 0 ? <ul class="findings-inline">{findings.map((f, i) => <FindingLine key={i} f={f} />)}</ul> : null}
          </>
        ) : null}
      </div>
      {interrupts.length > 0 || (uncovered !== null && uncovered.length > 0) ? (
        <p class={`resume-coverage${uncovered && uncovered.length > 0 ? ' sev-error' : ''}`} data-testid="resume-coverage" data-uncovered={JSON.stringify(uncovered ?? [])}>
          {uncovered === null ? 'Coverage is judged once the input parses.' : uncovered.length === 0
            ? `Every pending interrupt is answered (${interrupts.map((i) => i.id).join(', ')}).`
            : `Not answered: ${uncovered.join(', ')} — each must be answered or abandoned (status "cancelled"); omission is not abandonment.`}
          {interrupts.filter((i) => i.message).map((i) => <span key={i.id} class="muted"> {i.id}: {i.message}</span>)}
        </p>
      ) : null}
      <p class={`resend-headers${headers?.sendable === false ? ' sev-error' : ''}`} data-testid="resend-headers" data-names={JSON.stringify(kept ?? [])}
        data-live={headers === null ? undefined : String(headers.live)} data-sendable={headers === null ? undefined : String(headers.sendable)}>
        {headers === null ? 'Asking the page which headers it keeps…' : kept === null
          ? (headers.live ? 'The page keeps no headers for this request: it goes with its content type only.'
            : headers.sendable ? `The document that made this request is gone (reloaded or closed), and its headers with it: it goes with its content type only, from a document of ${headers.origin} now in the tab.`
            : `The document that made this request${headers.origin ? ` (${headers.origin})` : ''} is gone, and no document of its origin is open in the tab: it cannot be resent, since a document of another origin would send it with its own origin and cookies. Open a page of that origin in this tab to resend it.`)
          : (
            <label class="check">
              <input type="checkbox" checked={reuse} onChange={(e) => setReuse(e.currentTarget.checked)} data-testid="resend-reuse" />
              {' '}Reuse the page's request headers{kept.length > 0 ? <>: {kept.map((n) => <code key={n}>{n} </code>)}</> : ' (it sent none)'} — their values stay in the page
            </label>
          )}
      </p>
      <div class="resend-actions">
        <button type="button" class="primary" onClick={() => void send()} disabled={sending || verdict === 'unparsable' || verdict === 'judging' || headers?.sendable === false} data-testid="resend-send">
          {sending ? 'Sending…' : verdict === 'invalid' ? 'Send anyway' : 'Send'}
        </button>
        <span class="muted"> {x.method} {x.url}, from the page, with its cookies</span>
        <button type="button" onClick={onClose}>Close</button>
      </div>
      {error !== null ? <p class="sev-error" role="alert" data-testid="resend-error">Not sent: {error}</p> : null}
    </div>
  );
}
