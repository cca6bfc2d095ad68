/**
 * A recording plays back: the demo page's official HttpAgent runs a session against the demo agent with
 * the extension capturing it; the export is served by `agui-inspector replay`; the same page, pointed at
 * the replay server (another origin, so CORS is exercised), receives exactly the recorded events, and
 * the Inspector's analysis of the replayed session equals the recording's. A redacted recording replays
 * too: the same structure, redacted values. A website the user has open reads none of it, by the replay's
 * address or by its own name made to resolve to this machine (DNS rebinding).
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import type { DemoRunResult } from '../../demo/page/main.ts';
import { analyzeExchanges } from '../../src/analyzer/index.ts';
import { startReplay, type ReplayServer } from '../../src/cli/replay.ts';
import type { CapturedExchange } from '../../src/exchange/exchange.ts';
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

/** A website's name, resolved by this browser to 127.0.0.1 as an attacker's DNS would. */
const WEBSITE = 'website.inspector.test';

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
    b = await launchChromium({ extDir: await buildExtension('chrome'), args: [`--host-resolver-rules=MAP ${WEBSITE} 127.0.0.1`] });
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

  test('a website the user has open reads nothing of the replay, by its address or by its own name (DNS rebinding), and uses nothing up', async () => {
    const lines: string[] = [];
    const log = (l: string) => lines.push(l);
    const first = recording[0]!;
    const path = new URL(first.url!).pathname;
    const leaks = (text: string) => [path, first.source, JSON.parse(first.requestBody!).threadId].filter((s: string) => text.includes(s));

    // A website's page sends what a page may without asking: a text/plain POST, a no-cors POST, and a JSON one that needs a preflight.
    const server = await startReplay(recording, { speed: 'max', log });
    servers.push(server);
    const page = await b.newPage();
    await page.goto(`http://${WEBSITE}:${new URL(agent.url).port}/`);
    const tries = await page.evaluate(async ([url, body]) => {
      const out: { read?: string; opaque?: boolean; failed?: string }[] = [];
      const inits: RequestInit[] = [
        { method: 'POST', body },
        { method: 'POST', body, mode: 'no-cors' },
        { method: 'POST', body, headers: { 'content-type': 'application/json' } },
      ];
      for (const init of inits) {
        try {
          const res = await fetch(url, init);
          out.push(res.type === 'opaque' ? { opaque: true } : { read: await res.text() });
        } catch (e) {
          out.push({ failed: String(e) });
        }
      }
      return out;
    }, [server.url + path, first.requestBody!] as const);
    assert.deepEqual(tries.map((t) => (t.failed ? 'failed' : t.opaque ? 'opaque' : `read ${t.read}`)), ['failed', 'opaque', 'failed']);
    const origin = `http://${WEBSITE}:${new URL(agent.url).port}`;
    assert.deepEqual(lines, [`POST ${path} from ${origin} → 403: not a loopback origin (--allow-origin ${origin} lets its pages read the replay)`, `POST ${path} from ${origin} → 403: not a loopback origin (--allow-origin ${origin} lets its pages read the replay)`, `OPTIONS ${path} from ${origin} → 403: not a loopback origin (--allow-origin ${origin} lets its pages read the replay)`]);

    // Rebinding: the website's page is served from its own server, then its name leads to the replay at the same
    // port, so the page's same-origin requests reach the replay. Here the server at that port is swapped instead of the DNS answer.
    const website = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>a website</title>'));
    await new Promise<void>((resolve) => website.listen(0, '127.0.0.1', resolve));
    const port = (website.address() as AddressInfo).port;
    await page.goto(`http://${WEBSITE}:${port}/`);
    website.closeAllConnections();
    await new Promise((resolve) => website.close(resolve));
    const rebound = await startReplay(recording, { port, speed: 'max', log });
    servers.push(rebound);
    const same = await page.evaluate(async ([p, body]) => {
      const res = await fetch(p, { method: 'POST', body });
      return { status: res.status, text: await res.text() };
    }, [path, first.requestBody!] as const);
    assert.equal(same.status, 421, 'the same-origin request reached the replay, which refused the name');
    assert.deepEqual(leaks(same.text), [], same.text);
    await page.close();

    // Neither replay was used up: the app's own page still gets the first recorded exchange, from both.
    for (const s of [server, rebound]) {
      const app = await b.newPage();
      await app.goto(`${agent.url}/?after-website`);
      const replayed = await app.evaluate(async ([url, body, type]) => {
        const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': type } });
        return { status: res.status, bytes: [...new Uint8Array(await res.arrayBuffer())] };
      }, [s.url + path, first.requestBody!, first.requestContentType ?? 'application/json'] as const);
      await app.close();
      assert.equal(replayed.status, first.status ?? 200);
      assert.deepEqual(replayed.bytes, [...first.chunks.flatMap((c) => [...c.bytes])]);
    }
  });

  test('a recording\'s HTML runs no script on 127.0.0.1, even navigated to by a form on a loopback page', async () => {
    // Script there would read every cookie of 127.0.0.1, which all the user's localhost apps share.
    const html = '<!doctype html><title>recorded</title><script>document.title = "script ran: " + document.cookie</script>';
    const first = recording[0]!;
    const hostile = { ...first, responseContentType: 'text/html; charset=utf-8', chunks: [{ time: 0, bytes: new TextEncoder().encode(html) }] };
    const lines: string[] = [];
    const server = await startReplay([hostile], { speed: 'max', log: (l) => lines.push(l) });
    servers.push(server);
    const page = await b.newPage();
    await page.goto(`${agent.url}/?form`);
    await page.evaluate(() => (document.cookie = 'session=secret'));
    await page.evaluate((action) => {
      const form = Object.assign(document.createElement('form'), { method: 'POST', action, enctype: 'text/plain' });
      form.append(Object.assign(document.createElement('input'), { name: 'x', value: 'y' }));
      document.body.append(form);
      form.submit();
    }, server.url + new URL(first.url!).pathname);
    await new Promise((r) => setTimeout(r, 1_500));
    const titles = await Promise.all(b.context.pages().map((p) => p.title().catch(() => '')));
    assert.deepEqual(titles.filter((t) => t.startsWith('script ran')), [], 'no page ran the recorded script');
    // It was answered, as the opaque bytes it is.
    assert.match(lines.join('\n'), /→ recorded exchange 0 \(HTTP 200\); served as application\/octet-stream, not the recorded "text\/html; charset=utf-8"/);
    await page.close();
  });
});
