/**
 * What went wrong across the whole session (src/detail/overview.ts, the model the CLI's `summary` prints):
 * each problem in one line under its group, most harmful first, opening its exchange on the view and frame
 * that show it. Asked of the source when shown, and again as the session changes. Above it, a search of
 * every exchange's URL, input and frames (panel/search.ts), whose hits open in place too.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { PROBLEM_GROUPS, type Problem } from '../../src/detail/index.ts';
import type { PanelExchange, SessionOverview, SessionSource } from '../model.ts';
import { Empty } from '../ui.tsx';
import { endpointOf } from '../model.ts';
import { searchSession } from '../search.ts';
import type { ViewId } from '../tabs.ts';

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

interface OverviewProps {
  source: SessionSource;
  exchanges: readonly PanelExchange[];
  onOpen: (id: string, p: Problem) => void;
  /** Opens exchange `id` on `view`, at frame `event` when one is given. */
  onOpenAt: (id: string, view: ViewId, event: number | null) => void;
  query: string;
  setQuery: (q: string) => void;
}

export function OverviewView(p: OverviewProps) {
  return (
    <>
      <div class="filters" role="search" aria-label="Search every exchange">
        <label>Search every exchange{' '}
          <input type="search" id="session-search" value={p.query} placeholder="URLs, inputs, events, messages (Ctrl+F)"
            onInput={(e) => p.setQuery(e.currentTarget.value)} data-testid="session-search" />
        </label>
      </div>
      {p.query.trim() === '' ? <Problems {...p} /> : <SearchHits exchanges={p.exchanges} query={p.query} onOpenAt={p.onOpenAt} />}
    </>
  );
}

function SearchHits({ exchanges, query, onOpenAt }: Pick<OverviewProps, 'exchanges' | 'query' | 'onOpenAt'>) {
  // Frames arrive into the exchanges in place: their revisions say when to search again.
  const revs = exchanges.reduce((n, x) => n + x.rev, 0);
  const hits = useMemo(() => searchSession(exchanges, query), [exchanges, query, revs]);
  const number = useMemo(() => new Map(exchanges.map((x, i) => [x.id, { x, n: i + 1 }])), [exchanges]);
  if (hits.length === 0) return <Empty>No exchange's URL, input or frames contain “{query.trim()}”.</Empty>;
  return (
    <section class="overview" data-testid="session-hits" data-count={hits.length}>
      <p class="lede">{hits.length} exchange{hits.length === 1 ? '' : 's'} contain “{query.trim()}”:</p>
      <ul>
        {hits.map((h) => {
          const { x, n } = number.get(h.id)!;
          return (
            <li key={h.id} data-testid="session-hit" data-exchange={h.id}>
              <button type="button" class="link" onClick={() => onOpenAt(h.id, h.input ? 'input' : 'timeline', null)}>
                #{n} {x.method} {endpointOf(x.url)}
              </button>
              <span class="muted">{[h.url ? 'in its URL' : '', h.input ? 'in its input' : ''].filter(Boolean).join(', ')}</span>
              {h.events.length > 0 ? (
                <ul>
                  {h.events.map((e) => (
                    <li key={e.index} data-testid="session-hit-event" data-index={e.index}>
                      <button type="button" class="link" onClick={() => onOpenAt(h.id, 'timeline', e.index)}>
                        <span class="muted">event {e.index} {e.type}</span> <code>{e.snippet}</code>
                      </button>
                    </li>
                  ))}
                  {h.more > 0 ? <li class="muted">and {h.more} more frame{h.more === 1 ? '' : 's'}</li> : null}
                </ul>
              ) : null}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function Problems({ source, exchanges, onOpen }: OverviewProps) {
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
