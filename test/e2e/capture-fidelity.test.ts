/**
 * What the page sees is unchanged by the extension: wrappers look native, recorded responses keep
 * their properties, bytes, errors and BYOB readability; XMLHttpRequest and EventSource are captured too.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { buildExtension, launchChromium, type ChromiumBrowser } from './browsers.ts';
import { settled } from './demo-capture.ts';

const EVENTS = [
  { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
  { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'héllo ✓ wörld' },
  { type: 'TEXT_MESSAGE_END', messageId: 'm' },
  { type: 'RUN_FINISHED', threadId: 't', runId: 'r' },
];
const SSE = Buffer.from(EVENTS.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(''));
const INPUT = JSON.stringify({ threadId: 't', runId: 'r', messages: [], tools: [], context: [], state: {}, forwardedProps: {} });

function startServer(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    req.resume();
    req.on('end', async () => {
      if (url.pathname === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>fidelity</title>');
      if (url.pathname === '/redirect') return void res.writeHead(302, { location: '/sse' }).end();
      if (url.pathname === '/json') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      if (url.pathname === '/sse' || url.pathname === '/es') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'x-extra': 'kept' });
        res.flushHeaders();
        const named = url.pathname === '/es';
        // Split mid-character, so chunk boundaries do not fall on UTF-8 or event boundaries.
        const body = named ? Buffer.from(EVENTS.map((e) => `event: agui\nid: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('') + 'retry: 100000\n\n') : SSE;
        const slow = url.searchParams.has('slow');
        for (let at = 0; at < body.length; at += 37) {
          res.write(body.subarray(at, at + 37));
          await new Promise((r) => setTimeout(r, slow ? 200 : 5));
        }
        if (named) return; // keep the EventSource open: the page closes it
        res.end();
        return;
      }
      res.writeHead(404).end();
    });
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => {
    const a = server.address();
    r({ url: `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`, server });
  }));
}

/** Everything about the page's view of fetch, XHR and EventSource that the extension must not change. */
async function probe(page: Page, input: string): Promise<unknown> {
  return page.evaluate(async (body) => {
    // Not an arrow function: tsx would name it with a helper that does not exist in the page.
    const native = Function.prototype.call.bind(Function.prototype.toString) as (f: unknown) => string;
    const urlGetter = Object.getOwnPropertyDescriptor(Response.prototype, 'url')!.get!;
    const res = await fetch('/redirect', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    const clone = res.clone();
    const byob = res.body!.getReader({ mode: 'byob' });
    const parts: number[] = [];
    for (let buf = new Uint8Array(64); ;) {
      const r = await byob.read(buf);
      if (r.done) break;
      parts.push(...r.value);
      buf = new Uint8Array(r.value.buffer);
    }
    const ctrl = new AbortController();
    const slow = await fetch('/sse?slow', { method: 'POST', body, signal: ctrl.signal });
    const reader = slow.body!.getReader();
    await reader.read();
    ctrl.abort();
    const aborted = await reader.read().then(() => 'no error', (e: Error) => `${e.name}: ${e.message}`);
    return {
      shape: {
        fetch: [fetch.name, fetch.length, native(fetch)],
        open: [XMLHttpRequest.prototype.open.name, XMLHttpRequest.prototype.open.length, native(XMLHttpRequest.prototype.open)],
        es: [EventSource.name, EventSource.length, native(EventSource), EventSource.prototype.constructor === EventSource, EventSource.CLOSED],
        toString: [native(Function.prototype.toString), Function.prototype.toString.name],
        addEventListener: native(EventTarget.prototype.addEventListener),
        urlGetter: [urlGetter.name, native(urlGetter)],
        windowKeys: Object.getOwnPropertyNames(window).length,
        responseKeys: Object.getOwnPropertyNames(res),
      },
      response: [res.status, res.statusText, res.url, res.redirected, res.type, res.headers.get('x-extra'), res.ok, clone.url, clone.redirected],
      bytes: parts,
      cloneText: await clone.text(),
      aborted,
      json: await (await fetch('/json', { method: 'POST', body: 'not an agent input' })).json(),
    };
  }, input);
}

describe('fidelity', () => {
  let server: Server;
  let url: string;
  let withExt: ChromiumBrowser;
  let without: ChromiumBrowser;
  let page: Page;
  let plain: Page;
  let tabId: number;

  before(async () => {
    const extDir = await buildExtension('chrome');
    ({ server, url } = await startServer());
    [withExt, without] = await Promise.all([launchChromium({ extDir }), launchChromium()]);
    page = await withExt.newPage();
    plain = await without.newPage();
    await Promise.all([page.goto(`${url}/`), plain.goto(`${url}/`)]);
    tabId = await withExt.tabIdOf(page.url());
  });

  after(async () => {
    await Promise.all([withExt?.close(), without?.close()]);
    server?.close();
    server?.closeAllConnections();
  });

  test('the page sees the same fetch, Response and wrappers with and without the extension', async () => {
    const seen = await probe(page, INPUT);
    assert.deepEqual(seen, await probe(plain, INPUT));
    assert.deepEqual(Buffer.from((seen as { bytes: number[] }).bytes), SSE);
    await settled(withExt, tabId, 2);
    const s = (await withExt.request({ type: 'agui-inspector/session', tabId }))!;
    const [redirected, aborted] = s.exchanges;
    assert.equal(s.exchanges.length, 2, 'the two AG-UI exchanges, not the JSON one');
    assert.equal(redirected!.request.body, INPUT);
    assert.equal(redirected!.request.contentType, 'application/json');
    assert.equal(redirected!.response?.redirected, true);
    assert.equal(redirected!.outcome, 'complete');
    assert.equal(redirected!.bytes, SSE.length);
    assert.equal(redirected!.events.length, EVENTS.length);
    assert.equal(aborted!.outcome, 'aborted');
  });

  test('XMLHttpRequest bodies are captured', async () => {
    await withExt.request({ type: 'agui-inspector/clear', tabId });
    const text = await page.evaluate((body) => new Promise<string>((resolve) => {
      const xhr = new XMLHttpRequest();
      xhr.open('POST', '/sse');
      xhr.setRequestHeader('Content-Type', 'application/json');
      xhr.onload = () => resolve(xhr.responseText);
      xhr.send(body);
    }), INPUT);
    assert.equal(text, SSE.toString());
    await settled(withExt, tabId, 1);
    const [x] = (await withExt.request({ type: 'agui-inspector/session', tabId }))!.exchanges;
    assert.equal(x?.api, 'xhr');
    assert.equal(x?.request.contentType, 'application/json');
    assert.equal(x?.bytes, SSE.length);
    assert.equal(x?.events.length, EVENTS.length);
  });

  test('EventSource named events are captured, rebuilt from what was delivered', async () => {
    await withExt.request({ type: 'agui-inspector/clear', tabId });
    const got = await page.evaluate(() => new Promise<string[]>((resolve) => {
      const es = new EventSource('/es');
      const types: string[] = [];
      es.addEventListener('agui', (e) => {
        types.push((JSON.parse((e as MessageEvent<string>).data) as { type: string }).type);
        if (types.length === 5) {
          es.close();
          resolve(types);
        }
      });
    }));
    assert.deepEqual(got, EVENTS.map((e) => e.type));
    await settled(withExt, tabId, 1);
    const [x] = (await withExt.request({ type: 'agui-inspector/session', tabId }))!.exchanges;
    assert.equal(x?.api, 'eventsource');
    assert.equal(x?.response?.reconstructed, true);
    assert.equal(x?.outcome, 'cancelled');
    assert.deepEqual(x?.events.map((e) => e.type), EVENTS.map((e) => e.type));
  });
});
