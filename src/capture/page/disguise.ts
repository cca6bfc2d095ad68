/**
 * Native-looking wrappers. Wrappers are Proxies of the originals, so name, length and prototype are
 * the native ones, and Function.prototype.toString (once `hideWrappers` ran) reports the original
 * source for them.
 *
 * Errors thrown through a wrapper carry its frames, which in Chrome name this script by its
 * chrome-extension:// URL. They reach the page with those frames cut from their stack, and while a
 * wrapper runs the page's Error.stackTraceLimit is raised by SPARE_FRAMES, so the page keeps as many
 * frames of its own as the native call alone would have captured. Firefox names the script
 * `<anonymous code>` and keeps `stack` on the prototype, where rewriting it would add an own
 * property: there errors are left as they are (see docs/privacy.md).
 */
export interface Disguise {
  /** A Proxy of `original` whose apply/construct traps run `handler`'s, errors cleaned. */
  wrap<F extends object>(original: F, handler: ProxyHandler<F>): F;
  /** `e` without this script's frames in its stack, where that can be done unobserved. */
  clean(e: unknown): unknown;
  /** Makes `functionPrototype.toString` report the originals' source for wrappers. */
  hideWrappers(functionPrototype: { toString: () => string }): void;
}

type ErrorCtor = ErrorConstructor & { stackTraceLimit?: unknown; isError?: (v: unknown) => boolean };

const SPARE_FRAMES = 4;
const FRAME = /^\s+at /;
const SCRIPT = /(\w+-extension:\/\/[^\s)]+?):\d+:\d+/;

/** `NativeError` and `NativeDOMException` are the realm's own: their stacks name this script. */
export function disguise(NativeError: ErrorConstructor, NativeDOMException: new () => object): Disguise {
  const { apply, getOwnPropertyDescriptor: ownDescriptor, defineProperty } = Reflect;
  const ErrorCtor = NativeError as ErrorCtor;
  const script = SCRIPT.exec(new ErrorCtor().stack ?? '')?.[1] ?? null;
  const isError = ErrorCtor.isError;
  const stackAccessors = new Set([new ErrorCtor(), new NativeDOMException()].map((e) => ownDescriptor(e, 'stack')?.get));
  let pageLimit = Infinity;
  let depth = 0;

  function clean(e: unknown): unknown {
    if (script === null || !isError || !apply(isError, ErrorCtor, [e])) return e;
    // A page's own Error.prepareStackTrace formats stacks its way, when it reads them.
    const prepare = ownDescriptor(ErrorCtor, 'prepareStackTrace');
    if (prepare && (prepare.get || prepare.value !== undefined)) return e;
    const desc = ownDescriptor(e as Error, 'stack');
    // Only the engine's own accessor is called: a page-defined one is page code.
    if (!desc || (desc.get ? !stackAccessors.has(desc.get) || !desc.set : !desc.writable)) return e;
    const stack: unknown = desc.get ? apply(desc.get, e, []) : desc.value;
    if (typeof stack !== 'string' || !stack.includes(script)) return e;
    const kept: string[] = [];
    let frames = 0;
    for (const line of stack.split('\n')) {
      if (!FRAME.test(line)) kept.push(line);
      else if (!line.includes(script) && frames++ < pageLimit) kept.push(line);
    }
    if (desc.set) apply(desc.set, e, [kept.join('\n')]);
    else defineProperty(e as Error, 'stack', { ...desc, value: kept.join('\n') });
    return e;
  }

  /** Runs a wrapper's trap: see clean(). */
  function guarded<R>(trap: (...args: never[]) => R, handler: object, args: unknown[]): R {
    const limit = depth++ === 0 && script !== null ? ownDescriptor(ErrorCtor, 'stackTraceLimit') : undefined;
    const raise = typeof limit?.value === 'number' && limit.writable === true && limit.value >= 0;
    if (raise) {
      pageLimit = limit.value as number;
      ErrorCtor.stackTraceLimit = pageLimit + SPARE_FRAMES;
    }
    try {
      return apply(trap, handler, args);
    } catch (e) {
      throw clean(e);
    } finally {
      depth--;
      if (raise) ErrorCtor.stackTraceLimit = pageLimit;
    }
  }

  const originals = new WeakMap<object, object>();
  function wrap<F extends object>(original: F, handler: ProxyHandler<F>): F {
    const { apply: onApply, construct: onConstruct } = handler;
    const proxy = new Proxy(original, {
      apply: onApply && ((target, self, args) => guarded(onApply, handler, [target, self, args])),
      construct: onConstruct && ((target, args, newTarget) => guarded(onConstruct, handler, [target, args, newTarget])),
    });
    originals.set(proxy, original);
    return proxy;
  }

  return {
    wrap,
    clean,
    hideWrappers(functionPrototype) {
      functionPrototype.toString = wrap(functionPrototype.toString, {
        apply(target, self, args) {
          return apply(target, (typeof self === 'function' && originals.get(self)) || self, args);
        },
      });
    },
  };
}

/**
 * Reads `key` with the native accessor `proto` has now: one a page later puts in its place must run only
 * when the page reads. Without that accessor (objects of the unit tests' own kinds), a plain read.
 */
export function nativeGetter(proto: object | undefined, key: string): (o: object) => unknown {
  const { apply, getOwnPropertyDescriptor } = Reflect;
  const get = proto && getOwnPropertyDescriptor(proto, key)?.get;
  return get ? (o) => apply(get, o, []) : (o) => (o as Record<string, unknown>)[key];
}
