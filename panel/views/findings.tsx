/** Findings grouped by category; choosing one jumps to the field or event it is about. */
import type { Finding } from '../../src/rules/types.ts';
import { Empty, Severity, SpecLink } from '../ui.tsx';

export function allFindings(report: { input: { findings: Finding[] }; findings: Finding[] }): Finding[] {
  return [...report.input.findings, ...report.findings];
}

export function FindingsView({ findings, onPick }: { findings: Finding[]; onPick: (f: Finding) => void }) {
  if (findings.length === 0) return <Empty>No findings: nothing in this exchange breaks the specification.</Empty>;
  const groups = new Map<string, Finding[]>();
  for (const f of findings) groups.set(f.category, [...(groups.get(f.category) ?? []), f]);
  return (
    <section class="findings">
      {[...groups].map(([category, list]) => (
        <section key={category} aria-label={`${category} findings`}>
          <h3>{category} <span class="count">{list.length}</span></h3>
          <ul>
            {list.map((f, i) => (
              <li key={i} data-testid="finding" data-rule={f.rule} data-category={f.category} data-severity={f.severity} data-event={f.event ?? ''} data-path={f.path ?? ''}>
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
    </section>
  );
}
