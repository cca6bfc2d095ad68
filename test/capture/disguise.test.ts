/** Wrappers the page cannot tell from the natives: their source, their shape, and the errors thrown through them. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { disguise } from '../../src/capture/page/disguise.ts';

const EXT = 'chrome-extension://abcdefghijklmnop/src/capture/page.iife.js';

/** An Error class of a realm where this script's frames name it by its extension URL, as in Chrome. */
function extensionRealm(): { Err: ErrorConstructor & { stackTraceLimit: number }; pageStack: (n: number) => string } {
  const pageStack = (n: number): string => Array.from({ length: n }, (_, i) => `    at page${i} (http://127.0.0.1/app.js:${i + 1}:1)`).join('\n');
  class Err extends Error {
    static override stackTraceLimit = 10;
    static isError = (v: unknown): boolean => v instanceof Error;
    constructor(message?: string) {
      super(message);
      this.stack = `Error: ${message ?? ''}\n    at wrapper (${EXT}:10:5)\n    at trap (${EXT}:20:7)\n${pageStack(Err.stackTraceLimit - 2)}`;
    }
  }
  return { Err: Err as unknown as ErrorConstructor & { stackTraceLimit: number }, pageStack };
}

describe('disguise', () => {
  it('a wrapped function keeps the native\'s name and length, and its toString is the native\'s', () => {
    const d = disguise(Error, class {});
    const fnProto = { toString: Function.prototype.toString };
    d.hideWrappers(fnProto);
    const wrapped = d.wrap(fetch, { apply: (target, self, args) => Reflect.apply(target, self, args) });
    assert.notEqual(wrapped, fetch);
    assert.equal(wrapped.name, 'fetch');
    assert.equal(wrapped.length, fetch.length);
    assert.equal(Object.getPrototypeOf(wrapped), Object.getPrototypeOf(fetch));
    const source = (f: unknown): string => Reflect.apply(fnProto.toString, f, []) as string;
    assert.equal(source(wrapped), Function.prototype.toString.call(fetch));
    // toString itself is a wrapper, and looks like the native.
    assert.equal(source(fnProto.toString), Function.prototype.toString.call(Function.prototype.toString));
    // Other functions are unaffected.
    const mine = function mine(a: number): number { return a; };
    assert.equal(source(mine), mine.toString());
  });

  it('passes arguments, this and return value through, and construct too', () => {
    const d = disguise(Error, class {});
    class Point {
      constructor(public x: number) {}
    }
    const Wrapped = d.wrap(Point, { construct: (target, args, newTarget) => Reflect.construct(target, args, newTarget) });
    const p = new Wrapped(3);
    assert.ok(p instanceof Point);
    assert.equal(p.x, 3);
    const obj = { base: 2, add(this: { base: number }, a: number): number { return this.base + a; } };
    obj.add = d.wrap(obj.add, { apply: (t, s, a) => Reflect.apply(t, s, a) });
    assert.equal(obj.add(5), 7);
  });

  it('an error thrown through a wrapper is the same object; where no extension URL is in stacks, untouched', () => {
    const d = disguise(Error, class {});
    const thrown = new TypeError('bad');
    const stack = thrown.stack;
    const f = d.wrap(() => undefined, { apply() { throw thrown; } });
    assert.throws(() => f(), (e) => e === thrown && (e as Error).stack === stack);
  });

  it('cuts this script\'s frames from an error\'s stack, keeping as many page frames as the page\'s limit', () => {
    const { Err, pageStack } = extensionRealm();
    const d = disguise(Err, class {});
    let limitInside = 0;
    const f = d.wrap(() => undefined, {
      apply() {
        limitInside = Err.stackTraceLimit;
        throw new Err('boom');
      },
    });
    assert.throws(() => f(), (e) => {
      assert.ok(e instanceof Err);
      assert.equal((e as Error).stack, `Error: boom\n${pageStack(10)}`);
      return true;
    });
    assert.equal(limitInside, 14, 'raised while the wrapper ran, for the frames cut');
    assert.equal(Err.stackTraceLimit, 10, 'and restored');
    assert.equal(d.clean('not an error'), 'not an error');
  });

  it('leaves stacks alone when the page formats them itself', () => {
    const { Err } = extensionRealm();
    const d = disguise(Err, class {});
    (Err as unknown as { prepareStackTrace: unknown }).prepareStackTrace = () => 'page';
    const e = new Err('x');
    const before = e.stack;
    assert.equal(d.clean(e), e);
    assert.equal(e.stack, before);
  });
});
