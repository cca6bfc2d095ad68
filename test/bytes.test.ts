import assert from 'node:assert/strict';
import { test } from 'node:test';
import { utf8Bytes } from '../src/bytes.ts';

test('utf8Bytes gives the UTF-8 bytes encode gives, ASCII or not', () => {
  const encode = (s: string): Uint8Array => new TextEncoder().encode(s);
  for (const s of ['', 'data: {"type":"RUN_STARTED"}\n\n'.repeat(1000), 'Grüße, café', 'a€b', '😀', 'lone \ud800 surrogate', `${'x'.repeat(10_000)}é`]) {
    assert.deepEqual(utf8Bytes(s), encode(s), JSON.stringify(s.slice(0, 20)));
  }
});
