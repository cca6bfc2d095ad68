import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyPatch, PatchTarget } from '../../src/analyzer/patch.ts';
import { jsonClone, jsonEqual, pointer } from '../../src/json.ts';
import { prng } from '../wire/helpers.ts';

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

/** The working copy the state tracker edits: in place where it may, copy-on-write where it may not. */
describe('PatchTarget', () => {
  it('edits one working copy across patches and never writes what it was given', () => {
    const given = { big: { a: 1 }, list: [1], other: { keep: true } };
    const frozen = JSON.stringify(given);
    const t = new PatchTarget(given);
    assert.ok(t.apply([{ op: 'add', path: '/big/b', value: 2 }, { op: 'add', path: '/list/-', value: 2 }]).ok);
    const root = t.doc as typeof given;
    const big = root.big;
    assert.ok(t.apply([{ op: 'add', path: '/big/c', value: 3 }, { op: 'add', path: '/list/-', value: 3 }]).ok);
    assert.equal(t.doc, root, 'the root is copied once, then edited in place');
    assert.equal(root.big, big, 'so is each container under it');
    assert.equal(root.other, given.other, 'untouched branches are shared');
    assert.deepEqual(t.doc, { big: { a: 1, b: 2, c: 3 }, list: [1, 2, 3], other: { keep: true } });
    assert.equal(JSON.stringify(given), frozen);
  });
  it('undoes every write of a patch that fails part-way, in owned containers too', () => {
    const t = new PatchTarget({ a: { b: 1 }, list: [1, 2, 3] });
    assert.ok(t.apply([{ op: 'add', path: '/a/c', value: 3 }, { op: 'add', path: '/list/-', value: 4 }]).ok);
    const before = structuredClone(t.doc);
    const r = t.apply([
      { op: 'replace', path: '/a/b', value: 2 },
      { op: 'remove', path: '/a/c' },
      { op: 'remove', path: '/list/0' },
      { op: 'add', path: '/list/1', value: 'x' },
      { op: 'move', from: '/list/2', path: '/moved' },
      { op: 'copy', from: '/a', path: '/list/-' },
      { op: 'replace', path: '', value: 'gone' },
      { op: 'add', path: '/x', value: 1 },
    ]);
    assert.deepEqual(r, { ok: false, op: 7, error: 'cannot add to string at ' });
    assert.deepEqual(t.doc, before);
    assert.ok(t.apply([{ op: 'test', path: '/list', value: [1, 2, 3, 4] }]).ok, 'and the target keeps working');
  });
  it('a copy is a value of its own: writing through it leaves the original as it was', () => {
    const t = new PatchTarget({ a: { deep: { n: 1 } } });
    assert.ok(t.apply([{ op: 'add', path: '/a/deep/m', value: 2 }, { op: 'copy', from: '/a', path: '/b' }]).ok);
    assert.ok(t.apply([{ op: 'add', path: '/b/deep/z', value: 3 }, { op: 'replace', path: '/b/deep/n', value: 9 }]).ok);
    assert.deepEqual(t.doc, { a: { deep: { n: 1, m: 2 } }, b: { deep: { n: 9, m: 2, z: 3 } } });
  });
  it('never writes a value an event carried, even once it is part of the state', () => {
    const value = { inner: [1] };
    const t = new PatchTarget({});
    assert.ok(t.apply([{ op: 'add', path: '/v', value }]).ok);
    assert.ok(t.apply([{ op: 'add', path: '/v/inner/-', value: 2 }, { op: 'add', path: '/v/more', value: true }]).ok);
    assert.deepEqual(value, { inner: [1] });
    assert.deepEqual(t.doc, { v: { inner: [1, 2], more: true } });
  });
  it('patches members named __proto__ as own members', () => {
    const t = new PatchTarget(JSON.parse('{"__proto__": {"x": 1}}'));
    assert.ok(t.apply([{ op: 'add', path: '/__proto__/y', value: 2 }, { op: 'copy', from: '/__proto__', path: '/c' }]).ok);
    assert.equal(Object.getPrototypeOf(t.doc), Object.prototype);
    assert.deepEqual(JSON.stringify(t.doc), '{"__proto__":{"x":1,"y":2},"c":{"x":1,"y":2}}');
  });
  it('the inverse patch it gives takes the result back to the document before, on generated patches', () => {
    const r = prng(33);
    const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
    const value = (depth: number): unknown =>
      depth > 2 || r() < 0.4 ? pick([1, 'x', null, true]) : r() < 0.5 ? Array.from({ length: Math.floor(r() * 4) }, () => value(depth + 1)) : Object.fromEntries(['a', 'b', 'c/d', '__proto__'].filter(() => r() < 0.5).map((k) => [k, value(depth + 1)]));
    /** Every pointer in `doc`, and for arrays the end (`-`) and one past it too. */
    const paths = (doc: unknown, at = ''): string[] => {
      const out = [at];
      if (Array.isArray(doc)) {
        doc.forEach((v, i) => out.push(...paths(v, `${at}/${i}`)));
        out.push(`${at}/-`, `${at}/${doc.length}`);
      } else if (doc && typeof doc === 'object') {
        for (const [k, v] of Object.entries(doc)) out.push(...paths(v, at + pointer(k)));
        out.push(at + pointer(pick(['a', 'b', 'new'])));
      }
      return out;
    };
    let applied = 0;
    for (let n = 0; n < 3000; n++) {
      const before = value(0);
      const kept = jsonClone(before);
      const ops = Array.from({ length: 1 + Math.floor(r() * 4) }, () => {
        const ps = paths(before);
        return { op: pick(['add', 'remove', 'replace', 'move', 'copy', 'test']), path: pick(ps), from: pick(ps), value: value(1) };
      });
      const inverse: unknown[] = [];
      const t = new PatchTarget(before);
      const result = t.apply(ops, inverse);
      assert.ok(jsonEqual(before, kept));
      if (!result.ok) {
        assert.deepEqual(inverse, []);
        continue;
      }
      applied++;
      const back = new PatchTarget(t.doc).apply(inverse);
      assert.ok(back.ok && jsonEqual(back.doc, before), `${JSON.stringify(before)} ${JSON.stringify(ops)}: inverse ${JSON.stringify(inverse)} gave ${JSON.stringify(back)}`);
    }
    assert.ok(applied > 500, `${applied} patches applied`);
  });
});
