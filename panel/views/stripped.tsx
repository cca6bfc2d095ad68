/** Stripped members: every path a consumer of the judged version removes, in the input and in each event, with the value lost. */
import type { StrippedMember } from '../../src/detail/index.ts';
import type { ProtocolVersion } from '../../src/rules/index.ts';
import { Empty, json } from '../ui.tsx';

export function StrippedView({ stripped, version, onEvent }: { stripped: StrippedMember[]; version: ProtocolVersion; onEvent: (index: number) => void }) {
  if (stripped.length === 0) return <Empty>Nothing is stripped: a {version} consumer keeps every member of the input and of every event.</Empty>;
  return (
    <section>
      <p class="lede">What a {version} consumer removes before application code sees it ({stripped.length}).</p>
      <table class="stripped">
        <thead><tr><th scope="col">Where</th><th scope="col">Path</th><th scope="col">Why</th><th scope="col">Value lost</th></tr></thead>
        <tbody>
          {stripped.map((s, i) => (
            <tr key={i} data-testid="stripped-member" data-path={s.path} data-at={String(s.at)} data-whole={String(s.whole)}>
              <td>
                {s.at === 'input' ? 'input' : (
                  <button type="button" class="link" onClick={() => onEvent(s.at as number)} aria-label={`Show event ${s.at} in the timeline`}>
                    #{s.at} {s.eventType ?? ''}
                  </button>
                )}
              </td>
              <td><code>{s.path === '' ? '(whole event)' : s.path}</code></td>
              <td>{s.why}</td>
              <td><pre class="json small">{json(s.removed)}</pre></td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
