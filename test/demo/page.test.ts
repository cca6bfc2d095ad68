import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AGUI_MEDIA_TYPE } from '@ag-ui/proto';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import { buildDemoPage, demoPageOutDir } from '../../demo/build.ts';
import type { DemoRunOptions } from '../../demo/page/main.ts';
import { RunEnd } from '../../src/exchange/run-end.ts';
import { findScenario, scenarioInfo } from '../../demo/scenarios.ts';
import { inputFor, type Json } from './helpers.ts';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let agent: DemoAgent;
before(async () => {
  await buildDemoPage();
  agent = await startDemoAgent({ delayMs: 0 });
});
after(() => agent.close());

test('the build writes index.html and its bundled script', () => {
  assert.ok(existsSync(join(demoPageOutDir, 'index.html')));
  const assets = readdirSync(join(demoPageOutDir, 'assets'));
  assert.ok(assets.some((f) => f.endsWith('.js')));
});

test('GET / serves the built page and its assets', async () => {
  const res = await fetch(`${agent.url}/`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  const html = await res.text();
  assert.equal(html, readFileSync(join(demoPageOutDir, 'index.html'), 'utf8'));
  const script = /<script type="module"[^>]*src="([^"]+)"/.exec(html)?.[1];
  assert.ok(script, 'the page loads a bundled module script');
  const js = await fetch(new URL(script, agent.url));
  assert.equal(js.status, 200);
  assert.match(js.headers.get('content-type') ?? '', /^text\/javascript/);
  assert.equal((await fetch(`${agent.url}/assets/../../package.json`)).status, 404);
  assert.equal((await fetch(`${agent.url}/nope.html`)).status, 404);
});

describe('the page in Chromium', { skip: existsSync(chromiumPath) ? false : `no Chromium at ${chromiumPath}` }, () => {
  let browser: Browser;
  let page: Page;
  const contentTypes: string[] = [];
  /** What the console showed as an error while the page opened: a newcomer's first look at `npm start`. */
  const errors: string[] = [];

  before(async () => {
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
    page = await browser.newPage();
    page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
    page.on('pageerror', (e) => void errors.push(e.message));
    page.on('response', (res) => {
      if (res.url().includes('/agent/')) contentTypes.push(res.headers()['content-type'] ?? '');
    });
    await page.goto(`${agent.url}/`);
    await page.waitForFunction(() => window.demo !== undefined);
  });
  after(() => browser?.close());

  /** window.demo.run; its events are AG-UI events, typed here as JSON to read their fields. */
  function run(scenario: string, opts: DemoRunOptions = {}): Promise<{ events: Json[]; error?: string }> {
    return page.evaluate(([s, o]) => window.demo.run(s, o), [scenario, { delay: 0, ...opts }] as const) as Promise<{ events: Json[]; error?: string }>;
  }

  test('nothing is red in the console when the page opens (the favicon request was a 404)', async () => {
    await page.waitForTimeout(500);
    assert.deepEqual(errors, []);
  });

  test('one accessible button per scenario', async () => {
    for (const s of scenarioInfo()) assert.equal(await page.getByRole('button', { name: s.name, exact: true }).count(), 1, s.name);
    assert.deepEqual(await page.evaluate(() => window.demo.scenarios.map((s) => s.name)), scenarioInfo().map((s) => s.name));
  });

  test('clicking a scenario logs its events', async () => {
    await page.getByRole('button', { name: 'chat', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'chat: finished' }).waitFor();
    assert.ok((await page.locator('#event-log li').allTextContents()).some((line) => line.startsWith('RUN_FINISHED')));
  });

  test('run() returns the events HttpAgent delivered, the same over SSE and protobuf', async () => {
    const ids = { threadId: 'thread-page', runId: 'run-page' };
    contentTypes.length = 0;
    const sse = await run('chat', { ...ids, transport: 'sse' });
    const protobuf = await run('chat', { ...ids, transport: 'protobuf' });
    assert.equal(sse.error, undefined);
    assert.equal(sse.events[0]?.type, 'RUN_STARTED');
    assert.equal(sse.events[0]?.runId, 'run-page');
    assert.equal(sse.events.at(-1)?.type, 'RUN_FINISHED');
    assert.deepEqual(protobuf, sse);
    assert.deepEqual(contentTypes, ['text/event-stream', AGUI_MEDIA_TYPE]);
  });

  test('over the WebSocket the AbstractAgent delivers the same events, and a close mid-run is an error after the events before it', async () => {
    const ids = { threadId: 'thread-socket', runId: 'run-socket' };
    const sse = await run('chat', { ...ids, transport: 'sse' });
    assert.deepEqual(await run('chat', { ...ids, transport: 'websocket' }), sse);
    const cut = await run('chat', { ...ids, transport: 'websocket', closeAfter: 3 });
    assert.equal(cut.error, 'the socket closed before the run ended (1011 demo agent: closed mid-run after 3 events (?close=3))');
    assert.deepEqual(cut.events, sse.events.slice(0, 3));
  });

  test('the WebSocket transport and its close toggle, picked on the page', async () => {
    await page.getByLabel('WebSocket').check();
    await page.getByLabel('close the socket mid-run').check();
    try {
      await page.getByRole('button', { name: 'chat', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'chat: failed after 3 events: the socket closed before the run ended (1011' }).waitFor();
      await page.getByLabel('close the socket mid-run').uncheck();
      await page.getByRole('button', { name: 'chat', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'chat: finished' }).waitFor();
      assert.ok((await page.locator('#event-log li.run').allTextContents()).includes('chat over websocket (closed after 3 events)'));
    } finally {
      await page.getByLabel('SSE').check();
    }
  });

  test('every scenario runs over the WebSocket, failing where its stream ends before the requested run does', async () => {
    for (const s of scenarioInfo()) {
      const ids = { threadId: `thread-ws-${s.name}`, runId: `run-ws-${s.name}` };
      const end = new RunEnd(ids.runId);
      const endsItsRun = findScenario(s.name)!.events(inputFor(ids)).some((e) => end.endedBy(e));
      const result = await run(s.name, { ...ids, transport: 'websocket' });
      assert.ok(result.events.length > 0, s.name);
      if (s.name === 'misbehave-malformed') assert.match(result.error ?? '', /delta/);
      else if (!endsItsRun) assert.match(result.error ?? '', /^the socket closed before the run ended \(1000 /, s.name);
      else assert.equal(result.error, undefined, s.name);
    }
  });

  test('interrupt, then a partial resume re-interrupts, then a full resume finishes', async () => {
    assert.match((await run('interrupt', { resume: 'all' })).error ?? '', /no pending interrupts/);
    const first = await run('interrupt');
    assert.equal((first.events.at(-1)?.outcome as { interrupts: unknown[] }).interrupts.length, 2);
    assert.equal(await page.getByRole('button', { name: 'Resume: answer all' }).isEnabled(), true);

    const partial = await run('interrupt', { resume: 'partial' });
    assert.equal(partial.error, undefined);
    const reopened = partial.events.at(-1)?.outcome as { type: string; interrupts: { id: string }[] };
    assert.deepEqual(reopened.interrupts.map((i) => i.id), ['choose-format']);

    const full = await run('interrupt', { resume: 'all' });
    assert.equal(full.error, undefined);
    assert.equal(full.events.at(-1)?.outcome, undefined);
    assert.equal(await page.getByRole('button', { name: 'Resume: answer all' }).isDisabled(), true);
  });

  test('a failing run reports its error next to the events received before it', async () => {
    const result = await run('misbehave-malformed');
    assert.match(result.error ?? '', /delta/);
    assert.equal(result.events[0]?.type, 'RUN_STARTED');
  });

  test('every scenario runs from the page', async () => {
    for (const s of scenarioInfo()) {
      const result = await run(s.name);
      assert.ok(result.events.length > 0, s.name);
      assert.equal(result.error === undefined, s.name !== 'misbehave-malformed', `${s.name}: ${result.error}`);
    }
  });
});
