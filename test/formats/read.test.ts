import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { BaseEvent } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import { bodyOf, type CapturedExchange } from '../../src/exchange/exchange.ts';
import { toBase64 } from '../../src/base64.ts';
import { writeHar } from '../../src/formats/har.ts';
import { withoutUserInfo } from '../../src/exchange/url.ts';
import { FormatError, readExchanges } from '../../src/formats/read.ts';
import { createDecoder } from '../../src/wire/index.ts';
import { SHARED } from '../support/paths.ts';
import { concat, run, utf8, values } from '../wire/helpers.ts';

const encoder = new EventEncoder();
const runEvents = [
  { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' },
  { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'Grüße 👨\u200d👩' },
  { type: 'TEXT_MESSAGE_END', messageId: 'm1' },
  { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1' },
] as BaseEvent[];
const sseText = runEvents.map((e) => encoder.encodeSSE(e)).join('');
const protoBody = concat(...runEvents.map((e) => encoder.encodeProtobuf(e)));
const input = { threadId: 't1', runId: 'r1', messages: [{ id: 'u1', role: 'user', content: 'hi' }], tools: [], context: [] };

function decoded(x: CapturedExchange): unknown[] {
  return values(run(createDecoder(x.responseContentType), bodyOf(x)));
}

function read(text: string, name = 'capture.har'): CapturedExchange[] {
  return readExchanges(utf8.encode(text), name);
}

/** Shaped after a Chrome DevTools "Save all as HAR" export. */
const chromeHar = {
  log: {
    version: '1.2',
    creator: { name: 'WebInspector', version: '537.36' },
    pages: [{ startedDateTime: '2025-05-01T10:00:00.000Z', id: 'page_1', title: 'http://localhost:3000/', pageTimings: { onContentLoad: 120, onLoad: 200 } }],
    entries: [
      {
        _initiator: { type: 'script' },
        _priority: 'High',
        _resourceType: 'image',
        cache: {},
        pageref: 'page_1',
        request: { method: 'GET', url: 'http://localhost:3000/favicon.ico', httpVersion: 'http/1.1', headers: [], queryString: [], cookies: [], headersSize: -1, bodySize: 0 },
        response: {
          status: 200, statusText: 'OK', httpVersion: 'http/1.1', headers: [{ name: 'content-type', value: 'image/x-icon' }], cookies: [],
          content: { size: 4, mimeType: 'image/x-icon', text: 'AAABAA==', encoding: 'base64' },
          redirectURL: '', headersSize: -1, bodySize: -1, _transferSize: 300, _error: null,
        },
        serverIPAddress: '127.0.0.1', startedDateTime: '2025-05-01T10:00:00.100Z', time: 3.2,
        timings: { blocked: 0.5, dns: -1, ssl: -1, connect: -1, send: 0.1, wait: 2, receive: 0.6, _blocked_queueing: 0.3 },
      },
      {
        _resourceType: 'fetch',
        cache: {},
        pageref: 'page_1',
        request: {
          method: 'POST', url: 'http://localhost:8000/agent?debug=1', httpVersion: 'http/1.1',
          headers: [{ name: 'accept', value: 'text/event-stream' }, { name: 'content-type', value: 'application/json' }],
          queryString: [{ name: 'debug', value: '1' }], cookies: [], headersSize: -1, bodySize: 90,
          postData: { mimeType: 'application/json', text: JSON.stringify(input) },
        },
        response: {
          status: 200, statusText: 'OK', httpVersion: 'http/1.1', headers: [{ name: 'content-type', value: 'text/event-stream; charset=utf-8' }], cookies: [],
          content: { size: utf8.encode(sseText).length, mimeType: 'text/event-stream', compression: 0, text: toBase64(utf8.encode(sseText)), encoding: 'base64' },
          redirectURL: '', headersSize: -1, bodySize: -1, _transferSize: 900, _error: null,
        },
        serverIPAddress: '127.0.0.1', startedDateTime: '2025-05-01T10:00:01.000Z', time: 812.5,
        timings: { blocked: 1, dns: -1, ssl: -1, connect: -1, send: 0.2, wait: 300, receive: 511.3 },
      },
      {
        _resourceType: 'eventsource',
        cache: {},
        request: { method: 'GET', url: 'http://localhost:3000/__live', httpVersion: 'http/1.1', headers: [], queryString: [], cookies: [], headersSize: -1, bodySize: 0 },
        response: {
          status: 200, statusText: 'OK', httpVersion: 'http/1.1', headers: [], cookies: [],
          content: { size: 20, mimeType: 'text/event-stream', text: 'data: {"tick":1}\n\n' },
          redirectURL: '', headersSize: -1, bodySize: -1,
        },
        startedDateTime: '2025-05-01T10:00:02.000Z', time: 5,
        timings: { send: 0, wait: 1, receive: 4 },
      },
    ],
  },
};

/** Shaped after a Firefox network panel export: charset in the content mimeType, plain text, form params array. */
const firefoxHar = {
  log: {
    version: '1.2',
    creator: { name: 'Firefox', version: '126.0' },
    browser: { name: 'Firefox', version: '126.0' },
    pages: [],
    entries: [
      {
        startedDateTime: '2025-05-01T10:00:00.000+02:00',
        time: 40,
        request: {
          bodySize: 80, method: 'POST', url: 'https://agent.example/run', httpVersion: 'HTTP/2',
          headers: [{ name: 'Content-Type', value: 'application/json' }], cookies: [], queryString: [], headersSize: 400,
          postData: { mimeType: 'application/json', params: [], text: JSON.stringify(input) },
        },
        response: {
          status: 422, statusText: '', httpVersion: 'HTTP/2', headers: [{ name: 'content-type', value: 'application/json' }], cookies: [],
          content: { mimeType: 'application/json', size: 17, text: '{"detail":"nope"}' }, redirectURL: '', headersSize: 200, bodySize: 217,
        },
        cache: {},
        timings: { blocked: 0, dns: 0, connect: 0, ssl: 0, send: 0, wait: 39, receive: 1 },
      },
      {
        startedDateTime: '2025-05-01T10:00:01.000+02:00',
        time: 90,
        request: {
          bodySize: 80, method: 'POST', url: 'https://agent.example/run', httpVersion: 'HTTP/2',
          headers: [{ name: 'content-type', value: 'application/json' }], cookies: [], queryString: [], headersSize: 400,
          postData: { mimeType: 'application/json', params: [], text: JSON.stringify(input) },
        },
        response: {
          status: 200, statusText: '', httpVersion: 'HTTP/2', headers: [{ name: 'content-type', value: 'text/event-stream; charset=utf-8' }], cookies: [],
          content: { mimeType: 'text/event-stream; charset=utf-8', size: 100, text: sseText }, redirectURL: '', headersSize: 200, bodySize: 300,
        },
        cache: {},
        timings: { blocked: 0, dns: 0, connect: 0, ssl: 0, send: 0, wait: 39, receive: 51 },
      },
      {
        startedDateTime: '2025-05-01T10:00:02.000+02:00',
        time: 50,
        request: { bodySize: 80, method: 'POST', url: 'https://agent.example/run', httpVersion: 'HTTP/2', headers: [], cookies: [], queryString: [], headersSize: 400 },
        response: {
          status: 200, statusText: '', httpVersion: 'HTTP/2', headers: [], cookies: [],
          content: { mimeType: 'application/vnd.ag-ui.event+proto', size: protoBody.length, text: toBase64(protoBody), encoding: 'base64' },
          redirectURL: '', headersSize: 200, bodySize: 300,
        },
        cache: {},
        timings: { send: 0, wait: 10, receive: 40 },
      },
    ],
  },
};

describe('HAR reading', () => {
  it('keeps only the AG-UI entries of a Chrome export, decoding base64 content', () => {
    const xs = read(JSON.stringify(chromeHar, null, 2));
    assert.equal(xs.length, 1);
    const [x] = xs as [CapturedExchange];
    assert.equal(x.source, 'capture.har#entries/1');
    assert.equal(x.url, 'http://localhost:8000/agent?debug=1');
    assert.equal(x.method, 'POST');
    assert.equal(x.status, 200);
    assert.equal(x.startedDateTime, '2025-05-01T10:00:01.000Z');
    assert.equal(x.requestContentType, 'application/json');
    assert.equal(x.requestBody, JSON.stringify(input));
    assert.equal(x.responseContentType, 'text/event-stream');
    assert.deepEqual(x.chunks.map((c) => c.time), [812.5], 'without chunk timing the body completes with the entry');
    assert.equal(new TextDecoder().decode(bodyOf(x)), sseText);
    assert.deepEqual(decoded(x), runEvents);
  });

  it('reads a Firefox export: rejected input, SSE with a charset, protobuf', () => {
    const xs = read(JSON.stringify(firefoxHar));
    assert.deepEqual(xs.map((x) => x.status), [422, 200, 200]);
    assert.equal(xs[0]!.responseContentType, 'application/json');
    assert.equal(xs[1]!.responseContentType, 'text/event-stream; charset=utf-8');
    assert.deepEqual(decoded(xs[1]!), runEvents);
    assert.equal(xs[2]!.requestBody, undefined);
    assert.deepEqual(bodyOf(xs[2]!), protoBody);
    assert.deepEqual(decoded(xs[2]!).map((v) => (v as BaseEvent).type), runEvents.map((e) => e.type));
  });

  it("undoes Chromium's Windows-1252 reading of a UTF-8 body whose type names no charset", () => {
    // As browsers decode it (WHATWG), which Node's TextDecoder does not: it reads windows-1252 as ISO-8859-1.
    const table = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';
    const cp1252 = (bytes: Uint8Array): string => Array.from(bytes, (b) => (b >= 0x80 && b < 0xa0 ? table[b - 0x80] : String.fromCharCode(b))).join('');
    const entry = (contentType: string, text: string) => ({
      startedDateTime: '2025-05-01T10:00:00.000Z', time: 5,
      request: { method: 'POST', url: 'http://localhost/agent', headers: [], postData: { mimeType: 'application/json', text: JSON.stringify(input) } },
      response: { status: 200, headers: [], content: { mimeType: contentType, size: 0, text } },
    });
    const har = (e: object) => JSON.stringify({ log: { version: '1.2', entries: [e] } });
    const body = utf8.encode(sseText + encoder.encodeSSE({ type: 'CUSTOM', name: 'n', value: '22°C… €\u0081' } as BaseEvent));
    const mangled = cp1252(body);
    assert.notEqual(mangled, new TextDecoder().decode(body));
    assert.deepEqual(bodyOf(read(har(entry('text/event-stream', mangled)))[0]!), body);
    assert.deepEqual(bodyOf(read(har(entry('text/event-stream', Buffer.from(body).toString('latin1'))))[0]!), body);
    // A declared charset was honoured by the browser, and text that is no such reading stays as it is.
    assert.deepEqual(bodyOf(read(har(entry('text/event-stream; charset=utf-8', sseText)))[0]!), utf8.encode(sseText));
    assert.deepEqual(bodyOf(read(har(entry('text/event-stream', sseText)))[0]!), utf8.encode(sseText));
    const latin = sseText.replace('Grüße', 'Gr\u00fc\u00dfe caf\u00e9');
    assert.deepEqual(bodyOf(read(har(entry('text/event-stream', latin)))[0]!), utf8.encode(latin));
  });

  it('refuses a HAR it cannot read', () => {
    assert.throws(() => read('{"log":{"version":"1.2"}}'), FormatError);
    const noAgui = structuredClone(chromeHar);
    noAgui.log.entries.splice(1, 1);
    assert.throws(() => read(JSON.stringify(noAgui)), /none of the HAR's 2 entries/);
    assert.throws(() => read('{"log":{"entries":[{"request":{}}]}}'), /entry 0/);
    const badBase64 = structuredClone(chromeHar);
    badBase64.log.entries[1]!.response.content.text = '*not base64*';
    assert.throws(() => read(JSON.stringify(badBase64)), /base64/);
    assert.throws(() => read('{"log":{"entries":[\n'), /not valid JSON/);
  });
});

describe('HAR writing', () => {
  const invalidUtf8 = concat('data: {"type":"RUN_STARTED","threadId":"t","runId":"', new Uint8Array([0xc3, 0x28]), '"}\n\n');
  const exchanges: CapturedExchange[] = [
    {
      source: 'a',
      url: 'https://agent.example/run?x=1&y=two',
      method: 'POST',
      status: 200,
      startedDateTime: '2025-05-01T10:00:00.000Z',
      requestContentType: 'application/json',
      requestBody: JSON.stringify(input),
      responseContentType: 'text/event-stream',
      chunks: [
        { time: 12.25, bytes: concat(new Uint8Array([0xef, 0xbb, 0xbf]), sseText.slice(0, 40)) },
        { time: 30, bytes: utf8.encode(sseText.slice(40)) },
      ],
    },
    { source: 'b', responseContentType: 'text/event-stream', chunks: [{ time: 0, bytes: invalidUtf8.subarray(0, 50) }, { time: 7, bytes: invalidUtf8.subarray(50) }] },
    {
      source: 'c',
      requestBody: '{"threadId":"t"}',
      responseContentType: 'application/vnd.ag-ui.event+proto',
      chunks: [
        { time: 1, bytes: protoBody.subarray(0, 7) },
        { time: 2.5, bytes: protoBody.subarray(7, 9) },
        { time: 40, bytes: protoBody.subarray(9) },
      ],
    },
    { source: 'd', status: 422, responseContentType: 'application/json', chunks: [{ time: 3, bytes: utf8.encode('{"detail":"bad"}') }] },
    { source: 'e', responseContentType: 'text/event-stream', chunks: [], abandoned: true },
  ];
  const har = writeHar(exchanges, { creator: { name: 'agui-inspector', version: '0.1.0' }, extension: { protocolVersion: '1.0' } });

  it('writes a valid HAR 1.2 document', () => {
    const { log } = JSON.parse(har);
    assert.equal(log.version, '1.2');
    assert.deepEqual(log.creator, { name: 'agui-inspector', version: '0.1.0' });
    assert.deepEqual(log._agui, { format: 'agui-inspector/har', version: 1, protocolVersion: '1.0' });
    assert.equal(log.entries.length, exchanges.length);
    const [first, second, third] = log.entries;
    assert.equal(first.startedDateTime, '2025-05-01T10:00:00.000Z');
    assert.equal(first.time, 30);
    assert.deepEqual(first.timings, { send: 0, wait: 12.25, receive: 17.75 });
    assert.deepEqual(first.request.queryString, [{ name: 'x', value: '1' }, { name: 'y', value: 'two' }]);
    assert.deepEqual(first.request.headers, [{ name: 'Content-Type', value: 'application/json' }]);
    assert.deepEqual(first.request.postData, { mimeType: 'application/json', text: JSON.stringify(input) });
    assert.equal(first.request.headersSize, -1);
    assert.deepEqual(first.request.cookies, []);
    assert.equal(first.response.statusText, 'OK');
    assert.equal(first.response.redirectURL, '');
    assert.equal(first.response.content.encoding, undefined, 'valid UTF-8 is stored as text');
    assert.equal(first.response.content.text.startsWith('\uFEFFdata:'), true);
    assert.equal(first.response.bodySize, first.response.content.size);
    assert.deepEqual(first.cache, {});
    assert.deepEqual(first._agui.chunks.map((c: { time: number }) => c.time), [12.25, 30]);
    assert.deepEqual(Object.keys(first._agui), ['chunks', 'arrival'], 'an exchange without an analysis record carries none');
    assert.equal(first._agui.abandoned, undefined);
    assert.equal(log.entries[4]._agui.abandoned, true, 'a response the page abandoned says so');
    assert.equal(second.response.content.encoding, 'base64', 'bytes that are not UTF-8 survive only as base64');
    assert.equal(third.response.content.encoding, 'base64');
    assert.equal(third.request.method, 'POST');
    for (const e of log.entries) {
      for (const key of ['startedDateTime', 'time', 'request', 'response', 'cache', 'timings']) assert.ok(key in e, key);
      for (const key of ['method', 'url', 'httpVersion', 'cookies', 'headers', 'queryString', 'headersSize', 'bodySize']) assert.ok(key in e.request, key);
      for (const key of ['status', 'statusText', 'httpVersion', 'cookies', 'headers', 'content', 'redirectURL', 'headersSize', 'bodySize']) assert.ok(key in e.response, key);
      assert.ok(e.timings.send >= 0 && e.timings.wait >= 0 && e.timings.receive >= 0);
    }
  });

  it('reads back the exact bytes and chunk timing of every exchange', () => {
    const back = read(har, 'out.har');
    assert.equal(back.length, exchanges.length);
    back.forEach((x, i) => {
      const original = exchanges[i]!;
      assert.equal(x.source, `out.har#entries/${i}`);
      assert.equal(x.responseContentType, original.responseContentType);
      assert.equal(x.requestBody, original.requestBody);
      assert.equal(x.status, original.status ?? 200);
      assert.equal(x.abandoned, original.abandoned);
      assert.deepEqual(
        x.chunks.map((c) => ({ time: c.time, bytes: [...c.bytes] })),
        original.chunks.map((c) => ({ time: c.time, bytes: [...c.bytes] })),
        original.source,
      );
    });
    assert.equal(back[0]!.url, exchanges[0]!.url);
    assert.equal(back[0]!.startedDateTime, exchanges[0]!.startedDateTime);
    assert.deepEqual(decoded(back[2]!).length, runEvents.length);
    assert.equal(read(writeHar(back, { creator: { name: 'x', version: '1' } }), 'out.har').length, exchanges.length);
  });
});

describe('URL user-info', () => {
  it('is dropped on HAR export and import, and nothing else in the URL changes', () => {
    const withPassword: CapturedExchange = {
      source: 'u', url: 'http://agent:p%40ss:w@rd@127.0.0.1:9/agent?key=v#frag', requestBody: JSON.stringify(input),
      responseContentType: 'text/event-stream', chunks: [{ time: 1, bytes: utf8.encode(sseText) }],
    };
    const written = writeHar([withPassword], { creator: { name: 'x', version: '1' } });
    assert.ok(!written.includes('agent:') && !written.includes('rd@'), written);
    assert.equal(JSON.parse(written).log.entries[0].request.url, 'http://127.0.0.1:9/agent?key=v#frag');
    // A HAR someone else wrote, with the credentials in it.
    const foreign = written.replace('"url": "http://127.0.0.1:9/agent', '"url": "https://user:secret@127.0.0.1:9/agent');
    assert.ok(foreign.includes('user:secret@'));
    assert.equal(read(foreign)[0]!.url, 'https://127.0.0.1:9/agent?key=v#frag');
  });

  it("is recognised as only the authority's part before the last @", () => {
    assert.equal(withoutUserInfo('http://127.0.0.1:9/a@b?c=@#@'), 'http://127.0.0.1:9/a@b?c=@#@');
    assert.equal(withoutUserInfo('http://u@h/x'), 'http://h/x');
    assert.equal(withoutUserInfo('http://h\\u@x/'), 'http://h\\u@x/');
    assert.equal(withoutUserInfo('about:blank'), 'about:blank');
    assert.equal(withoutUserInfo('not a url @ all'), 'not a url @ all');
  });
});

describe('other file formats', () => {
  it('reads raw SSE, JSONL, a JSON array and raw protobuf, with --input as the request', () => {
    const cases: [string | Uint8Array, string][] = [
      [sseText, 'text/event-stream'],
      [`\uFEFF: hello\n${sseText}`, 'text/event-stream'],
      [runEvents.map((e) => JSON.stringify(e)).join('\n'), 'application/x-ndjson'],
      [JSON.stringify(runEvents, null, 2), 'application/json'],
      [protoBody, 'application/vnd.ag-ui.event+proto'],
    ];
    for (const [content, type] of cases) {
      const bytes = typeof content === 'string' ? utf8.encode(content) : content;
      const [x, ...rest] = readExchanges(bytes, 'body', { inputText: '{"threadId":"t"}' });
      assert.equal(rest.length, 0);
      assert.equal(x!.responseContentType, type);
      assert.equal(x!.source, 'body');
      assert.equal(x!.requestBody, '{"threadId":"t"}');
      assert.deepEqual(x!.chunks, [{ time: 0, bytes }]);
      assert.deepEqual(decoded(x!).map((v) => (v as BaseEvent).type), runEvents.map((e) => e.type), type);
    }
    assert.equal(readExchanges(utf8.encode(sseText), 'body')[0]!.requestBody, undefined);
  });

  it('reads a single event, pretty-printed, as a one-event stream', () => {
    const [x] = readExchanges(utf8.encode(JSON.stringify(runEvents[0], null, 2)), 'one.json');
    assert.deepEqual(decoded(x!), [runEvents[0]]);
  });

  it('refuses what it cannot read with a one-line reason', () => {
    const bad: [Uint8Array, RegExp][] = [
      [new Uint8Array(0), /empty/],
      [new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]), /not a recognised format/],
      [utf8.encode('# README\nhello'), /not a recognised format/],
      [utf8.encode('{"a": 1,'), /not valid JSON/],
      [utf8.encode('{"name": "x"}'), /neither a HAR/],
      [utf8.encode('{"stream": {}}'), /not an array/],
    ];
    for (const [bytes, reason] of bad) {
      assert.throws(
        () => readExchanges(bytes, 'f'),
        (err: unknown) => err instanceof FormatError && reason.test(err.message) && !err.message.includes('\n'),
      );
    }
  });
});

describe('conformance fixtures', () => {
  const roots = ['1.1', '1.0'].map((v) => join(SHARED, `agui-spec/spec/${v}/conformance/streams`));
  for (const root of roots) {
    it(`reads every fixture in ${root}`, (t) => {
      if (!existsSync(root)) {
        t.skip(`${root} is absent`);
        return;
      }
      const files = readdirSync(root).filter((f) => f.endsWith('.json'));
      assert.ok(files.length > 0);
      for (const file of files) {
        const bytes = readFileSync(join(root, file));
        const fixture = JSON.parse(bytes.toString('utf8'));
        const [x, ...rest] = readExchanges(new Uint8Array(bytes), file);
        assert.equal(rest.length, 0, file);
        assert.equal(x!.source, file);
        // The request is what the client sends: the fixture's input, completed with the stream's identity.
        const request = JSON.parse(x!.requestBody!);
        for (const [k, v] of Object.entries(fixture.input ?? {})) assert.deepEqual(request[k], v, `${file} input.${k}`);
        const started = fixture.stream.filter((e: { type?: string }) => e.type === 'RUN_STARTED');
        if (started.length) assert.equal(request.runId, started.at(-1).runId, file);
        assert.ok(Array.isArray(request.messages), file);
        const items = run(createDecoder(x!.responseContentType), bodyOf(x!));
        assert.ok(items.every((it) => it.kind === 'event' || it.rule.id === 'transport/frame-not-object'), file);
        assert.deepEqual(
          items.map((it) => (it.kind === 'event' ? it.value : JSON.parse(it.raw as string))),
          fixture.stream,
          file,
        );
      }
    });
  }
});
