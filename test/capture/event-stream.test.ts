/** What a browser's EventSource dispatches for event-stream bytes (src/capture/page/event-stream.ts, HTML §9.2.6), over any chunking. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventStream, type Dispatch } from '../../src/capture/page/event-stream.ts';

const utf8 = (s: string) => new TextEncoder().encode(s);

/** Every dispatch and retry for `text` pushed in pieces of `size` bytes. */
function read(text: string, size: number): { events: Dispatch[]; retries: number[]; lastEventId: string } {
  const s = eventStream(new TextDecoder());
  const bytes = utf8(text);
  const events: Dispatch[] = [];
  const retries: number[] = [];
  for (let i = 0; i < bytes.length; i += size) {
    const got = s.push(bytes.subarray(i, i + size));
    events.push(...got.events);
    if (got.retry !== null) retries.push(got.retry);
  }
  return { events, retries, lastEventId: s.lastEventId };
}

describe('an event stream as the browser dispatches it', () => {
  const text = '\uFEFF: comment\r\nevent: custom\r\ndata: a\r\ndata:b\r\nid: 7\r\n\r\ndata: {"x":"é"}\n\nretry: 250\nretry: x\nid: bad\0id\nevent: nodata\n\ndata\n\nid\ndata: last\r\r' + 'data: cut';
  const expected: Dispatch[] = [
    { type: 'custom', data: 'a\nb', lastEventId: '7' },
    { type: 'message', data: '{"x":"é"}', lastEventId: '7' },
    { type: 'message', data: '', lastEventId: '7' },
    { type: 'message', data: 'last', lastEventId: '' },
  ];

  it('names, joins, keeps the last id, ignores an id with NULL and an event without data, takes a numeric retry, drops the unfinished event', () => {
    const whole = read(text, 1 << 20);
    assert.deepEqual(whole.events, expected);
    assert.deepEqual(whole.retries, [250]);
    assert.equal(whole.lastEventId, '');
  });

  it('the same over every chunking, a CR LF and a character split across chunks included', () => {
    for (const size of [1, 2, 3, 5, 7]) assert.deepEqual(read(text, size).events, expected, `chunks of ${size}`);
  });
});
