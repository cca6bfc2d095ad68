/**
 * The panel inside the REAL DevTools window: headless Chromium with the built extension, the demo page
 * running the official @ag-ui/client, DevTools opened on it over CDP and the AG-UI panel shown. Each test
 * drives the page, then reads the panel's views through their documented test hooks (panel/README.md).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import { defectiveInput } from '../../demo/record.ts';
import { openInspectorPanel, type TargetSession } from '../../scripts/devtools.ts';
import { buildExtension, launchChromium, sleep, until, type ChromiumBrowser } from './browsers.ts';
import { inPage } from './in-page.ts';

/** What a test reads from the panel, collected in one evaluation. */
interface PanelRead {
  rows: { verdict: string; status: string; transport: string }[];
  verdict: { verdict: string; text: string } | null;
  fields: { field: string; status: string; present: string; text: string }[];
  negotiation: { verdict: string; consumer: string; producer: string } | null;
  stripped: { path: string; at: string; text: string }[];
  identity: { role: string; mismatch: boolean; bad: string[] }[];
  findings: { rule: string; category: string; severity: string }[];
  timeline: { index: string; type: string }[];
  conversation: { role: string; text: string }[];
  states: { failed: string }[];
  resume: { entries: { interrupt: string; known: string }[]; uncovered: string[] };
  messages: { role: string; text: string }[];
  text: string;
}

describe('panel in the real DevTools window (Chromium)', () => {
  let agent: DemoAgent;
  let b: ChromiumBrowser;
  let page: Page;
  let panel: TargetSession;
  let runs = 0;

  const run = async (scenario: string, opts: Record<string, unknown> = {}): Promise<void> => {
    const n = runs++;
    const result = await page.evaluate(
      ([s, o]) => window.demo.run(s, o),
      [scenario, { threadId: `thread-${scenario}-${n}`, runId: `run-${scenario}-${n}`, delay: 2, ...opts }] as const,
    );
    assert.ok(result.events.length > 0, `${scenario}: the page received events (${result.error ?? ''})`);
  };

  /** Waits until the panel lists `count` exchanges, none pending, then selects the last. */
  const settle = async (count: number): Promise<void> => {
    await until(`${count} settled exchanges in the panel`, () =>
      panel.eval((n) => {
        const rows = [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')];
        return rows.length === n && rows.every((r) => r.dataset.verdict !== 'pending' && r.dataset.verdict !== 'unanalysed');
      }, count),
    );
    await panel.eval(() => [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')].at(-1)!.click());
  };

  /** Shows each view in turn and reads its hooks. */
  const read = (): Promise<PanelRead> =>
    panel.eval(async () => {
      const all = (sel: string): HTMLElement[] => [...document.querySelectorAll<HTMLElement>(sel)];
      const show = async (view: string): Promise<void> => {
        document.querySelector<HTMLElement>(`[data-testid=tab-${view}]`)!.click();
        await e2e.settle();
      };
      const out = { text: '' } as PanelRead;
      out.rows = all('[data-testid=exchange-row]').map((r) => ({ verdict: r.dataset.verdict!, status: r.dataset.status!, transport: r.dataset.transport! }));
      await show('input');
      const v = document.querySelector<HTMLElement>('[data-testid=input-verdict]');
      out.verdict = v ? { verdict: v.dataset.verdict!, text: v.textContent ?? '' } : null;
      out.fields = all('[data-testid=input-field]').map((f) => ({ field: f.dataset.field!, status: f.dataset.status!, present: f.dataset.present!, text: f.textContent ?? '' }));
      out.messages = all('[data-testid=input-message]').map((m) => ({ role: m.dataset.role!, text: m.textContent ?? '' }));
      out.resume = {
        entries: all('[data-testid=resume-entry]').map((e) => ({ interrupt: e.dataset.interrupt!, known: e.dataset.known! })),
        uncovered: all('[data-testid=uncovered-interrupt]').map((e) => e.dataset.interrupt!),
      };
      out.text += document.getElementById('view')!.textContent;
      await show('negotiation');
      const n = document.querySelector<HTMLElement>('[data-testid=negotiation]');
      out.negotiation = n ? { verdict: n.dataset.verdict!, consumer: n.dataset.consumer!, producer: n.dataset.producer! } : null;
      await show('stripped');
      out.stripped = all('[data-testid=stripped-member]').map((s) => ({ path: s.dataset.path!, at: s.dataset.at!, text: s.textContent ?? '' }));
      await show('identity');
      out.identity = all('[data-testid=identity-row]').map((r) => ({
        role: r.dataset.role!,
        mismatch: r.dataset.mismatch === 'true',
        bad: [...r.querySelectorAll<HTMLElement>('td.bad')].map((c) => c.dataset.key!),
      }));
      await show('timeline');
      out.timeline = all('[data-testid=timeline-row]').map((r) => ({ index: r.dataset.index!, type: r.dataset.type! }));
      await show('findings');
      out.findings = all('[data-testid=finding]').map((f) => ({ rule: f.dataset.rule!, category: f.dataset.category!, severity: f.dataset.severity! }));
      await show('state');
      out.conversation = all('[data-testid=conv-message]').map((m) => ({ role: m.dataset.role!, text: m.textContent ?? '' }));
      out.states = all('[data-testid=state-step]').map((s) => ({ failed: s.dataset.failed! }));
      return out;
    });

  before(async () => {
    const extDir = await buildExtension('chrome');
    agent = await startDemoAgent({ port: 0, delayMs: 2 });
    b = await launchChromium({ extDir });
    page = await b.newPage();
    await page.goto(`${agent.url}/`);
    await page.waitForFunction(() => typeof window.demo?.run === 'function');
    // Captured before DevTools opens: the panel must still show it.
    await run('chat');
    ({ panel } = await openInspectorPanel(b.context, agent.url, b.extensionId));
    await inPage(panel);
    await until('the panel rendered', () => panel.eval(() => document.querySelector('[data-testid=exchanges]') !== null));
  });

  after(async () => {
    await b?.close();
    await agent?.close();
  });

  test('a panel opened late shows the clean run captured before it opened', async () => {
    await settle(1);
    const r = await read();
    assert.deepEqual(r.rows, [{ verdict: 'completed', status: '200', transport: 'SSE' }]);
    assert.equal(await panel.eval(() => document.documentElement.dataset.theme), 'light', "DevTools' default theme");
    assert.deepEqual(r.fields.map((f) => f.field), ['threadId', 'runId', 'parentRunId', 'protocolVersion', 'messages', 'tools', 'context', 'state', 'forwardedProps', 'resume']);
    assert.deepEqual(r.verdict, { verdict: 'valid', text: 'Judged as a 1.0 producer receiving it: valid — a producer can run it (declares "1.0").' });
    assert.ok(r.fields.every((f) => f.status === 'fine'), JSON.stringify(r.fields.filter((f) => f.status !== 'fine')));
    const parent = r.fields.find((f) => f.field === 'parentRunId')!;
    assert.equal(parent.present, 'false');
    assert.match(parent.text, /absent — this run was not spawned/);
    assert.match(r.fields.find((f) => f.field === 'resume')!.text, /absent — this run continues no interrupt/);
    assert.deepEqual(r.negotiation, { verdict: 'same', consumer: '1.0', producer: '1.0' });
    assert.deepEqual(r.stripped, []);
    assert.deepEqual(r.identity.map((i) => [i.role, i.mismatch]), [['input', false], ['started', false], ['finished', false]]);
    assert.deepEqual(r.findings, []);
    assert.equal(r.timeline[0]?.type, 'RUN_STARTED');
    assert.ok(r.timeline.some((t) => t.type === 'TEXT_MESSAGE_CONTENT'));
    assert.deepEqual(r.conversation.map((m) => m.role), ['user', 'assistant']);
    assert.match(r.conversation[1]!.text, /I'm the AG-UI demo agent/);
  });

  test('an identity mismatch: RUN_FINISHED names another runId', async () => {
    await run('misbehave-identity');
    await settle(2);
    const r = await read();
    assert.equal(r.rows.at(-1)!.verdict, 'failed');
    const finished = r.identity.find((i) => i.role === 'finished')!;
    assert.deepEqual(finished, { role: 'finished', mismatch: true, bad: ['runId'] });
    assert.equal(r.identity.find((i) => i.role === 'started')!.mismatch, false);
    assert.ok(r.findings.some((f) => f.rule === 'identity/run-id-mismatch' && f.category === 'identity' && f.severity === 'error'));
    const jumped = await panel.eval(async () => {
      document.querySelector<HTMLElement>('[data-testid=tab-findings]')!.click();
      await e2e.frame();
      const finding = document.querySelector<HTMLElement>('[data-testid=finding][data-rule="identity/run-id-mismatch"]')!;
      finding.querySelector('button')!.click();
      await e2e.frame();
      return { event: finding.dataset.event, view: document.getElementById('view')!.dataset.view, shown: document.querySelector<HTMLElement>('[data-testid=event-detail]')?.dataset.index };
    });
    assert.equal(jumped.view, 'timeline', 'a finding about an event opens the timeline');
    assert.equal(jumped.shown, jumped.event);
  });

  test('a producer declaring a newer version', async () => {
    await run('misbehave-version');
    await settle(3);
    const r = await read();
    assert.equal(r.rows.at(-1)!.verdict, 'completed');
    assert.deepEqual(r.negotiation, { verdict: 'producer-newer', consumer: '1.0', producer: '1.9' });
    assert.ok(r.findings.some((f) => f.rule === 'version/producer-newer' && f.severity === 'warning'));
  });

  test('an input carrying unknown members and an activity message', async () => {
    const input = defectiveInput;
    await page.evaluate(async (body) => {
      const res = await fetch('/agent/chat?delay=2', { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' }, body: JSON.stringify(body) });
      await res.text();
    }, input);
    await settle(4);
    const r = await read();
    const field = (name: string) => r.fields.find((f) => f.field === name)!;
    // Nothing in it is fatal to a producer, yet the sender broke its own obligations: both are said.
    assert.equal(r.verdict?.verdict, 'valid');
    assert.match(r.verdict!.text, /a producer can run it .*; 1 error and 2 warnings below\.$/);
    assert.equal(field('messages').status, 'error');
    assert.equal(field('tools').status, 'fine');
    assert.match(field('tools').text, /empty — no tools/);
    assert.deepEqual(r.messages.map((m) => m.role), ['user', 'activity', 'user']);
    assert.match(r.messages[2]!.text, /file handle file-abc123 from openai/);
    assert.match(field('forwardedProps').text, /"session": null/);
    assert.deepEqual(r.stripped.map((s) => [s.at, s.path]).sort(), [['input', '/clientHint'], ['input', '/messages/0/mood']]);
    assert.match(r.stripped.find((s) => s.path === '/clientHint')!.text, /"beta"/);
    assert.ok(r.findings.some((f) => f.rule === 'input/activity-message-sent' && f.category === 'input' && f.severity === 'error'));
  });

  test('an interrupt answered by an incomplete resume', async () => {
    await run('interrupt', { threadId: 'thread-interrupt' });
    await run('interrupt', { resume: 'partial', threadId: undefined, runId: 'run-resume-partial' });
    await settle(6);
    const r = await read();
    assert.equal(r.fields.find((f) => f.field === 'resume')!.status, 'error');
    assert.deepEqual(r.resume.entries, [{ interrupt: 'approve-send', known: 'true' }]);
    assert.deepEqual(r.resume.uncovered, ['choose-format']);
    assert.ok(r.findings.some((f) => f.rule === 'interrupt/resume-uncovered' && f.severity === 'error'));
    const jumped = await panel.eval(async () => {
      document.querySelector<HTMLElement>('[data-testid=tab-findings]')!.click();
      await e2e.frame();
      document.querySelector<HTMLElement>('[data-testid=finding][data-rule="interrupt/resume-uncovered"] button')!.click();
      await e2e.frame();
      return { view: document.getElementById('view')!.dataset.view, focused: (document.activeElement as HTMLElement | null)?.dataset.field };
    });
    assert.deepEqual(jumped, { view: 'input', focused: 'resume' }, 'a finding about the input focuses its field');
  });

  test('keyboard: digits switch views, arrows move through exchanges', async () => {
    const state = await panel.eval(async () => {
      const key = (k: string, target: EventTarget = document.body): void => void target.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true }));
      key('6');
      await e2e.settle();
      const view = document.getElementById('view')!.dataset.view;
      const list = document.querySelector<HTMLElement>('[data-testid=exchanges]')!;
      list.focus();
      key('ArrowUp', list);
      await e2e.settle();
      const selected = [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')].findIndex((r) => r.getAttribute('aria-selected') === 'true');
      const unnamed = [...document.querySelectorAll<HTMLElement>('button, input, select, [role=listbox], [role=tab]')].filter((e) => {
        const label = e.getAttribute('aria-label') ?? e.textContent?.trim() ?? '';
        return label === '' && !e.closest('label');
      });
      return { view, selected, unnamed: unnamed.map((e) => e.outerHTML.slice(0, 80)) };
    });
    assert.equal(state.view, 'timeline');
    assert.equal(state.selected, 4);
    assert.deepEqual(state.unnamed, []);
  });

  test('record/pause, preserve across reloads, clear', async () => {
    const rows = (): Promise<number> => panel.eval(() => document.querySelectorAll('[data-testid=exchange-row]').length);
    const tabId = await b.tabIdOf(page.url());
    const held = async (n: number): Promise<void> => {
      await until(`${n} exchanges in the worker`, async () => (await b.request({ type: 'agui-inspector/session', tabId }))?.exchanges.filter((x) => x.outcome !== 'pending').length === n);
    };
    await panel.eval(() => document.querySelector<HTMLElement>('[data-testid=record]')!.click());
    await until('paused in the worker', async () => (await b.request({ type: 'agui-inspector/sessions' })).find((s) => s.tabId === tabId)?.recording === false);
    await run('chat');
    await sleep(500);
    await held(6);
    assert.equal(await rows(), 6, 'an exchange that began while paused is neither captured nor shown');
    const dropped = (await b.request({ type: 'agui-inspector/session', tabId }))!.stats.dropped;
    assert.equal(dropped.rejected + dropped.exchanges, 0, 'not capturing while paused is no drop');
    await panel.eval(() => document.querySelector<HTMLElement>('[data-testid=record]')!.click());
    await until('recording in the worker', async () => (await b.request({ type: 'agui-inspector/sessions' })).find((s) => s.tabId === tabId)?.recording === true);

    await panel.eval(() => document.querySelector<HTMLElement>('[data-testid=preserve]')!.click());
    await until('preserve on in the worker', async () => (await b.request({ type: 'agui-inspector/sessions' })).find((s) => s.tabId === tabId)?.preserve);
    await page.reload();
    await page.waitForFunction(() => typeof window.demo?.run === 'function');
    await run('chat');
    await held(7);
    await until('the exchange after the reload', async () => (await rows()) === 7);

    await panel.eval(() => document.querySelector<HTMLElement>('[data-testid=clear]')!.click());
    await until('an empty list', async () => (await rows()) === 0);
    assert.deepEqual((await b.request({ type: 'agui-inspector/session', tabId }))?.exchanges, []);
    await panel.eval(() => document.querySelector<HTMLElement>('[data-testid=preserve]')!.click());
  });

});
