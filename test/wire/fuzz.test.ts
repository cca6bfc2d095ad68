import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BaseEvent } from '@ag-ui/core';
import { EventEncoder } from '@ag-ui/encoder';
import { createDecoder } from '../../src/wire/index.ts';
import type { StreamDecoder } from '../../src/wire/types.ts';
import { concat, prng, randomCuts, run, utf8 } from './helpers.ts';

const TYPES = [
  'text/event-stream',
  'application/vnd.ag-ui.event+proto',
  'application/x-ndjson',
  'application/json',
  'application/octet-stream',
];

const sample = [
  { type: 'RUN_STARTED', threadId: 't1', runId: 'r1' },
  { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'é👨\u200d👩 x\u0301' },
  { type: 'TEXT_MESSAGE_END', messageId: 'm1' },
  { type: 'RUN_FINISHED', threadId: 't1', runId: 'r1' },
] as BaseEvent[];

const encoder = new EventEncoder();
const bodies: Record<string, Uint8Array> = {
  'text/event-stream': utf8.encode(sample.map((e) => encoder.encodeSSE(e)).join(': ka\r\n\r\n')),
  'application/vnd.ag-ui.event+proto': concat(...sample.map((e) => encoder.encodeProtobuf(e))),
  'application/x-ndjson': utf8.encode(sample.map((e) => JSON.stringify(e)).join('\n')),
  'application/json': utf8.encode(JSON.stringify(sample, null, 1)),
};

/** Every item must be well-formed whatever the input was. */
function check(decoder: StreamDecoder, body: Uint8Array, cuts: number[]): void {
  const items = run(decoder, body, cuts);
  for (const it of items) {
    assert.ok(Number.isInteger(it.offset) && it.offset >= 0 && it.size >= 0 && it.offset + it.size <= body.length);
  }
}

describe('decoders never throw', () => {
  it('on random bytes split at random offsets', () => {
    const rand = prng(1);
    for (let round = 0; round < 400; round++) {
      const body = new Uint8Array(Math.floor(rand() * 600));
      for (let i = 0; i < body.length; i++) {
        // Weighted towards the bytes the readers branch on.
        const r = rand();
        body[i] = r < 0.1 ? 0x0a : r < 0.15 ? 0x0d : r < 0.2 ? 0x3a : r < 0.25 ? 0x22 : r < 0.3 ? 0 : Math.floor(rand() * 256);
      }
      for (const type of TYPES) check(createDecoder(type), body, randomCuts(body.length, Math.floor(rand() * 8), rand));
    }
  });

  it('on valid streams mutated and split at random offsets', () => {
    const rand = prng(2);
    for (let round = 0; round < 300; round++) {
      for (const [type, valid] of Object.entries(bodies)) {
        const body = valid.slice();
        const flips = Math.floor(rand() * 4);
        for (let f = 0; f < flips; f++) body[Math.floor(rand() * body.length)] = Math.floor(rand() * 256);
        const end = rand() < 0.3 ? Math.floor(rand() * body.length) : body.length;
        for (const t of [type, '']) check(createDecoder(t), body.subarray(0, end), randomCuts(end, Math.floor(rand() * 10), rand));
      }
    }
  });

  it('and decode every valid stream completely at random splits', () => {
    const rand = prng(3);
    for (const [type, body] of Object.entries(bodies)) {
      const whole = run(createDecoder(type), body);
      assert.equal(whole.filter((it) => it.kind === 'event').length, sample.length, type);
      for (let round = 0; round < 200; round++) {
        assert.deepEqual(run(createDecoder(type), body, randomCuts(body.length, 1 + Math.floor(rand() * 12), rand)), whole);
      }
    }
  });
});
