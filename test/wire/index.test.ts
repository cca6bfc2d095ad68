import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventEncoder } from '@ag-ui/encoder';
import { createDecoder, detectTransport, sniffTransport, transportOf } from '../../src/wire/index.ts';
import { concat, run, utf8, values } from './helpers.ts';

describe('transport selection', () => {
  it('maps media types to transports, parameters and case aside', () => {
    assert.equal(transportOf('text/event-stream; charset=utf-8'), 'sse');
    assert.equal(transportOf('Application/VND.ag-ui.event+proto'), 'protobuf');
    assert.equal(transportOf('application/x-ndjson'), 'jsonl');
    assert.equal(transportOf('application/jsonl'), 'jsonl');
    assert.equal(transportOf('application/json-seq'), 'jsonl');
    assert.equal(transportOf('application/json; charset=utf-8'), 'json');
    assert.equal(transportOf('application/problem+json'), 'json');
    assert.equal(transportOf('text/html'), null);
    assert.equal(transportOf(''), null);
    for (const [type, transport] of [
      ['text/event-stream', 'sse'],
      ['application/vnd.ag-ui.event+proto', 'protobuf'],
      ['application/x-ndjson', 'jsonl'],
      ['application/json', 'json'],
    ] as const) {
      assert.equal(createDecoder(type).transport, transport);
    }
  });

  it('sniffs a body with no content type', () => {
    const proto = new EventEncoder().encodeProtobuf({ type: 'RUN_STARTED', threadId: 't', runId: 'r' } as never);
    assert.equal(sniffTransport(proto), 'protobuf');
    assert.equal(sniffTransport(utf8.encode('\uFEFFdata: {}\n\n')), 'sse');
    assert.equal(sniffTransport(utf8.encode(': ping\n\n')), 'sse');
    assert.equal(sniffTransport(utf8.encode('event: x\ndata: {}\n\n')), 'sse');
    assert.equal(sniffTransport(utf8.encode('\n [{"type":"X"}]')), 'json');
    assert.equal(sniffTransport(utf8.encode('{"type":"X"}\n')), 'jsonl');
    assert.equal(detectTransport(utf8.encode('hello world')), null);
    assert.equal(sniffTransport(utf8.encode('hello world')), 'sse');
    assert.equal(detectTransport(new Uint8Array([0xff, 0xfe, 0, 1, 2])), null);
  });

  it('decodes through a sniffing decoder when the content type names nothing', () => {
    const sse = utf8.encode('\n\ndata: {"type":"A"}\n\ndata: {"type":"B"}\n\n');
    const proto = concat(
      ...['RUN_STARTED', 'RUN_FINISHED'].map((type) => new EventEncoder().encodeProtobuf({ type, threadId: 't', runId: 'r' } as never)),
    );
    for (const body of [sse, proto]) {
      const whole = run(createDecoder('application/octet-stream'), body);
      assert.equal(values(whole).length, 2);
      for (let cut = 0; cut <= body.length; cut++) {
        assert.deepEqual(run(createDecoder(''), body, [cut]), whole, `split at ${cut}`);
      }
      const bytewise = Array.from({ length: body.length }, (_, i) => i);
      assert.deepEqual(run(createDecoder(''), body, bytewise), whole);
    }
    const sniffed = createDecoder('');
    sniffed.push(proto, 0);
    assert.equal(sniffed.transport, 'protobuf');
    assert.deepEqual(run(createDecoder(''), new Uint8Array(0)), []);
  });
});
