/** The page's memory of request headers, for a resend: bounded in count and bytes, oldest forgotten first. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { headerStore } from '../../src/capture/page/headers.ts';

describe('headerStore', () => {
  it('keeps at most its count and its bytes, forgetting the oldest, and refuses one larger than all', () => {
    const kept = headerStore(2, 100);
    const req = (v: string) => ({ headers: [['authorization', v]] as [string, string][], credentials: 'same-origin' as const });
    kept.keep(1, req('a'));
    kept.keep(2, req('b'));
    kept.keep(3, req('c'));
    assert.equal(kept.get(1), undefined);
    assert.deepEqual([kept.get(2)?.headers, kept.get(3)?.headers], [[['authorization', 'b']], [['authorization', 'c']]]);
    kept.keep(4, req('x'.repeat(80)));
    assert.equal(kept.get(2), undefined, 'bytes over the bound: the oldest goes');
    assert.equal(kept.get(3), undefined);
    assert.ok(kept.get(4));
    kept.keep(5, req('y'.repeat(200)));
    assert.equal(kept.get(5), undefined);
    assert.ok(kept.get(4), 'a request too large to keep evicts nothing');
  });
});
