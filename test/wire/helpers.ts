import type { StreamDecoder, WireItem } from '../../src/wire/types.ts';
import { concatBytes } from '../../src/bytes.ts';

export const utf8 = new TextEncoder();

export function concat(...parts: (Uint8Array | string)[]): Uint8Array {
  return concatBytes(parts);
}

/** Feeds the body cut at the given offsets, every chunk at time 0, and ends at time 0. */
export function run(decoder: StreamDecoder, body: Uint8Array, cuts: number[] = []): WireItem[] {
  const out: WireItem[] = [];
  let from = 0;
  for (const cut of [...cuts, body.length]) {
    out.push(...decoder.push(body.subarray(from, cut), 0));
    from = cut;
  }
  out.push(...decoder.end(0));
  return out;
}

export function ruleIds(items: WireItem[]): string[] {
  return items.flatMap((it) => (it.kind === 'problem' ? [it.rule.id] : []));
}

export function values(items: WireItem[]): unknown[] {
  return items.flatMap((it) => (it.kind === 'event' ? [it.value] : []));
}

/** Deterministic PRNG so a failing fuzz case can be replayed. */
export function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomCuts(length: number, count: number, rand: () => number): number[] {
  const cuts = Array.from({ length: count }, () => Math.floor(rand() * (length + 1)));
  return cuts.sort((a, b) => a - b);
}
