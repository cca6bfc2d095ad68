import type { Rule } from '../rules/index.ts';
import { TRANSPORT_RULES } from './rules.ts';
import type { FramePosition, WireItem, WireProblem } from './types.ts';

/** ignoreBOM keeps a U+FEFF that is payload: only the stream's first BOM is framing, and the readers strip that one themselves. */
const lenient = new TextDecoder('utf-8', { ignoreBOM: true });
const strict = new TextDecoder('utf-8', { ignoreBOM: true, fatal: true });

/** Decodes with U+FFFD replacement, as SSE requires; `valid` tells a replacement from a U+FFFD the producer really sent. */
export function decodeUtf8(bytes: Uint8Array): { text: string; valid: boolean } {
  const text = lenient.decode(bytes);
  if (!text.includes('\uFFFD')) return { text, valid: true };
  try {
    strict.decode(bytes);
    return { text, valid: true };
  } catch {
    return { text, valid: false };
  }
}

/**
 * The bytes as text when every one is ASCII, else null. One decode then a length check: any byte ≥ 0x80
 * either joins a multi-byte character (fewer chars than bytes) or becomes U+FFFD.
 */
export function asciiText(bytes: Uint8Array): string | null {
  const text = lenient.decode(bytes);
  return text.length === bytes.length && !text.includes('\uFFFD') ? text : null;
}

export function problem(
  rule: Rule,
  at: FramePosition,
  message: string,
  frame: boolean,
  raw?: string | Uint8Array,
): WireProblem {
  const p: WireProblem = { kind: 'problem', rule, message, frame, offset: at.offset, size: at.size, time: at.time };
  if (raw !== undefined) p.raw = raw;
  return p;
}

export function errorText(err: unknown): string {
  // A value nested thousands deep exhausts the stack of a recursive reader (ours, and the reference's alike).
  if (err instanceof RangeError && /call stack/i.test(err.message)) return 'it nests deeper than a reader can follow (the call stack ran out)';
  return err instanceof Error ? err.message : String(err);
}

function snippet(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}

function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * Judges one JSON frame's bytes: an object is an event; anything else maps to no event.
 * A note about the frame (invalid UTF-8) follows the frame's own item, so a consumer
 * that numbers frames as it goes can attach it to the frame just numbered.
 */
export function jsonFrame(bytes: Uint8Array, offset: number, size: number, time: number, what: string, out: WireItem[]): void {
  const { text, valid } = decodeUtf8(bytes);
  jsonText(text, valid, offset, size, time, what, out);
}

/**
 * The same judgement for a payload already decoded; `valid` says whether its bytes were UTF-8. The
 * position comes as numbers: an event carries them itself, and only a problem needs them as a position.
 */
export function jsonText(text: string, valid: boolean, offset: number, size: number, time: number, what: string, out: WireItem[]): void {
  let value: unknown;
  let parsed = true;
  try {
    value = JSON.parse(text);
  } catch (err) {
    parsed = false;
    out.push(problem(TRANSPORT_RULES.frameNotJson, { offset, size, time }, `${what} is not JSON (${errorText(err)}): ${snippet(text)}`, true, text));
  }
  if (parsed) {
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      out.push({ kind: 'event', raw: text, value, offset, size, time });
    } else {
      out.push(problem(TRANSPORT_RULES.frameNotObject, { offset, size, time }, `${what} is ${jsonKind(value)}, not an event object`, true, text));
    }
  }
  if (!valid) {
    out.push(
      problem(TRANSPORT_RULES.invalidUtf8, { offset, size, time }, `${what} holds bytes that are not UTF-8; they were read as U+FFFD`, false),
    );
  }
}

const INITIAL_CAPACITY = 1 << 14;
const SHRINK_ABOVE = 1 << 20;

/** The unconsumed tail of a body; `base` is the body offset of `buf[0]`. */
export class ByteQueue {
  buf = new Uint8Array(INITIAL_CAPACITY);
  len = 0;
  base = 0;

  /** Forgets the first `n` bytes held. */
  discard(n: number): void {
    if (n <= 0) return;
    const rest = this.len - n;
    if (this.buf.length > SHRINK_ABOVE && rest < this.buf.length >> 2) {
      // A 10 MB line must not pin 10 MB for the rest of the stream.
      const next = new Uint8Array(Math.max(INITIAL_CAPACITY, rest * 2));
      next.set(this.buf.subarray(n, this.len));
      this.buf = next;
    } else if (rest > 0) {
      this.buf.copyWithin(0, n, this.len);
    }
    this.len = rest;
    this.base += n;
  }

  append(chunk: Uint8Array): void {
    const need = this.len + chunk.length;
    if (need > this.buf.length) {
      const next = new Uint8Array(Math.max(need, this.buf.length * 2));
      next.set(this.buf.subarray(0, this.len));
      this.buf = next;
    }
    this.buf.set(chunk, this.len);
    this.len = need;
  }

  /** The held bytes; capacity beyond them holds stale data that a scan must never see. */
  view(): Uint8Array {
    return this.buf.subarray(0, this.len);
  }
}
