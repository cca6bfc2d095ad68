/** Request bodies: what the native is handed, and what the sniffing decides about each kind. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bodies } from '../../src/capture/page/body.ts';
import { LIMITS } from '../../src/messages.ts';
import { RUN_INPUT, utf8 } from './fakes.ts';

const kit = bodies({ Blob, ArrayBuffer, URLSearchParams, FormData, ReadableStream, ReadableStreamDefaultReader, Response, Headers, TextDecoder });

describe('request body sniffing', () => {
  it('a RunAgentInput is AG-UI as text, as bytes and as a Blob', async () => {
    assert.deepEqual(kit.inspect(RUN_INPUT), { agui: true, text: RUN_INPUT, note: null });
    assert.deepEqual(kit.inspect(utf8(`\n  ${RUN_INPUT}`)), { agui: true, text: `\n  ${RUN_INPUT}`, note: null });
    assert.deepEqual(kit.inspect(utf8(RUN_INPUT).buffer), { agui: true, text: RUN_INPUT, note: null });
    assert.deepEqual(await kit.inspect(new Blob([RUN_INPUT])), { agui: true, text: RUN_INPUT, note: null });
  });

  it('other JSON and text are kept but not AG-UI', () => {
    assert.deepEqual(kit.inspect('{"query":"x"}'), { agui: false, text: '{"query":"x"}', note: null });
    assert.deepEqual(kit.inspect('plain'), { agui: false, text: 'plain', note: null });
    assert.equal(kit.inspect(null), kit.inspect(undefined));
    assert.deepEqual(kit.inspect(null), { agui: false, text: null, note: null });
  });

  it('bytes that cannot be JSON are copied, and decoded only if the exchange is recorded', async () => {
    const page = utf8('a=1&b=2');
    const b = kit.inspect(page) as { agui: boolean; later?: () => Promise<string> };
    assert.equal(b.agui, false);
    page.fill(0x41);
    assert.equal(await b.later!(), 'a=1&b=2', 'a copy taken when sent');
  });

  it('JSON-looking bytes that are not UTF-8 are unreadable', () => {
    assert.deepEqual(kit.inspect(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])), { agui: false, text: null, note: 'unreadable' });
  });

  it('bodies over LIMITS.requestBody are too large, whatever their kind', async () => {
    const big = 'x'.repeat(LIMITS.requestBody + 1);
    assert.deepEqual(kit.inspect(big), { agui: false, text: null, note: 'too-large' });
    assert.deepEqual(kit.inspect(new Uint8Array(LIMITS.requestBody + 1)), { agui: false, text: null, note: 'too-large' });
    assert.deepEqual(kit.inspect(new Blob([big])), { agui: false, text: null, note: 'too-large' });
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new Uint8Array(LIMITS.requestBody));
        c.enqueue(new Uint8Array(1));
        c.close();
      },
    });
    assert.deepEqual(await kit.fromText(kit.readAll(stream)), { agui: false, text: null, note: 'too-large' });
  });

  it('a stream is read whole as UTF-8, across chunk boundaries', async () => {
    const bytes = utf8(`${RUN_INPUT.slice(0, -1)},"x":"é"}`);
    const at = bytes.indexOf(0xc3) + 1;
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(bytes.slice(0, at));
        c.enqueue(bytes.slice(at));
        c.close();
      },
    });
    const b = await kit.fromText(kit.readAll(stream));
    assert.equal(b.agui, true);
    assert.equal(b.text, new TextDecoder().decode(bytes));
  });

  it('forms are not AG-UI; their text is produced only when asked', async () => {
    const params = kit.inspect(new URLSearchParams({ a: '1', b: 'two words' })) as { agui: boolean; later: () => Promise<string> };
    assert.equal(params.agui, false);
    assert.equal(await params.later(), 'a=1&b=two+words');
    const form = new FormData();
    form.set('a', '1');
    const multipart = kit.inspect(form) as { agui: boolean; note: string; later: () => Promise<string> };
    assert.equal(multipart.note, 'multipart-reserialized');
    assert.match(await multipart.later(), /name="a"\r\n\r\n1\r\n/);
    assert.deepEqual(kit.inspect(new ReadableStream()), { agui: false, text: null, note: 'not-teeable' });
  });

  it('hands the native an object of no body type as its string, converting it once', () => {
    let calls = 0;
    const odd = { toString: () => `${++calls}` };
    assert.equal(kit.argument(odd, false), '1');
    assert.equal(calls, 1);
    for (const keep of [null, undefined, 'text', 3, new Blob([]), new ArrayBuffer(1), new Uint8Array(1), new URLSearchParams(), new FormData(), new ReadableStream()]) {
      assert.equal(kit.argument(keep, true), keep);
    }
  });

  it('names the content type the headers give, else the one the body implies', () => {
    assert.equal(kit.contentType(new Headers({ 'content-type': 'application/json' }), 'x'), 'application/json');
    assert.equal(kit.contentType(null, 'x'), 'text/plain;charset=UTF-8');
    assert.equal(kit.contentType(new Headers(), new Blob([], { type: 'image/png' })), 'image/png');
    assert.equal(kit.contentType(null, new Blob([])), null);
    assert.equal(kit.contentType(null, new URLSearchParams()), 'application/x-www-form-urlencoded;charset=UTF-8');
    assert.equal(kit.contentType(null, new FormData()), 'multipart/form-data');
    assert.equal(kit.contentType(null, new Uint8Array(1)), null);
  });
});
