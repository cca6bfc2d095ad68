/**
 * What a redacted value becomes. A filler is plain ASCII (so it needs no escaping and is one byte a
 * character) and is chosen per distinct original value, never per spelling: equal values get equal
 * fillers and different values different ones, as far as the length allows, whether the value came
 * escaped in JSON text, plain in JSON text or as protobuf. That keeps the comparisons the analysis
 * makes between values — a JSON Patch `test`, RUN_STARTED.input against the input sent — coming out
 * as they did before. A string's filler is as long as its UTF-8 encoding, a number's as its shortest
 * spelling; both fit in the bytes of any JSON spelling of the value.
 */

/** A boolean's fillers: `~` is in no other filler, so no string filler ever equals one. */
const BOOLEANS = ['~~', '~1'];
/** Everything but `x`, which pads: `xxxx` is the first value of a length, `xxx1` the second. */
const STRING_DIGITS = '0123456789abcdefghijklmnopqrstuvwyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
/** No zero, so a filled number never gains a leading zero that JSON forbids. */
const NUMBER_DIGITS = '123456789';
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

function spell(n: number, digits: string): string {
  let s = '';
  for (let v = n; v > 0; v = Math.floor(v / digits.length)) s = digits[v % digits.length] + s;
  return s;
}

function ordinal(table: Map<string, Map<string, number>>, bucket: string, value: string): number {
  let seen = table.get(bucket);
  if (!seen) table.set(bucket, (seen = new Map()));
  let n = seen.get(value);
  if (n === undefined) seen.set(value, (n = seen.size));
  return n;
}

export class Fillers {
  private readonly strings = new Map<string, Map<string, number>>();
  private readonly numbers = new Map<string, Map<string, number>>();

  /** `length` ASCII characters standing for `value`. */
  string(value: string, length: number): string {
    if (length <= 0) return '';
    const code = spell(ordinal(this.strings, String(length), value), STRING_DIGITS).slice(-length);
    return 'x'.repeat(length - code.length) + code;
  }

  /** Two characters standing for a boolean: it becomes a string, since either literal would name the value. */
  boolean(value: boolean): string {
    return BOOLEANS[ordinal(this.strings, 'boolean', String(value))]!;
  }

  /**
   * A filler for the number `raw` spells, in the shape of its shortest spelling, so `1.50`, `1.5` and
   * `15e-1` get one filler. A value whose shortest spelling is longer than `raw` (`1e+21` for `1e21`)
   * keeps `raw`'s shape instead, so the filler never outgrows the bytes it is written over.
   */
  numberValue(raw: string): string {
    const shortest = String(Number(raw));
    return this.number(shortest.length <= raw.length ? shortest : raw);
  }

  /**
   * A number with `raw`'s shape — sign, point and exponent kept, every digit replaced — standing for its value.
   * Exponent digits all become `1`, so no filler overflows to Infinity. Text that is no JSON number
   * (a bare word in a frame that is not JSON) becomes `x`s, `bytes` long.
   */
  number(raw: string, bytes = raw.length): string {
    if (!NUMBER.test(raw)) return 'x'.repeat(bytes);
    const e = raw.search(/[eE]/);
    const mantissa = e === -1 ? raw : raw.slice(0, e);
    const exponent = e === -1 ? '' : raw.slice(e);
    const shape = raw.replace(/\d/g, 'd');
    const width = mantissa.replace(/\D/g, '').length;
    const code = spell(ordinal(this.numbers, shape, String(Number(raw))), NUMBER_DIGITS).slice(-width);
    const digits = '1'.repeat(width - code.length) + code;
    let at = 0;
    return mantissa.replace(/\d/g, () => digits[at++]!) + exponent.replace(/\d/g, '1');
  }
}
