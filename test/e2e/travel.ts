/**
 * Time travel in the real panel with the built extension, shared by the state and conversation e2e: a demo
 * scenario run by the official @ag-ui/client in the demo page, the panel opened on its tab (Chromium's
 * DevTools window, Firefox's panel page), then one scrubber of the State & messages view driven by its
 * documented hooks (panel/README.md), reading the diff rows after each move.
 */
import { after, describe } from 'node:test';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import { bothBrowsers, readInPanel } from './demo-panel.ts';

/** A move: drag the range to a step (a number), `]` forward, `[` back, or *Back to latest*. */
export type Move = number | ']' | '[' | 'latest';

export interface Scrub {
  /** `state` or `conv`: the scrubber's hooks are `<hook>-scrub`, `<hook>-latest`. */
  hook: 'state' | 'conv';
  /** The diff rows' test id, and the data-* members each row is read as, joined by spaces (`failed` appended when data-failed is "true"). */
  rows: string;
  fields: string[];
  moves: Move[];
}

export interface Seen {
  step: string;
  rows: string[];
}

/** Runs in the panel: selects the only exchange, shows the State view, and reads the scrubber before and after each move. */
async function drive(s: Scrub): Promise<Scrubbed> {
  document.querySelector<HTMLElement>('[data-testid=exchange-row]')!.click();
  document.querySelector<HTMLElement>('[data-testid=tab-state]')!.click();
  const range = (): HTMLInputElement => document.querySelector<HTMLInputElement>(`[data-testid=${s.hook}-scrub]`)!;
  // The view renders once its parts are answered, and the scrubber once its steps are: a slow worker answers after a frame.
  await e2e.settle(() => range() !== null);
  const seen = (): Seen => ({
    step: range().dataset.step!,
    rows: [...document.querySelectorAll<HTMLElement>(`[data-testid=${s.rows}]`)].map((r) => `${s.fields.map((f) => r.dataset[f]).join(' ')}${r.dataset.failed === 'true' ? ' failed' : ''}`),
  });
  const latest = seen();
  const after: Seen[] = [];
  for (const m of s.moves) {
    if (typeof m === 'number') {
      // As a user drags it.
      range().value = String(m);
      range().dispatchEvent(new Event('input', { bubbles: true }));
    } else if (m === 'latest') document.querySelector<HTMLElement>(`[data-testid=${s.hook}-latest]`)!.click();
    else range().dispatchEvent(new KeyboardEvent('keydown', { key: m, bubbles: true }));
    await e2e.settle();
    after.push(seen());
  }
  return { latest, after };
}

export type Scrubbed = { latest: Seen; after: Seen[] };

/** The two tests of one scrubber on one scenario, in Chromium's DevTools and in Firefox, each checked by `check`. */
export function travelTests(title: string, scenario: string, s: Scrub, check: (r: Scrubbed) => void, names: { chromium: string; firefox: string }): void {
  describe(title, () => {
    let agent: DemoAgent | undefined;
    after(async () => agent?.close());
    const analysed = (): boolean => [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')].some((r) => r.dataset.verdict === 'completed');
    bothBrowsers(names, async (target) => {
      agent ??= await startDemoAgent({ port: 0, delayMs: 2 });
      check(await readInPanel(target, agent.url, [[scenario, { delay: 2 }]], analysed, drive, s));
    });
  });
}
