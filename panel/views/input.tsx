/** Input: every RunAgentInput field in the spec's order, with what the spec obliges and how this input fares. */
import type { Finding } from '../../src/rules/index.ts';
import { isObject } from '../../src/json.ts';
import type { FieldRow, InputDetail } from '../../src/detail/index.ts';
import { Empty, EraBadge, FindingLine, Json, presentFindings, Severity, SpecLink } from '../ui.tsx';
import { Content } from './content.tsx';

function summary(f: FieldRow): string {
  if (!f.present) return 'absent';
  const v = f.value;
  if (Array.isArray(v)) return v.length === 0 ? '[] (empty)' : `${v.length} item${v.length === 1 ? '' : 's'}`;
  if (isObject(v)) return Object.keys(v).length === 0 ? '{} (empty)' : `object, ${Object.keys(v).length} member${Object.keys(v).length === 1 ? '' : 's'}`;
  return JSON.stringify(v) ?? String(v);
}

function Messages({ value }: { value: unknown }) {
  if (!Array.isArray(value)) return null;
  return (
    <ol class="messages">
      {value.map((m, i) =>
        isObject(m) ? (
          <li key={i} data-testid="input-message" data-role={String(m.role)}>
            <span class={`role role-${String(m.role)}`}>{String(m.role)}</span> <code class="muted">{String(m.id)}</code>
            {m.role === 'activity' ? <> <span class="kind">{String(m.activityType)}</span> <Json value={m.content} label="activity content" /></> : <Content content={m.content} />}
            {Array.isArray(m.toolCalls) && m.toolCalls.length > 0 ? <Json value={m.toolCalls} label="tool calls" /> : null}
            {typeof m.toolCallId === 'string' ? <p class="muted">answers tool call <code>{m.toolCallId}</code></p> : null}
          </li>
        ) : (
          <li key={i}><Json value={m} label={`message ${i}`} /></li>
        ),
      )}
    </ol>
  );
}

function Resume({ value, inp }: { value: unknown; inp: InputDetail }) {
  const { pending } = inp;
  const entries = Array.isArray(value) ? value : [];
  const uncovered = (pending ?? []).filter((p) => inp.uncovered?.includes(p.id));
  return (
    <div class="resume">
      {pending === null ? <p class="muted">No earlier exchange on this thread was captured: the interrupts these entries answer are not known here.</p> : null}
      <table>
        <thead><tr><th scope="col">Resume entry</th><th scope="col">Status</th><th scope="col">Payload</th><th scope="col">Answers the interrupt</th></tr></thead>
        <tbody>
          {entries.map((e, i) => {
            const id = isObject(e) ? e.interruptId : undefined;
            const p = pending?.find((x) => x.id === id);
            return (
              <tr key={i} data-testid="resume-entry" data-interrupt={String(id)} data-known={String(!!p)}>
                <td><code>{String(id)}</code></td>
                <td>{isObject(e) ? String(e.status) : '—'}</td>
                <td><code>{isObject(e) && 'payload' in e ? JSON.stringify(e.payload) : '—'}</code></td>
                <td>{p ? <>{p.reason ?? ''}{p.message ? `: ${p.message}` : ''} <span class="muted">(run {p.runId})</span></> : pending ? <Severity level="warning" /> : '—'}{!p && pending ? ' no such interrupt is pending' : ''}</td>
              </tr>
            );
          })}
          {uncovered.map((p) => (
            <tr key={`u-${p.id}`} class="uncovered" data-testid="uncovered-interrupt" data-interrupt={p.id}>
              <td><code>{p.id}</code></td>
              <td colSpan={2}><Severity level="error" /> not answered — omission is not abandonment</td>
              <td>{p.reason ?? ''}{p.message ? `: ${p.message}` : ''} <span class="muted">(run {p.runId})</span></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Value({ f, inp }: { f: FieldRow; inp: InputDetail }) {
  if (!f.present) return null;
  switch (f.name) {
    case 'messages': return <Messages value={f.value} />;
    case 'resume': return <Resume value={f.value} inp={inp} />;
    case 'forwardedProps':
    case 'state':
    case 'tools':
    case 'context':
      return <Json value={f.value} label={`${f.name} as sent`} />;
    default:
      return null;
  }
}

/** A valid input can still break what its sender must do (strip activity messages, declare a version…). */
function obligations(findings: readonly Finding[]): string {
  const count = (severity: Finding['severity']): number => findings.filter((f) => f.severity === severity).length;
  const parts = [[count('error'), 'error'], [count('warning'), 'warning']]
    .filter(([n]) => n !== 0)
    .map(([n, word]) => `${n} ${word}${n === 1 ? '' : 's'}`);
  return parts.length === 0 ? '' : `; ${parts.join(' and ')} below`;
}

export function InputView({ inp, focusField }: { inp: InputDetail; focusField: string | null }) {
  const { input, fields } = inp;
  if (!input.present) return <Empty>The request body was not captured, so there is no input to judge.</Empty>;
  if (!input.value) {
    return (
      <section>
        <Empty>The request body is not a RunAgentInput object.</Empty>
        <ul class="findings-inline">{inp.findings.map((f, i) => <FindingLine key={i} f={f} />)}</ul>
      </section>
    );
  }
  const unknown = inp.stripped;
  const unplaced = inp.findings.filter((f) => !fields.some((x) => x.findings.includes(f)));
  return (
    <section class="input-view">
      <p class="lede" data-testid="input-verdict" data-verdict={inp.verdict} data-era={inp.era}>
        {inp.era === 'pre-1.0' ? <><EraBadge /> Judged as its pre-1.0 peer receiving it: </> : <>Judged as a {input.version} producer receiving it: </>}
        <strong class={`verdict-${inp.verdict}`}>{inp.verdict}</strong>
        {inp.verdict === 'invalid' ? ' — a producer must reject it' : ' — a producer can run it'}
        {input.declared === null ? ' (the input declares no protocolVersion)' : ` (declares ${JSON.stringify(input.declared)})`}
        {obligations(presentFindings(inp.findings))}
        {inp.era === 'pre-1.0' && inp.findings.some((f) => f.readiness) ? '; 1.0-readiness items are marked' : ''}.
      </p>
      <ol class="fields">
        {fields.map((f) => (
          <li
            key={f.name}
            id={`field-${f.name}`}
            class={`field status-${f.status}${focusField === f.name ? ' focused' : ''}`}
            data-testid="input-field"
            data-field={f.name}
            data-status={f.status}
            data-present={String(f.present)}
            tabIndex={-1}
          >
            <div class="field-head">
              <code class="field-name">{f.name}</code>
              <Severity level={f.status} />
              <span class="field-summary">{summary(f)}</span>
              <span class="field-note">{f.note}</span>
              <SpecLink spec={f.spec} />
            </div>
            {f.findings.length > 0 ? <ul class="findings-inline">{f.findings.map((x, i) => <FindingLine key={i} f={x} />)}</ul> : null}
            <Value f={f} inp={inp} />
          </li>
        ))}
      </ol>
      {unknown.length > 0 ? (
        <p class="note" data-testid="input-unknown">
          Members this version does not define, stripped by the producer: {unknown.map((s) => <code key={s.path}>{s.path} </code>)} (see Stripped members).
        </p>
      ) : null}
      {unplaced.length > 0 ? <ul class="findings-inline">{unplaced.map((f, i) => <FindingLine key={i} f={f} />)}</ul> : null}
    </section>
  );
}
