/**
 * The run tree of the selected exchange's thread: its runs nested by parentRunId across the thread's
 * exchanges, and the subagents each run delegated to (src/detail/run-tree.ts builds it; the invocations
 * come from whoever analysed each exchange).
 */
import { useMemo } from 'preact/hooks';
import { runTree, type RunTreeNode } from '../../src/detail/index.ts';
import { useDetails } from '../detail.ts';
import type { PanelExchange, SessionSource } from '../model.ts';
import { SpecLink } from '../ui.tsx';

export function RunTreeView({ source, x, thread, numberOf, onSelect }: { source: SessionSource; x: PanelExchange; thread: PanelExchange[]; numberOf: (id: string) => number; onSelect: (id: string) => void }) {
  const held = thread.filter((t) => t.report !== null);
  const subagents = useDetails(source, held, 'subagents');
  const tree = useMemo(
    () => runTree(held.map((t, i) => ({ exchangeId: t.id, report: t.report!, subagents: subagents[i] ?? null }))),
    [...held, ...held.map((t) => t.rev), ...subagents],
  );
  if (tree.length === 0) return null;
  return (
    <section class="run-tree" aria-label="Run tree">
      <h3>Run tree {held.length > 1 ? <span class="muted">({held.length} exchanges of this thread)</span> : null}</h3>
      <p class="lede">
        Runs nest by <code>parentRunId</code>; under each run, the subagents it delegated to, nested by <code>parentSubagentRunId</code>.{' '}
        <SpecLink spec={`/spec/${x.report?.consumerVersion ?? '1.0'}/events/subagents`} />
      </p>
      <ul class="tree" role="tree">{tree.map((n) => <Node key={`${n.exchangeId}:${n.id}`} n={n} current={x.id} numberOf={numberOf} onSelect={onSelect} />)}</ul>
    </section>
  );
}

const OUTCOME_CLASS: Record<string, string> = { success: 'fine', error: 'sev-error', truncated: 'sev-error', interrupt: 'sev-warning', cancelled: 'muted', open: 'muted', running: 'muted' };

function Node({ n, current, numberOf, onSelect }: { n: RunTreeNode; current: string; numberOf: (id: string) => number; onSelect: (id: string) => void }) {
  const here = n.exchangeId === current;
  return (
    <li role="treeitem" aria-expanded={n.children.length > 0 ? true : undefined} data-testid="run-node" data-kind={n.kind} data-run-id={n.id} data-parent-run-id={n.parent ?? ''}
      data-outcome={n.outcome} data-replayed={String(n.replayed)} data-exchange={n.exchangeId} class={here ? 'here' : ''}>
      <span class="node">
        <span class="tag">{n.kind}</span>{' '}
        {n.name !== null ? <strong>{n.name} </strong> : null}
        <code>{n.id === '' ? '(no runId)' : n.id}</code>{' '}
        <span class={`outcome ${OUTCOME_CLASS[n.outcome] ?? ''}`}>{n.outcome}</span>
        {n.findings > 0 ? <span class="sev-warning"> · {n.findings} finding{n.findings === 1 ? '' : 's'}</span> : null}
        {n.replayed ? <span class="muted"> · replayed</span> : null}
        {n.parentUnknown ? <span class="muted" title={`${n.parent} is not among the captured ${n.kind === 'run' ? 'runs of this thread' : 'invocations of this run'}`}> · parent {n.parent} not captured</span> : null}
        {!here && n.kind === 'run' ? (
          <>{' '}<button type="button" class="link" onClick={() => onSelect(n.exchangeId)} data-testid="run-node-exchange">exchange #{numberOf(n.exchangeId)}</button></>
        ) : null}
      </span>
      {n.children.length > 0 ? <ul role="group">{n.children.map((c) => <Node key={`${c.exchangeId}:${c.kind}:${c.id}`} n={c} current={current} numberOf={numberOf} onSelect={onSelect} />)}</ul> : null}
    </li>
  );
}
