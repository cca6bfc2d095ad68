/**
 * Recordings through the panel, in Chromium with the built extension: a session captured from the
 * official client on the demo page is exported from the panel, checked by the CLI, imported into a panel
 * with no page attached and exported again, to the same file; the worker's message API and the panel's
 * Export menu write the same bytes for the same exchanges and redaction; Chromium's own HAR of the same
 * traffic imports as the same exchanges; redaction chosen in the panel removes planted secrets and keeps
 * the analysis; one exchange copies as a fixture and as a curl command.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type Page } from 'playwright-core';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import { openInspectorPanel } from '../../scripts/devtools.ts';
import { analyzeExchanges } from '../../src/analyzer/index.ts';
import type { ExchangeReport } from '../../src/analyzer/types.ts';
import { run as cli } from '../../src/cli/main.ts';
import { shellQuote } from '../../src/formats/curl.ts';
import { bodyOf, type CapturedExchange } from '../../src/exchange/exchange.ts';
import { readExchanges } from '../../src/formats/read.ts';
import { analysisShape, REDACTION_GROUPS } from '../../src/recording/export.ts';
import { buildExtension, CHROMIUM, CHROMIUM_FLAGS, launchChromium, until, type ChromiumBrowser } from './browsers.ts';
import { exported, settled } from './demo-capture.ts';
import {
  exportFrom, findingKeys, importThroughPicker, openPanel, readPanel, settledRows, type ExchangeRead,
} from './recording-panel.ts';

type Step = [scenario: string, opts: Record<string, unknown>];

/** Fixed ids, so the same steps in another browser send byte-identical requests and get identical answers. */
const STEPS: Step[] = [
  ['chat', { threadId: 'thread-chat', runId: 'run-chat-sse' }],
  ['chat', { transport: 'protobuf', threadId: 'thread-chat-proto', runId: 'run-chat-proto' }],
  ['tools', { threadId: 'thread-tools', runId: 'run-tools' }],
  ['state', { threadId: 'thread-state', runId: 'run-state' }],
  ['interrupt', { threadId: 'thread-interrupt', runId: 'run-interrupt' }],
  ['interrupt', { resume: 'partial', runId: 'run-resume-partial' }],
  ['misbehave-identity', { threadId: 'thread-identity', runId: 'run-identity' }],
  ['misbehave-version', { threadId: 'thread-version', runId: 'run-version' }],
  ['misbehave-malformed', { threadId: 'thread-malformed', runId: 'run-malformed' }],
  ['misbehave-truncated', { transport: 'protobuf', threadId: 'thread-truncated', runId: 'run-truncated' }],
];

async function runSteps(page: Page): Promise<void> {
  await page.waitForFunction(() => typeof window.demo?.run === 'function');
  for (const [scenario, opts] of STEPS) {
    const r = await page.evaluate(([s, o]) => window.demo.run(s, { delay: 1, ...o }), [scenario, opts] as const);
    assert.ok(r.events.length > 0, `${scenario}: the page received events (${r.error ?? ''})`);
  }
}

const utf8 = new TextEncoder();
const readText = (text: string, name: string): CapturedExchange[] => readExchanges(utf8.encode(text), name);

/** What an export holds of the captured traffic: request bodies, and response bytes with their timing. */
function capturedBytes(xs: CapturedExchange[]) {
  return xs.map((x) => ({
    url: x.url, method: x.method, status: x.status, requestBody: x.requestBody, contentType: x.responseContentType,
    chunks: x.chunks.map((c) => ({ time: c.time, bytes: Buffer.from(c.bytes).toString('base64') })),
  }));
}

function cliFindings(file: string): ReturnType<typeof findingKeys>[] {
  let out = '';
  const status = cli(['check', file, '--format', 'json'], { out: (s) => (out += s), err: () => undefined, colour: false });
  assert.ok(status === 0 || status === 1, `the CLI read the export (status ${status})`);
  const doc = JSON.parse(out) as { exchanges: Pick<ExchangeReport, 'input' | 'findings'>[] };
  return doc.exchanges.map(findingKeys);
}

const SECRETS = {
  message: 'SECRET-MSG-7f3a9c',
  assistant: 'SECRET-MSG-assistant-51be',
  toolArgs: 'SECRET-TOOLARG-c0ffee',
  toolResult: 'SECRET-RESULT-d00d',
  state: 'SECRET-STATE-ab12cd',
  context: 'SECRET-STATE-context-9911',
  number: '987654321',
  forwarded: 'SECRET-FWD-e4e4e4',
  query: 'SECRET-QUERY-5e5e',
};
/** Put in a URL's user-info, which is never captured at all. */
const PASSWORD = 'SECRET-PASSWORD-77aa';

describe('recordings through the panel (Chromium)', () => {
  let agent: DemoAgent;
  let b: ChromiumBrowser;
  let page: Page;
  let tabId: number;
  let live: Page;
  let liveRead: ExchangeRead[];
  let first: { name: string; path: string; text: string };
  const dir = mkdtempSync(join(tmpdir(), 'agui-recording-'));

  before(async () => {
    agent = await startDemoAgent({ port: 0, delayMs: 1 });
    b = await launchChromium({ extDir: await buildExtension('chrome') });
    page = await b.newPage();
    await page.goto(`${agent.url}/`);
    await runSteps(page);
    tabId = await b.tabIdOf(page.url());
    await settled(b, tabId, STEPS.length);
    live = await openPanel(b, `?tabId=${tabId}`);
    await settledRows(live, STEPS.length);
    liveRead = await readPanel(live);
  });

  after(async () => {
    await b?.close();
    await agent?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('round trip: export, CLI check, import with no page attached, export again', async () => {
    // What the live panel shows is what the demo scenarios are meant to show.
    assert.deepEqual(liveRead.map((r) => r.row.verdict), ['completed', 'completed', 'completed', 'completed', 'completed', 'failed', 'failed', 'completed', 'failed', 'failed']);
    assert.ok(liveRead[5]!.findings.some((f) => f.rule === 'interrupt/resume-uncovered'), 'the partial resume is judged against the interrupt before it');
    assert.deepEqual(liveRead[7]!.negotiation, { verdict: 'producer-newer', consumer: '1.0', producer: '1.9' });

    first = await exportFrom(live, 'export-button');
    assert.match(first.name, /^agui-127\.0\.0\.1-\d{8}-\d{6}\.har$/);
    const file = join(dir, first.name);
    writeFileSync(file, first.text);

    // The exact bytes the worker captured.
    const exact = await exported(b, tabId);
    const fromPanel = readText(first.text, first.name);
    assert.deepEqual(capturedBytes(fromPanel), capturedBytes(exact));

    // The CLI reads the panel's export and finds what the panel shows.
    assert.deepEqual(cliFindings(file), liveRead.map((r) => r.findings));

    // A panel with no page attached offers the import, and shows the file as the live panel showed the tab.
    const fresh = await openPanel(b);
    const empty = await fresh.evaluate(() => ({
      status: document.querySelector<HTMLElement>('[data-testid=status]')!.dataset.status,
      text: document.querySelector('.import-empty')?.textContent ?? '',
      picker: document.querySelector('[data-testid=import-input]') !== null,
    }));
    assert.equal(empty.status, 'no-tab');
    assert.match(empty.text, /Drop a recording here/);
    assert.ok(empty.picker);
    await importThroughPicker(fresh, file);
    assert.deepEqual(await readPanel(fresh), liveRead);

    // Exported again from the import: the same file, the worker's analysis and its flags included, every report naming its exchange as before.
    const again = await exportFrom(fresh, 'export-button');
    assert.deepEqual(capturedBytes(readText(again.text, again.name)), capturedBytes(fromPanel));
    type Har = { log: { entries: { _agui: { tabId: number; report: ExchangeReport } }[] } };
    assert.ok((JSON.parse(again.text) as Har).log.entries.every((e) => e._agui.tabId === tabId && e._agui.report.source.startsWith(agent.url)));
    assert.equal(again.text, first.text);
    await fresh.close();
  });

  test("the message API's export and the panel's Export menu write the same file", async () => {
    for (const groups of [[], ['query'], REDACTION_GROUPS] as const) {
      const api = await b.request({ type: 'agui-inspector/export', tabId, redact: [...groups] });
      const menu = await exportFrom(live, 'export-button', groups);
      assert.equal(JSON.parse(api).log.entries.length, STEPS.length);
      assert.equal(menu.text, api, `redacting ${groups.join(', ') || 'nothing'}`);
    }
    // Chosen exchanges: those ticked in the panel, those named to the API.
    const picked = [1, 4, 9];
    const ids = await live.evaluate((at) => {
      const rows = [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')];
      const boxes = [...document.querySelectorAll<HTMLInputElement>('[data-testid=exchange-select]')];
      for (const i of at) boxes[i]!.click();
      return at.map((i) => rows[i]!.dataset.id!);
    }, picked);
    try {
      const api = await b.request({ type: 'agui-inspector/export', tabId, exchangeIds: ids, redact: ['messages', 'query'] });
      const menu = await exportFrom(live, 'export-selected', ['messages', 'query']);
      assert.equal(JSON.parse(api).log.entries.length, picked.length);
      assert.equal(menu.text, api);
    } finally {
      await live.evaluate(() => {
        for (const box of document.querySelectorAll<HTMLInputElement>('[data-testid=exchange-select]')) if (box.checked) box.click();
      });
    }
  });

  test("Chromium's own HAR of the same traffic imports as the same exchanges", async () => {
    const harPath = join(dir, 'chromium.har');
    const plain = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
    try {
      const context = await plain.newContext({ recordHar: { path: harPath, content: 'embed' } });
      const p = await context.newPage();
      await p.goto(`${agent.url}/`);
      await runSteps(p);
      await context.close();
    } finally {
      await plain.close();
    }
    const bytes = readFileSync(harPath);
    const fromChromium = readExchanges(bytes, 'chromium.har');
    const captured = await exported(b, tabId);
    assert.equal(fromChromium.length, captured.length, 'the page and its scripts are left out');
    fromChromium.forEach((x, i) => {
      const c = captured[i]!;
      assert.equal(x.url, c.url);
      assert.equal(x.requestBody, c.requestBody, `request body ${i}`);
      assert.ok(Buffer.from(bodyOf(x)).equals(Buffer.from(bodyOf(c))), `response bytes ${i}`);
    });
    assert.deepEqual(analyzeExchanges(fromChromium).map(findingKeys), liveRead.map((r) => r.findings));

    // Dropped onto a panel with no page attached, it shows what the live panel showed.
    const fresh = await openPanel(b);
    await fresh.evaluate(async (b64) => {
      const file = new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], 'chromium.har', { type: 'application/json' });
      const data = new DataTransfer();
      data.items.add(file);
      const zone = document.querySelector('[data-testid=import-drop]')!;
      zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
      zone.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    }, bytes.toString('base64'));
    await until('the dropped HAR analysed', () => fresh.evaluate(() => document.querySelector<HTMLElement>('[data-testid=status]')!.dataset.status === 'file'), 30_000);
    const read = await readPanel(fresh);
    // A browser's HAR has no chunk timing, which no view shows; everything else matches.
    assert.deepEqual(read, liveRead);
    await fresh.close();
  });

  test('redaction chosen in the panel: no planted secret leaves, the analysis stays', async () => {
    const input = {
      threadId: 'thread-secrets', runId: 'run-secrets', protocolVersion: '1.0',
      messages: [
        { id: 'u1', role: 'user', content: `Remember ${SECRETS.message}` },
        {
          id: 'a1', role: 'assistant', content: SECRETS.assistant,
          toolCalls: [{ id: 'call-1', type: 'function', function: { name: 'show_weather_card', arguments: JSON.stringify({ city: SECRETS.toolArgs, summary: 'x' }) } }],
        },
        { id: 't1', role: 'tool', toolCallId: 'call-1', content: SECRETS.toolResult },
        { id: 'u2', role: 'user', content: `And ${SECRETS.message} again` },
      ],
      tools: [], context: [{ description: 'account', value: SECRETS.context }],
      state: { apiKey: SECRETS.state, budget: Number(SECRETS.number) },
      forwardedProps: { token: SECRETS.forwarded },
    };
    const before = await live.evaluate(() => document.querySelectorAll('[data-testid=exchange-row]').length);
    // The state scenario echoes the state back; chat echoes the last user message. The first carries
    // an API key in its query string; the second is an XHR whose URL holds a password.
    await page.evaluate(async ([body, key]) => {
      const res = await fetch(`/agent/state?delay=1&api_key=${key}`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' }, body });
      await res.text();
    }, [JSON.stringify({ ...input, runId: 'run-secrets-state' }), SECRETS.query] as const);
    await page.evaluate(([body, password]) => new Promise((resolve, reject) => {
      const url = new URL('/agent/chat?delay=1', location.href);
      url.username = 'agent';
      url.password = password;
      const xhr = new XMLHttpRequest();
      xhr.open('POST', url.href);
      xhr.setRequestHeader('Content-Type', 'application/json');
      xhr.onload = resolve;
      xhr.onerror = () => reject(new Error('the XHR failed'));
      xhr.send(body);
    }), [JSON.stringify({ ...input, runId: 'run-secrets-chat' }), PASSWORD] as const);
    await settledRows(live, before + 2);
    await live.evaluate((from) => {
      for (const box of [...document.querySelectorAll<HTMLInputElement>('[data-testid=exchange-select]')].slice(from)) box.click();
    }, before);

    const plain = await exportFrom(live, 'export-selected');
    const redacted = await exportFrom(live, 'export-selected', REDACTION_GROUPS);
    for (const secret of Object.values(SECRETS)) {
      assert.ok(plain.text.includes(secret), `${secret} is in the unredacted export`);
      assert.ok(!redacted.text.includes(secret), `${secret} is not in the redacted export`);
    }
    assert.ok(plain.text.includes('/agent/chat?delay=1') && !plain.text.includes(PASSWORD) && !plain.text.includes('//agent:'), 'the XHR is recorded without its user-info');
    // Not even the worker holds it: the capture script drops it before anything leaves the page.
    const held = await b.request({ type: 'agui-inspector/session', tabId });
    assert.ok(held!.exchanges.some((x) => x.url.endsWith('/agent/chat?delay=1')), 'the XHR was captured');
    assert.ok(!JSON.stringify(held).includes(PASSWORD), 'the worker never saw the password');
    type Har = { log: { entries: { _agui: { report: ExchangeReport } }[]; _agui: { redaction: { groups: string[]; analysisPreserved: boolean } } } };
    const p = JSON.parse(plain.text) as Har;
    const r = JSON.parse(redacted.text) as Har;
    assert.equal(r.log.entries.length, 2, 'only the selected exchanges');
    assert.deepEqual(r.log._agui.redaction.groups, [...REDACTION_GROUPS]);
    assert.equal(r.log._agui.redaction.analysisPreserved, true);
    assert.deepEqual(r.log.entries.map((e) => analysisShape(e._agui.report)), p.log.entries.map((e) => analysisShape(e._agui.report)));
    // And the redacted file analyses, when read back, as the unredacted one.
    assert.deepEqual(analyzeExchanges(readText(redacted.text, 'r.har')).map(analysisShape), analyzeExchanges(readText(plain.text, 'p.har')).map(analysisShape));
    await live.evaluate(() => {
      for (const box of document.querySelectorAll<HTMLInputElement>('[data-testid=exchange-select]')) if (box.checked) box.click();
    });
  });

  test('copy one exchange as a fixture and as a curl command', async () => {
    const at = STEPS.findIndex(([s]) => s === 'misbehave-identity');
    const exact = (await exported(b, tabId))[at]!;
    /** Clicks a copy button with the clipboard (or its fallback) stubbed, and returns what was copied. */
    const copy = (hook: string, mode: 'clipboard' | 'selection' | 'manual') =>
      live.evaluate(async ([i, h, m]) => {
        let text: string | null = null;
        const clipboard = navigator.clipboard;
        const exec = document.execCommand.bind(document);
        Object.defineProperty(navigator, 'clipboard', {
          configurable: true,
          value: { writeText: async (t: string) => { if (m !== 'clipboard') throw new Error('blocked'); text = t; } },
        });
        document.execCommand = (cmd: string) => {
          const area = document.activeElement as HTMLTextAreaElement;
          if (cmd === 'copy' && m === 'selection') text = area.value.slice(area.selectionStart, area.selectionEnd);
          return m === 'selection';
        };
        try {
          document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')[i]!.click();
          await e2e.frame();
          const button = document.querySelector<HTMLElement>(`[data-testid=${h}]`)!;
          // What an earlier copy left; the panel sets it again when this one is over.
          delete button.dataset.copied;
          button.click();
          const end = performance.now() + 20_000;
          while (!['clipboard', 'selection', 'manual', 'failed'].includes(button.dataset.copied ?? '')) {
            if (performance.now() > end) throw new Error('copy did not finish');
            await new Promise((r) => setTimeout(r, 50));
          }
          await e2e.frame();
          const shown = document.querySelector<HTMLTextAreaElement>('[data-testid=copy-text]');
          return { how: button.dataset.copied, text: text ?? shown?.value ?? null, selected: shown ? shown.value.slice(shown.selectionStart, shown.selectionEnd) === shown.value : null };
        } finally {
          Object.defineProperty(navigator, 'clipboard', { configurable: true, value: clipboard });
          document.execCommand = exec;
        }
      }, [at, hook, mode] as const);

    const fixture = await copy('copy-fixture', 'clipboard');
    assert.equal(fixture.how, 'clipboard');
    const reread = readText(fixture.text!, 'fixture.json');
    assert.equal(reread.length, 1);
    assert.deepEqual(analyzeExchanges(reread).map(findingKeys), [liveRead[at]!.findings], 'the fixture reads back to the findings the panel shows');
    assert.ok(liveRead[at]!.findings.some((f) => f.rule === 'identity/run-id-mismatch'));

    const curl = await copy('copy-curl', 'selection');
    assert.equal(curl.how, 'selection', 'without the clipboard API, a selected textarea is copied');
    assert.ok(curl.text!.includes(`--url ${shellQuote(exact.url!)}`), curl.text!);
    assert.ok(curl.text!.includes(`--data-raw ${shellQuote(exact.requestBody!)}`));

    const manual = await copy('copy-curl', 'manual');
    assert.equal(manual.how, 'manual');
    assert.equal(manual.text, curl.text, 'when nothing can copy, the text is shown for the user to copy');
    assert.equal(manual.selected, true);
  });

  test('in the real DevTools window: an import replaces the tab, and the panel goes back to it', async () => {
    const { panel } = await openInspectorPanel(b.context, agent.url, b.extensionId);
    const rows = () => panel.eval(() => [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')].map((r) => r.dataset.verdict));
    const live = await until('the live session', async () => ((await rows()).length >= STEPS.length ? rows() : null), 30_000);
    await panel.eval(async (text) => {
      await window.__aguiPanel!.openFile(new TextEncoder().encode(text), 'one.sse');
    }, ['RUN_STARTED', 'RUN_FINISHED'].map((type) => `data: ${JSON.stringify({ type, threadId: 't', runId: 'r' })}\n\n`).join(''));
    // The file's exchange is listed at the panel's next render after the import settles.
    assert.deepEqual(await until('the file\'s exchange listed', async () => ((await rows()).length === 1 ? rows() : null), 10_000), ['completed'], 'the import worker runs inside the DevTools frame');
    assert.equal(await panel.eval(() => document.querySelector<HTMLElement>('[data-testid=status]')!.dataset.status), 'file');
    await panel.eval(() => document.querySelector<HTMLElement>('[data-testid=back-live]')!.click());
    await until('the live session again', async () => JSON.stringify(await rows()) === JSON.stringify(live), 30_000);
    assert.equal(await panel.eval(() => document.querySelector<HTMLElement>('[data-testid=status]')!.dataset.status), 'live');
  });
});
