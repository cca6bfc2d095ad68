/**
 * State time travel in the real panel with the built extension: the `misbehave-state` demo run by the
 * official @ag-ui/client, then the scrubber moved with the keyboard and the range input, in Chromium's
 * DevTools window and in Firefox's panel page. Reads the documented hooks (panel/README.md).
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import { readInPanel } from './demo-panel.ts';

/** Runs in the panel: selects the only exchange, shows the State view, and scrubs through every step. */
async function scrub(): Promise<{ latest: string; steps: { step: string; rows: string[] }[]; back: string; latestAgain: string }> {
  const frame = async (): Promise<void> => {
    for (let i = 0; i === 0 || (i < 600 && document.querySelector('#view [aria-busy=true]')); i++) await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  };
  document.querySelector<HTMLElement>('[data-testid=exchange-row]')!.click();
  document.querySelector<HTMLElement>('[data-testid=tab-state]')!.click();
  await frame();
  const range = (): HTMLInputElement => document.querySelector<HTMLInputElement>('[data-testid=state-scrub]')!;
  const rows = (): string[] => [...document.querySelectorAll<HTMLElement>('[data-testid=state-diff]')].map((r) => `${r.dataset.kind} ${r.dataset.op} ${r.dataset.path}${r.dataset.failed === 'true' ? ' failed' : ''}`);
  const latest = range().dataset.step!;
  const steps: { step: string; rows: string[] }[] = [];
  // To the first step with the input, as a user drags it.
  range().value = '0';
  range().dispatchEvent(new Event('input', { bubbles: true }));
  await frame();
  steps.push({ step: range().dataset.step!, rows: rows() });
  for (let i = 0; i < 3; i++) {
    range().dispatchEvent(new KeyboardEvent('keydown', { key: ']', bubbles: true }));
    await frame();
    steps.push({ step: range().dataset.step!, rows: rows() });
  }
  range().dispatchEvent(new KeyboardEvent('keydown', { key: '[', bubbles: true }));
  await frame();
  const back = range().dataset.step!;
  document.querySelector<HTMLElement>('[data-testid=state-latest]')!.click();
  await frame();
  return { latest, steps, back, latestAgain: range().dataset.step! };
}

function check(r: Awaited<ReturnType<typeof scrub>>): void {
  assert.equal(r.latest, '3', 'opens on the latest step');
  assert.deepEqual(r.steps.map((s) => s.step), ['0', '1', '2', '3']);
  assert.deepEqual(r.steps[0]!.rows, ['change remove /preferences', 'change add /cart', 'change add /status'], "the snapshot against the input's state (the demo page sends preferences)");
  assert.deepEqual(r.steps[1]!.rows, ['op add /cart/items/-', 'op replace /cart/total', 'change add /cart/items/1', 'change replace /cart/total']);
  assert.deepEqual(r.steps[2]!.rows, ['op replace /status', 'op remove /cart/coupon failed'], 'the failed operation marked, no change');
  assert.deepEqual(r.steps[3]!.rows, ['op move /cart/items/1', 'op add /paid', 'change replace /cart/items/0', 'change replace /cart/items/1', 'change add /paid']);
  assert.equal(r.back, '2');
  assert.equal(r.latestAgain, '3');
}

const analysed = (): boolean => [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')].some((r) => r.dataset.verdict === 'completed');

describe('state time travel in the panel', () => {
  let agent: DemoAgent | undefined;
  after(async () => agent?.close());

  for (const [target, name] of [['chrome', 'Chromium DevTools: scrubbing, diffs against the step before, the failed delta'], ['firefox', 'Firefox: the same steps and diffs']] as const) {
    test(name, async () => {
      agent ??= await startDemoAgent({ port: 0, delayMs: 2 });
      check(await readInPanel(target, agent.url, [['misbehave-state', { delay: 2 }]], analysed, scrub));
    });
  }
});
