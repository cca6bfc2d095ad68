/**
 * Acting on an exchange through the panel, alike in Chromium and Firefox: the built extension, the demo agent on
 * 127.0.0.1 and its page running the official @ag-ui/client, which sends an `Authorization` header and carries a
 * session cookie. The panel page, opened on the tab, edits and resends, composes a resume and a tool result; the
 * agent says what each request really carried.
 */
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { startDemoAgent, type DemoAgent } from '../../demo/agent.ts';
import type { DemoRunOptions } from '../../demo/page/main.ts';
import { PANEL_PORT, type SessionView } from '../../src/messages.ts';
import { ROOT, buildExtension, launchWith, poll, sleep, until, type ExtensionBrowser, type Target } from './browsers.ts';
import { demoAndPanel, type AnyPage as DemoPage } from './demo-panel.ts';

/** What both drivers' pages do alike. */
interface AnyPage extends DemoPage {
  reload(): Promise<unknown>;
  screenshot(o: { path: string }): Promise<unknown>;
}

/** `AGUI_SCREENSHOTS=1` saves the pictures of the editor in docs/debugging.md as the tests see it (Chromium). */
const picture = async (target: Target, p: AnyPage, name: string): Promise<void> => {
  if (process.env.AGUI_SCREENSHOTS === '1' && target === 'chrome') await p.screenshot({ path: `${ROOT}docs/screenshots/${name}.png` });
};

const TOKEN = 'Bearer token-SECRET-4f1c9a';
const COOKIE = 'cookie-SECRET-77d0e2';
const EDITED = 'Edited in the Inspector: what can you do?';

export function resendTests(target: Target): void {
  describe(`edit and resend, resume and tool result through the panel (${target})`, () => {
    let agent: DemoAgent;
    let b: ExtensionBrowser & { newPage(): Promise<unknown> };
    let page: AnyPage;
    let panel: AnyPage;
    let tabId: number;
    const seen: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];
    let runs = 0;

    const session = async (): Promise<SessionView> => (await b.request({ type: 'agui-inspector/session', tabId }))!;

    /** Runs a demo scenario in the page; done once the worker holds its exchange, which arrives after the page's client is. */
    const run = async (scenario: string, opts: DemoRunOptions = {}): Promise<void> => {
      const n = runs++;
      const held = (await session()).exchanges.length;
      const result = await page.evaluate(([s, o]) => window.demo.run(s, o), [scenario, { threadId: `thread-${scenario}-${n}`, delay: 2, headers: { Authorization: TOKEN }, ...opts }] as const);
      assert.equal(result.error, undefined, `${scenario} ran in the page`);
      await until(`${scenario}'s exchange in the worker`, async () => (await session()).exchanges.length > held);
    };

    /** Waits until the panel lists `count` exchanges, none pending, and clicks the `at`-th. */
    const rows = async (count: number, at: number): Promise<void> => {
      await until(`${count} settled rows in the panel`, () => panel.evaluate((n) => {
        const all = [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')];
        return all.length === n && all.every((r) => r.dataset.verdict !== 'pending' && r.dataset.verdict !== 'unanalysed');
      }, count), 20_000);
      // Clicked until it shows as selected: a click while the list re-renders can land on the row it replaces.
      await until(`row ${at} selected`, () => panel.evaluate((i) => {
        const row = [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')].at(i)!;
        if (row.getAttribute('aria-selected') !== 'true') row.click();
        document.querySelector<HTMLElement>('[data-testid=tab-input]')!.click();
        return row.getAttribute('aria-selected') === 'true' && document.querySelector(`[data-testid=tab-input][aria-selected=true]`) !== null;
      }, at));
    };

    /** Clicks a test hook once it is there. */
    const click = (hook: string): Promise<unknown> => until(`${hook} to click`, () => panel.evaluate((h) => {
      const el = document.querySelector<HTMLButtonElement>(`[data-testid=${h}]`);
      if (!el || el.disabled) return false;
      el.click();
      return true;
    }, hook));

    /** A hook's data attribute, once the hook is there and `ok` accepts it. */
    const attr = (hook: string, name: string, ok: (v: string) => boolean = () => true): Promise<string> => until(`${hook}[data-${name}]`, async () => {
      const v = await panel.evaluate(([h, n]) => document.querySelector<HTMLElement>(`[data-testid=${h}]`)?.getAttribute(`data-${n}`) ?? null, [hook, name] as const);
      return v !== null && ok(v) ? v : null;
    });

    const editor = (): Promise<string> => until('the editor', () => panel.evaluate(() => document.querySelector<HTMLTextAreaElement>('[data-testid=resend-editor]')?.value ?? null, null));
    const type = (text: string): Promise<void> => panel.evaluate((t) => {
      const el = document.querySelector<HTMLTextAreaElement>('[data-testid=resend-editor]')!;
      el.value = t;
      el.dispatchEvent(new Event('input', { bubbles: true }));
    }, text);

    /** Sends what the editor holds; the new exchange's id, once the panel confirms it and selects it. */
    const send = async (): Promise<string> => {
      const before = await panel.evaluate(() => document.querySelector('[data-testid=resend-sent]')?.getAttribute('data-exchange') ?? null, null);
      await click('resend-send');
      const id = await attr('resend-sent', 'exchange', (v) => v !== before);
      await until('the resend selected', () => panel.evaluate((x) => document.querySelector<HTMLElement>(`[data-testid=exchange-row][data-id="${x}"]`)?.getAttribute('aria-selected') === 'true', id));
      return id;
    };

    before(async () => {
      agent = await startDemoAgent({ port: 0, delayMs: 2, onRequest: (r) => seen.push(r) });
      b = await launchWith(target, await buildExtension(target));
      ({ page, panel, tabId } = await demoAndPanel<AnyPage>(target, b, agent.url));
      await page.evaluate((c) => void (document.cookie = `session=${c}; path=/`), COOKIE);
      // Everything the worker tells a subscribed panel, kept to be searched for the header's value.
      await panel.evaluate(([name, tab]) => {
        const api = (globalThis as unknown as { browser?: typeof chrome }).browser ?? chrome;
        const got: string[] = ((globalThis as unknown as { told: string[] }).told = []);
        const port = api.runtime.connect({ name });
        port.onMessage.addListener((m: unknown) => void got.push(JSON.stringify(m)));
        port.postMessage({ type: 'subscribe', tabId: tab });
      }, [PANEL_PORT, tabId] as const);
    });

    after(async () => {
      await b?.close();
      await agent?.close();
    });

    test('the edited resend reaches the agent with the edited body, the app\'s Authorization and cookie; its answer is captured, marked and selected', async () => {
      await run('chat');
      await rows(1, 0);
      await click('resend');
      const names = JSON.parse(await attr('resend-headers', 'names', (v) => v !== '[]')) as string[];
      assert.ok(names.includes('authorization') && names.includes('content-type'), `names only: ${names.join(', ')}`);
      const original = JSON.parse(await editor()) as { runId: string; messages: { content: string }[] };
      const sentRunId = JSON.parse(seen.at(-1)!.body).runId as string;
      assert.notEqual(original.runId, sentRunId, 'a fresh runId');
      assert.equal(await attr('resend-findings', 'verdict', (v) => v !== 'judging'), 'valid');
      original.messages[0]!.content = EDITED;
      await type('{ not json');
      // Waited for by value: until the panel has judged the new text, the attribute still says the last verdict.
      assert.equal(await attr('resend-findings', 'verdict', (v) => v === 'unparsable'), 'unparsable');
      assert.equal(await panel.evaluate(() => document.querySelector<HTMLButtonElement>('[data-testid=resend-send]')!.disabled, null), true);
      await type(JSON.stringify(original, null, 2));
      assert.equal(await attr('resend-findings', 'verdict', (v) => v === 'valid'), 'valid');
      await picture(target, panel, 'resend-editor');
      const count = seen.length;
      const id = await send();

      assert.equal(seen.length, count + 1, 'one request');
      const got = seen.at(-1)!;
      assert.equal(got.path, '/agent/chat');
      assert.deepEqual(JSON.parse(got.body), original, 'the edited body, byte for byte as typed');
      assert.equal(got.headers.authorization, TOKEN);
      assert.match(got.headers.cookie ?? '', new RegExp(`session=${COOKIE}`));
      const s = await session();
      assert.equal(s.exchanges.length, 2);
      assert.equal(s.exchanges[1]!.id, id);
      assert.equal(s.exchanges[1]!.resentFrom, s.exchanges[0]!.id);
      await until('the resend answered', async () => (await session()).exchanges[1]?.outcome === 'complete');
      assert.equal((await session()).exchanges[1]!.report?.verdict, 'completed');
      await rows(2, 1);
      const origins = await panel.evaluate(() => [...document.querySelectorAll<HTMLElement>('[data-testid=exchange-row]')].map((r) => r.dataset.origin), null);
      assert.deepEqual(origins, ['page', 'inspector']);
    });

    test('the header\'s value is in no worker message, no IndexedDB record and no export', async () => {
      const told = await panel.evaluate(() => (globalThis as unknown as { told: string[] }).told.join('\n'), null);
      const stored = await panel.evaluate(async () => {
        const out: string[] = [];
        for (const { name } of await indexedDB.databases()) {
          const db = await new Promise<IDBDatabase>((resolve, reject) => {
            const r = indexedDB.open(name!);
            r.onsuccess = () => resolve(r.result);
            r.onerror = () => reject(r.error);
          });
          for (const store of db.objectStoreNames) {
            const all = await new Promise<unknown[]>((resolve, reject) => {
              const r = db.transaction(store).objectStore(store).getAll();
              r.onsuccess = () => resolve(r.result);
              r.onerror = () => reject(r.error);
            });
            // Chunk bytes searched as text too: a value could hide in a captured body.
            out.push(JSON.stringify(all, (_, v: unknown) => (v instanceof Uint8Array ? new TextDecoder().decode(v) : v)));
          }
          db.close();
        }
        return out.join('\n');
      }, null);
      const s = await session();
      const details = await Promise.all(s.exchanges.flatMap((x) => (['report', 'input', 'runs', 'conversation'] as const).map((part) => b.request({ type: 'agui-inspector/detail', tabId, exchangeId: x.id, part }))));
      const exports = await Promise.all([b.request({ type: 'agui-inspector/export', tabId }), b.request({ type: 'agui-inspector/export' })]);
      const places = { told, stored, session: JSON.stringify(s), details: JSON.stringify(details), exports: exports.join('\n') };
      for (const [where, text] of Object.entries(places)) {
        // The search would find the secret if it were there: the edited question is, in every place.
        assert.ok(text.includes(EDITED) || where === 'details', `${where} holds the capture`);
        assert.ok(!text.includes('token-SECRET'), `the Authorization value is not in ${where}`);
        assert.ok(!text.includes(COOKIE), `the cookie is not in ${where}`);
      }
      assert.ok(stored.length > 0 && told.length > 0);
    });

    test('after a reload the panel says the headers are gone, and a resend goes without them from the page now in the tab', async () => {
      await page.reload();
      await poll(page as never, () => typeof window.demo?.run === 'function');
      await (page as unknown as { evaluate(s: string): Promise<unknown> }).evaluate('globalThis.__name = (f) => f');
      await rows(2, 0);
      await click('resend');
      assert.equal(await attr('resend-headers', 'live', (v) => v === 'false'), 'false');
      assert.equal(await attr('resend-headers', 'names'), '[]');
      assert.match(await panel.evaluate(() => document.querySelector('[data-testid=resend-headers]')!.textContent ?? '', null), /gone/);
      assert.equal(await attr('resend-findings', 'verdict', (v) => v !== 'judging'), 'valid');
      await send();
      const got = seen.at(-1)!;
      assert.equal(got.headers.authorization, undefined, 'the token went with the old document');
      assert.match(got.headers.cookie ?? '', new RegExp(`session=${COOKIE}`), 'cookies are the browser\'s, still sent');
      assert.equal((await session()).exchanges.at(-1)!.resentFrom, (await session()).exchanges[0]!.id);
    });

    test('a composed resume covers both interrupts, shows one left uncovered before sending, and runs to completion', async () => {
      await run('interrupt');
      const n = (await session()).exchanges.length;
      await rows(n, n - 1);
      await click('compose-resume');
      assert.deepEqual(JSON.parse(await attr('resume-coverage', 'uncovered')), []);
      const body = JSON.parse(await editor()) as { resume: { interruptId: string; payload: unknown }[]; messages: { role: string }[]; state: unknown; runId: string; threadId: string };
      assert.deepEqual(body.resume.map((r) => r.interruptId), ['approve-send', 'choose-format']);
      assert.ok(body.messages.some((m) => m.role === 'assistant'), 'the conversation as the consumer holds it');
      assert.deepEqual((body.state as { report: unknown }).report, { status: 'awaiting-answers', answers: {} }, 'the state the run left');
      await type(JSON.stringify({ ...body, resume: body.resume.slice(0, 1) }, null, 2));
      assert.deepEqual(JSON.parse(await attr('resume-coverage', 'uncovered', (v) => v !== '[]')), ['choose-format']);
      assert.equal(await attr('resend-findings', 'verdict', (v) => v === 'invalid'), 'invalid');
      await picture(target, panel, 'resume-composer');
      body.resume[0]!.payload = { approved: true };
      body.resume[1]!.payload = { format: 'html' };
      await type(JSON.stringify(body));
      assert.deepEqual(JSON.parse(await attr('resume-coverage', 'uncovered', (v) => v === '[]')), []);
      assert.equal(await attr('resend-findings', 'verdict', (v) => v === 'valid'), 'valid');
      const id = await send();
      assert.deepEqual(JSON.parse(seen.at(-1)!.body).resume, body.resume);
      await until('the resume answered', async () => (await session()).exchanges.find((x) => x.id === id)?.outcome === 'complete');
      const x = (await session()).exchanges.find((e) => e.id === id)!;
      assert.equal(x.report?.verdict, 'completed');
      assert.equal(x.report?.runs.at(-1)?.outcome, 'success');
      assert.deepEqual(x.report?.input.findings, []);
      const answer = await b.request({ type: 'agui-inspector/detail', tabId, exchangeId: id, part: 'conversation' });
      assert.match(JSON.stringify(answer), /as HTML/);
    });

    test('a composed tool result answers the pending frontend tool call and runs to completion', async () => {
      await run('tools');
      const n = (await session()).exchanges.length;
      await rows(n, n - 1);
      await click('compose-tool-result');
      const body = JSON.parse(await editor()) as { messages: { role: string; toolCallId?: string; content: unknown }[] };
      const tool = body.messages.at(-1)!;
      assert.equal(tool.role, 'tool');
      assert.match(tool.toolCallId ?? '', /:call-card$/);
      tool.content = 'The card is shown.';
      await type(JSON.stringify(body));
      assert.equal(await attr('resend-findings', 'verdict', (v) => v === 'valid'), 'valid');
      const id = await send();
      assert.deepEqual(JSON.parse(seen.at(-1)!.body).messages.at(-1), tool);
      await until('the tool result answered', async () => (await session()).exchanges.find((x) => x.id === id)?.outcome === 'complete');
      const x = (await session()).exchanges.find((e) => e.id === id)!;
      assert.equal(x.report?.verdict, 'completed');
      assert.match(JSON.stringify(await b.request({ type: 'agui-inspector/detail', tabId, exchangeId: id, part: 'conversation' })), /Glad the card is on your page/);
    });

    test('the page cannot make the Inspector send: a forged act to the page script and a resend of an exchange it never made send nothing', async () => {
      const count = seen.length;
      const exchanges = (await session()).exchanges.length;
      const act = { do: 'send', id: null, url: `${agent.url}/agent/chat`, method: 'POST', contentType: 'application/json', accept: null, body: '{"threadId":"t","runId":"forged","messages":[]}' };
      await page.evaluate((a) => {
        // Every shape the bridge knows, posted where a page can post: its window, and the act message itself.
        window.postMessage({ ref: 1, act: a }, '*');
        window.postMessage({ type: 'agui-inspector/act', doc: null, ref: 1, act: a }, '*');
        window.postMessage({ 'agui-inspector/handshake': true, ref: 1, act: a }, '*');
      }, act);
      const none = await b.request({ type: 'agui-inspector/resend', tabId, exchangeId: 'not-a-doc:1', body: act.body, reuse: false });
      assert.ok('error' in none);
      await sleep(1000);
      assert.equal(seen.length, count, 'the agent got nothing');
      assert.equal((await session()).exchanges.length, exchanges);
    });

    test('a cross-origin iframe\'s exchange, its document gone, is resent only from a document of its origin, never from the top one\'s', async () => {
      // The page is on 127.0.0.1; localhost is another origin (and site) on the same agent, captured out of the box.
      const other = agent.url.replace('127.0.0.1', 'localhost');
      interface AnyFrame { url(): string; evaluate<A, T>(fn: (arg: A) => T | Promise<T>, arg: A): Promise<T> }
      const frames = (): AnyFrame[] => (page as unknown as { frames(): AnyFrame[] }).frames();
      const frameOf = (origin: string): Promise<AnyFrame> => until(`a frame of ${origin} with the demo`, async () => {
        const f = frames().find((fr) => fr.url().startsWith(`${origin}/`));
        return f && (await f.evaluate(() => typeof window.demo?.run === 'function', null)) ? f : null;
      });
      const frameTo = (url: string): Promise<void> => page.evaluate((u) => {
        const f = document.querySelector<HTMLIFrameElement>('iframe#other') ?? document.body.appendChild(Object.assign(document.createElement('iframe'), { id: 'other' }));
        f.src = u;
      }, url);
      await frameTo(`${other}/`);
      const inFrame = await frameOf(other);
      await (inFrame as unknown as { evaluate(s: string): Promise<unknown> }).evaluate('globalThis.__name = (f) => f');
      const held = (await session()).exchanges.length;
      assert.equal((await inFrame.evaluate((t) => window.demo.run('chat', { threadId: t, delay: 2 }), 'thread-iframe')).error, undefined);
      await until('the iframe\'s exchange in the worker', async () => (await session()).exchanges.length > held);
      const made = (await session()).exchanges.at(-1)!;
      assert.match(made.url, /^http:\/\/localhost:/);
      // The iframe navigates to the top document's origin: no document of localhost is left in the tab.
      await frameTo(`${agent.url}/`);
      await until('the localhost frame gone', async () => !frames().some((f) => f.url().startsWith(`${other}/`)));
      await rows(held + 1, held);
      await click('resend');
      assert.equal(await attr('resend-headers', 'sendable', (v) => v === 'false'), 'false');
      assert.match(await panel.evaluate(() => document.querySelector('[data-testid=resend-headers]')!.textContent ?? '', null), /no document of its origin is open/);
      assert.equal(await panel.evaluate(() => document.querySelector<HTMLButtonElement>('[data-testid=resend-send]')!.disabled, null), true, 'Send is disabled');
      const count = seen.length;
      const body = JSON.stringify({ threadId: 'thread-iframe', runId: 'run-resent', messages: [] });
      const refused = await b.request({ type: 'agui-inspector/resend', tabId, exchangeId: made.id, body, reuse: false });
      assert.ok('error' in refused && /no document of its origin is open in the tab/.test(refused.error), JSON.stringify(refused));
      assert.match((refused as { error: string }).error, new RegExp(other.replace(/[.:/]/g, '\\$&')), 'names the origin');
      await sleep(500);
      assert.equal(seen.length, count, 'nothing went out from the top document');
      // A document of its origin open again: the resend goes from it, with its origin.
      await frameTo(`${other}/`);
      await frameOf(other);
      let last: unknown;
      const sent = await until('the resend sent from the localhost document', async () => {
        const r = await b.request({ type: 'agui-inspector/resend', tabId, exchangeId: made.id, body, reuse: false });
        last = r;
        return 'exchangeId' in r ? r : null;
      }).catch((e: Error) => assert.fail(`${e.message}: ${JSON.stringify(last)}`));
      assert.equal(seen.length, count + 1, 'one request');
      assert.equal(seen.at(-1)!.headers.origin, other, 'sent from a document of the exchange\'s origin');
      assert.equal((await session()).exchanges.find((x) => x.id === sent.exchangeId)?.resentFrom, made.id);
    });
  });
}
