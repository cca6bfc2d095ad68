/**
 * The Overview in the real panel with the built extension (#37): the demo's scenarios sent by the official
 * @ag-ui/client — a clean chat, then one scenario per kind of problem — listed once each, in the documented
 * order, each link landing on its view and frame; and the panel's list equal, problem for problem, to the
 * `summary` the CLI prints for the same session exported (one model, detail/overview.ts).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/cli/main.ts';
import { demoSessionInBothPanels, type DemoStep } from './demo-panel.ts';

interface Shown {
  group: string;
  kind: string;
  /** The exchange's number in the list, from 1. */
  row: number;
  event: number | null;
  view: string;
  text: string;
}

interface OverviewRead {
  problems: Shown[];
  /** Before any click: the first screen shows the Overview. */
  first: string;
  /** After following the identity problem's link, and the failed exchange's. */
  identity: { view: string; row: number };
  failed: { view: string; row: number; event: string | null };
  /** Where each problem's link landed, in the list's order: the view, the selected row, the Timeline's frame. */
  landed: { view: string; row: number; event: string | null }[];
  /** Ctrl+F from the Timeline, then a search for one thread's id, and its first frame's hit followed. */
  search: { focused: boolean; rows: number[]; input: boolean; events: string[]; opened: { view: string; row: number; event: string | null } };
  /** The list's numbers shown: failed only; endpoints containing "stall"; every row by duration, longest first. */
  list: { failed: number[]; stall: number[]; longest: number[] };
  har: string;
}

/** Runs in the panel: reads the Overview, follows every link, searches, filters and sorts the list, and exports the session. */
async function readOverview(): Promise<OverviewRead> {
  const rows = (): HTMLElement[] => [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')];
  const selectedRow = (): number => rows().findIndex((r) => r.getAttribute('aria-selected') === 'true') + 1;
  const view = (): string => document.querySelector<HTMLElement>('#view')!.dataset.view!;
  const first = view();
  await e2e.settle(() => document.querySelector('[data-testid=overview]') !== null);
  const number = new Map(rows().map((r, i) => [r.dataset.id!, i + 1]));
  const items = (): HTMLElement[] => [...document.querySelectorAll<HTMLElement>('[data-testid=overview-problem]')];
  const problems = items().map((li) => ({
    group: li.dataset.group!, kind: li.dataset.kind!, row: number.get(li.dataset.exchange!) ?? 0,
    event: li.dataset.event === '' ? null : Number(li.dataset.event), view: li.dataset.view!, text: li.querySelector('button')!.lastChild!.textContent!.trim(),
  }));
  const follow = async (kind: string): Promise<void> => {
    items().find((li) => li.dataset.kind === kind)!.querySelector('button')!.click();
    await e2e.settle(() => view() !== 'overview');
  };
  await follow('identity/run-id-mismatch');
  const identity = { view: view(), row: selectedRow() };
  document.querySelector<HTMLElement>('[data-testid=tab-overview]')!.click();
  await e2e.settle(() => document.querySelector('[data-testid=overview-problem]') !== null);
  await follow('schema/malformed');
  await e2e.settle(() => document.querySelector('[data-testid=event-detail]') !== null);
  const failed = { view: view(), row: selectedRow(), event: document.querySelector<HTMLElement>('[data-testid=event-detail]')?.dataset.index ?? null };
  document.dispatchEvent(new KeyboardEvent('keydown', { key: 'f', ctrlKey: true, bubbles: true }));
  await e2e.settle(() => document.activeElement?.id === 'session-search');
  const focused = view() === 'overview' && document.activeElement?.id === 'session-search';
  const box = document.querySelector<HTMLInputElement>('[data-testid=session-search]')!;
  box.value = 'THREAD-stall';
  box.dispatchEvent(new Event('input', { bubbles: true }));
  await e2e.settle(() => document.querySelector('[data-testid=session-hits]') !== null);
  const hits = [...document.querySelectorAll<HTMLElement>('[data-testid=session-hit]')];
  const hitEvents = [...document.querySelectorAll<HTMLElement>('[data-testid=session-hit-event]')];
  const firstEvent = hitEvents[0]!.dataset.index!;
  hitEvents[0]!.querySelector('button')!.click();
  await e2e.settle(() => document.querySelector<HTMLElement>('[data-testid=event-detail]')?.dataset.index === firstEvent);
  const search = {
    focused, rows: hits.map((h) => number.get(h.dataset.exchange!) ?? 0), input: /in its input/.test(hits[0]?.textContent ?? ''),
    events: hitEvents.map((e) => e.dataset.index!),
    opened: { view: view(), row: selectedRow(), event: document.querySelector<HTMLElement>('[data-testid=event-detail]')?.dataset.index ?? null },
  };
  const shown = (): number[] => rows().map((r) => Number(r.children[1]!.textContent));
  const set = (hook: string, value: string): void => {
    const el = document.querySelector<HTMLInputElement | HTMLSelectElement>(`[data-testid=${hook}]`)!;
    el.value = value;
    el.dispatchEvent(new Event(el instanceof HTMLSelectElement ? 'change' : 'input', { bubbles: true }));
  };
  set('list-filter-verdict', 'failed');
  await e2e.settle(() => rows().length === 3);
  const failedRows = shown();
  set('list-filter-verdict', '');
  set('list-filter-endpoint', 'STALL');
  await e2e.settle(() => rows().length === 1);
  const stallRows = shown();
  set('list-filter-endpoint', '');
  await e2e.settle(() => rows().length === 7);
  const sortDuration = (): void => document.querySelector<HTMLElement>('[data-testid=sort-duration]')!.click();
  sortDuration();
  await e2e.settle(() => document.querySelector<HTMLElement>('[data-testid=sort-duration]')!.dataset.sort === 'asc');
  sortDuration();
  await e2e.settle(() => document.querySelector<HTMLElement>('[data-testid=sort-duration]')!.dataset.sort === 'desc');
  const list = { failed: failedRows, stall: stallRows, longest: shown() };
  // Last, as following a link leaves the focus wherever its view puts it; the list back in capture order, the search cleared.
  sortDuration();
  await e2e.settle(() => document.querySelector<HTMLElement>('[data-testid=sort-duration]')!.dataset.sort === '');
  document.querySelector<HTMLElement>('[data-testid=tab-overview]')!.click();
  await e2e.settle(() => document.querySelector('[data-testid=session-search]') !== null);
  set('session-search', '');
  const landed: OverviewRead['landed'] = [];
  for (let k = 0; k < problems.length; k++) {
    document.querySelector<HTMLElement>('[data-testid=tab-overview]')!.click();
    await e2e.settle(() => items().length === problems.length);
    items()[k]!.querySelector('button')!.click();
    await e2e.settle(() => view() !== 'overview');
    const p = problems[k]!;
    if (p.view === 'timeline') await e2e.settle(() => document.querySelector<HTMLElement>('[data-testid=event-detail]')?.dataset.index === String(p.event));
    landed.push({ view: view(), row: selectedRow(), event: view() === 'timeline' ? document.querySelector<HTMLElement>('[data-testid=event-detail]')?.dataset.index ?? null : null });
  }
  const api = (globalThis as unknown as { browser?: typeof chrome }).browser ?? chrome;
  const tabId = chrome.devtools?.inspectedWindow?.tabId ?? Number(new URLSearchParams(location.search).get('tabId'));
  const har = (await api.runtime.sendMessage({ type: 'agui-inspector/export', tabId, redact: [] })) as string;
  return { problems, first, identity, failed, landed, search, list, har };
}

/** A clean chat, then one scenario per problem: each adds its problem, and the chat nothing. */
const SESSION: DemoStep[] = [
  ['chat', { threadId: 'thread-clean', delay: 1 }],
  ['misbehave-malformed', { threadId: 'thread-malformed', delay: 1 }],
  ['misbehave-truncated', { threadId: 'thread-cut', delay: 1 }],
  ['misbehave-identity', { threadId: 'thread-ids', delay: 1 }],
  ['stall', { threadId: 'thread-stall', delay: 1 }],
  ['misbehave-state', { threadId: 'thread-state', delay: 1 }],
  ['misbehave-tool-args', { threadId: 'thread-tools', delay: 1 }],
];

const settled = (): boolean => {
  const all = [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')];
  return all.length === 7 && all.every((r) => r.dataset.verdict !== 'pending' && r.dataset.verdict !== 'unanalysed');
};

function check(r: OverviewRead): void {
  assert.equal(r.first, 'overview', 'the first screen is the Overview');
  assert.deepEqual(r.problems.map((p) => [p.group, p.kind, p.row]), [
    ['failed', 'schema/malformed', 2],
    ['failed', 'lifecycle/truncated', 3],
    ['failed', 'identity/run-id-mismatch', 4],
    ['time', 'stall', 5],
    // The call its schema rejects and the torn one, each also left unanswered: two problems of each call, at its start.
    ['tools', 'tool-args-rejected', 7],
    ['tools', 'tool-unanswered', 7],
    ['tools', 'tool-args-rejected', 7],
    ['tools', 'tool-unanswered', 7],
    ['state', 'state/patch-failed', 6],
  ]);
  assert.ok(!r.problems.some((p) => p.row === 1), 'the clean chat adds nothing');
  assert.deepEqual(r.identity, { view: 'timeline', row: 4 }, "the mismatch's link opens its exchange on the Timeline");
  const malformed = r.problems[0]!;
  assert.deepEqual(r.failed, { view: 'timeline', row: 2, event: String(malformed.event) }, 'the failed exchange opens on the Timeline at the frame that failed it');
  assert.deepEqual(r.landed, r.problems.map((p) => ({ view: p.view, row: p.row, event: p.view === 'timeline' ? String(p.event) : null })), 'every link lands on its view, exchange and frame');
  // The thread's id is in its input and in its run's boundary events, in no other exchange; case does not matter.
  assert.equal(r.search.focused, true, 'Ctrl+F opens the Overview with the search focused');
  assert.deepEqual(r.search.rows, [5]);
  assert.equal(r.search.input, true);
  assert.ok(r.search.events.length >= 2, `the RUN_STARTED and RUN_FINISHED frames: ${r.search.events.join(', ')}`);
  assert.deepEqual(r.search.opened, { view: 'timeline', row: 5, event: r.search.events[0] }, 'a frame\'s hit opens its exchange on the Timeline at that frame');
  assert.deepEqual(r.list.failed, [2, 3, 4], 'the verdict filter keeps the failed exchanges, numbered as captured');
  assert.deepEqual(r.list.stall, [5], 'the endpoint filter, case-insensitive');
  assert.equal(r.list.longest[0], 5, 'longest first: the stalled exchange');
  assert.deepEqual([...r.list.longest].sort((a, b) => a - b), [1, 2, 3, 4, 5, 6, 7], 'every exchange still listed');
  // The CLI's summary of the same session, exported, is the panel's list.
  const dir = mkdtempSync(join(tmpdir(), 'agui-overview-'));
  writeFileSync(join(dir, 'session.har'), r.har);
  let out = '';
  run(['check', join(dir, 'session.har'), '--format', 'json'], { out: (s) => void (out += s), err: () => undefined, colour: false });
  const summary = (JSON.parse(out) as { summary: { problems: { group: string; kind: string; exchange: number; event: number | null; view: string; text: string }[] } }).summary;
  assert.deepEqual(summary.problems.map((p) => ({ group: p.group, kind: p.kind, row: p.exchange + 1, event: p.event, view: p.view, text: p.text })), r.problems);
}

demoSessionInBothPanels('the session Overview in the real panel', 'the Overview lists each scenario\'s problem once, in order, and its links land', SESSION, settled, readOverview, check);
