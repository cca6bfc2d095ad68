/**
 * The linear-time matcher (src/detail/regex.ts) against the native engine: the same answer as
 * `new RegExp(p, 'u').test(s)` on generated patterns and strings (short, so the native engine's
 * backtracking stays fast), linear time where the native engine takes seconds, and a reason for each
 * pattern it refuses.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileLinear, MAX_PROGRAM, type LinearRegex } from '../../src/detail/regex.ts';
import { prng } from '../wire/helpers.ts';

const compiled = (p: string): LinearRegex => {
  const c = compileLinear(p);
  assert.ok(c.ok, `${p}: ${c.ok ? '' : c.reason}`);
  return c.regex;
};
const refused = (p: string): string => {
  const c = compileLinear(p);
  assert.ok(!c.ok, p);
  return c.ok ? '' : c.reason;
};
const cpuMs = (f: () => void): number => {
  const t = process.cpuUsage();
  f();
  const d = process.cpuUsage(t);
  return (d.user + d.system) / 1000;
};

test('catastrophic patterns for the native engine answer at once, and correctly', () => {
  const r = compiled('^(a+)+$');
  for (const n of [28, 40, 10_000]) {
    assert.equal(r.test('a'.repeat(n) + '!'), false);
    assert.equal(r.test('a'.repeat(n)), true);
  }
  assert.equal(compiled('(x+x+)+y').test('x'.repeat(5000)), false);
  assert.equal(compiled('^(\\w+\\s?)*$').test('word '.repeat(2000) + '!'), false);
});

test('a search costs the input times the program: four times the input about four times the time', () => {
  const r = compiled('^(a|aa|a?a)+$');
  const at = (n: number): number => {
    const s = 'a'.repeat(n) + '!';
    return Math.min(...[0, 1, 2, 3, 4].map(() => cpuMs(() => assert.equal(r.test(s), false))));
  };
  // Both sizes warm first, the least of five samples each; linear reads about 4 and quadratic 16, so a
  // collection in one sample (2n ÷ n read over 3 beside a callgrind run) cannot decide it.
  const n = 25_000;
  at(n);
  at(4 * n);
  const [one, four] = [at(n), at(4 * n)];
  assert.ok(four / one < 8, `n: ${one.toFixed(1)} ms, 4n: ${four.toFixed(1)} ms`);
  assert.equal(r.cost(2), 3 * r.cost(0));
});

test('what cannot run in linear time, or would compile too large, is refused with the reason', () => {
  assert.match(refused('(a)\\1'), /backreference/);
  assert.match(refused('(?<x>a)\\k<x>'), /backreference/);
  assert.match(refused('a(?=b)'), /lookaround/);
  assert.match(refused('a(?!b)'), /lookaround/);
  assert.match(refused('(?<=b)a'), /lookaround/);
  assert.match(refused('(?<!b)a'), /lookaround/);
  assert.match(refused('(a{1000}){1000}'), new RegExp(`more than the ${MAX_PROGRAM}`));
  assert.match(refused('('), /not a regular expression/);
  assert.match(refused('('.repeat(300) + ')'.repeat(300)), /nest deeper/);
  // Named groups and escapes that look like the refused forms are read.
  assert.equal(compiled('(?<name>a)[(?=]\\(?=').test('a?='), true);
  assert.equal(compiled('\\u{1F600}\\uD83D\\uDE00').test('😀😀'), true);
});

// ---- Differential against the native engine ----

const ATOMS = ['a', 'b', 'c', '.', '[ab]', '[^a]', '[a-c]', '[\\d_]', '\\d', '\\D', '\\w', '\\W', '\\s', '\\S', '😀', '\\u{1F600}', '\\u0061', '\\x62', '\\p{L}', '\\P{L}', '\\p{Script=Greek}', '\\.', '[\\b]', '\\n', '[😀-😂]', '\\-'.slice(1)];
const ASSERTIONS = ['^', '$', '\\b', '\\B'];
const QUANTIFIERS = ['*', '+', '?', '{2}', '{1,}', '{0,2}', '{1,3}'];
const CHARS = ['a', 'b', 'c', ' ', '1', '_', '😀', '😂', '\n', 'é', 'λ', '.', '\uD800', '\uDE00'];

function genPattern(r: () => number, depth: number): string {
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const term = (): string => {
    const k = r();
    if (k < 0.12) return pick(ASSERTIONS);
    let atom: string;
    if (depth < 3 && k < 0.35) {
      const inner = genPattern(r, depth + 1);
      atom = `${pick(['(', '(?:', '(?<g' + Math.floor(r() * 1e6) + '>'])}${inner})`;
    } else atom = pick(ATOMS);
    if (r() < 0.4) atom += pick(QUANTIFIERS) + (r() < 0.3 ? '?' : '');
    return atom;
  };
  const alt = (): string => Array.from({ length: Math.floor(r() * 4) }, term).join('');
  return Array.from({ length: 1 + (r() < 0.3 ? Math.floor(r() * 3) : 0) }, alt).join('|');
}

test('differential: the answer of the native engine with the u flag on generated patterns and strings', () => {
  const r = prng(20261207);
  let patterns = 0;
  let matches = 0;
  let pairs = 0;
  for (let k = 0; k < 3000; k++) {
    const p = genPattern(r, 0);
    let native: RegExp;
    try {
      native = new RegExp(p, 'u');
    } catch {
      continue;
    }
    patterns++;
    const mine = compiled(p);
    for (let j = 0; j < 12; j++) {
      const s = Array.from({ length: Math.floor(r() * 7) }, () => CHARS[Math.floor(r() * CHARS.length)]).join('');
      const want = native.test(s);
      assert.equal(mine.test(s), want, `${JSON.stringify(p)} on ${JSON.stringify(s)}`);
      pairs++;
      if (want) matches++;
    }
  }
  assert.ok(patterns > 2000 && matches > pairs * 0.2 && matches < pairs * 0.8, JSON.stringify({ patterns, pairs, matches }));
});
