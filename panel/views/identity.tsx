/** Identity: the input's threadId/runId/parentRunId against each run's RUN_STARTED and RUN_FINISHED. */
import { isObject, type JsonObject } from '../../src/json.ts';
import type { InputDetail, RunRow } from '../../src/detail/index.ts';
import { Empty, SpecLink } from '../ui.tsx';

type Key = 'threadId' | 'runId' | 'parentRunId';
const KEYS: Key[] = ['threadId', 'runId', 'parentRunId'];

interface Row {
  label: string;
  role: 'input' | 'started' | 'finished';
  run: number | null;
  requested: boolean;
  values: Partial<Record<Key, unknown>>;
  /** Cells that disagree, with why. */
  bad: Partial<Record<Key, string>>;
}

const get = (o: JsonObject | null, k: Key): unknown => (o && k in o ? o[k] : undefined);

function rowsOf(inp: InputDetail, runs: RunRow[]): Row[] {
  const input = inp.input.value;
  const rows: Row[] = [{ label: 'Input', role: 'input', run: null, requested: false, values: Object.fromEntries(KEYS.map((k) => [k, get(input, k)])), bad: {} }];
  runs.forEach((r, i) => {
    const requested = r.run.requested;
    const startedBad: Row['bad'] = {};
    if (r.started) {
      if (input && typeof input.threadId === 'string' && r.started.threadId !== input.threadId) startedBad.threadId = "differs from the input's threadId";
      if (input && typeof input.runId === 'string') {
        if (requested && r.started.runId !== input.runId) startedBad.runId = "the requested run must echo the input's runId";
        if (!requested && r.started.runId === input.runId) startedBad.runId = "a replayed run carries its own runId, not the input's";
      }
      rows.push({ label: `Run ${i + 1} RUN_STARTED`, role: 'started', run: i, requested, values: Object.fromEntries(KEYS.map((k) => [k, get(r.started, k)])), bad: startedBad });
    }
    if (r.finished && isObject(r.finished) && r.finished.type === 'RUN_FINISHED') {
      const bad: Row['bad'] = {};
      if (input && typeof input.threadId === 'string' && typeof r.finished.threadId === 'string' && r.finished.threadId !== input.threadId) bad.threadId = "differs from the input's threadId";
      if (r.started && typeof r.finished.runId === 'string' && r.finished.runId !== r.started.runId) bad.runId = 'differs from its RUN_STARTED runId';
      rows.push({ label: `Run ${i + 1} RUN_FINISHED`, role: 'finished', run: i, requested, values: Object.fromEntries(KEYS.map((k) => [k, get(r.finished, k)])), bad });
    }
  });
  return rows;
}

export function IdentityView({ inp, runs }: { inp: InputDetail; runs: RunRow[] }) {
  if (!inp.input.value && runs.length === 0) return <Empty>Neither an input nor a run to compare.</Empty>;
  const rows = rowsOf(inp, runs);
  const show = (v: unknown): string => (v === undefined ? 'absent' : JSON.stringify(v));
  return (
    <section>
      <p class="lede">Every run's boundary events carry the input's threadId; the requested run (the stream's last) echoes its runId; replayed runs carry their own. <SpecLink spec={`/spec/${inp.input.version}/basic/run-input#identity`} /></p>
      <table class="identity">
        <thead><tr><th scope="col">Source</th>{KEYS.map((k) => <th key={k} scope="col">{k}</th>)}<th scope="col">Run</th></tr></thead>
        <tbody>
          {rows.map((r, i) => {
            const mismatch = Object.keys(r.bad).length > 0;
            return (
              <tr key={i} data-testid="identity-row" data-role={r.role} data-run={r.run ?? ''} {...(mismatch ? { 'data-mismatch': 'true' } : {})} class={mismatch ? 'mismatch' : ''}>
                <th scope="row">{r.label}</th>
                {KEYS.map((k) => (
                  <td key={k} class={r.bad[k] ? 'bad' : ''} data-key={k} data-label={k} title={r.bad[k]}>
                    <code>{show(r.values[k])}</code>
                    {r.bad[k] ? <span class="why"> ✖ {r.bad[k]}</span> : null}
                  </td>
                ))}
                <td data-label="Run">{r.role === 'input' ? null : r.requested ? <span class="tag" data-testid="requested-run">requested</span> : <span class="tag muted" data-testid="replayed-run">replayed</span>}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
