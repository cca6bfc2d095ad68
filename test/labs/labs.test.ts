/**
 * Real framework stacks (README.md in this folder), real sessions in Chromium with the real built
 * extension: every AG-UI exchange the page made is captured, the page receives the same events with
 * and without the extension, and the Inspector's findings on each exchange are exactly the ones in
 * expected/<lab>.json, each of which names the spec section that makes it true. The CLI, run on the
 * exported HAR, says the same as the worker.
 *
 * A finding the spec does not back is a false positive: it is in no expectation, so it fails the test.
 *
 * LABS_UPDATE=1 rewrites the expectation files from what the Inspector says, keeping the `why` of
 * every finding that stays; a finding without a `why` that cites /spec/ fails the test either way.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { ExchangeReport } from '../../src/analyzer/types.ts';
import type { Finding } from '../../src/rules/types.ts';
import { buildExtension, launchChromium, ROOT, type ChromiumBrowser } from '../e2e/browsers.ts';
import { settled } from '../e2e/demo-capture.ts';
import type { Step } from './page-api.ts';
import { runOf, startLabServer, type LabServer } from './server.ts';

interface Session {
  /** Names the session in the expectation file. */
  name: string;
  query: string;
  /** Reload the page after the steps and reconnect to the thread (CopilotKit's runner replays it). */
  reconnect: boolean;
}

interface Lab {
  lab: string;
  sessions: Session[];
  /** The steps each session takes, in order (page-api.ts). */
  steps: Step[];
  /** Whether the lab's thread ids must be UUIDs: the LangGraph API answers any other with HTTP 400. */
  uuidThreads: boolean;
}

const STEPS: Step[] = ['connect', 'hello', 'weather', 'remember', 'stop'];

const LABS: Lab[] = [
  {
    lab: 'copilotkit',
    sessions: [
      { name: 'rest', query: 'transport=rest', reconnect: true },
      { name: 'single-route', query: 'transport=single', reconnect: true },
    ],
    steps: STEPS,
    uuidThreads: false,
  },
  { lab: 'mastra', sessions: [{ name: 'http-sse', query: '', reconnect: false }], steps: STEPS, uuidThreads: false },
  {
    lab: 'langgraph',
    sessions: [{ name: 'http-sse', query: '', reconnect: false }],
    steps: ['hello', 'weather', 'remember', 'book', 'cancel', 'stop'],
    uuidThreads: true,
  },
  {
    lab: 'langgraph-copilotkit',
    sessions: [
      { name: 'rest', query: 'transport=rest', reconnect: true },
      { name: 'single-route', query: 'transport=single', reconnect: true },
    ],
    steps: ['connect', 'hello', 'weather', 'remember', 'book', 'cancel', 'stop'],
    uuidThreads: true,
  },
];

/** What a finding must match; `why` is the justification a reader checks against `spec`. */
interface ExpectedFinding {
  of: 'input' | 'stream';
  rule: string;
  severity: string;
  event: number | null;
  path: string | null;
  readiness: boolean;
  spec: string;
  why: string;
}

/** What the Inspector says about one exchange, ids and words aside. */
interface Said {
  step: string;
  request: string;
  era: string;
  verdict: string;
  readiness: string | null;
  findings: Omit<ExpectedFinding, 'why'>[];
}


type ExpectedExchange = Omit<Said, 'findings'> & { findings: ExpectedFinding[] };

type Expectation = Record<string, ExpectedExchange[]>;

interface HarEntry {
  request: { method: string; url: string; postData?: { text?: string } };
  _agui: { report: ExchangeReport };
}

/** What the page's agent received, without what differs between two runs of the same session. */
function normalised(events: unknown[], threadId: string): string {
  return JSON.stringify(events, (k, v: unknown) => (k === 'timestamp' ? undefined : v))
    .replaceAll(threadId, '<thread>')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<uuid>')
    // LangGraph's interrupt ids: 32 hex digits.
    .replace(/\b[0-9a-f]{32}\b/g, '<hex-id>');
}

interface Driven {
  /** Per page load, the events the agent received. */
  events: string[];
  /** For each step, how many run inputs the server had received on the thread after it. */
  marks: [step: string, count: number][];
}

async function drive(page: Page, server: LabServer, url: string, threadId: string, session: Session, steps: Step[], onLoad?: () => Promise<void>): Promise<Driven> {
  const onThread = () => server.log.filter((r) => r.threadId === threadId).length;
  const marks: [string, number][] = [];
  const events: string[] = [];
  await page.goto(url);
  await page.waitForFunction(() => window.lab !== undefined);
  await onLoad?.();
  for (const step of steps) {
    await page.evaluate((s) => window.lab!.steps[s]!(), step);
    marks.push([step, onThread()]);
  }
  events.push(normalised(await page.evaluate(() => window.lab!.events), threadId));
  if (session.reconnect) {
    await page.reload();
    await page.waitForFunction(() => window.lab !== undefined);
    await page.evaluate(() => window.lab!.steps.connect!());
    marks.push(['reload+connect', onThread()]);
    events.push(normalised(await page.evaluate(() => window.lab!.events), threadId));
  }
  return { events, marks };
}

const stepOf = (marks: [string, number][], i: number): string => marks.find(([, n]) => i < n)?.[0] ?? '(after the session)';

const shape = (of: 'input' | 'stream', f: Finding) => ({ of, rule: f.rule, severity: f.severity, event: f.event, path: f.path, readiness: f.readiness === true, spec: f.spec });

type Judged = Pick<ExchangeReport, 'era' | 'verdict' | 'readiness' | 'input' | 'findings'>;

/** A report's judgement of its exchange: the same shape from the worker's export and from the CLI's JSON. */
const judgement = (r: Judged): Omit<Said, 'step' | 'request'> => ({
  era: r.era,
  verdict: r.verdict,
  readiness: r.readiness?.verdict ?? null,
  findings: [...r.input.findings.map((f) => shape('input', f)), ...r.findings.map((f) => shape('stream', f))],
});

function said(entries: HarEntry[], marks: [string, number][]): Said[] {
  return entries.map((e, i) => ({ step: stepOf(marks, i), request: `${e.request.method} ${new URL(e.request.url).pathname}`, ...judgement(e._agui.report) }));
}

/** What the expectation says the Inspector should say. */
const meant = ({ findings, ...x }: ExpectedExchange): Said => ({ ...x, findings: findings.map(({ why: _w, ...f }) => f) });

/**
 * The expectation file from what the Inspector said: each remaining finding keeps its `why` — that of
 * the same finding on the same exchange, else that of the same rule elsewhere in the session (the
 * session gained or lost a step, or the finding moved to another event).
 */
function rewritten(now: Said[], before: ExpectedExchange[] = []): ExpectedExchange[] {
  const all = before.flatMap((x) => x.findings);
  return now.map((x, i) => {
    const old = before[i];
    const why = (f: Said['findings'][number]) =>
      old?.findings.find((o) => o.rule === f.rule && o.event === f.event && o.path === f.path && o.of === f.of)?.why ?? all.find((o) => o.rule === f.rule && o.of === f.of)?.why ?? '';
    return { ...x, findings: x.findings.map((f) => ({ ...f, why: why(f) })) };
  });
}

describe('real-framework labs', { timeout: 180_000 }, () => {
  let server: LabServer;
  let withExt: ChromiumBrowser;
  let plain: ChromiumBrowser;
  const work = mkdtempSync(join(tmpdir(), 'agui-labs-'));

  before(async () => {
    const [extDir, s] = await Promise.all([buildExtension('chrome'), startLabServer()]);
    server = s;
    [withExt, plain] = await Promise.all([launchChromium({ extDir }), launchChromium()]);
  });

  after(async () => {
    await Promise.all([withExt?.close(), plain?.close()]);
    await server?.close();
    rmSync(work, { recursive: true, force: true });
  });

  for (const { lab, sessions, steps, uuidThreads } of LABS) {
    test(`${lab}: every exchange captured, the page unaffected, the findings as expected`, async () => {
      const file = join(ROOT, 'test', 'labs', 'expected', `${lab}.json`);
      const expected = JSON.parse(readFileSync(file, 'utf8')) as Expectation;
      const seen: Record<string, Said[]> = {};
      for (const session of sessions) {
        const thread = `${lab}-${session.name}`;
        const [extThread, plainThread] = uuidThreads ? [randomUUID(), randomUUID()] : [`${thread}-ext`, `${thread}-plain`];
        const url = (threadId: string) => `${server.url}/${lab}.html?${session.query}&thread=${threadId}`;
        const [page, reference] = await Promise.all([withExt.newPage(), plain.newPage()]);
        // Preserve the log across the reload, as a user debugging a reconnect does.
        const keep = async () => {
          const tabId = await withExt.tabIdOf(page.url());
          await withExt.request({ type: 'agui-inspector/preserve', tabId, preserve: true });
        };
        const [driven, ref] = await Promise.all([
          drive(page, server, url(extThread), extThread, session, steps, keep),
          drive(reference, server, url(plainThread), plainThread, session, steps),
        ]);
        assert.deepEqual(driven.events, ref.events, `${session.name}: the page received the same events with and without the extension`);
        assert.ok(driven.events[0]!.includes('TOOL_CALL_START') && driven.events[0]!.includes('STATE_SNAPSHOT'), 'the session exercised a tool call and shared state');

        const logged = server.log.filter((r) => r.threadId === extThread);
        const tabId = await withExt.tabIdOf(page.url());
        await settled(withExt, tabId, logged.length);
        const harText = await withExt.request({ type: 'agui-inspector/export', tabId });
        const entries = (JSON.parse(harText) as { log: { entries: HarEntry[] } }).log.entries;
        assert.deepEqual(
          entries.map((e) => {
            const path = new URL(e.request.url).pathname;
            return [path, runOf(path, e.request.postData?.text ?? '')?.runId];
          }),
          logged.map((r) => [r.path, r.runId]),
          `${session.name}: one captured exchange per run input the server received, in order`,
        );

        // The CLI on the exported file agrees with the worker, exchange by exchange.
        const har = join(work, `${lab}-${session.name}.har`);
        writeFileSync(har, harText);
        const cli = JSON.parse(cliJson(har)) as { exchanges: Judged[] };
        assert.deepEqual(
          cli.exchanges.map(judgement),
          entries.map((e) => judgement(e._agui.report)),
          `${session.name}: the CLI and the worker agree`,
        );
        seen[session.name] = said(entries, driven.marks);
        await Promise.all([page.close(), reference.close()]);
      }

      if (process.env.LABS_UPDATE === '1') {
        const next = Object.fromEntries(Object.entries(seen).map(([k, v]) => [k, rewritten(v, expected[k])]));
        writeFileSync(file, `${JSON.stringify(next, null, 2)}\n`);
        Object.assign(expected, next);
      }
      for (const [name, exchanges] of Object.entries(expected)) {
        for (const f of exchanges.flatMap((x) => x.findings)) assert.match(f.why, /\/spec\/1\.[01]\//, `${name}: ${f.rule} at event ${f.event} ${f.path} has no justification citing the spec`);
      }
      const meantAll = Object.fromEntries(Object.entries(expected).map(([name, exchanges]) => [name, exchanges.map(meant)]));
      assert.deepEqual(seen, meantAll, 'the findings are exactly the expected ones: none unexpected (a false positive), none missing');
    });
  }
});

/** `agui-inspector check <har> --format json` from source; exit status 1 only says an exchange failed. */
function cliJson(har: string): string {
  try {
    return execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src', 'cli', 'bin.ts'), 'check', har, '--format', 'json'], { cwd: ROOT, encoding: 'utf8' });
  } catch (e) {
    const err = e as { status?: number; stdout?: string };
    if (err.status === 1 && err.stdout) return err.stdout;
    throw e;
  }
}
