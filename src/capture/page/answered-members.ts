/**
 * A request the armed override answers is no native one (issue #36): its object's getters and methods must
 * say what the answer says, while every other object of the class keeps the native's answers. One way to
 * do it for XMLHttpRequest and EventSource alike: the prototype's member is replaced by a disguised wrapper
 * that asks `of` whether its receiver is answered.
 */
import type { Disguise } from './disguise.ts';

/**
 * Returns `answers(key, value, part)`: `proto[key]`'s getter (or setter, or the method itself) answers
 * `value(a, self, args)` for a receiver `of` maps to an `a`, and as the native for all others.
 */
export function answeredMembers<S extends object, A>(wrap: Disguise['wrap'], proto: object, of: (self: S, key: string) => A | null | undefined) {
  const { apply } = Reflect;
  return (key: string, value: (a: A, self: S, args: unknown[]) => unknown, part?: 'get' | 'set' | 'value'): void => {
    const desc = Object.getOwnPropertyDescriptor(proto, key);
    const which = part ?? (desc?.get ? 'get' : 'value');
    const fn = desc?.[which];
    if (typeof fn !== 'function') return;
    const wrapped = wrap(fn as (...a: unknown[]) => unknown, {
      apply(target, self, args) {
        const a = of(self as S, key);
        return a ? value(a, self as S, args) : apply(target, self, args);
      },
    });
    Object.defineProperty(proto, key, { ...desc, [which]: wrapped });
  };
}
