/** mulberry32: tiny, fast, and the same sequence on every platform, so a failing case is reproducible from its seed. */
export class Rng {
  private s: number;

  constructor(seed: number) {
    this.s = seed >>> 0;
  }

  next(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** Printable text with some multi-byte characters, so chunk cuts land inside UTF-8 sequences too. */
  text(min: number, max: number): string {
    const alphabet = 'abcdefghijklmnopqrstuvwxyz     .,;:!?"\\/{}[]0123456789éü€中文🙂\n\t';
    const chars = [...alphabet];
    let out = '';
    const n = this.int(min, max);
    for (let i = 0; i < n; i++) out += this.pick(chars);
    return out;
  }
}
