/**
 * The README's main command, headless: `npm start` builds the extension, serves the demo, opens Chromium
 * with the Inspector and DevTools on its panel. Then every demo scenario is run from the page and the
 * panel must show exactly the judgement the scenario declares.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { scenarios } from '../../demo/scenarios.ts';
import type { TargetSession } from '../../scripts/devtools.ts';
import { EXTENSION_DIRS, start, type Started } from '../../scripts/start.ts';
import { until } from './browsers.ts';
import { inPage } from './in-page.ts';

interface Judged {
  rows: number;
  verdict: string;
  era: string;
  rules: string[];
  /** 1.0-readiness items of a pre-1.0 exchange. */
  readiness: string[];
}

describe('npm start, headless', () => {
  let started: Started;
  let panel: TargetSession;
  const log: string[] = [];
  let runs = 0;

  before(async () => {
    started = await start({ browser: 'chromium', port: 0, headless: true, log: (l) => log.push(l) });
    panel = started.panel!.panel;
    await inPage(panel);
    await started.page!.waitForFunction(() => typeof window.demo?.run === 'function');
  });
  after(() => started?.close());

  /** Runs a scenario in the page, waits for its exchange in the panel, and reads its verdict and non-info findings. */
  async function runAndRead(scenario: string, opts: Record<string, unknown> = {}): Promise<Judged> {
    const n = ++runs;
    const result = await started.page!.evaluate(([s, o]) => window.demo.run(s, o), [scenario, { delay: 1, threadId: `t-start-${n}`, runId: `r-start-${n}`, ...opts }] as const);
    assert.ok(result.events.length > 0, `${scenario}: the page's agent received events`);
    return until(`${scenario}: a settled exchange #${n} in the panel`, () =>
      panel.eval(async (count) => {
        const rows = [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')];
        const last = rows.at(-1);
        if (rows.length < count || !last || last.dataset.verdict === 'pending' || last.dataset.verdict === 'unanalysed') return null;
        last.click();
        document.querySelector<HTMLElement>('[data-testid=tab-findings]')!.click();
        await e2e.frame();
        const shown = [...document.querySelectorAll<HTMLElement>('[data-testid=finding]')].filter((f) => f.dataset.severity !== 'info');
        const rules = (readiness: boolean) => [...new Set(shown.filter((f) => (f.dataset.readiness === 'true') === readiness).map((f) => f.dataset.rule!))].sort();
        return { rows: rows.length, verdict: last.dataset.verdict!, era: last.dataset.era!, rules: rules(false), readiness: rules(true) };
      }, n), 20_000);
  }

  it('serves the demo, loads the extension, shows the panel, and says what to try', async () => {
    assert.ok(log.some((l) => l.includes('Demo agent serving http://127.0.0.1:')), log.join('\n'));
    assert.ok(log.some((l) => l.includes('DevTools on the AG-UI panel')), log.join('\n'));
    assert.ok(scenarios.every((s) => log.some((l) => l.includes(s.name))), 'every scenario is listed');
    assert.match(started.extensionId!, /^[a-p]{32}$/);
    // The demo is on 127.0.0.1, which the manifest captures without asking; other origins get a button.
    const origin = await until('the origin control', () => panel.eval(() => document.querySelector<HTMLElement>('[data-testid=origin]')?.dataset.state ?? null), 5_000);
    assert.equal(origin, 'built-in');
    const res = await fetch(`${started.agent.url}/`);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /<script/);
  });

  for (const s of scenarios) {
    it(`${s.name}: the panel shows ${s.inspector.verdict}${s.inspector.rules.length ? ` with ${s.inspector.rules.join(', ')}` : ' and no finding'}`, async () => {
      const judged = await runAndRead(s.name);
      assert.equal(judged.verdict, s.inspector.verdict);
      assert.deepEqual(judged.rules, [...s.inspector.rules].sort());
      assert.deepEqual(judged.readiness, [...(s.inspector.readiness ?? [])].sort());
      assert.equal(judged.era, s.client === 'pre-1.0' ? 'pre-1.0' : '1.x');
    });
  }

  it('interrupt: an incomplete resume is failed for the uncovered interrupt, a full one completes', async () => {
    const threadId = 't-start-resume';
    assert.equal((await runAndRead('interrupt', { threadId })).verdict, 'completed');
    const partial = await runAndRead('interrupt', { threadId, resume: 'partial' });
    assert.equal(partial.verdict, 'failed');
    assert.deepEqual(partial.rules, ['interrupt/resume-uncovered']);
    const full = await runAndRead('interrupt', { threadId, resume: 'all' });
    assert.equal(full.verdict, 'completed');
    assert.deepEqual(full.rules, []);
  });
});

describe('npm start without a display', () => {
  it('says so plainly, keeps serving the demo, and points at the built extension', async () => {
    const saved = { DISPLAY: process.env.DISPLAY, WAYLAND_DISPLAY: process.env.WAYLAND_DISPLAY };
    delete process.env.DISPLAY;
    delete process.env.WAYLAND_DISPLAY;
    const log: string[] = [];
    const started = await start({ browser: 'chromium', port: 0, log: (l) => log.push(l) });
    try {
      const text = log.join('\n');
      assert.match(text, /There is no display here/);
      assert.ok(text.includes(EXTENSION_DIRS.chrome) && text.includes(EXTENSION_DIRS.firefox), text);
      assert.equal(started.context, undefined, 'no browser was launched');
      const res = await fetch(`${started.agent.url}/agent/chat?delay=0`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ threadId: 't', runId: 'r', messages: [] }),
      });
      assert.equal(res.status, 200);
      assert.match(await res.text(), /RUN_FINISHED/);
    } finally {
      await started.close();
      Object.assign(process.env, Object.fromEntries(Object.entries(saved).filter(([, v]) => v !== undefined)));
    }
  });
});
