/**
 * What a redacted value becomes. A filler has the original's exact byte length, is plain ASCII
 * (so it needs no escaping and is one byte a character), and is chosen per distinct original:
 * equal values get equal fillers and different values different ones, as far as the length
 * allows. That keeps the comparisons the analysis makes between values — a JSON Patch `test`,
 * RUN_STARTED.input against the input sent — coming out as they did before.
 */

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
