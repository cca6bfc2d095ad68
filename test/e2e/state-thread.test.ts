/**
 * The state scrubber across a thread, in Chromium's real DevTools panel with the built extension: two
 * `misbehave-state` runs on one thread, sent by the official @ag-ui/client. Asked to, the scrubber on the
 * second exchange goes over both exchanges' steps, each exchange's first step diffed against its own
 * input's state, and a step of the other exchange opens it. Reads the documented hooks (panel/README.md).
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import { readInPanel, type DemoStep } from './demo-panel.ts';

interface Read {
  own: string;
  across: string;
  steps: { step: string; against: string; link: string; rows: string[] }[];
  followed: string | null;
}

async function read(): Promise<Read> {
  const rows = (): HTMLElement[] => [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')];
  rows()[1]!.click();
  document.querySelector<HTMLElement>('[data-testid=tab-state]')!.click();
  await e2e.settle();
  const range = (): HTMLInputElement => document.querySelector<HTMLInputElement>('[data-testid=state-scrub]')!;
  await e2e.settle(() => range() !== null);
  const own = range().max;
  document.querySelector<HTMLInputElement>('[data-testid=state-thread]')!.click();
  // The other exchange's steps arrive once its part is answered.
  await e2e.settle(() => range().max === '7');
  const across = range().max;
  const steps: Read['steps'] = [];
  for (const at of [0, 3, 4, 7]) {
    range().value = String(at);
    range().dispatchEvent(new Event('input', { bubbles: true }));
    await e2e.settle();
    const scrubber = document.querySelector<HTMLElement>('[data-testid=state-scrubber]')!;
    steps.push({
      step: range().dataset.step!,
      against: document.querySelector('[data-testid=state-against]')!.textContent!.trim(),
      link: scrubber.querySelector('p > button.link')!.textContent!,
      rows: [...document.querySelectorAll<HTMLElement>('[data-testid=state-diff]')].map((r) => `${r.dataset.kind} ${r.dataset.op} ${r.dataset.path}${r.dataset.failed === 'true' ? ' failed' : ''}`),
    });
  }
  range().value = '2';
  range().dispatchEvent(new Event('input', { bubbles: true }));
  await e2e.settle();
  document.querySelector<HTMLElement>('[data-testid=state-scrubber] p > button.link')!.click();
  await e2e.settle();
  const selected = rows().findIndex((r) => r.getAttribute('aria-selected') === 'true');
  return { own, across, steps, followed: selected < 0 ? null : String(selected + 1) };
}

const SESSION: DemoStep[] = [
  ['misbehave-state', { threadId: 'thread-cart', delay: 2 }],
  ['misbehave-state', { threadId: 'thread-cart', delay: 2 }],
];

const settled = (): boolean => {
  const all = [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')];
  return all.length === 2 && all.every((r) => r.dataset.verdict === 'completed');
};

let agent: DemoAgent | undefined;
after(async () => agent?.close());

test('Chromium DevTools: the state scrubber across the thread\'s two exchanges', { timeout: 180_000 }, async () => {
  agent ??= await startDemoAgent({ port: 0, delayMs: 2 });
  const r = await readInPanel('chrome', agent.url, SESSION, settled, read);
  assert.equal(r.own, '3', "the exchange's own four steps");
  assert.equal(r.across, '7', "across the thread, both exchanges' four");
  const snapshot = ['change remove /preferences', 'change add /cart', 'change add /status'];
  assert.deepEqual(r.steps.map((s) => s.step), ['0', '3', '4', '7']);
  assert.deepEqual(r.steps[0], { step: '0', against: "— against exchange #1's input state", link: '#1 STATE_SNAPSHOT (exchange #1)', rows: snapshot });
  assert.match(r.steps[1]!.against, /against step 3$/);
  assert.deepEqual(r.steps[2], { step: '4', against: "— against exchange #2's input state", link: '#1 STATE_SNAPSHOT', rows: snapshot }, "the second exchange's snapshot, against what its own input sent");
  assert.deepEqual(r.steps[3]!.rows, ['op move /cart/items/1', 'op add /paid', 'change replace /cart/items/0', 'change replace /cart/items/1', 'change add /paid']);
  assert.equal(r.followed, '1', "a step of the other exchange opens it");
});
