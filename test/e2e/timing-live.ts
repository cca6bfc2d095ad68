/**
 * The timing of live streams, alike in Chromium and Firefox: the demo agent's timing scenarios (first content
 * at 400 ms, a 1.5 s stall, a 600 ms backend tool call, a buffered burst) run by its page through the official
 * @ag-ui/client and captured by the built extension. The worker's export, read by the CLI's `--format json`,
 * and the panel's hooks must both give the schedule back within 50 ms; while the stall holds the stream, the
 * Waterfall's bars are still open.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import { demoInput } from '../../demo/record.ts';
import { demoSchedule, findScenario } from '../../demo/scenarios.ts';
import type { Timing, ToolSpan } from '../../src/detail/index.ts';
import { ROOT, buildExtension, gotoExtensionPage, launchWith, poll, until, type ExtensionBrowser, type Target } from './browsers.ts';
import { inPage } from './in-page.ts';

interface AnyPage {
  evaluate<A, T>(fn: (arg: A) => T | Promise<T>, arg: A): Promise<T>;
  goto(url: string): Promise<unknown>;
}

/** The agent's pause between events where a scenario keeps no schedule of its own: none, so the schedule is the scenarios' own, with no timer drift of many small waits added. */
const DELAY_MS = 0;
const WITHIN_MS = 50;
const SCENARIOS = ['stall', 'slow-start', 'slow-tool', 'buffered'] as const;

/**
 * When each event of `name` leaves the agent, ms after the request started: `zero` (when the agent began
 * answering, on the capture's clock), then the scenario's pauses, the delay elsewhere.
 */
function schedule(name: string, zero: number): { types: string[]; at: number[] } {
  const s = findScenario(name)!;
  const events = s.events(demoInput());
  const pauses = s.pauses?.(events) ?? [];
  const at: number[] = [];
  events.forEach((_, i) => at.push((i === 0 ? zero : at[i - 1]!) + (pauses[i] ?? (i === 0 ? 0 : DELAY_MS))));
  return { types: events.map((e) => e.type), at };
}

/** Each figure's distance from the schedule, ms, printed as the test's diagnostic. */
const deltas: string[] = [];
const near = (ms: number | null | undefined, want: number, what: string): void => {
  assert.ok(typeof ms === 'number' && Math.abs(ms - want) <= WITHIN_MS, `${what}: ${ms} ms, the schedule says ${want} (± ${WITHIN_MS})`);
  deltas.push(`${what} ${ms - want >= 0 ? '+' : ''}${(ms - want).toFixed(1)}`);
};

/** What the panel's hooks say of the selected exchange: its summary, its bars and its stalls. */
interface Hooks {
  summary: { ttfbMs?: string; firstContentMs?: string; durationMs?: string; bufferingSuspected?: string; producedOverMs?: string; arrivedWithinMs?: string };
  spans: { kind: string; id: string; startMs: string; endMs: string }[];
  stalls: { afterEvent: string; ms: string }[];
  rowFirstContentMs: string | undefined;
}

/** Each figure of one scenario's timing against its schedule: the CLI's numbers and the panel's strings alike. */
function assertSchedule(name: string, zero: number, t: { ttfbMs: number | null; firstContentMs: number | null; durationMs: number | null; stalls: { afterEvent: number; ms: number }[]; spans: { kind: string; id: string; startMs: number; endMs: number | null }[] }, where: string): void {
  const { types, at } = schedule(name, zero);
  near(t.ttfbMs, at[0]!, `${where} ${name} ttfbMs`);
  near(t.durationMs, at.at(-1)!, `${where} ${name} durationMs`);
  const firstContent = types.indexOf('TEXT_MESSAGE_CONTENT');
  near(t.firstContentMs, at[firstContent]!, `${where} ${name} firstContentMs`);
  const stalled = at.flatMap((ms, i) => (i > 0 && ms - at[i - 1]! >= 1000 ? [{ afterEvent: i - 1, ms: ms - at[i - 1]! }] : []));
  assert.deepEqual(t.stalls.map((s) => s.afterEvent), stalled.map((s) => s.afterEvent), `${where} ${name}: the stalls follow the events the schedule pauses after`);
  t.stalls.forEach((s, i) => near(s.ms, stalled[i]!.ms, `${where} ${name} stall ${i}`));
  const run = t.spans.find((s) => s.kind === 'run');
  near(run?.startMs, at[0]!, `${where} ${name} run start`);
  near(run?.endMs, at.at(-1)!, `${where} ${name} run end`);
  const tool = t.spans.find((s) => s.kind === 'tool');
  if (name === 'slow-tool') {
    near(tool?.startMs, at[types.indexOf('TOOL_CALL_START')]!, `${where} tool start`);
    near(tool?.endMs, at[types.indexOf('TOOL_CALL_RESULT')]!, `${where} tool end`);
    near(tool!.endMs! - tool!.startMs, demoSchedule.toolMs, `${where} tool span`);
  } else assert.equal(tool, undefined, `${where} ${name}: no tool call`);
}

const fromCli = (t: Timing) => ({
  ...t,
  stalls: t.stalls ?? [],
  spans: [...(t.runs ?? []).map((s) => ({ ...s, kind: 'run' })), ...(t.messages ?? []).map((s) => ({ ...s, kind: 'message' })), ...(t.toolCalls ?? []).map((s) => ({ ...s, kind: 'tool' }))],
});

const num = (v: string | undefined): number | null => (v === undefined || v === '' ? null : Number(v));
const fromPanel = (h: Hooks) => ({
  ttfbMs: num(h.summary.ttfbMs), firstContentMs: num(h.summary.firstContentMs), durationMs: num(h.summary.durationMs),
  stalls: h.stalls.map((s) => ({ afterEvent: Number(s.afterEvent), ms: Number(s.ms) })),
  spans: h.spans.map((s) => ({ kind: s.kind, id: s.id, startMs: Number(s.startMs), endMs: num(s.endMs) })),
});

function cliJson(har: string): Promise<{ exchanges: { runs: { runId: string }[]; timing: Timing | null }[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'agui-timing-'));
  const file = join(dir, 'live.har');
  writeFileSync(file, har);
  return new Promise((done, fail) => {
    execFile(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/bin.ts'), 'check', file, '--format', 'json'], { cwd: ROOT }, (err, stdout, stderr) => {
      rmSync(dir, { recursive: true, force: true });
      if (err && (err as { code?: unknown }).code !== 1) fail(new Error(`the CLI failed: ${stderr}`));
      else done(JSON.parse(stdout));
    });
  });
}

export function timingLiveTests(target: Target): void {
  describe(`the timing of live streams on a known schedule (${target})`, () => {
    let agent: DemoAgent;
    let b: ExtensionBrowser & { newPage(): Promise<unknown> };
    let page: AnyPage;
    let panel: AnyPage;
    let tabId: number;
    const ran: string[] = [];
    /** When the agent began answering each run, ms since epoch, as the page's clock counts (timeOrigin + now). */
    const answered = new Map<string, number>();

    before(async () => {
      agent = await startDemoAgent({
        port: 0, delayMs: DELAY_MS,
        onRequest: (r) => {
          const runId = (JSON.parse(r.body) as { runId?: string }).runId;
          if (runId !== undefined) answered.set(runId, performance.timeOrigin + performance.now());
        },
      });
      b = await launchWith(target, await buildExtension(target));
      page = (await b.newPage()) as AnyPage;
      await page.goto(`${agent.url}/`);
      await poll(page as never, () => typeof window.demo?.run === 'function');
      tabId = await b.tabIdOf(`${agent.url}/`);
      panel = (await b.newPage()) as AnyPage;
      const url = `${b.base}panel/index.html?tabId=${tabId}`;
      if (target === 'firefox') await gotoExtensionPage(panel as never, url, 15_000);
      else await panel.goto(url);
      for (const p of [page, panel]) await inPage(p as unknown as { evaluate(s: string): Promise<unknown> });
      // A first stream pays for what the page and the capture set up once (Chromium delivered its first chunk
      // some 30 ms after the agent wrote it, later ones within a few): the schedule is measured after it.
      await (await start('chat')).finish();
    });

    after(async () => {
      await b?.close();
      await agent?.close();
    });

    const session = async () => (await b.request({ type: 'agui-inspector/session', tabId }))!;

    /**
     * When the agent began answering `runId`, ms after the page sent it: the schedule's zero. The request's
     * own trip (a first request opens a connection) is no part of the stream's timing.
     */
    const zeroOf = async (runId: string): Promise<number> => {
      const x = (await session()).exchanges.find((e) => e.request.body?.includes(`"runId":"${runId}"`));
      const at = answered.get(runId);
      assert.ok(x && at !== undefined, `${runId} sent and answered`);
      return at - x.startedAt;
    };

    /** Starts a scenario in the page without waiting for it; `finish` waits for the page's client and the worker. */
    const start = async (name: string): Promise<{ finish(): Promise<void> }> => {
      const held = (await session()).exchanges.length;
      await page.evaluate(([s, o]) => void ((globalThis as unknown as { running: unknown }).running = window.demo.run(s, o)), [name, { threadId: `thread-${name}`, runId: `run-${name}`, transport: 'sse' }] as const);
      ran.push(name);
      return {
        finish: async () => {
          const result = await page.evaluate(() => (globalThis as unknown as { running: Promise<{ error?: string }> }).running, null);
          assert.equal(result.error, undefined, `${name} ran in the page`);
          await until(`${name}'s exchange in the worker, ended`, async () => {
            const xs = (await session()).exchanges;
            return xs.length > held && xs.at(-1)!.outcome !== 'pending';
          }, 20_000);
        },
      };
    };

    /** Selects the row of `runId` and shows the Waterfall; its hooks once they are of that exchange (and it ended, when `settled`). */
    const hooksOf = async (runId: string, settled = true): Promise<Hooks> => {
      const x = await until(`${runId} in the worker`, async () => (await session()).exchanges.find((e) => e.request.body?.includes(`"runId":"${runId}"`)));
      return until(`the Waterfall of ${runId}`, () => panel.evaluate(async ([xid, id, wantEnded]) => {
        const row = document.querySelector<HTMLElement>(`[data-testid=exchange-row][data-id="${xid}"]`);
        if (!row) return null;
        if (row.getAttribute('aria-selected') !== 'true') row.click();
        document.querySelector<HTMLElement>('[data-testid=tab-waterfall]')?.click();
        await e2e.frame();
        const data = (el: Element): DOMStringMap => (el as HTMLElement).dataset;
        const summary = document.querySelector('[data-testid=timing-summary]');
        const h: Hooks = {
          summary: summary ? { ...data(summary) } : {},
          spans: [...document.querySelectorAll('[data-testid=waterfall] [data-testid=span]')].map((s) => ({ kind: data(s).kind!, id: data(s).id!, startMs: data(s).startMs!, endMs: data(s).endMs! })),
          stalls: [...document.querySelectorAll('[data-testid=waterfall] [data-testid=stall]')].map((s) => ({ afterEvent: data(s).afterEvent!, ms: data(s).ms! })),
          rowFirstContentMs: row.dataset.firstContentMs,
        };
        const run = h.spans.find((s) => s.kind === 'run' && s.id === id);
        if (!run || (wantEnded && (run.endMs === '' || row.dataset.verdict === 'pending'))) return null;
        return h;
      }, [x.id, runId, settled] as const), 20_000);
    };

    test('while the stall holds the stream, its bars are open and its run is the requested one; once it ends they close where the schedule says', async () => {
      const running = await start('stall');
      // Inside the 1.5 s silence: the message and the run have begun and not ended.
      const open = await until('the stall under way in the Waterfall', async () => {
        const h = await hooksOf('run-stall', false);
        const message = h.spans.find((s) => s.kind === 'message');
        return message && message.endMs === '' && h.spans.find((s) => s.kind === 'run')!.endMs === '' ? h : null;
      }, 10_000);
      // Still inside the silence: the run so far is the requested one in every view that tells, not a
      // replayed run carrying the input's runId (which run was requested is settled only at the end).
      const live = await panel.evaluate(async () => {
        // Each view asks for its detail as it is drawn: read once the answer about the stream so far is in.
        const read = async (tab: string, ...ready: string[]): Promise<void> => {
          document.querySelector<HTMLElement>(`[data-testid=tab-${tab}]`)?.click();
          await e2e.settle(() => ready.every((r) => document.querySelector(r) !== null));
        };
        await read('identity', '[data-testid=identity-row][data-role=started]', '[data-testid=run-node]');
        const requested = document.querySelectorAll('[data-testid=requested-run]').length;
        const replayed = document.querySelectorAll('[data-testid=replayed-run]').length;
        const mismatches = document.querySelectorAll('[data-testid=identity-row][data-mismatch=true]').length;
        const node = document.querySelector<HTMLElement>('[data-testid=run-node][data-run-id=run-stall]');
        const tree = node ? [node.dataset.outcome, node.dataset.replayed] : null;
        await read('negotiation', '[data-testid=negotiation-run]');
        const negotiation = [...document.querySelectorAll<HTMLElement>('[data-testid=negotiation-run]')].map((r) => r.dataset.requested);
        const pending = document.querySelector<HTMLElement>('[data-testid=exchange-row][aria-selected=true]')?.dataset.verdict;
        return { requested, replayed, mismatches, tree, negotiation, pending };
      }, null);
      assert.deepEqual(live, { requested: 1, replayed: 0, mismatches: 0, tree: ['running', 'false'], negotiation: ['true'], pending: 'pending' }, 'read while the stream is held');
      await running.finish();
      const closed = await hooksOf('run-stall');
      const message = closed.spans.find((s) => s.kind === 'message')!;
      assert.equal(open.spans.find((s) => s.kind === 'message')!.startMs, message.startMs, 'the same bar, now closed');
      assert.ok(Number(open.summary.durationMs) < Number(closed.summary.durationMs), `the axis grew: ${open.summary.durationMs} → ${closed.summary.durationMs} ms`);
      const { types, at } = schedule('stall', await zeroOf('run-stall'));
      near(num(message.endMs), at[types.indexOf('TEXT_MESSAGE_END')]!, 'the message closes');
      assert.deepEqual(open.stalls, [], 'no stall is counted before the stream moves again');
    });

    test('the CLI on the worker\'s export and the panel\'s hooks give the schedule back within 50 ms', async (t) => {
      for (const name of SCENARIOS.filter((n) => !ran.includes(n))) await (await start(name)).finish();
      const har = await b.request({ type: 'agui-inspector/export', tabId });
      const out = await cliJson(har);
      const zeros: string[] = [];
      for (const name of SCENARIOS) {
        const x = out.exchanges.find((e) => e.runs[0]?.runId === `run-${name}`);
        assert.ok(x?.timing, `${name}: the export's exchange has a timing`);
        assert.equal(x.timing.source, 'chunks');
        const zero = await zeroOf(`run-${name}`);
        zeros.push(`${name} ${zero.toFixed(1)}`);
        assertSchedule(name, zero, fromCli(x.timing), 'CLI');
        const h = await hooksOf(`run-${name}`);
        assertSchedule(name, zero, fromPanel(h), 'panel');
        const { types, at } = schedule(name, zero);
        near(num(h.rowFirstContentMs), at[types.indexOf('TEXT_MESSAGE_CONTENT')]!, `${name}: the row's TTFT`);
        if (name === 'slow-tool') assert.equal((x.timing.toolCalls as ToolSpan[])[0]!.side, 'backend');
        const buffering = x.timing.buffering;
        if (name === 'buffered') {
          const events = findScenario(name)!.events(demoInput());
          assert.equal(buffering?.suspected, true, 'buffering suspected');
          assert.equal(buffering.producedOverMs, (events.length - 1) * demoSchedule.producedEveryMs);
          assert.ok(buffering.arrivedWithinMs <= WITHIN_MS, `arrived within ${buffering.arrivedWithinMs} ms`);
          const { bufferingSuspected, producedOverMs, arrivedWithinMs } = h.summary;
          assert.deepEqual({ bufferingSuspected, producedOverMs: num(producedOverMs), arrivedWithinMs: num(arrivedWithinMs) },
            { bufferingSuspected: 'true', producedOverMs: buffering.producedOverMs, arrivedWithinMs: buffering.arrivedWithinMs }, "the panel's summary says buffered, with the export's figures");
        } else {
          assert.equal(buffering, null, `${name}: no producer timestamps`);
          assert.deepEqual([h.summary.bufferingSuspected, h.summary.producedOverMs, h.summary.arrivedWithinMs], [undefined, undefined, undefined], `${name}: the panel's summary has no buffering hooks`);
        }
      }
      t.diagnostic(`the agent began answering, ms after the request: ${zeros.join(', ')}`);
      t.diagnostic(`ms off the schedule: ${deltas.join(', ')}`);
    });
  });
}

