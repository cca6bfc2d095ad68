/**
 * Answering the page from a recording (issue #36): the form that arms the tab's override with an exchange's
 * recording, and the banner that shows it while armed. The worker holds the override and answers; the
 * panel only asks and shows.
 */
import { useState } from 'preact/hooks';
import { FAULT_SPECS, type Pace } from '../../src/answer/index.ts';
import { patternError, requestMatches, WILDCARD } from '../../src/exchange/index.ts';
import { decodeFrame } from '../frames.ts';
import { useJudged } from '../ui.tsx';
import type { OverrideStatus } from '../../src/messages.ts';
import type { Overriding, PanelExchange } from '../model.ts';

const PACES: { label: string; pace: Pace }[] = [
  { label: '×1', pace: 1 },
  { label: '×2', pace: 2 },
  { label: '×10', pace: 10 },
  { label: 'at once', pace: 'max' },
];

/** Specs apart at whitespace before the next fault's name: a Retry-After date keeps its own spaces. */
export const faultSpecs = (text: string): string[] => text.trim() === '' ? [] : text.trim().split(/\s+(?=[a-z][a-z-]*[:@])/);

const paceLabel = (pace: Pace): string => PACES.find((p) => p.pace === pace)?.label ?? `×${pace}`;

/** How many of the listed requests the method and URL would have matched: the same rule the page script answers by. */
function Preview({ method, url, exchanges }: { method: string; url: string; exchanges: PanelExchange[] }) {
  const wrong = url === '' ? null : patternError(url);
  if (wrong !== null) return <p class="sev-error" role="alert" data-testid="override-url-error">{wrong}</p>;
  const matched = exchanges.filter((e) => requestMatches({ method, url }, e.method, e.url));
  return (
    <p class="muted" data-testid="override-preview" data-count={matched.length}>
      Would have answered {matched.length} of the {exchanges.length} requests listed{matched.length > 0 ? `: ${[...new Set(matched.map((e) => `${e.method} ${e.url}`))].slice(0, 3).join(', ')}` : ''}.
    </p>
  );
}

/** The recorded events as the editor holds them, one JSON event a line: a text frame as it came, a binary one decoded. */
function eventLines(x: PanelExchange): string {
  return x.events.map((e) => (e.rawEncoding === 'text' ? e.raw : JSON.stringify(decodeFrame(e).value ?? null))).join('\n');
}

/** The events to answer with instead of the recorded ones, judged as the analyzer would judge the stream they make, while typed. */
function EventsEditor({ overriding, x, text, setText }: { overriding: Overriding; x: PanelExchange; text: string; setText: (t: string) => void }) {
  const judged = useJudged(text, (t) => overriding.judge(x, t));
  const v = judged.kind === 'judged' ? judged.value : null;
  const verdict = judged.kind === 'judging' ? 'judging' : judged.kind === 'failed' || (v && 'error' in v) ? 'unsendable' : v!.verdict;
  const findings = v && !('error' in v) ? v.findings : [];
  return (
    <div class="override-events">
      <label for="override-events">Events to answer with, one JSON event a line (sent as this recording's transport, all at once)</label>
      <textarea id="override-events" spellcheck={false} rows={Math.min(16, text.split('\n').length + 1)} value={text} onInput={(e) => setText(e.currentTarget.value)} data-testid="override-events" />
      <div class="resend-findings" data-testid="override-events-findings" data-verdict={verdict} role="status">
        {judged.kind === 'judging' ? <span class="muted">Judging…</span> : null}
        {judged.kind === 'failed' ? <span class="sev-error">Not judged: {judged.why}</span> : null}
        {v && 'error' in v ? <span class="sev-error">Cannot be sent: {v.error}</span> : null}
        {v && !('error' in v) ? <span>{v.events} events; a 1.0 client would find the stream <strong class={`verdict-${v.verdict}`}>{v.verdict}</strong></span> : null}
        {findings.length > 0 ? (
          <ul class="findings-inline">
            {findings.map((f, i) => (
              <li key={i} class={`finding-line sev-${f.severity}`} data-testid="override-event-finding" data-rule={f.rule} data-event={f.event ?? ''} data-line={f.line ?? ''}>
                {f.line === null ? null : <span class="muted">line {f.line}: </span>}<code>{f.rule}</code> {f.message}
              </li>
            ))}
          </ul>
        ) : null}
      </div>
    </div>
  );
}

export function ArmOverride({ overriding, x, exchanges, onClose }: { overriding: Overriding; x: PanelExchange; exchanges: PanelExchange[]; onClose: () => void }) {
  const [method, setMethod] = useState(x.method);
  const [url, setUrl] = useState(x.url);
  const [once, setOnce] = useState(true);
  const [pace, setPace] = useState<Pace>(1);
  const [keepIds, setKeepIds] = useState(false);
  const [faults, setFaults] = useState('');
  const [pinned, setPinned] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [arming, setArming] = useState(false);
  const [edited, setEdited] = useState<string | null>(null);

  const arm = async (): Promise<void> => {
    setArming(true);
    setError(null);
    try {
      const r = await overriding.arm(x, { method: method.trim(), url: url.trim(), once, pace, keepIds, faults: faultSpecs(faults), pinned, ...(edited === null ? {} : { edited }) });
      if ('error' in r) setError(r.error);
      else onClose();
    } catch (e) {
      setError(String(e));
    } finally {
      setArming(false);
    }
  };

  return (
    <form class="override-form" data-testid="override-form" onSubmit={(e) => { e.preventDefault(); void arm(); }}>
      <p class="muted">The page's matching requests are answered with this exchange's recorded response, in the page, without reaching the agent.</p>
      <label>Method <input size={7} value={method} onInput={(e) => setMethod(e.currentTarget.value)} data-testid="override-method" /></label>
      <label> URL <input size={48} value={url} onInput={(e) => setUrl(e.currentTarget.value)} data-testid="override-url" title={`Exactly this URL, or a pattern: each ${WILDCARD} stands for any characters`} /></label>
      <Preview method={method.trim()} url={url.trim()} exchanges={exchanges} />
      <fieldset>
        <legend>Answers</legend>
        <label class="check"><input type="radio" name="override-once" checked={once} onChange={() => setOnce(true)} data-testid="override-once" /> the next request only</label>
        <label class="check"><input type="radio" name="override-once" checked={!once} onChange={() => setOnce(false)} data-testid="override-every" /> every request until disarmed</label>
      </fieldset>
      <fieldset>
        <legend>Pace</legend>
        {PACES.map((p) => (
          <label key={p.label} class="check"><input type="radio" name="override-pace" checked={pace === p.pace} onChange={() => setPace(p.pace)} data-testid={`override-pace-${p.pace}`} /> {p.label}</label>
        ))}
      </fieldset>
      <label class="check"><input type="checkbox" checked={keepIds} onChange={(e) => setKeepIds(e.currentTarget.checked)} data-testid="override-keep-ids" /> Keep the recorded threadId and runId (else the request's own replace them)</label>
      <label>Faults <input size={40} value={faults} placeholder="e.g. stall:1500@3 cut@5" title={FAULT_SPECS} onInput={(e) => setFaults(e.currentTarget.value)} data-testid="override-faults" /></label>
      <label class="check"><input type="checkbox" checked={pinned} onChange={(e) => setPinned(e.currentTarget.checked)} data-testid="override-pinned" /> Stay armed when DevTools closes</label>
      <label class="check"><input type="checkbox" checked={edited !== null} onChange={(e) => setEdited(e.currentTarget.checked ? eventLines(x) : null)} data-testid="override-edit" /> Answer with edited events</label>
      {edited !== null ? <EventsEditor overriding={overriding} x={x} text={edited} setText={setEdited} /> : null}
      <div class="resend-actions">
        <button type="submit" class="primary" disabled={arming || method.trim() === '' || url.trim() === '' || patternError(url.trim()) !== null} data-testid="override-arm">{arming ? 'Arming…' : 'Arm'}</button>
        <button type="button" onClick={onClose}>Close</button>
      </div>
      {error !== null ? <p class="sev-error" role="alert" data-testid="override-error">Not armed: {error}</p> : null}
    </form>
  );
}

/** Always shown while the tab's override is armed: the page's requests it matches do not reach the agent. */
export function OverrideBanner({ armed, overriding }: { armed: OverrideStatus | null | undefined; overriding: Overriding | undefined }) {
  if (!armed || !overriding) return null;
  return (
    <p class="banner override" role="status" data-testid="override-banner" data-answered={armed.answered} data-url={armed.url}>
      Answering {armed.method} {armed.url} from a recording, not the agent ({armed.once ? 'the next request only' : 'every request'}, {paceLabel(armed.pace)},
      {armed.keepIds ? ' recorded ids' : ' the request\'s ids'}{armed.faults.length > 0 ? `, faults ${armed.faults.join(' ')}` : ''}): answered {armed.answered}.{' '}
      <button type="button" onClick={() => void overriding.disarm()} data-testid="override-disarm">Disarm</button>
    </p>
  );
}
