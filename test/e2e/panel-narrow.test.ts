/**
 * The panel where DevTools actually sits: docked to the side, about 500 px wide. The real DevTools window
 * is narrowed over CDP to DevTools' default docked width, to 500 px and to 400 px, light and dark; then
 * every menu stays inside the panel, the exchange list keeps number, endpoint, verdict and findings count
 * in view without scrolling sideways, rows that hit the same endpoint say what tells them apart, no table
 * cell is narrower than its content's first word, the Identity view neither scrolls sideways nor cuts
 * a column off, and State & messages keeps the conversation diff's rows in view.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TargetSession } from '../../scripts/devtools.ts';
import { until } from './browsers.ts';
import { demoInDevTools, type DemoInDevTools } from './demo-capture.ts';
import { inPage } from './in-page.ts';

interface Layout {
  width: number;
  listOverflow: number;
  /** Per row: whether each must-see cell is fully inside the panel, and the row's hint. */
  rows: { number: boolean; endpoint: boolean; verdict: boolean; findings: boolean; hint: string; endpointText: string }[];
  /** The export menu's box and its last button's, once opened. */
  menu: { left: number; right: number; buttonRight: number };
  /** Table cells narrower than their content's first word, per view. */
  cramped: string[];
  /** The Identity view: how far it scrolls sideways, and whether each parentRunId cell is wholly in view. */
  identity: { sideways: number; parents: boolean[] };
  /** State & messages on the conversation scenario: how far it scrolls sideways, and whether each conv-diff row is wholly in view. */
  conversation: { sideways: number; rows: boolean[] };
}

/** Measures the panel as it is laid out now. */
function measure(panel: TargetSession): Promise<Layout> {
  return panel.eval(async () => {
    const width = document.documentElement.clientWidth;
    const inside = (el: Element | null | undefined): boolean => {
      if (!el) return false;
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.left >= 0 && r.right <= width + 0.5;
    };
    const list = document.querySelector<HTMLElement>('.xlist')!;
    const rows = [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')].map((row) => {
      const cells = [...row.children] as HTMLElement[];
      const verdict = row.querySelector('.badge');
      const findings = cells.at(-1);
      return {
        number: inside(cells[1]),
        endpoint: inside(row.querySelector('.endpoint')),
        verdict: inside(verdict),
        findings: inside(findings) && (findings!.textContent ?? '').trim() !== '',
        hint: row.querySelector('[data-testid=exchange-hint]')?.textContent ?? '',
        endpointText: row.querySelector('.endpoint')?.textContent ?? '',
      };
    });
    const summary = document.querySelector<HTMLElement>('.export > summary')!;
    summary.click();
    await e2e.settle();
    const body = document.querySelector<HTMLElement>('.export-body')!.getBoundingClientRect();
    const buttons = document.querySelector<HTMLElement>('[data-testid=export-selected]')!.getBoundingClientRect();
    const menu = { left: body.left, right: body.right, buttonRight: buttons.right };
    summary.click();
    await e2e.settle();
    const cramped: string[] = [];
    const identity = { sideways: 0, parents: [] as boolean[] };
    for (const [view, rowIndex] of [['identity', 1], ['stripped', 2]] as const) {
      document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')[rowIndex]!.click();
      await e2e.settle();
      document.querySelector<HTMLElement>(`[data-testid=tab-${view}]`)!.click();
      await e2e.settle();
      const cells = [...document.querySelectorAll<HTMLElement>('#view td')];
      if (view === 'identity') {
        const v = document.getElementById('view')!;
        identity.sideways = Math.max(v.scrollWidth - v.clientWidth, document.documentElement.scrollWidth - width);
        identity.parents = [...v.querySelectorAll('td[data-key=parentRunId]')].map(inside);
      }
      if (cells.length === 0) cramped.push(`${view}: no table`);
      for (const td of cells) {
        const text = td.textContent ?? '';
        const word = /\S+/.exec(text);
        if (!word) continue;
        // The first word's own rendered width, against the cell's content box.
        const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
        let node = walker.nextNode();
        while (node && !/\S/.test(node.textContent ?? '')) node = walker.nextNode();
        if (!node) continue;
        const start = (node.textContent ?? '').search(/\S/);
        const end = start + (/\S+/.exec((node.textContent ?? '').slice(start))?.[0].length ?? 0);
        const range = document.createRange();
        range.setStart(node, start);
        range.setEnd(node, end);
        const rects = [...range.getClientRects()];
        const style = getComputedStyle(td);
        const content = td.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        // Broken across lines, or wider than the cell: the word does not fit.
        if (rects.length > 1 || range.getBoundingClientRect().width > content + 1) cramped.push(`${view}: ${JSON.stringify(word[0].slice(0, 40))}`);
      }
    }
    document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')[5]!.click();
    await e2e.settle();
    document.querySelector<HTMLElement>('[data-testid=tab-state]')!.click();
    await e2e.settle(() => document.querySelector('[data-testid=conv-diff]') !== null);
    const v = document.getElementById('view')!;
    const conversation = {
      sideways: Math.max(v.scrollWidth - v.clientWidth, document.documentElement.scrollWidth - width),
      rows: [...document.querySelectorAll('[data-testid=conv-diff]')].map(inside),
    };
    return { width, listOverflow: list.scrollWidth - list.clientWidth, rows, menu, cramped, identity, conversation };
  });
}

/**
 * Narrows the DevTools window until the panel frame inside it is `width` px wide, as DevTools docked to
 * the side would size it; DevTools' own chrome around the panel takes the rest of the window.
 */
async function narrowTo(devtools: TargetSession, panel: TargetSession, width: number): Promise<void> {
  let window = width + 200;
  for (let tries = 0; tries < 6; tries++) {
    await devtools.send('Emulation.setDeviceMetricsOverride', { width: window, height: 760, deviceScaleFactor: 1, mobile: false });
    const seen = await until(`the panel resized for a ${window} px DevTools window`, async () => {
      const w = await panel.eval(() => document.documentElement.clientWidth);
      await new Promise((r) => setTimeout(r, 100));
      return w === (await panel.eval(() => document.documentElement.clientWidth)) ? w : null;
    });
    if (Math.abs(seen - width) <= 2) return;
    window += width - seen;
  }
  throw new Error(`could not size the panel to ${width} px`);
}

for (const theme of ['light', 'dark'] as const) {
  describe(`panel docked narrow in the real DevTools window (${theme})`, () => {
    let shown: DemoInDevTools | undefined;
    let panel: TargetSession;
    let devtools: TargetSession;

    before(async () => {
      shown = await demoInDevTools(theme === 'dark' ? ['--force-dark-mode'] : []);
      const { page } = shown;
      ({ panel, devtools } = shown);
      await inPage(panel);
      const scenarios = ['chat', 'misbehave-identity', 'misbehave-unknown', 'chat', 'chat', 'misbehave-conversation'];
      for (const [i, s] of scenarios.entries()) {
        await page.evaluate(([name, n]) => window.demo.run(name, { threadId: `thread-${n}`, runId: `run-${n}`, delay: 1 }), [s, i] as const);
      }
      await until('the session in the panel', () =>
        panel.eval((n) => {
          const rows = [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')];
          return rows.length === n && rows.every((r) => r.dataset.verdict !== 'pending' && r.dataset.verdict !== 'unanalysed');
        }, scenarios.length),
      );
    });
    after(() => shown?.close());

    // 554 px is DevTools' default width docked to the side.
    for (const width of [554, 500, 400]) {
      test(`at ${width} px: menus inside, the list's key columns in view, rows told apart, tables readable, Identity not cut, the conversation diff in view`, async () => {
        await narrowTo(devtools, panel, width);
        const layout = await measure(panel);
        assert.ok(layout.width <= width, `panel width ${layout.width}`);
        assert.ok(layout.menu.left >= 0 && layout.menu.right <= layout.width, `export menu ${layout.menu.left}–${layout.menu.right} of ${layout.width}`);
        assert.ok(layout.menu.buttonRight <= layout.width, '"Export selected" is on screen');
        assert.ok(layout.listOverflow <= 0, `the exchange list scrolls sideways by ${layout.listOverflow} px`);
        for (const [i, r] of layout.rows.entries()) {
          assert.deepEqual({ number: r.number, endpoint: r.endpoint, verdict: r.verdict, findings: r.findings }, { number: true, endpoint: true, verdict: true, findings: true }, `row ${i + 1}`);
        }
        const chats = layout.rows.filter((r) => r.endpointText.includes('/agent/chat'));
        assert.equal(chats.length, 3);
        assert.equal(new Set(chats.map((r) => r.hint)).size, 3, `rows at one endpoint read differently: ${chats.map((r) => r.hint).join(' | ')}`);
        assert.deepEqual(layout.cramped, []);
        assert.ok(layout.identity.sideways <= 0, `the Identity view scrolls sideways by ${layout.identity.sideways} px`);
        // The input and the identity scenario's run: RUN_STARTED and RUN_FINISHED.
        assert.deepEqual(layout.identity.parents, [true, true, true], 'every parentRunId cell in view');
        assert.ok(layout.conversation.sideways <= 0, `State & messages scrolls sideways by ${layout.conversation.sideways} px`);
        assert.deepEqual(layout.conversation.rows, [true, true, true, true], "the snapshot step's conv-diff rows, each in view");
      });
    }
  });
}
