/**
 * Regular expressions in time linear in the input, for patterns a page sends (a tool's `pattern`,
 * `patternProperties`): the native engine backtracks, and `^(a+)+$` against 28 `a`s and a `!` takes
 * seconds, in a worker every tab shares. A pattern is compiled to a Thompson NFA and run as a Pike VM
 * over code points, as the `u` flag reads the pattern and the input: every state is visited at most once
 * per position, so a search costs at most (code points + 1) × program size.
 *
 * Only `test` is answered, so greedy and lazy quantifiers are the same and captures are not kept: whether
 * some substring matches does not depend on either. What cannot run in linear time, backreferences and
 * lookaround, is refused, with the reason; so is a program that counted repetition would make too large.
 * Character classes and escapes are decided per code point by the native engine on a one-character
 * string (linear), so `\p{…}`, `\s` and class syntax mean exactly what they mean natively.
 */

export type Compiled = { ok: true; regex: LinearRegex } | { ok: false; reason: string };

/** Most instructions one pattern compiles to: `a{1000}{1000}` must not expand to a million. */
export const MAX_PROGRAM = 20_000;

type Inst =
  | { op: 'char'; test: (cp: number) => boolean }
  | { op: 'split'; x: number; y: number }
  | { op: 'jmp'; x: number }
  | { op: 'assert'; kind: '^' | '$' | 'b' | 'B' }
  | { op: 'match' };

type Node =
  | { t: 'char'; test: (cp: number) => boolean }
  | { t: 'assert'; kind: '^' | '$' | 'b' | 'B' }
  | { t: 'seq'; items: Node[] }
  | { t: 'alt'; items: Node[] }
  | { t: 'rep'; node: Node; min: number; max: number };

class Refused extends Error {}

/** Sticky, so reading one at a position costs what it reads, not the rest of the pattern. */
const COUNTED = /\{(\d+)(,(\d*))?\}/y;
const TRAIL = /\\u[dD][c-fC-F][0-9a-fA-F]{2}/y;
/** Deepest group nesting read: parsing and compiling recurse over groups. */
const MAX_NESTING = 200;

const LINE_TERMINATORS = new Set([0x0a, 0x0d, 0x2028, 0x2029]);
const isWord = (cp: number): boolean => (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) || cp === 0x5f;

/** A class or escape as the native engine reads it, asked one code point at a time; answers are remembered up to a bound. */
function nativeAtom(source: string): (cp: number) => boolean {
  const re = new RegExp(`^(?:${source})$`, 'u');
  const seen = new Map<number, boolean>();
  return (cp) => {
    let r = seen.get(cp);
    if (r === undefined) {
      r = re.test(String.fromCodePoint(cp));
      if (seen.size < 4096) seen.set(cp, r);
    }
    return r;
  };
}

/** Parses a pattern the native engine has accepted with the `u` flag; throws Refused for what it will not run. */
class Parser {
  private i = 0;
  private depth = 0;
  constructor(private readonly p: string) {}

  parse(): Node {
    const n = this.disjunction();
    if (this.i < this.p.length) throw new Refused(`it has an unexpected ${JSON.stringify(this.p[this.i])} at ${this.i}`);
    return n;
  }

  private peek(): string | undefined {
    return this.p[this.i];
  }

  private disjunction(): Node {
    const items = [this.alternative()];
    while (this.peek() === '|') {
      this.i++;
      items.push(this.alternative());
    }
    return items.length === 1 ? items[0]! : { t: 'alt', items };
  }

  private alternative(): Node {
    const items: Node[] = [];
    for (let c = this.peek(); c !== undefined && c !== '|' && c !== ')'; c = this.peek()) {
      const atom = this.term();
      items.push(this.quantified(atom));
    }
    return { t: 'seq', items };
  }

  private quantified(atom: Node): Node {
    const c = this.peek();
    let min: number;
    let max: number;
    if (c === '*') [min, max] = [0, Infinity];
    else if (c === '+') [min, max] = [1, Infinity];
    else if (c === '?') [min, max] = [0, 1];
    else if (c === '{') {
      COUNTED.lastIndex = this.i;
      const m = COUNTED.exec(this.p);
      if (!m) return atom;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      this.i += m[0].length - 1;
    } else return atom;
    this.i++;
    if (this.peek() === '?') this.i++;
    return { t: 'rep', node: atom, min, max };
  }

  private term(): Node {
    const start = this.i;
    const c = this.peek()!;
    if (c === '^' || c === '$') {
      this.i++;
      return { t: 'assert', kind: c };
    }
    if (c === '(') {
      this.i++;
      if (this.p.startsWith('?=', this.i) || this.p.startsWith('?!', this.i) || this.p.startsWith('?<=', this.i) || this.p.startsWith('?<!', this.i)) {
        throw new Refused('it uses lookaround, which cannot be matched in linear time');
      }
      if (this.p.startsWith('?:', this.i)) this.i += 2;
      else if (this.p.startsWith('?<', this.i)) this.i = this.p.indexOf('>', this.i) + 1;
      else if (this.peek() === '?') throw new Refused(`it uses a group modifier at ${start}, which this matcher does not read`);
      if (++this.depth > MAX_NESTING) throw new Refused(`its groups nest deeper than ${MAX_NESTING}`);
      const inner = this.disjunction();
      if (this.peek() !== ')') throw new Refused(`its group at ${start} is not closed`);
      this.i++;
      this.depth--;
      return inner;
    }
    if (c === '.') {
      this.i++;
      return { t: 'char', test: (cp) => !LINE_TERMINATORS.has(cp) };
    }
    if (c === '[') {
      this.classEnd();
      return { t: 'char', test: nativeAtom(this.p.slice(start, this.i)) };
    }
    if (c === '\\') return this.escape(false);
    const cp = this.p.codePointAt(this.i)!;
    this.i += cp > 0xffff ? 2 : 1;
    return { t: 'char', test: (x) => x === cp };
  }

  /** Moves past a character class, its escapes included. */
  private classEnd(): void {
    this.i++;
    while (this.i < this.p.length && this.peek() !== ']') {
      if (this.peek() === '\\') this.escape(true);
      else this.i++;
    }
    if (this.peek() !== ']') throw new Refused('its character class is not closed');
    this.i++;
  }

  /** An escape: an assertion, or a code point test; inside a class only its extent matters. */
  private escape(inClass: boolean): Node {
    const start = this.i;
    const c = this.p[this.i + 1];
    if (c === undefined) throw new Refused('it ends in a backslash');
    this.i += 2;
    if (!inClass && (c === 'b' || c === 'B')) return { t: 'assert', kind: c };
    if (!inClass && ((c >= '1' && c <= '9') || c === 'k')) throw new Refused('it uses a backreference, which cannot be matched in linear time');
    if (c === 'p' || c === 'P') {
      const end = this.p.indexOf('}', this.i);
      if (end < 0) throw new Refused(`its \\${c} at ${start} is not closed`);
      this.i = end + 1;
    } else if (c === 'u') {
      if (this.peek() === '{') this.i = this.p.indexOf('}', this.i) + 1;
      else {
        const lead = parseInt(this.p.slice(this.i, this.i + 4), 16);
        this.i += 4;
        // With the `u` flag, an escaped surrogate pair is one code point.
        TRAIL.lastIndex = this.i;
        if (lead >= 0xd800 && lead <= 0xdbff && TRAIL.test(this.p)) this.i += 6;
      }
    } else if (c === 'x') this.i += 2;
    else if (c === 'c') this.i += 1;
    return { t: 'char', test: nativeAtom(this.p.slice(start, this.i)) };
  }
}

/** Instructions a node compiles to, so the size is known before anything is expanded. */
function size(n: Node): number {
  switch (n.t) {
    case 'char': case 'assert': return 1;
    case 'seq': return n.items.reduce((a, m) => a + size(m), 0);
    case 'alt': return n.items.reduce((a, m) => a + size(m) + 2, 0);
    case 'rep': {
      const one = size(n.node);
      return n.min * one + (n.max === Infinity ? one + 2 : (n.max - n.min) * (one + 1));
    }
  }
}

function emit(n: Node, prog: Inst[]): void {
  switch (n.t) {
    case 'char': prog.push({ op: 'char', test: n.test }); return;
    case 'assert': prog.push({ op: 'assert', kind: n.kind }); return;
    case 'seq': for (const m of n.items) emit(m, prog); return;
    case 'alt': {
      const jumps: { op: 'jmp'; x: number }[] = [];
      n.items.forEach((m, k) => {
        if (k < n.items.length - 1) {
          const split: Inst = { op: 'split', x: prog.length + 1, y: 0 };
          prog.push(split);
          emit(m, prog);
          const j = { op: 'jmp' as const, x: 0 };
          prog.push(j);
          jumps.push(j);
          split.y = prog.length;
        } else emit(m, prog);
      });
      for (const j of jumps) j.x = prog.length;
      return;
    }
    case 'rep': {
      for (let k = 0; k < n.min; k++) emit(n.node, prog);
      if (n.max === Infinity) {
        const split: Inst = { op: 'split', x: prog.length + 1, y: 0 };
        const at = prog.length;
        prog.push(split);
        emit(n.node, prog);
        prog.push({ op: 'jmp', x: at });
        split.y = prog.length;
        return;
      }
      // Each optional copy may end the repetition: x? x? … as nested optionals would, but flat.
      const splits: { op: 'split'; x: number; y: number }[] = [];
      for (let k = n.min; k < n.max; k++) {
        const split = { op: 'split' as const, x: prog.length + 1, y: 0 };
        prog.push(split);
        splits.push(split);
        emit(n.node, prog);
      }
      for (const s of splits) s.y = prog.length;
    }
  }
}

/** A compiled pattern; `test` searches anywhere in the string, as RegExp.prototype.test does. */
export class LinearRegex {
  constructor(private readonly prog: Inst[]) {}

  /** The most steps `test` takes on a string of `length` UTF-16 units: an upper bound, known before running. */
  cost(length: number): number {
    return (length + 1) * this.prog.length;
  }

  test(s: string): boolean {
    const prog = this.prog;
    const cps: number[] = [];
    for (const ch of s) cps.push(ch.codePointAt(0)!);
    const mark = new Int32Array(prog.length).fill(-1);
    let cur: number[] = [];
    let next: number[] = [];
    const stack: number[] = [];
    /**
     * Adds `pc` and what it reaches without reading to `list`, where the assertions see `at` (stamped
     * `stamp`, so each state is visited once there); true when that reaches the match.
     */
    const add = (list: number[], pc0: number, stamp: number, at: Position): boolean => {
      stack.push(pc0);
      while (stack.length) {
        const pc = stack.pop()!;
        if (mark[pc] === stamp) continue;
        mark[pc] = stamp;
        const inst = prog[pc]!;
        switch (inst.op) {
          case 'match': stack.length = 0; return true;
          case 'char': list.push(pc); break;
          case 'jmp': stack.push(inst.x); break;
          case 'split': stack.push(inst.y, inst.x); break;
          case 'assert': if (holds(inst.kind, at)) stack.push(pc + 1); break;
        }
      }
      return false;
    };
    const position = (pos: number): Position => ({
      start: pos === 0, end: pos === cps.length, wordBefore: pos > 0 && isWord(cps[pos - 1]!), wordAfter: pos < cps.length && isWord(cps[pos]!),
    });
    for (let pos = 0; ; pos++) {
      // An unanchored search starts a thread at every position.
      if (add(cur, 0, pos, position(pos))) return true;
      if (pos === cps.length) return false;
      const cp = cps[pos]!;
      // V8's irregexp (Chrome's engine, and Firefox's) also tries the position inside a surrogate pair, where
      // a match that reads nothing succeeds when its assertions hold between two non-word units.
      if (cp > 0xffff && add([], 0, -2 - pos, INSIDE_PAIR)) return true;
      next.length = 0;
      const after = position(pos + 1);
      for (const pc of cur) {
        if ((prog[pc] as { test: (cp: number) => boolean }).test(cp) && add(next, pc + 1, pos + 1, after)) return true;
      }
      [cur, next] = [next, cur];
    }
  }
}

interface Position {
  start: boolean;
  end: boolean;
  wordBefore: boolean;
  wordAfter: boolean;
}

const INSIDE_PAIR: Position = { start: false, end: false, wordBefore: false, wordAfter: false };

function holds(kind: '^' | '$' | 'b' | 'B', at: Position): boolean {
  if (kind === '^') return at.start;
  if (kind === '$') return at.end;
  return (kind === 'b') === (at.wordBefore !== at.wordAfter);
}

/** `pattern` compiled for linear-time search with the `u` flag, or why it cannot be. */
export function compileLinear(pattern: string): Compiled {
  try {
    new RegExp(pattern, 'u');
  } catch {
    return { ok: false, reason: 'it is not a regular expression JavaScript reads' };
  }
  try {
    const tree = new Parser(pattern).parse();
    const n = size(tree) + 1;
    if (n > MAX_PROGRAM) return { ok: false, reason: `it would compile to ${n} steps, more than the ${MAX_PROGRAM} this matcher runs` };
    const prog: Inst[] = [];
    emit(tree, prog);
    prog.push({ op: 'match' });
    return { ok: true, regex: new LinearRegex(prog) };
  } catch (e) {
    if (e instanceof Refused) return { ok: false, reason: e.message };
    throw e;
  }
}
