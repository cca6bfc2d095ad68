/**
 * The Tools view in the real panel with the built extension: the `misbehave-tool-args` demo run by the
 * official @ag-ui/client, whose agent calls the page's frontend tool with arguments its schema rejects,
 * in Chromium's DevTools window and in Firefox's panel page. Reads the documented hooks (panel/README.md).
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import { bothBrowsers, readInPanel } from './demo-panel.ts';

interface Shown {
  calls: Record<string, string | undefined>[];
  detail: string | null;
  errors: [string | undefined, string | undefined][];
  picked: string | null;
  pickedErrors: number;
}

/** Runs in the panel: selects the only exchange, shows the Tools view, reads it, then picks the torn call. */
async function readTools(): Promise<Shown> {
  document.querySelector<HTMLElement>('[data-testid=exchange-row]')!.click();
  document.querySelector<HTMLElement>('[data-testid=tab-tools]')!.click();
  await e2e.settle(() => document.querySelector('[data-testid=tool-call]') !== null);
  const calls = [...document.querySelectorAll<HTMLElement>('[data-testid=tool-call]')].map((r) => ({ ...r.dataset }));
  const detail = document.querySelector<HTMLElement>('[data-testid=tool-detail]')?.dataset.toolCallId ?? null;
  const errors = [...document.querySelectorAll<HTMLElement>('[data-testid=args-error]')].map((e): [string | undefined, string | undefined] => [e.dataset.path, e.dataset.keyword]);
  document.querySelector<HTMLElement>('[data-testid=tool-call][data-args=unparsed]')!.click();
  await e2e.settle();
  await e2e.frame();
  return {
    calls, detail, errors,
    picked: document.querySelector<HTMLElement>('[data-testid=tool-detail]')?.dataset.toolCallId ?? null,
    pickedErrors: document.querySelectorAll('[data-testid=args-error]').length,
  };
}

const analysed = (): boolean => [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')].some((r) => r.dataset.verdict === 'completed');

/** Runs in the panel: selects the thread's second exchange, shows the Tools view, then the whole thread's calls. */
async function readThread(): Promise<{ own: number; first: string; rows: Record<string, string | undefined>[]; later: string | null }> {
  const rows = [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')];
  rows[1]!.click();
  document.querySelector<HTMLElement>('[data-testid=tab-tools]')!.click();
  await e2e.settle(() => document.querySelector('[data-testid=tools-thread]') !== null);
  const own = document.querySelectorAll('[data-testid=tool-call]').length;
  document.querySelector<HTMLElement>('[data-testid=tools-thread]')!.click();
  await e2e.settle(() => document.querySelectorAll('[data-testid=tool-call]').length === 3);
  const calls = [...document.querySelectorAll<HTMLElement>('[data-testid=tool-call]')].map((c) => ({ ...c.dataset }));
  document.querySelector<HTMLElement>('[data-testid=tool-call][data-args=invalid]')!.click();
  await e2e.settle(() => document.querySelector('[data-testid=tool-later]') !== null);
  return { own, first: rows[0]!.dataset.id!, rows: calls, later: document.querySelector('[data-testid=tool-later]')?.textContent ?? null };
}

function check(r: Shown): void {
  const run = r.calls[0]!.toolCallId!.split(':')[0];
  assert.deepEqual(
    r.calls.map((c) => [c.toolCallId, c.name, c.side, c.args, c.result]),
    [
      [`${run}:call-lookup`, 'lookup_weather', 'backend', 'unchecked', 'present'],
      [`${run}:call-card`, 'show_weather_card', 'frontend', 'invalid', 'pending'],
      [`${run}:call-torn`, 'show_weather_card', 'frontend', 'unparsed', 'pending'],
    ],
  );
  assert.equal(r.detail, `${run}:call-card`, 'opens on the call whose arguments are rejected');
  assert.deepEqual(r.errors, [['/summary', 'required'], ['/city', 'type']]);
  assert.equal(r.picked, `${run}:call-torn`);
  assert.equal(r.pickedErrors, 0, 'arguments that do not parse have no mismatches to list');
}

describe('the Tools view in the panel', () => {
  let agent: DemoAgent | undefined;
  after(async () => agent?.close());

  bothBrowsers({ chromium: 'each call with its side, its arguments checked against the schema, its result', firefox: 'the same calls and mismatches' }, async (target) => {
    agent ??= await startDemoAgent({ port: 0, delayMs: 2 });
    check(await readInPanel(target, agent.url, [['misbehave-tool-args', { delay: 2 }]], analysed, readTools));
  });

  test("Chromium DevTools: the whole thread's calls on request, and what its next request did with them", async () => {
    agent ??= await startDemoAgent({ port: 0, delayMs: 2 });
    const both = (): boolean => [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')].filter((r) => r.dataset.verdict === 'completed').length === 2;
    const r = await readInPanel('chrome', agent.url, [['misbehave-tool-args', { delay: 2, threadId: 'thread-tools' }], ['chat', { delay: 2, threadId: 'thread-tools' }]], both, readThread);
    assert.equal(r.own, 0, 'the chat exchange started no tool call');
    assert.deepEqual(r.rows.map((c) => [c.name, c.result, c.exchange === r.first]), [['lookup_weather', 'present', true], ['show_weather_card', 'absent', true], ['show_weather_card', 'absent', true]]);
    assert.match(r.later ?? '', /went on without answering it/);
  });
});
