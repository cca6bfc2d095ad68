/**
 * What went wrong across the whole session (src/detail/overview.ts, the model the CLI's `summary` prints):
 * each problem in one line under its group, most harmful first, opening its exchange on the view and frame
 * that show it. Asked of the source when shown, and again as the session changes.
 */
import { useEffect, useState } from 'preact/hooks';
import { PROBLEM_GROUPS, type Problem } from '../../src/detail/index.ts';
import type { PanelExchange, SessionOverview, SessionSource } from '../model.ts';
import { Empty } from '../ui.tsx';
import { endpointOf } from '../model.ts';

/** The session's overview, asked again whenever an exchange is added or changes; one question in flight at a time. */
function useOverview(source: SessionSource, exchanges: readonly PanelExchange[]): SessionOverview | null | undefined {
  const [answer, setAnswer] = useState<SessionOverview | null | undefined>(undefined);
  const key = exchanges.map((x) => `${x.id}:${x.rev}`).join(',');
  useEffect(() => {
    let live = true;
    source.overview().then((o) => live && setAnswer(o), () => live && setAnswer(null));
    return () => void (live = false);
  }, [source, key]);
  return answer;
}

export function OverviewView({ source, exchanges, onOpen }: { source: SessionSource; exchanges: readonly PanelExchange[]; onOpen: (id: string, p: Problem) => void }) {
  const answer = useOverview(source, exchanges);
  if (answer === undefined) return <p class="muted" aria-busy="true">Reading the session…</p>;
  if (answer === null) return <Empty>The session's overview is not available.</Empty>;
  const { overview: o, ids } = answer;
  const byId = new Map(exchanges.map((x, i) => [x.id, { x, n: i + 1 }]));
  return (
    <section class="overview" data-testid="overview" data-problems={o.problems.length}>
      <p class="lede">
        {o.exchanges} exchange{o.exchanges === 1 ? '' : 's'}: <strong class={o.failed ? 'verdict-invalid' : 'verdict-valid'}>{o.failed} failed</strong>
        {o.pre10 ? <>; {o.pre10} pre-1.0, {o.notReady} of which a 1.0 client would fail</> : null}.{' '}
        {o.problems.length === 0 ? 'Nothing went wrong.' : `${o.problems.length} problem${o.problems.length === 1 ? '' : 's'}, most harmful first:`}
      </p>
      {o.problems.length === 0 ? <Empty>No exchange failed, errored, stalled or left anything waiting.</Empty> : null}
      {PROBLEM_GROUPS.map((g) => {
        const mine = o.problems.filter((p) => p.group === g.id);
        if (mine.length === 0) return null;
        return (
          <section key={g.id} aria-label={g.title} data-testid="overview-group" data-group={g.id}>
            <h3>{g.title} <span class="count">{mine.length}</span></h3>
            <ul>
              {mine.map((p, i) => {
                const id = ids[p.exchange];
                const at = id === undefined ? undefined : byId.get(id);
                return (
                  <li key={i} data-testid="overview-problem" data-kind={p.kind} data-group={p.group} data-exchange={id ?? ''} data-view={p.view} data-event={p.event ?? ''}>
                    <button type="button" class="link" disabled={!at} onClick={() => at && onOpen(at.x.id, p)}
                      aria-label={`${p.text}. Open exchange ${at?.n ?? '?'} on ${p.view}${p.event !== null ? `, event ${p.event}` : ''}`}>
                      <span class="muted">#{at?.n ?? '?'} {at ? `${at.x.method} ${endpointOf(at.x.url)}` : ''}{p.event !== null ? ` · event ${p.event}` : ''}</span>{' '}
                      {p.text}
                    </button>
                  </li>
                );
              })}
            </ul>
          </section>
        );
      })}
    </section>
  );
}
