/**
 * The run tree: a thread's runs nested by `parentRunId` (basic/run-input#identity) across its exchanges,
 * and under each run the subagent invocations it delegated to (events/subagents), nested by
 * `parentSubagentRunId`, so a multi-agent app reads as the agents it runs.
 *
 * `SubagentTracker` keeps, during the one pass that analyses an exchange, each invocation and the events
 * attributed to it (as ranges, so a long delegated stream costs a few numbers); `runTree` assembles the
 * thread from each exchange's report and invocations.
 */
import type { Ev } from '../analyzer/index.ts';
import type { ExchangeReport, RunOutcome } from '../exchange/index.ts';
import type { Finding } from '../rules/index.ts';

/** How an invocation ended: SUBAGENT_FINISHED's outcome (success when absent), SUBAGENT_ERROR, or not at all. */
export type SubagentOutcome = 'success' | 'interrupt' | 'cancelled' | 'error' | 'open' | (string & {});

/** One subagent invocation of an exchange. */
export interface SubagentRow {
  id: string;
  name: string | null;
  /** parentSubagentRunId as announced; null for one the run itself delegated to. */
  parent: string | null;
  /** Whether SUBAGENT_STARTED announced it; an unannounced one is known by its attributed events only. */
  announced: boolean;
  outcome: SubagentOutcome;
  /** Event indices: its first event (the announcement, or the first attributed event) and its closing event. */
  startedAt: number;
  endedAt: number | null;
  /** Findings on events attributed to it. */
  findings: number;
}

interface Held extends Omit<SubagentRow, 'findings'> {
  /** Attributed event indices as closed ranges, in order. */
  ranges: [number, number][];
}

const str = (ev: Ev, key: string): string | null => (typeof ev[key] === 'string' ? (ev[key] as string) : null);

export class SubagentTracker {
  /** Invocation ids are unique within a run (events/subagents), so the key is the run's start and the id. */
  private readonly byKey = new Map<string, Held>();
  private readonly list: Held[] = [];
  private runStart = -1;

  see(ev: Ev, index: number): void {
    if (ev.type === 'RUN_STARTED') this.runStart = index;
    const id = str(ev, 'subagentRunId');
    if (id === null) return;
    const key = `${this.runStart}\u0000${id}`;
    let s = this.byKey.get(key);
    if (!s) {
      s = { id, name: null, parent: null, announced: false, outcome: 'open', startedAt: index, endedAt: null, ranges: [] };
      this.byKey.set(key, s);
      this.list.push(s);
    }
    const last = s.ranges.at(-1);
    if (last && index <= last[1] + 1) last[1] = Math.max(last[1], index);
    else s.ranges.push([index, index]);
    switch (ev.type) {
      case 'SUBAGENT_STARTED':
        if (s.announced) return;
        s.announced = true;
        s.name = str(ev, 'name');
        s.parent = str(ev, 'parentSubagentRunId');
        return;
      case 'SUBAGENT_FINISHED': {
        const outcome = ev.outcome as { type?: unknown } | undefined;
        s.outcome = typeof outcome?.type === 'string' ? outcome.type : 'success';
        s.endedAt = index;
        return;
      }
      case 'SUBAGENT_ERROR':
        s.outcome = 'error';
        s.endedAt = index;
    }
  }

  rows(findings: readonly Finding[]): SubagentRow[] {
    const at = findingEvents(findings);
    return this.list.map(({ ranges, ...s }) => ({ ...s, findings: ranges.reduce((n, [from, to]) => n + countIn(at, from, to), 0) }));
  }
}

/** The event indices findings are about, sorted, to count those in a range by binary search. */
function findingEvents(findings: readonly Finding[]): number[] {
  return findings.map((f) => f.event).filter((e): e is number => e !== null).sort((a, b) => a - b);
}

/** How many of the sorted `at` lie in [from, to]. */
function countIn(at: readonly number[], from: number, to: number): number {
  return lowerBound(at, to + 1) - lowerBound(at, from);
}

function lowerBound(at: readonly number[], v: number): number {
  let lo = 0;
  let hi = at.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (at[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export interface RunTreeNode {
  kind: 'run' | 'subagent';
  /** The runId, or the subagentRunId. */
  id: string;
  /** The parentRunId as sent; a subagent's parentSubagentRunId, or the run it belongs to. */
  parent: string | null;
  /** A parentRunId that names no run of the thread's exchanges held here. */
  parentUnknown: boolean;
  name: string | null;
  outcome: RunOutcome | SubagentOutcome;
  findings: number;
  /** The exchange whose stream carried it. */
  exchangeId: string;
  /** A run its exchange replayed rather than requested (events/lifecycle#several-runs-on-one-stream). */
  replayed: boolean;
  children: RunTreeNode[];
}

export interface ThreadExchange {
  exchangeId: string;
  report: ExchangeReport;
  /** Its invocations; null while not known (not asked for yet), which leaves its runs without subagents. */
  subagents: SubagentRow[] | null;
}

/**
 * The thread's run tree, roots first in order of appearance. A run seen on several exchanges (a
 * reconnect replays a thread's earlier runs) is shown once, from the exchange that requested it when
 * one did. A parentRunId chain that loops is cut where it would close, so every run is shown once.
 */
export function runTree(exchanges: readonly ThreadExchange[]): RunTreeNode[] {
  const nodes: RunTreeNode[] = [];
  const byRun = new Map<string, RunTreeNode>();
  for (const { exchangeId, report, subagents } of exchanges) {
    const runs = report.runs;
    const at = findingEvents(report.findings);
    const starts = byStart(subagents ?? []);
    runs.forEach((r, i) => {
      const id = r.runId ?? '';
      const known = byRun.get(id);
      if (known && (known.replayed === false || !r.requested)) return;
      const end = r.finishedAt ?? runs[i + 1]?.startedAt ?? Number.MAX_SAFE_INTEGER;
      const node: RunTreeNode = {
        kind: 'run', id, parent: r.parentRunId, parentUnknown: false, name: null, outcome: r.outcome,
        findings: r.startedAt === null ? 0 : countIn(at, r.startedAt, end),
        exchangeId, replayed: !r.requested, children: r.startedAt === null ? [] : subagentsUnder(id, exchangeId, starts.within(r.startedAt, end)),
      };
      if (known) nodes[nodes.indexOf(known)] = node;
      else nodes.push(node);
      byRun.set(id, node);
    });
  }
  const roots: RunTreeNode[] = [];
  // 0: not placed yet, 1: being placed (on the current parent chain), 2: placed.
  const placed = new Map<RunTreeNode, 0 | 1 | 2>();
  const place = (start: RunTreeNode): void => {
    // Iterative, so a long parent chain costs its length once, not a stack frame each.
    const chain: RunTreeNode[] = [];
    for (let n: RunTreeNode | undefined = start; n && (placed.get(n) ?? 0) === 0; n = n.parent === null ? undefined : byRun.get(n.parent)) {
      placed.set(n, 1);
      chain.push(n);
    }
    for (const n of chain.reverse()) {
      const parent = n.parent === null ? undefined : byRun.get(n.parent);
      n.parentUnknown = n.parent !== null && parent === undefined;
      // A parent still being placed is further down this same chain: attaching would close a loop.
      if (parent && placed.get(parent) === 2) parent.children.push(n);
      else roots.push(n);
      placed.set(n, 2);
    }
  };
  for (const n of nodes) place(n);
  for (const n of nodes) n.children.sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'subagent' ? -1 : 1));
  return roots;
}

/**
 * An exchange's invocations by the event they start at: those of a run, by binary search rather than a
 * pass over all of them per run (a reconnect's stream replays every earlier run of the thread).
 */
function byStart(rows: readonly SubagentRow[]): { within(from: number, to: number): SubagentRow[] } {
  // Stable, so invocations that start at one event keep their order.
  const order = rows.map((_, i) => i).sort((a, b) => rows[a]!.startedAt - rows[b]!.startedAt);
  const starts = order.map((i) => rows[i]!.startedAt);
  return {
    /** Those that start in [from, to], in the exchange's order (first invocation of an id first). */
    within(from, to) {
      const lo = lowerBound(starts, from);
      return order.slice(lo, Math.max(lo, lowerBound(starts, to + 1))).sort((a, b) => a - b).map((i) => rows[i]!);
    },
  };
}

function subagentsUnder(runId: string, exchangeId: string, rows: SubagentRow[]): RunTreeNode[] {
  // Ids are unique within a run; the first invocation of an id is the one shown.
  const nodes = new Map<string, { node: RunTreeNode; order: number; parent: string | null }>();
  rows.forEach((s, order) => {
    if (nodes.has(s.id)) return;
    nodes.set(s.id, { order, parent: s.parent, node: { kind: 'subagent', id: s.id, parent: s.parent ?? runId, parentUnknown: false, name: s.name, outcome: s.outcome, findings: s.findings, exchangeId, replayed: false, children: [] } });
  });
  const top: RunTreeNode[] = [];
  for (const { node: n, order, parent: named } of nodes.values()) {
    const parent = named === null ? undefined : nodes.get(named);
    // A parent that appears only after its child, or never, leaves the child under the run (the verifier reports it);
    // appearing first, a parent cannot be its child's descendant, so nesting never loops.
    if (parent && parent.order < order) parent.node.children.push(n);
    else {
      n.parentUnknown = named !== null;
      top.push(n);
    }
  }
  return top;
}
