/** Shared by the recording e2e tests: the panel page opened as a tab, read view by view, and its downloads. */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import type { ExchangeReport } from '../../src/analyzer/types.ts';
import type { RedactionGroup } from '../../src/recording/export.ts';
import { until, type ChromiumBrowser } from './browsers.ts';
import { inPage } from './in-page.ts';

export interface FindingKey {
  rule: string;
  severity: string;
  event: string;
  path: string;
}

/** Everything one exchange shows across the views, as the hooks expose it. */
export interface ExchangeRead {
  row: { verdict: string; status: string; transport: string };
  fields: string[];
  negotiation: { verdict: string; consumer: string; producer: string } | null;
  runs: string[];
  stripped: string[];
  identity: { role: string; run: string; mismatch: boolean; bad: string[] }[];
  findings: FindingKey[];
  events: string;
  states: string[];
  conversation: string[];
}

const order = (a: FindingKey, b: FindingKey): number => JSON.stringify(a).localeCompare(JSON.stringify(b));

/** A report's findings as the panel's hooks show them (input findings first), in a fixed order. */
export function findingKeys(r: Pick<ExchangeReport, 'input' | 'findings'>): FindingKey[] {
  return [...r.input.findings, ...r.findings]
    .map((f) => ({ rule: f.rule, severity: f.severity, event: f.event === null ? '' : String(f.event), path: f.path ?? '' }))
    .sort(order);
}

export async function openPanel(b: ChromiumBrowser, query = ''): Promise<Page> {
  const page = await b.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${b.base}panel/index.html${query}`);
  await inPage(page);
  await page.waitForSelector('[data-testid=import-drop]');
  return page;
}

/** Waits until the panel lists `count` exchanges, none pending or unanalysed. */
export function settledRows(page: Page, count: number): Promise<boolean> {
  return until(`${count} settled exchanges`, () =>
    page.evaluate((n) => {
      const rows = [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')];
      return rows.length === n && rows.every((r) => r.dataset.verdict !== 'pending' && r.dataset.verdict !== 'unanalysed');
    }, count), 30_000);
}

/** Selects each exchange in turn and reads every view of it. */
export function readPanel(page: Page): Promise<ExchangeRead[]> {
  return page.evaluate(async () => {
    const all = (sel: string): HTMLElement[] => [...document.querySelectorAll<HTMLElement>(sel)];
    const show = async (view: string): Promise<void> => {
      document.querySelector<HTMLElement>(`[data-testid=tab-${view}]`)!.click();
      await e2e.settle();
    };
    const out: ExchangeRead[] = [];
    const rows = all('[data-testid=exchange-row]');
    for (const row of rows) {
      row.click();
      await e2e.settle();
      const r = { row: { verdict: row.dataset.verdict!, status: row.dataset.status!, transport: row.dataset.transport! } } as ExchangeRead;
      await show('input');
      r.fields = all('[data-testid=input-field]').map((f) => `${f.dataset.field}:${f.dataset.status}`);
      await show('negotiation');
      const n = document.querySelector<HTMLElement>('[data-testid=negotiation]');
      r.negotiation = n ? { verdict: n.dataset.verdict!, consumer: n.dataset.consumer!, producer: n.dataset.producer! } : null;
      r.runs = all('[data-testid=negotiation-run]').map((e) => e.dataset.verdict!);
      await show('stripped');
      r.stripped = all('[data-testid=stripped-member]').map((s) => `${s.dataset.at}${s.dataset.path}`);
      await show('identity');
      r.identity = all('[data-testid=identity-row]').map((e) => ({
        role: e.dataset.role!, run: e.dataset.run!, mismatch: e.dataset.mismatch === 'true',
        bad: [...e.querySelectorAll<HTMLElement>('td.bad')].map((c) => c.dataset.key!),
      }));
      await show('timeline');
      r.events = document.querySelector('[data-testid=timeline-count]')?.textContent ?? '';
      await show('findings');
      r.findings = all('[data-testid=finding]')
        .map((f) => ({ rule: f.dataset.rule!, severity: f.dataset.severity!, event: f.dataset.event!, path: f.dataset.path! }))
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
      await show('state');
      r.states = all('[data-testid=state-step]').map((s) => `${s.dataset.event}:${s.dataset.failed}`);
      r.conversation = all('[data-testid=conv-message]').map((m) => `${m.dataset.role}:${m.dataset.id}`);
      out.push(r);
    }
    return out;
  });
}

export interface Download {
  name: string;
  path: string;
  text: string;
}

/** Ticks exactly `groups`, presses an export button and returns the file it downloads. */
export async function exportFrom(page: Page, button: 'export-button' | 'export-selected', groups: readonly RedactionGroup[] = []): Promise<Download> {
  await page.evaluate(async (wanted) => {
    for (const box of document.querySelectorAll<HTMLInputElement>('[data-testid=redact-group]')) {
      if (box.checked !== wanted.includes(box.dataset.group!)) box.click();
    }
    // The export reads the choice as rendered.
    await e2e.frame();
  }, groups as readonly string[]);
  const [download] = await Promise.all([
    page.waitForEvent('download', { timeout: 60_000 }),
    page.evaluate((hook) => {
      const b = document.querySelector<HTMLButtonElement>(`[data-testid=${hook}]`)!;
      if (b.disabled) throw new Error(`${hook} is disabled`);
      b.click();
    }, button),
  ]);
  const path = await download.path();
  return { name: download.suggestedFilename(), path, text: readFileSync(path, 'utf8') };
}

/** Imports a file through the picker and waits for the analysis to finish. */
export async function importThroughPicker(page: Page, path: string): Promise<void> {
  await page.setInputFiles('[data-testid=import-input]', path);
  await until('the import to finish', () =>
    page.evaluate(() => {
      const s = document.querySelector<HTMLElement>('[data-testid=status]')?.dataset.status;
      if (s === 'failed') throw new Error(document.querySelector('[data-testid=exchanges]')?.textContent ?? 'import failed');
      return s === 'file';
    }), 120_000);
}
