/**
 * Issue #10: while one tab receives a pathological answer, the worker still answers every extension
 * page promptly — during the live stream and while a restarted worker replays its stored log — and
 * the analysis comes out exactly as it would in one piece.
 *
 * The one timed assertion in the e2e suite, because the issue asks for it as the target: the 95th
 * percentile of the request round trips under 100 ms, requests sent every 10 ms for as long as the
 * worker is analysing (after a restart, from its first answer on: starting is not analysing). The
 * answer is sized so that tens of round trips fall within the work;
 * before the worker analysed in slices, the same test measured a p95 of ~4 s over 11 round trips
 * live, and during the replay a single round trip of ~5 s. A worker that blocks answers rarely, so however few the
 * round trips, their p95 (then their slowest) shows it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ExchangeAnalyzer } from '../../src/analyzer/exchange.ts';
import type { SessionView } from '../../src/messages.ts';
import { percentile } from '../../bench/report.ts';
import { buildExtension, launchChromium, until, type ChromiumBrowser } from './browsers.ts';
import { DELTAS, firstAnswer, heavyBody, readHeavy, startHeavyServer, workerResponseTimes, type HeavyServer } from './heavy-stream.ts';

const P95_MS = 100;

function essence(s: SessionView | null): unknown {
  return s?.exchanges.map((x) => ({ id: x.id, bytes: x.bytes, outcome: x.outcome, events: x.events, report: x.report }));
}

describe('the worker under a pathological stream', () => {
  const { body, events } = heavyBody(DELTAS);
  let server: HeavyServer;
  let b: ChromiumBrowser;
  let page: Page;
  let tabId: number;
  let live: SessionView | null = null;

  before(async () => {
    const extDir = await buildExtension('chrome');
    server = await startHeavyServer(body);
    b = await launchChromium({ extDir });
    page = await b.newPage();
    await page.goto(`${server.url}/`);
    tabId = await b.tabIdOf(page.url());
  });

  after(async () => {
    await b?.close();
    await server?.close();
  });

  function assertPrompt(times: number[], what: string): void {
    const p95 = percentile(times, 95);
    assert.ok(p95 < P95_MS, `${what}: p95 ${p95.toFixed(1)} ms over ${times.length} round trips (p50 ${percentile(times, 50).toFixed(1)} ms)`);
  }

  test('answers promptly while a tab streams it', async () => {
    const probing = workerResponseTimes(b, tabId, events);
    assert.equal(await readHeavy(page), body.length);
    assertPrompt(await probing, 'live');
    await until('the exchange ended', async () => (await b.request({ type: 'agui-inspector/session', tabId }))?.exchanges[0]?.outcome === 'complete');
    live = await b.request({ type: 'agui-inspector/session', tabId });
    const x = live!.exchanges[0]!;
    assert.equal(x.events.length, events);
    // The same bytes analysed in one piece, here, give the same report.
    const whole = new ExchangeAnalyzer({ source: x.url, requestBody: x.request.body ?? undefined, contentType: 'text/event-stream', status: 200, sentAt: x.startedAt });
    whole.push(body, 0);
    whole.end(0);
    const report = whole.report();
    assert.deepEqual({ findings: x.report?.findings, verdict: x.report?.verdict }, { findings: report.findings, verdict: report.verdict });
  });

  test('answers promptly while a restarted worker replays the stored log', async () => {
    assert.ok(live, 'the live test ran');
    await until('everything stored', async () => (await b.request({ type: 'agui-inspector/sessions' })).find((s) => s.tabId === tabId)?.stats.unsaved.messages === 0);
    await b.stopWorker();
    await firstAnswer(b);
    assertPrompt(await workerResponseTimes(b, tabId, events), 'replay');
    assert.deepEqual(essence(await b.request({ type: 'agui-inspector/session', tabId })), essence(live));
  });
});
