/** Shared by the demo-driven capture tests: run a scenario, wait for the worker, compare bytes. */
import assert from 'node:assert/strict';
import type { Page as PlaywrightPage } from 'playwright-core';
import type { Page as PuppeteerPage } from 'puppeteer-core';
import type { DemoRunResult } from '../../demo/page/main.ts';
import { bodyOf, type CapturedExchange } from '../../src/exchange/exchange.ts';
import { readHar } from '../../src/formats/har.ts';
import { startDemoAgent } from '../../demo/agent.ts';
import { openInspectorPanel, type TargetSession } from '../../scripts/devtools.ts';
import { buildExtension, launchChromium, poll, sleep, type ChromiumBrowser, type ExtensionBrowser } from './browsers.ts';
import type { Recorded } from './recorder.ts';

/** Runs a demo scenario in the page with fixed ids, so two runs send byte-identical requests. */
export async function runScenario(page: PlaywrightPage | PuppeteerPage, scenario: string, transport: 'sse' | 'protobuf', n: number): Promise<DemoRunResult> {
  // Both drivers serialise the function and its one argument the same way.
  return (page as PlaywrightPage).evaluate(
    ([s, t, i]) => window.demo.run(s, { transport: t, threadId: `thread-${s}-${i}`, runId: `run-${s}-${t}-${i}`, delay: 5 }),
    [scenario, transport, n] as const,
  );
}

/** Opens the demo page at `agentUrl` in a new tab of either browser and has it run the chat scenario once, over SSE. */
export async function chatOnDemoPage(b: ExtensionBrowser & { newPage(): Promise<unknown> }, agentUrl: string): Promise<{ url: string; tabId: number; seen: DemoRunResult }> {
  // Both drivers' pages navigate and evaluate alike.
  const page = (await b.newPage()) as PlaywrightPage;
  const url = `${agentUrl}/`;
  await page.goto(url);
  await poll(page, () => typeof window.demo?.run === 'function');
  const seen = await runScenario(page, 'chat', 'sse', 0);
  assert.equal(seen.error, undefined);
  return { url, tabId: await b.tabIdOf(url), seen };
}

/** The HAR the extension exports for one tab, read back with the CLI's reader. */
export async function exported(b: ExtensionBrowser, tabId: number): Promise<CapturedExchange[]> {
  return readHar(JSON.parse(await b.request({ type: 'agui-inspector/export', tabId })) as Record<string, unknown>, 'export');
}

/** Waits until the worker holds an ended exchange for every recorded agent request. */
export async function settled(b: ExtensionBrowser, tabId: number, count: number): Promise<void> {
  const end = Date.now() + 15_000;
  for (;;) {
    const s = await b.request({ type: 'agui-inspector/session', tabId });
    if (s && s.exchanges.length >= count && s.exchanges.every((x) => x.outcome !== 'pending')) return;
    if (Date.now() > end) throw new Error(`capture did not settle: ${JSON.stringify(s?.exchanges.map((x) => [x.url, x.outcome]))}`);
    await sleep(100);
  }
}

export function assertSameBytes(captured: CapturedExchange, recorded: Recorded): void {
  assert.equal(captured.requestBody, recorded.requestBody.toString('utf8'), 'request body');
  assert.equal(captured.status, recorded.status);
  assert.equal(captured.responseContentType, recorded.contentType);
  assert.ok(Buffer.from(bodyOf(captured)).equals(recorded.responseBody), `response bytes of ${recorded.path}`);
}


export interface DemoInDevTools {
  page: PlaywrightPage;
  panel: TargetSession;
  devtools: TargetSession;
  close(): Promise<void>;
}

/** The demo page in Chromium with the built extension, DevTools open on it showing the Inspector's panel. */
export async function demoInDevTools(args: string[] = []): Promise<DemoInDevTools> {
  const agent = await startDemoAgent({ port: 0, delayMs: 0 });
  let b: ChromiumBrowser | undefined;
  const close = async () => {
    await b?.close();
    await agent.close();
  };
  try {
    b = await launchChromium({ extDir: await buildExtension('chrome'), args });
    const page = await b.newPage();
    await page.goto(`${agent.url}/`);
    const { panel, devtools } = await openInspectorPanel(b.context, agent.url, b.extensionId);
    return { page, panel, devtools, close };
  } catch (e) {
    await close();
    throw e;
  }
}
