import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyPatch } from '../../src/analyzer/patch.ts';

/** RFC 6902's own examples (appendix A) and the properties the analyzer relies on: no mutation, atomic failure. */
describe('RFC 6902 patch', () => {
  const ok = (doc: unknown, ops: unknown[], expected: unknown) => {
    const r = applyPatch(doc, ops);
    assert.ok(r.ok, JSON.stringify(r));
    assert.deepEqual(r.doc, expected);
  };
  const fails = (doc: unknown, ops: unknown[], op = 0) => {
    const r = applyPatch(doc, ops);
    assert.equal(r.ok, false);
    if (!r.ok) assert.equal(r.op, op);
  };

  it('A.1–A.3 add an object member, an array element, remove a member', () => {
    ok({ foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }], { foo: 'bar', baz: 'qux' });
    ok({ foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }], { foo: ['bar', 'qux', 'baz'] });
    ok({ baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }], { foo: 'bar' });
  });
  it('A.4–A.7 remove an element, replace, move a member and an element', () => {
    ok({ foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }], { foo: ['bar', 'baz'] });
    ok({ baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }], { baz: 'boo', foo: 'bar' });
    ok({ foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } }, [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }], { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } });
    ok({ foo: ['all', 'grass', 'cows', 'eat'] }, [{ op: 'move', from: '/foo/1', path: '/foo/3' }], { foo: ['all', 'cows', 'eat', 'grass'] });
  });
  it('A.8–A.10 test passes, test fails, add a nested member', () => {
    ok({ baz: 'qux', foo: ['a', 2, 'c'] }, [{ op: 'test', path: '/baz', value: 'qux' }, { op: 'test', path: '/foo/1', value: 2 }], { baz: 'qux', foo: ['a', 2, 'c'] });
    fails({ baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }]);
    ok({ foo: 'bar' }, [{ op: 'add', path: '/child', value: { grandchild: {} } }], { foo: 'bar', child: { grandchild: {} } });
  });
  it('A.12–A.16 add to a nonexistent target fails, ~ escapes, append with -, invalid move, array value', () => {
    fails({ foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }]);
    ok({ '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: 10 }], { '/': 9, '~1': 10 });
    ok({ foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }], { foo: ['bar', ['abc', 'def']] });
    fails({ foo: { bar: 1 } }, [{ op: 'move', from: '/foo', path: '/foo/bar/x' }]);
    fails([1, 2], [{ op: 'add', path: '/01', value: 3 }]);
    fails([1, 2], [{ op: 'remove', path: '/2' }]);
  });
  it('replaces the whole document with an empty path, and any JSON value can be the state', () => {
    ok({ a: 1 }, [{ op: 'replace', path: '', value: ['only-this'] }], ['only-this']);
    fails('text', [{ op: 'add', path: '/a', value: 1 }]);
    fails(null, [{ op: 'replace', path: '/a', value: 1 }]);
  });
  it('never mutates its input, and a failed patch reports the failing operation', () => {
    const doc = { list: [1, 2], nested: { keep: true } };
    const frozen = JSON.stringify(doc);
    const r = applyPatch(doc, [{ op: 'add', path: '/list/-', value: 3 }, { op: 'remove', path: '/nested/missing' }]);
    assert.deepEqual(r, { ok: false, op: 1, error: 'nothing to remove at /nested/missing' });
    assert.equal(JSON.stringify(doc), frozen);
    const good = applyPatch(doc, [{ op: 'add', path: '/list/-', value: 3 }]);
    assert.ok(good.ok && good.doc !== doc && (good.doc as typeof doc).nested === doc.nested, 'untouched branches are shared');
  });
  it('walks a 100,000-deep document without recursion', () => {
    let deep: unknown = {};
    for (let i = 0; i < 100_000; i++) deep = { d: deep };
    const r = applyPatch(deep, [{ op: 'add', path: '/x', value: 1 }]);
    assert.ok(r.ok);
  });
});
