/**
 * A recording plays back: the demo page's official HttpAgent runs a session against the demo agent with
 * the extension capturing it; the export is served by `agui-inspector replay`; the same page, pointed at
 * the replay server (another origin, so CORS is exercised), receives exactly the recorded events, and
 * the Inspector's analysis of the replayed session equals the recording's. A redacted recording replays
 * too: the same structure, redacted values.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import type { DemoRunResult } from '../../demo/page/main.ts';
import { analyzeExchanges } from '../../src/analyzer/index.ts';
import { startReplay, type ReplayServer } from '../../src/cli/replay.ts';
import type { CapturedExchange } from '../../src/formats/exchange.ts';
import { REDACTION_GROUPS, redactExchanges } from '../../src/recording/redact.ts';
import { buildExtension, launchChromium, type ChromiumBrowser } from './browsers.ts';
import { exported, settled } from './demo-capture.ts';

/** A session: chat and tools over both transports, an interrupt and its resume, and a truncated run. */
const SESSION = [
  { scenario: 'chat', transport: 'sse' },
  { scenario: 'tools', transport: 'protobuf' },
  { scenario: 'state', transport: 'sse' },
  { scenario: 'interrupt', transport: 'protobuf' },
  { scenario: 'interrupt', transport: 'protobuf', resume: 'all' },
  { scenario: 'misbehave-truncated', transport: 'sse' },
] as const;

async function runSession(page: Page, base: string | undefined): Promise<DemoRunResult[]> {
  return page.evaluate(async ([session, to]) => {
    const out = [];
    for (const [i, s] of session.entries()) {
      out.push(await window.demo.run(s.scenario, { transport: s.transport, threadId: `thread-${s.scenario}`, runId: `run-${i}`, delay: 2, ...('resume' in s ? { resume: s.resume } : {}), ...(to ? { base: to } : {}) }));
    }
    return out;
  }, [SESSION, base] as const);
}

/** What the analysis says, without the names the file and its URLs give it. */
function judged(exchanges: CapturedExchange[]): unknown[] {
  return analyzeExchanges(exchanges).map(({ source: _, ...rest }) => rest);
}

describe('agui-inspector replay, driven by the demo page in Chromium', () => {
  let agent: DemoAgent;
  let b: ChromiumBrowser;
  let recording: CapturedExchange[];
  let recordedEvents: DemoRunResult[];
  const servers: ReplayServer[] = [];

  before(async () => {
    agent = await startDemoAgent({ port: 0, delayMs: 0 });
    b = await launchChromium({ extDir: await buildExtension('chrome') });
    const page = await b.newPage();
    const url = `${agent.url}/?recorded`;
    await page.goto(url);
    recordedEvents = await runSession(page, undefined);
    const tabId = await b.tabIdOf(url);
    await settled(b, tabId, SESSION.length);
    recording = await exported(b, tabId);
    await page.close();
  });
  after(async () => {
    for (const s of servers) await s.close();
    await b?.close();
    await agent?.close();
  });

  /** Replays `exchanges` to a fresh tab of the demo page; returns what that tab's page received and captured. */
  async function replayTo(exchanges: CapturedExchange[], name: string): Promise<{ events: DemoRunResult[]; captured: CapturedExchange[] }> {
    const server = await startReplay(exchanges, { speed: 'max' });
    servers.push(server);
    const page = await b.newPage();
    const url = `${agent.url}/?${name}`;
    await page.goto(url);
    const events = await runSession(page, server.url);
    const tabId = await b.tabIdOf(url);
    await settled(b, tabId, SESSION.length);
    const captured = await exported(b, tabId);
    await page.close();
    return { events, captured };
  }

  test('the page receives exactly the recorded events, and the replayed session is judged as the recording was', async () => {
    assert.equal(recording.length, SESSION.length);
    assert.ok(recordedEvents.every((r) => r.events.length > 0));
    const { events, captured } = await replayTo(recording, 'replayed');
    assert.deepEqual(events, recordedEvents);
    assert.equal(captured.length, SESSION.length);
    assert.deepEqual(captured.map((x) => new URL(x.url!).pathname), recording.map((x) => new URL(x.url!).pathname));
    assert.deepEqual(judged(captured), judged(recording));
    // The recording judged something worth reproducing: the truncated run fails.
    assert.equal(analyzeExchanges(captured).at(-1)!.verdict, 'failed');
  });

  test('a redacted recording replays: the same structure, redacted values', async () => {
    const { exchanges: redacted } = redactExchanges(recording, REDACTION_GROUPS);
    const { events, captured } = await replayTo(redacted, 'redacted');
    const shape = (r: DemoRunResult[]) => r.map((x) => ({ types: x.events.map((e) => (e as { type: string }).type), error: x.error !== undefined }));
    assert.deepEqual(shape(events), shape(recordedEvents));
    assert.notDeepEqual(events, recordedEvents, 'the replayed values are the redacted ones');
    const reply = JSON.stringify(recordedEvents[0]!.events.filter((e) => (e as { type: string }).type === 'TEXT_MESSAGE_CONTENT'));
    assert.ok(!JSON.stringify(events).includes(JSON.parse(reply)[0].delta), 'no recorded message text reaches the page');
    assert.deepEqual(judged(captured), judged(redacted));
  });
});
