/** Negotiation: what the consumer declared, what each RUN_STARTED declared, and what the verdict obliges. */
import type { ExchangeReport, InputDetail, NegotiationVerdict, RunRow } from '../../src/detail/index.ts';
import { Empty, FindingLine, SpecLink } from '../ui.tsx';

const LABEL: Record<NegotiationVerdict, string> = {
  same: 'same version',
  'producer-newer': 'producer newer',
  'producer-older': 'producer older',
  uninterpretable: 'uninterpretable',
  undeclared: 'undeclared',
};

function obliges(v: NegotiationVerdict, consumer: string): string {
  switch (v) {
    case 'same': return 'Both sides speak the same version: the stream is judged as it is.';
    case 'producer-newer': return `The consumer proceeds under the ${consumer} processing model: it strips what ${consumer} does not describe, drops unknown events, and warns.`;
    case 'producer-older': return `The consumer may downgrade: it must not rely on anything newer than the producer declared.`;
    case 'uninterpretable': return 'A declaration that is not MAJOR.MINOR is handled like a newer version: proceed, strip what is not described, and warn.';
    case 'undeclared': return 'No declaration identifies a producer from before the protocol carried a version; a 1.0 producer must declare the version it speaks.';
  }
}

export function NegotiationView({ report, inp, runs }: { report: ExchangeReport; inp: InputDetail; runs: RunRow[] }) {
  const { input } = inp;
  const consumer = input.declared ?? input.version;
  const verdict = report.negotiation.verdict;
  const findings = report.findings.filter((f) => f.category === 'version').concat(report.input.findings.filter((f) => f.category === 'version'));
  return (
    <section class="negotiation" data-testid="negotiation" data-verdict={verdict} data-consumer={input.declared ?? ''} data-producer={report.negotiation.producer ?? ''}>
      <dl class="pairs">
        <dt>The consumer declared</dt>
        <dd data-testid="consumer-version">{input.declared === null ? <>nothing — judged as {input.version}</> : <code>{JSON.stringify(input.declared)}</code>}</dd>
        <dt>The requested run declared</dt>
        <dd data-testid="producer-version">{report.negotiation.producer === null ? 'nothing' : <code>{JSON.stringify(report.negotiation.producer)}</code>}</dd>
        <dt>Verdict</dt>
        <dd><strong class={`negotiation-verdict nv-${verdict}`}>{LABEL[verdict]}</strong> — {obliges(verdict, consumer)} <SpecLink spec={`/spec/${input.version}/basic/versioning#version-negotiation`} /></dd>
      </dl>
      {runs.length === 0 ? <Empty>No run started on this stream.</Empty> : (
        <table>
          <caption>Each run's RUN_STARTED</caption>
          <thead><tr><th scope="col">Run</th><th scope="col">runId</th><th scope="col">protocolVersion</th><th scope="col">Verdict</th></tr></thead>
          <tbody>
            {runs.map((r, i) => (
              <tr key={i} data-testid="negotiation-run" data-verdict={r.run.negotiation} data-requested={String(r.run.requested)}>
                <td>{i + 1}{r.run.requested ? ' (requested)' : ' (replayed)'}</td>
                <td><code>{r.run.runId ?? '—'}</code></td>
                <td>{r.run.protocolVersion === null ? <span class="muted">absent</span> : <code>{JSON.stringify(r.run.protocolVersion)}</code>}</td>
                <td>{LABEL[r.run.negotiation]}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {findings.length > 0 ? <ul class="findings-inline">{findings.map((f, i) => <FindingLine key={i} f={f} />)}</ul> : null}
    </section>
  );
}
