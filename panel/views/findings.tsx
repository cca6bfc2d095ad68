/** Findings grouped by category; choosing one jumps to the field or event it is about. */
import type { Finding } from '../../src/rules/index.ts';
import type { ExchangeReport } from '../../src/detail/index.ts';
import { Empty, EraBadge, Severity, SpecLink } from '../ui.tsx';

export function allFindings(report: { input: { findings: Finding[] }; findings: Finding[] }): Finding[] {
  return [...report.input.findings, ...report.findings];
}

export function FindingsView({ report, onPick }: { report: ExchangeReport; onPick: (f: Finding) => void }) {
  const all = allFindings(report);
  const today = all.filter((f) => !f.readiness);
  const readiness = all.filter((f) => f.readiness);
  return (
    <section class="findings">
      {report.readiness ? (
        <p class="lede" data-testid="era-note">
          <EraBadge /> Neither side declares a protocolVersion, so this exchange is judged as its own pre-1.0 client would
          judge it; what a 1.0 consumer would strip, reject or read differently is listed apart, as 1.0 readiness.
        </p>
      ) : null}
      {today.length === 0 ? <Empty>No findings: nothing in this exchange breaks the specification{report.readiness ? ' for its pre-1.0 peers' : ''}.</Empty> : <FindingGroups findings={today} onPick={onPick} />}
      {report.readiness ? (
        <section class="readiness" aria-label="1.0 readiness" data-testid="readiness" data-verdict={report.readiness.verdict}>
          <h3>1.0 readiness <span class="count">{readiness.length}</span></h3>
          <p class="note">
            After an upgrade to AG-UI 1.0, a conforming consumer would find this exchange{' '}
            <strong class={`verdict-${report.readiness.verdict === 'failed' ? 'invalid' : 'valid'}`}>{report.readiness.verdict}</strong>
            {readiness.length === 0 ? ', with nothing to change.' : '. These items never fail it today:'}
          </p>
          {readiness.length > 0 ? <FindingGroups findings={readiness} onPick={onPick} /> : null}
        </section>
      ) : null}
    </section>
  );
}

function FindingGroups({ findings, onPick }: { findings: Finding[]; onPick: (f: Finding) => void }) {
  const groups = new Map<string, Finding[]>();
  for (const f of findings) groups.set(f.category, [...(groups.get(f.category) ?? []), f]);
  return (
    <>
      {[...groups].map(([category, list]) => (
        <section key={category} aria-label={`${category} findings`}>
          <h3>{category} <span class="count">{list.length}</span></h3>
          <ul>
            {list.map((f, i) => (
              <li key={i} data-testid="finding" data-rule={f.rule} data-category={f.category} data-severity={f.severity} data-event={f.event ?? ''} data-path={f.path ?? ''} data-readiness={f.readiness ? 'true' : 'false'}>
                <Severity level={f.severity} />{' '}
                <button type="button" class="link" onClick={() => onPick(f)} aria-label={`${f.rule}: ${f.message}. Go to ${f.event !== null ? `event ${f.event}` : f.path ? `input ${f.path}` : 'the exchange'}`}>
                  <code>{f.rule}</code> {f.message}
                </button>{' '}
                <span class="muted">{f.event !== null ? `event #${f.event}` : f.path ? `input ${f.path}` : ''}</span> <SpecLink spec={f.spec} />
              </li>
            ))}
          </ul>
        </section>
      ))}
    </>
  );
}
