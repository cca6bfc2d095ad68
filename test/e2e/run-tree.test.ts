/**
 * The run tree in the real panel with the built extension: the `subagents` demo (a planner delegating to
 * a researcher and a drafter) and, on the same thread, a run it spawned (`parentRunId`), both sent by the
 * official @ag-ui/client; a run of another thread stays out. Chromium's DevTools window and Firefox's
 * panel page read the documented hooks (panel/README.md).
 */
import assert from 'node:assert/strict';
import { after, describe } from 'node:test';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import { bothBrowsers, readInPanel, type DemoStep } from './demo-panel.ts';

interface TreeRead {
  nodes: { kind: string; id: string; parent: string; outcome: string; depth: number; exchange: string }[];
  /** The selected row's number after following the parent run's link. */
  followed: string | null;
}

/** Runs in the panel: shows the child run's exchange in Identity & runs, reads the tree, follows a link. */
async function readTree(): Promise<TreeRead> {
  const rows = (): HTMLElement[] => [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')];
  rows()[1]!.click();
  document.querySelector<HTMLElement>('[data-testid=tab-identity]')!.click();
  // Every exchange of the thread answers for its subagents: until the planner's are in, the tree is partial.
  await e2e.settle(() => document.querySelectorAll('[data-testid=run-node][data-kind=subagent]').length >= 3);
  const nodes = [...document.querySelectorAll<HTMLElement>('[data-testid=run-node]')].map((n) => {
    let depth = 0;
    for (let p = n.parentElement?.closest('[data-testid=run-node]'); p; p = p.parentElement?.closest('[data-testid=run-node]')) depth++;
    return { kind: n.dataset.kind!, id: n.dataset.runId!, parent: n.dataset.parentRunId!, outcome: n.dataset.outcome!, depth, exchange: n.dataset.exchange! };
  });
  document.querySelector<HTMLElement>('[data-testid=run-node][data-run-id=run-parent] [data-testid=run-node-exchange]')?.click();
  await e2e.settle();
  const selected = rows().findIndex((r) => r.getAttribute('aria-selected') === 'true');
  return { nodes, followed: selected < 0 ? null : String(selected + 1) };
}

function check(r: TreeRead): void {
  const planner = 'run-parent:planner';
  assert.deepEqual(r.nodes.map(({ kind, id, parent, outcome, depth }) => ({ kind, id, parent, outcome, depth })), [
    { kind: 'run', id: 'run-parent', parent: '', outcome: 'success', depth: 0 },
    { kind: 'subagent', id: planner, parent: 'run-parent', outcome: 'success', depth: 1 },
    { kind: 'subagent', id: 'run-parent:researcher', parent: planner, outcome: 'success', depth: 2 },
    { kind: 'subagent', id: 'run-parent:drafter', parent: planner, outcome: 'error', depth: 2 },
    { kind: 'run', id: 'run-child', parent: 'run-parent', outcome: 'success', depth: 1 },
  ]);
  assert.notEqual(r.nodes[0]!.exchange, r.nodes[4]!.exchange, 'the two runs come from two exchanges');
  assert.equal(r.followed, '1', "the parent run's link selects its exchange");
}

/** The session both browsers capture: the delegating run, the run it spawned, and another thread's run. */
const SESSION: DemoStep[] = [
  ['subagents', { threadId: 'thread-tree', runId: 'run-parent', delay: 1 }],
  ['chat', { threadId: 'thread-tree', runId: 'run-child', parentRunId: 'run-parent', delay: 1 }],
  ['chat', { threadId: 'thread-other', runId: 'run-elsewhere', delay: 1 }],
];

const settled = (): boolean => {
  const all = [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')];
  return all.length === 3 && all.every((r) => r.dataset.verdict === 'completed');
};

describe('the run tree in the panel', () => {
  let agent: DemoAgent | undefined;
  after(async () => agent?.close());

  bothBrowsers({ chromium: "runs across the thread's exchanges, subagents nested, another thread left out", firefox: 'the same tree' }, async (target) => {
    agent ??= await startDemoAgent({ port: 0, delayMs: 2 });
    check(await readInPanel(target, agent.url, SESSION, settled, readTree));
  });
});
