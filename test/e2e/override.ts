/**
 * "Answer from this recording…" (issue #36), alike in Chromium and Firefox: the built extension, the demo agent on 127.0.0.1 and
 * its page running the official @ag-ui/client. An override armed through the panel page answers the page's
 * next `chat` in the page itself: the client gets the recorded events with its own ids and completes, and the
 * agent never hears of it. A fault cuts the answer short; disarmed, the agent answers again; the page's own
 * window messages arm nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import type { DemoRunOptions, DemoRunResult } from '../../demo/page/main.ts';
import { HANDSHAKE, type SessionView } from '../../src/messages.ts';
import { buildExtension, launchWith, sleep, until, type ExtensionBrowser, type Target } from './browsers.ts';
import { demoAndPanel, panelPage, type AnyPage } from './demo-panel.ts';

type ClosablePage = AnyPage & { close(): Promise<unknown> };

export function overrideTests(target: Target): void {
  describe(`answer from this recording, through the panel (${target})`, () => {
    let agent: DemoAgent;
    let b: ExtensionBrowser & { newPage(): Promise<unknown> };
    let page: AnyPage;
    let panel: ClosablePage;
    let tabId: number;
    const seen: { path: string; body: string }[] = [];
    let runs = 0;

    const session = async (): Promise<SessionView> => (await b.request({ type: 'agui-inspector/session', tabId }))!;

    /** Runs `chat` in the page: what its client got, once the worker holds the settled exchange. */
    const chat = async (opts: DemoRunOptions = {}): Promise<DemoRunResult> => {
      const n = runs++;
      const held = (await session()).exchanges.length;
      const result = await page.evaluate(([o]) => window.demo.run('chat', o), [{ threadId: `thread-${n}`, delay: 2, ...opts }] as const);
      await until('the exchange settled in the worker', async () => {
        const xs = (await session()).exchanges;
        return xs.length > held && xs.at(-1)!.outcome !== 'pending' && xs.at(-1)!.report !== null;
      });
      return result;
    };

    const hook = (h: string, name: string): Promise<string | null> =>
      panel.evaluate(([h, n]) => document.querySelector(`[data-testid=${h}]`)?.getAttribute(`data-${n}`) ?? null, [h, name] as const);
    const click = (h: string): Promise<unknown> => until(`${h} to click`, () => panel.evaluate((h) => {
      const el = document.querySelector<HTMLButtonElement | HTMLInputElement>(`[data-testid=${h}]`);
      if (!el || el.disabled) return false;
      el.click();
      return true;
    }, h));
    const fill = (h: string, value: string): Promise<void> => panel.evaluate(([h, v]) => {
      const el = document.querySelector<HTMLInputElement>(`[data-testid=${h}]`)!;
      el.value = v;
      el.dispatchEvent(new Event('input', { bubbles: true }));
    }, [h, value] as const);

    /** Arms through the panel's form on the exchange at row `at`: `every` request or the next only, with `faults`. */
    const onInput = (at: number): Promise<unknown> => until(`row ${at} selected, on Input`, () => panel.evaluate((i) => {
      const row = [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')].at(i);
      if (!row) return false;
      if (row.getAttribute('aria-selected') !== 'true') row.click();
      document.querySelector<HTMLElement>('[data-testid=tab-input]')?.click();
      return row.getAttribute('aria-selected') === 'true' && document.querySelector('[data-testid=override-open]') !== null;
    }, at));

    const arm = async (at: number, o: { every: boolean; faults?: string; pinned?: boolean; method?: string; url?: string }): Promise<void> => {
      await onInput(at);
      await click('override-open');
      if (o.method !== undefined) await fill('override-method', o.method);
      if (o.url !== undefined) await fill('override-url', o.url);
      await click(o.every ? 'override-every' : 'override-once');
      await click('override-pace-10');
      await fill('override-faults', o.faults ?? '');
      if (o.pinned) await click('override-pinned');
      await click('override-arm');
      await until('the banner', () => hook('override-banner', 'answered').then((v) => v === '0'));
    };

    before(async () => {
      agent = await startDemoAgent({ port: 0, delayMs: 2, onRequest: (r) => seen.push({ path: r.path, body: r.body }) });
      b = await launchWith(target, await buildExtension(target));
      ({ page, panel, tabId } = await demoAndPanel<ClosablePage>(target, b, agent.url));
    });

    after(async () => {
      await b?.close();
      await agent?.close();
    });

    test('armed for every request: chat gets the recorded events with its own ids and completes, the agent hears nothing, the row and the HAR say so', async () => {
      const recorded = await chat();
      assert.equal(recorded.error, undefined);
      assert.equal(seen.length, 1);
      await arm(0, { every: true });

      const answered = await chat();
      assert.equal(answered.error, undefined, 'the client completed');
      assert.equal(seen.length, 1, 'the agent got no request');
      const type = (e: unknown) => (e as { type: string }).type;
      assert.deepEqual(answered.events.map(type), recorded.events.map(type), 'exactly the recorded events');
      const xs = (await session()).exchanges;
      const x = xs.at(-1)!;
      const sent = JSON.parse(x.request.body!) as { threadId: string; runId: string };
      const started = answered.events.find((e) => type(e) === 'RUN_STARTED') as { threadId: string; runId: string };
      assert.deepEqual([started.threadId, started.runId], [sent.threadId, sent.runId], 'the request\'s own ids');
      assert.equal(sent.threadId, 'thread-1');
      assert.equal(x.report?.verdict, 'completed');
      assert.deepEqual(x.override, { from: xs[0]!.id, pace: 10, idsRewritten: true, faults: [] });
      await until('the answered row', () => panel.evaluate((id) => document.querySelector<HTMLElement>(`[data-testid=exchange-row][data-id="${id}"]`)?.dataset.origin === 'override', x.id));
      await until('answered 1 in the banner', () => hook('override-banner', 'answered').then((v) => v === '1'));

      const har = JSON.parse(await b.request({ type: 'agui-inspector/export', tabId, exchangeIds: [x.id] })) as { log: { entries: { _agui: { override?: unknown } }[] } };
      assert.deepEqual(har.log.entries[0]!._agui.override, { from: xs[0]!.id, pace: 10, idsRewritten: true, faults: [] });

      await click('override-disarm');
      await until('no banner', () => hook('override-banner', 'answered').then((v) => v === null));
      assert.equal(await b.request({ type: 'agui-inspector/override-status', tabId }), null);
      assert.equal((await chat()).error, undefined);
      assert.equal(seen.length, 2, 'disarmed: the agent answers again');
    });

    test('cut@3: the client gets events 0 to 3 and the report says lifecycle/truncated; error@terminal: the client gets a RUN_ERROR; armed for the next only, the one after reaches the agent', async () => {
      const type = (e: unknown) => (e as { type: string }).type;
      await arm(0, { every: false, faults: 'cut@3' });
      const cut = await chat();
      assert.equal(seen.length, 2, 'the agent got no request');
      const recorded = (await session()).exchanges[0]!.events.map((e) => e.type);
      assert.deepEqual(cut.events.map(type), recorded.slice(0, 4), 'the events up to the cut');
      // Measured: a body that simply ends is no error to @ag-ui/client 1.0.0 (as with `replay --fault cut@3`); the analysis says it.
      assert.equal(cut.error, undefined);
      const x = (await session()).exchanges.at(-1)!;
      assert.deepEqual(x.override?.faults, ['cut@3']);
      assert.equal(x.report?.verdict, 'failed');
      assert.ok(x.report?.findings.some((f) => f.rule === 'lifecycle/truncated'), x.report?.findings.map((f) => f.rule).join(', '));
      await until('no banner once spent', () => hook('override-banner', 'answered').then((v) => v === null));

      await arm(0, { every: false, faults: 'error@terminal' });
      const errored = await chat();
      const last = errored.events.at(-1) as { type: string; message: string };
      assert.equal(last.type, 'RUN_ERROR', 'the client got the injected RUN_ERROR in place of RUN_FINISHED');
      assert.match(last.message, /injected by AG-UI Inspector/);
      assert.equal(seen.length, 2, 'the agent got no request');
      assert.deepEqual((await session()).exchanges.at(-1)!.override?.faults, ['error@terminal']);
      await until('no banner once spent', () => hook('override-banner', 'answered').then((v) => v === null));

      assert.equal((await chat()).error, undefined);
      assert.equal(seen.length, 3, 'the next request reaches the agent');
    });

    test('a hostile page\'s window messages of any arm-like shape arm nothing', async () => {
      const url = `${agent.url}/agent`;
      await page.evaluate(([url, handshake]) => {
        const shapes: unknown[] = [
          { override: { method: 'POST', url } },
          { type: 'agui-inspector/override-arm', tabId: 0, exchangeId: 'x', method: 'POST', url, once: false, pace: 1, keepIds: false, faults: [], pinned: true },
          { type: 'override', match: { method: 'POST', url } },
          { answered: 1, answer: { by: 1, status: 200, contentType: 'text/event-stream', headers: [], chunks: [] } },
        ];
        for (const s of shapes) window.postMessage(s, '*');
        // A second handshake, its port carrying the same shapes: the relay takes only the first.
        const channel = new MessageChannel();
        window.postMessage({ [handshake]: true }, '*', [channel.port2]);
        for (const s of shapes) channel.port1.postMessage(s);
      }, [url, HANDSHAKE] as const);
      assert.equal(await b.request({ type: 'agui-inspector/override-status', tabId }), null);
      assert.equal((await chat()).error, undefined);
      assert.equal(seen.length, 4, 'the agent answered');
      assert.equal((await session()).exchanges.at(-1)!.override, undefined);
    });

    test('dropped once the tab\'s last panel closes, unless pinned', async () => {
      const status = () => b.request({ type: 'agui-inspector/override-status', tabId });
      await arm(0, { every: true });
      const other = await panelPage<ClosablePage>(target, b, tabId);
      await until('the banner in the other panel too', () => other.evaluate(() => document.querySelector('[data-testid=override-banner]') !== null, null));
      await panel.close();
      await sleep(500);
      assert.notEqual(await status(), null, 'another panel of the tab is open');
      await other.close();
      await until('dropped with the last panel', async () => (await status()) === null);

      panel = await panelPage<ClosablePage>(target, b, tabId);
      await arm(0, { every: true, pinned: true });
      await panel.close();
      await sleep(500);
      assert.equal((await status())?.pinned, true, 'pinned: still armed without a panel');
      const held = seen.length;
      assert.equal((await chat()).error, undefined);
      assert.equal(seen.length, held, 'and still answering');
      await b.request({ type: 'agui-inspector/override-disarm', tabId });
      assert.equal((await chat()).error, undefined);
      assert.equal(seen.length, held + 1, 'disarmed: the agent answers');
    });

    test('an XMLHttpRequest is answered too: its readyStates, status, headers and text are the recording\'s, in the request\'s ids, captured as xhr', async () => {
      panel = await panelPage<ClosablePage>(target, b, tabId);
      const first = (await session()).exchanges[0]!;
      assert.deepEqual(await b.request({ type: 'agui-inspector/override-arm', tabId, exchangeId: first.id, method: 'POST', url: first.url, once: false, pace: 'max', keepIds: false, faults: [], pinned: false }), { ok: true });
      await until('the banner', () => hook('override-banner', 'answered').then((v) => v === '0'));
      const held = seen.length;
      const count = (await session()).exchanges.length;
      const body = JSON.stringify({ ...JSON.parse(first.request.body!), threadId: 'thread-xhr', runId: 'run-xhr' });
      const got = await page.evaluate(([url, body]) => new Promise<{ states: number[]; status: number; type: string | null; text: string; loads: number }>((resolve) => {
        const xhr = new XMLHttpRequest();
        const states: number[] = [];
        let loads = 0;
        xhr.onreadystatechange = () => void states.push(xhr.readyState);
        xhr.addEventListener('load', () => loads++);
        xhr.addEventListener('loadend', () => resolve({ states, status: xhr.status, type: xhr.getResponseHeader('Content-Type'), text: xhr.responseText, loads }));
        xhr.open('POST', url);
        xhr.setRequestHeader('content-type', 'application/json');
        xhr.send(body);
      }), [first.url, body] as const);
      assert.equal(seen.length, held, 'the agent got no request');
      assert.equal(got.status, 200);
      assert.equal(got.type, first.response!.contentType);
      assert.equal(got.loads, 1);
      assert.deepEqual([...new Set(got.states)], [1, 2, 3, 4], 'opened, headers, loading, done, as the network would');
      const recorded = (await session()).exchanges[0]!.events.map((e) => e.type);
      const events = got.text.split('\n\n').filter((f) => f.startsWith('data: ')).map((f) => JSON.parse(f.slice(6)) as { type: string; threadId?: string; runId?: string });
      assert.deepEqual(events.map((e) => e.type), recorded);
      assert.deepEqual([events[0]!.threadId, events[0]!.runId], ['thread-xhr', 'run-xhr']);
      await until('the answered xhr in the worker', async () => {
        const xs = (await session()).exchanges;
        return xs.length > count && xs.at(-1)!.outcome === 'complete' && xs.at(-1)!.report !== null;
      });
      const x = (await session()).exchanges.at(-1)!;
      assert.equal(x.api, 'xhr');
      assert.deepEqual(x.override, { from: first.id, pace: 'max', idsRewritten: true, faults: [] });
      assert.equal(x.report?.verdict, 'completed');
      await b.request({ type: 'agui-inspector/override-disarm', tabId });
    });

    test('the same exchange answered through fetch, XHR and EventSource: a GET pattern, previewed as the page matches it, the recorded events each way, none reaching the agent', async () => {
      const first = (await session()).exchanges[0]!;
      const recorded = first.events.map((e) => e.type);
      const held = seen.length;
      const count = (await session()).exchanges.length;
      // The form's preview, by the rule the page answers by: the session's chats are POSTs; a pattern no request URL can have is refused.
      await onInput(0);
      await click('override-open');
      await fill('override-method', 'POST');
      await fill('override-url', `${first.url}*`);
      assert.equal(Number(await hook('override-preview', 'count')), (await session()).exchanges.filter((x) => x.method === 'POST' && x.url.startsWith(first.url)).length);
      await fill('override-url', '/agent*');
      await until('the pattern refused', () => panel.evaluate(() => document.querySelector('[data-testid=override-url-error]') !== null && document.querySelector<HTMLButtonElement>('[data-testid=override-arm]')!.disabled, null));
      await click('override-open');
      await arm(0, { every: true, method: 'GET', url: `${first.url}?via=*` });

      type Frame = { type: string; threadId?: string; runId?: string };
      const got = await page.evaluate(async (base) => {
        const framesOf = (text: string): Frame[] => text.split('\n\n').filter((f) => f.startsWith('data: ')).map((f) => JSON.parse(f.slice(6)) as Frame);
        const viaFetch = framesOf(await (await fetch(`${base}?via=fetch`)).text());
        const viaXhr = await new Promise<Frame[]>((resolve) => {
          const xhr = new XMLHttpRequest();
          xhr.open('GET', `${base}?via=xhr`);
          xhr.onload = () => resolve(framesOf(xhr.responseText));
          xhr.send();
        });
        const viaEventSource = await new Promise<{ events: Frame[]; opened: number[]; ids: string[]; isEventSource: boolean; closed: number }>((resolve, reject) => {
          const es = new EventSource(`${base}?via=es`);
          const events: Frame[] = [];
          const opened: number[] = [];
          const ids: string[] = [];
          es.addEventListener('open', () => opened.push(es.readyState));
          es.onmessage = (ev: MessageEvent<string>) => {
            const e = JSON.parse(ev.data) as Frame;
            events.push(e);
            ids.push(ev.lastEventId);
            if (e.type !== 'RUN_FINISHED') return;
            es.close();
            resolve({ events, opened, ids, isEventSource: es instanceof EventSource && Object.getPrototypeOf(es) === EventSource.prototype, closed: es.readyState });
          };
          es.onerror = () => reject(new Error(`error, readyState ${es.readyState}`));
        });
        return { viaFetch, viaXhr, viaEventSource };
      }, first.url);
      assert.equal(seen.length, held, 'the agent got no request');
      assert.deepEqual(got.viaFetch.map((e) => e.type), recorded, 'fetch: the recorded events');
      assert.deepEqual(got.viaXhr, got.viaFetch, 'XHR: the same');
      assert.deepEqual(got.viaEventSource.events, got.viaFetch, 'EventSource: the same, one message each');
      assert.deepEqual(got.viaEventSource.opened, [1]);
      assert.equal(got.viaEventSource.isEventSource, true);
      assert.equal(got.viaEventSource.closed, 2);
      await until('the three answered exchanges in the worker', async () => {
        const xs = (await session()).exchanges;
        return xs.length >= count + 3 && xs.slice(count).every((x) => x.outcome !== 'pending');
      });
      const xs = (await session()).exchanges.slice(count);
      assert.deepEqual(xs.map((x) => x.api), ['fetch', 'xhr', 'eventsource']);
      assert.deepEqual(xs.map((x) => x.url.split('?via=')[1]), ['fetch', 'xhr', 'es']);
      for (const x of xs) {
        assert.deepEqual(x.override, { from: first.id, pace: 10, idsRewritten: false, faults: [] }, `${x.api}: a GET carries no ids to rewrite to`);
        assert.deepEqual(x.events.map((e) => e.type), recorded, `${x.api}: captured as answered`);
      }
      await until('each answered row', () => panel.evaluate((ids) => ids.every((id) => document.querySelector<HTMLElement>(`[data-testid=exchange-row][data-id="${id}"]`)?.dataset.origin === 'override'), xs.map((x) => x.id)));
      await click('override-disarm');
      await until('no banner', () => hook('override-banner', 'answered').then((v) => v === null));
    });

    test('edited events: judged while typed as the analyzer would judge the stream, a malformed one reported at its index, then answered and reported there again', async () => {
      const first = (await session()).exchanges[0]!;
      const held = seen.length;
      await onInput(0);
      await click('override-open');
      await click('override-edit');
      await until('the events in the editor', () => panel.evaluate(() => (document.querySelector<HTMLTextAreaElement>('[data-testid=override-events]')?.value ?? '') !== '', null));
      const lines = (await panel.evaluate(() => document.querySelector<HTMLTextAreaElement>('[data-testid=override-events]')!.value, null)).split('\n');
      assert.deepEqual(lines.map((l) => (JSON.parse(l) as { type: string }).type), first.events.map((e) => e.type), 'one recorded event a line');
      await until('the recording judged', () => hook('override-events-findings', 'verdict').then((v) => v === 'completed'));
      const k = lines.findIndex((l) => (JSON.parse(l) as { type: string }).type === 'TEXT_MESSAGE_CONTENT');
      assert.ok(k > 0);
      lines[k] = JSON.stringify({ ...(JSON.parse(lines[k]!) as object), delta: 42 });
      await fill('override-events', lines.join('\n'));
      await until('the edit judged failed', () => hook('override-events-findings', 'verdict').then((v) => v === 'failed'));
      const shown = await panel.evaluate(() => [...document.querySelectorAll<HTMLElement>('[data-testid=override-event-finding]')].map((f) => ({ rule: f.dataset.rule, event: f.dataset.event, line: f.dataset.line })), null);
      assert.ok(shown.some((f) => f.rule === 'schema/malformed' && f.event === String(k) && f.line === String(k + 1)), JSON.stringify(shown));
      await click('override-once');
      await click('override-arm');
      await until('the banner', () => hook('override-banner', 'answered').then((v) => v === '0'));

      const answered = await chat();
      assert.equal(seen.length, held, 'the agent got no request');
      const x = (await session()).exchanges.at(-1)!;
      assert.ok(x.override, 'answered by the override');
      assert.deepEqual(x.events.map((e) => e.type), first.events.map((e) => e.type), 'the edited events, as many as recorded');
      assert.equal(x.report?.verdict, 'failed');
      assert.ok(x.report?.findings.some((f) => f.rule === 'schema/malformed' && f.event === k), x.report?.findings.map((f) => `${f.rule}@${f.event}`).join(', '));
      // What the official client does with it, measured: recorded as it happened.
      assert.ok(answered.error !== undefined || answered.events.length <= k, `the client stopped at or before the malformed event (${answered.error ?? answered.events.length})`);
      await until('no banner once spent', () => hook('override-banner', 'answered').then((v) => v === null));
    });

    test('at ×1 each event reaches the page within 50 ms of its recorded time; a stall:1200@3 shows in the timing within 50 ms of its length', async () => {
      // A hidden tab's timers are throttled (measured in Firefox: a chunk a second), and so the answer's pace: the page in view, as an inspected tab is.
      await (page as unknown as { bringToFront(): Promise<void> }).bringToFront();
      await chat({ delay: 60 });
      const rec = (await session()).exchanges.at(-1)!;
      // The demo client puts its delay in the URL: a pattern answers the chat whatever it asks.
      const armAt = (faults: string[]) => b.request({ type: 'agui-inspector/override-arm', tabId, exchangeId: rec.id, method: 'POST', url: `${rec.url.split('?')[0]}*`, once: true, pace: 1, keepIds: false, faults, pinned: false });
      assert.deepEqual(await armAt([]), { ok: true });
      const held = seen.length;
      // Timed from the Response, as the answer's clock starts when the worker's answer reached the page.
      const times = await page.evaluate(async ([url, body]) => {
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        const t0 = performance.now();
        const reader = res.body!.getReader();
        const decoder = new TextDecoder();
        const at: number[] = [];
        let text = '';
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return at;
          text += decoder.decode(value, { stream: true });
          const frames = text.split('\n\n').length - 1;
          while (at.length < frames) at.push(performance.now() - t0);
        }
      }, [rec.url, JSON.stringify({ ...(JSON.parse(rec.request.body!) as object), runId: 'run-paced' })] as const);
      assert.equal(seen.length, held, 'the agent got no request');
      const recorded = rec.events.map((e) => e.time);
      assert.equal(times.length, recorded.length);
      const off = times.map((t, i) => Math.round(t - recorded[i]!));
      assert.ok(off.every((d) => Math.abs(d) <= 50), `each event within 50 ms of its recorded time: ${off.join(', ')} ms off`);
      assert.ok(recorded.at(-1)! - recorded[0]! > 300, 'a recording whose times are worth measuring');

      await until('the paced exchange in the worker', async () => (await session()).exchanges.some((x) => x.request.body?.includes('run-paced') && x.outcome !== 'pending'));
      assert.deepEqual(await armAt(['stall:1200@3']), { ok: true });
      assert.equal((await chat()).error, undefined);
      const x = (await session()).exchanges.at(-1)!;
      assert.deepEqual(x.override?.faults, ['stall:1200@3']);
      const timing = (await b.request({ type: 'agui-inspector/detail', tabId, exchangeId: x.id, part: 'timing' })) as { stalls: { afterEvent: number; ms: number }[] | null };
      const stall = timing.stalls?.find((s) => s.afterEvent === 2);
      assert.ok(stall, JSON.stringify(timing.stalls));
      const expected = recorded[3]! - recorded[2]! + 1200;
      assert.ok(Math.abs(stall.ms - expected) <= 50, `the stall ${stall.ms} ms, ${expected} expected`);
      assert.equal(seen.length, held, 'the agent got no request');
    });

    test('an imported recording answers the inspected tab: the panel shows the file, arms from its exchange with its bytes, chat gets its events', async () => {
      const first = (await session()).exchanges[0]!;
      const har = await b.request({ type: 'agui-inspector/export', tabId, exchangeIds: [first.id] });
      await panel.evaluate((text) => window.__aguiPanel!.openFile(new TextEncoder().encode(text), 'recording.har'), har);
      await until('the file shown', () => hook('status', 'status').then((v) => v === 'file'));
      const held = seen.length;
      await arm(0, { every: false });
      const answered = await chat();
      assert.equal(answered.error, undefined, 'the client completed');
      assert.equal(seen.length, held, 'the agent got no request');
      const type = (e: unknown) => (e as { type: string }).type;
      assert.deepEqual(answered.events.map(type), first.events.map((e) => e.type), 'the file\'s recorded events');
      const x = (await session()).exchanges.at(-1)!;
      const sent = JSON.parse(x.request.body!) as { threadId: string; runId: string };
      const started = answered.events.find((e) => type(e) === 'RUN_STARTED') as { threadId: string; runId: string };
      assert.deepEqual([started.threadId, started.runId], [sent.threadId, sent.runId], 'the request\'s own ids');
      assert.deepEqual(x.override, { from: 'file:0', pace: 10, idsRewritten: true, faults: [] });
      await until('no banner once spent', () => hook('override-banner', 'answered').then((v) => v === null));
      assert.equal((await chat()).error, undefined);
      assert.equal(seen.length, held + 1, 'the next request reaches the agent');
      await click('back-live');
      await until('live again', () => hook('status', 'status').then((v) => v === 'live'));
    });
  });
}
