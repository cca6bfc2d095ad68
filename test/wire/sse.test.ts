import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SseDecoder } from '../../src/wire/sse.ts';
import type { WireEvent, WireItem } from '../../src/wire/types.ts';
import { concat, ruleIds, run, utf8, values } from './helpers.ts';

const events = [
  { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' },
  { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'Grüße, 世界 — naïve' },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'e\u0301' },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: '👨\u200d👩\u200d👧 𝄞' },
  { type: 'TEXT_MESSAGE_END', messageId: 'm1' },
  { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1' },
];

const unicodeStream = utf8.encode(
  ': keep-alive\n\n' +
    events.map((e, i) => `${i === 2 ? 'event: message\nid: 7\n' : ''}data: ${JSON.stringify(e)}\n\n`).join(''),
);

function eventsOf(items: WireItem[]): WireEvent[] {
  return items.filter((it): it is WireEvent => it.kind === 'event');
}

describe('SSE decoder', () => {
  it('decodes frames with their positions', () => {
    const items = run(new SseDecoder(), unicodeStream);
    assert.deepEqual(values(items), events);
    assert.deepEqual(ruleIds(items), []);
    for (const e of eventsOf(items)) {
      const frame = new TextDecoder().decode(unicodeStream.subarray(e.offset, e.offset + e.size));
      assert.ok(frame.endsWith('\n\n'), 'a frame runs through its blank line');
      assert.ok(frame.includes(`data: ${e.raw as string}\n`));
    }
    const first = eventsOf(items)[0]!;
    assert.equal(first.offset, ': keep-alive\n\n'.length, 'a comment-only block is no part of the next frame');
  });

  it('gives identical events however the bytes are split, inside characters included', () => {
    const whole = run(new SseDecoder(), unicodeStream);
    for (let cut = 0; cut <= unicodeStream.length; cut++) {
      assert.deepEqual(run(new SseDecoder(), unicodeStream, [cut]), whole, `split at ${cut}`);
    }
    const bytewise = Array.from({ length: unicodeStream.length }, (_, i) => i);
    assert.deepEqual(run(new SseDecoder(), unicodeStream, bytewise), whole, 'one byte per chunk');
  });

  it('strips one leading BOM and keeps a U+FEFF that is payload', () => {
    const body = concat(new Uint8Array([0xef, 0xbb, 0xbf]), 'data: {"a":"\uFEFFx"}\n\n');
    for (const cuts of [[], [1], [2], [1, 2]]) {
      const items = run(new SseDecoder(), body, cuts);
      assert.deepEqual(values(items), [{ a: '\uFEFFx' }]);
      assert.equal(items[0]!.offset, 3);
      assert.equal(items[0]!.size, body.length - 3);
    }
  });

  it('ignores comments and the event, id and retry fields, and skips blocks with no data', () => {
    const body = utf8.encode(
      ': hello\nevent: ping\nid: 3\nretry: 100\n\nid: 4\n\n:\ndata: {"x":1}\nevent: y\nfoo: bar\n\n',
    );
    const items = run(new SseDecoder(), body);
    assert.deepEqual(values(items), [{ x: 1 }]);
    assert.equal(items.length, 1);
  });

  it('applies the single optional space after the colon and the colon-less data field', () => {
    const body = utf8.encode('data:{"a":1}\n\ndata:  "x"\n\ndata\ndata: {"b":2}\n\n');
    const items = run(new SseDecoder(), body);
    assert.deepEqual(values(items), [{ a: 1 }, { b: 2 }]);
    const notObject = items[1];
    assert.equal(notObject?.kind === 'problem' && notObject.raw, ' "x"');
    assert.equal(items[2]?.raw, '\n{"b":2}', 'a bare `data` line contributes an empty line');
  });

  it('joins multi-line data with LF', () => {
    const body = utf8.encode('data: {\ndata:  "type": "RUN_STARTED",\ndata: "runId": "r"}\n\n');
    const items = run(new SseDecoder(), body);
    assert.equal(items.length, 1);
    assert.equal((items[0] as WireEvent).raw, '{\n "type": "RUN_STARTED",\n"runId": "r"}');
    assert.deepEqual(values(items), [{ type: 'RUN_STARTED', runId: 'r' }]);
  });

  for (const [name, eol] of [
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ] as const) {
    it(`reads ${name} line endings, warning once without failing`, () => {
      const body = utf8.encode(`: c${eol}data: {"a":1}${eol}${eol}data: {"b":"é"}${eol}${eol}`);
      const whole = run(new SseDecoder(), body);
      assert.deepEqual(values(whole), [{ a: 1 }, { b: 'é' }]);
      assert.deepEqual(ruleIds(whole), ['transport/sse-line-ending']);
      const warning = whole.find((it) => it.kind === 'problem')!;
      assert.equal(warning.kind === 'problem' && warning.rule.fatal, false);
      assert.equal(whole.indexOf(warning), 1, 'the note follows the frame it was found in');
      assert.equal(whole[0]!.size, `: c${eol}data: {"a":1}${eol}${eol}`.length);
      for (let cut = 0; cut <= body.length; cut++) {
        assert.deepEqual(run(new SseDecoder(), body, [cut]), whole, `split at ${cut}`);
      }
    });
  }

  it('reports a frame that is not JSON and carries on', () => {
    const body = utf8.encode('data: {"a":1}\n\ndata: {oops\n\ndata: [1,2]\n\ndata: {"b":2}\n\n');
    const items = run(new SseDecoder(), body);
    assert.deepEqual(
      items.map((it) => (it.kind === 'event' ? 'event' : it.rule.id)),
      ['event', 'transport/frame-not-json', 'transport/frame-not-object', 'event'],
    );
    const bad = items[1]!;
    assert.ok(bad.kind === 'problem' && bad.frame && bad.rule.fatal && bad.raw === '{oops');
    assert.deepEqual(values(items), [{ a: 1 }, { b: 2 }]);
  });

  it('reads invalid UTF-8 as U+FFFD, with a warning after the frame', () => {
    const body = concat('data: {"d":"a', new Uint8Array([0xff, 0xc3]), 'b"}\n\ndata: {"d":"\uFFFD"}\n\n');
    const items = run(new SseDecoder(), body);
    assert.deepEqual(values(items), [{ d: 'a\uFFFD\uFFFDb' }, { d: '\uFFFD' }]);
    assert.deepEqual(ruleIds(items), ['transport/invalid-utf8'], 'a U+FFFD the producer sent is not a decoding error');
    assert.equal(items[1]!.kind, 'problem');
    assert.equal(items[1]!.offset, 0);
  });

  it('discards an unterminated final event with a warning', () => {
    const body = utf8.encode('data: {"a":1}\n\ndata: {"b":2}\n');
    const items = run(new SseDecoder(), body);
    assert.deepEqual(values(items), [{ a: 1 }]);
    assert.deepEqual(ruleIds(items), ['transport/sse-incomplete-event']);
    assert.equal(items[1]!.offset, 15);
    assert.equal(items[1]!.size, body.length - 15);
    assert.deepEqual(ruleIds(run(new SseDecoder(), utf8.encode('data: {"a":1}'))), ['transport/sse-incomplete-event']);
    assert.deepEqual(run(new SseDecoder(), utf8.encode('data: {"a":1}\n\n: bye')).length, 1, 'a trailing comment loses nothing');
  });

  it('stamps each frame with the arrival time of the chunk that completed it', () => {
    const d = new SseDecoder();
    assert.deepEqual(d.push(utf8.encode('data: {"a"'), 5), []);
    const [first] = d.push(utf8.encode(':1}\n\ndata: {"b":2}\n'), 9);
    assert.equal(first?.time, 9);
    const [second] = d.push(utf8.encode('\n'), 12);
    assert.equal(second?.time, 12);
    assert.deepEqual(d.end(20), []);
  });

  it('decodes a 10 MB data line arriving in MTU-sized chunks, in linear time', () => {
    const delta = 'x'.repeat(10 * 1024 * 1024);
    for (const eol of ['\n', '\r\n']) {
      const body = utf8.encode(`data: {"type":"TEXT_MESSAGE_CONTENT","delta":"${delta}"}${eol}${eol}data: {"n":2}${eol}${eol}`);
      const d = new SseDecoder();
      const items: WireItem[] = [];
      for (let i = 0; i < body.length; i += 1500) items.push(...d.push(body.subarray(i, i + 1500), 0));
      items.push(...d.end(0));
      assert.equal(values(items).length, 2);
      assert.equal((values(items)[0] as { delta: string }).delta.length, delta.length);
    }
  });
});
