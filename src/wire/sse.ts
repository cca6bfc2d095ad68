import { asciiText, ByteQueue, decodeUtf8, jsonFrame, jsonText, problem } from './frame.ts';
import { TRANSPORT_RULES } from './rules.ts';
import type { StreamDecoder, WireItem, WireProblem } from './types.ts';

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const BOM = [0xef, 0xbb, 0xbf] as const;

/** Whether bytes [s, end) are a line whose field name is exactly `data`. */
function isDataLine(v: Uint8Array, s: number, end: number): boolean {
  return (
    end - s >= 4 &&
    v[s] === 0x64 &&
    v[s + 1] === 0x61 &&
    v[s + 2] === 0x74 &&
    v[s + 3] === 0x61 &&
    (end - s === 4 || v[s + 4] === COLON)
  );
}

/** Where a data line's value begins: after `data`, its colon and at most one space. */
function valueStart(v: Uint8Array, s: number, end: number): number {
  let value = s + 4;
  if (value < end) {
    value++;
    if (value < end && v[value] === SPACE) value++;
  }
  return value;
}

/**
 * Server-sent events per the WHATWG parsing rules, over bytes rather than text:
 * LF and CR never occur inside a UTF-8 sequence, so lines can be cut on bytes and
 * only a finished frame is decoded — which is also what makes a character split
 * across chunks assemble exactly. (Bytes that are all ASCII are searched as text,
 * where no character can be split.)
 *
 * A frame is the block of lines from just after the previous blank line through
 * the blank line that dispatches it, comments and ignored fields included.
 */
export class SseDecoder implements StreamDecoder {
  readonly transport = 'sse' as const;
  private readonly q = new ByteQueue();
  /** Index in the queue where the unscanned line starts. */
  private line = 0;
  /** Index where the current block starts. */
  private block = 0;
  /** The block's data values as flat [start, end) pairs of queue indices. */
  private readonly data: number[] = [];
  private bomSettled = false;
  /** Until a CR shows up, lines end at LF alone and need one native scan each. */
  private hasCR = false;
  /** Index before which the unscanned line is known to hold no line end, so a long line is searched once, not once per chunk. */
  private searched = 0;
  /** Cached next LF/CR positions: -1 none in the bytes held, -2 unknown. */
  private nextLF = -2;
  private nextCR = -2;
  private lineEndingReported = false;
  /** Notes about the block being read; they follow its frame, or go out when it ends without one. */
  private notes: WireProblem[] = [];
  private done = false;
  /** During a scan: the bytes from `textBase` on as ASCII text, or null when they are not all ASCII. */
  private text: string | null = null;
  private textBase = 0;

  push(chunk: Uint8Array, time: number): WireItem[] {
    const out: WireItem[] = [];
    if (this.done || chunk.length === 0) return out;
    this.compact();
    this.q.append(chunk);
    this.nextLF = -2;
    this.nextCR = -2;
    if (this.settleBom(false)) this.scan(time, false, out);
    return out;
  }

  end(time: number): WireItem[] {
    const out: WireItem[] = [];
    if (this.done) return out;
    this.done = true;
    this.settleBom(true);
    this.scan(time, true, out);
    const v = this.q.view();
    if (this.data.length > 0 || isDataLine(v, this.line, v.length)) {
      const size = v.length - this.block;
      out.push(
        problem(
          TRANSPORT_RULES.sseIncompleteEvent,
          { offset: this.q.base + this.block, size, time },
          `body ended ${size} bytes into an SSE event that no blank line terminated; discarded, as the SSE standard requires`,
          false,
          decodeUtf8(v.subarray(this.block)).text,
        ),
      );
    }
    out.push(...this.notes);
    this.notes = [];
    this.q.discard(v.length);
    return out;
  }

  /** Drops the bytes of finished blocks so the queue holds only the block in progress. */
  private compact(): void {
    const n = this.block;
    if (n === 0) return;
    this.q.discard(n);
    this.line -= n;
    this.searched = Math.max(0, this.searched - n);
    this.block = 0;
    for (let i = 0; i < this.data.length; i++) this.data[i]! -= n;
  }

  /** A leading BOM is stripped once, as the SSE decoder does; false while too few bytes tell. */
  private settleBom(final: boolean): boolean {
    if (this.bomSettled) return true;
    const v = this.q.view();
    const seen = Math.min(v.length, BOM.length);
    for (let i = 0; i < seen; i++) {
      if (v[i] !== BOM[i]) {
        this.bomSettled = true;
        return true;
      }
    }
    if (seen < BOM.length && !final) return false;
    this.bomSettled = true;
    if (seen === BOM.length) this.line = this.block = BOM.length;
    return true;
  }

  private scan(time: number, final: boolean, out: WireItem[]): void {
    // The bytes not searched yet, as text when they are ASCII (the usual case): V8 finds a character in a
    // string several times faster than a byte in a Uint8Array, and the frames' payloads are slices of it.
    const v = this.q.view();
    this.textBase = Math.max(this.line, this.searched);
    this.text = asciiText(v.subarray(this.textBase));
    if (!this.hasCR) this.hasCR = this.text !== null ? this.text.includes('\r') : v.indexOf(CR, this.textBase) !== -1;
    this.scanLines(time, final, out);
    this.text = null;
  }

  private scanLines(time: number, final: boolean, out: WireItem[]): void {
    const v = this.q.view();
    const len = v.length;
    const text = this.text;
    const base = this.textBase;
    let s = this.line;
    let searched = len;
    for (;;) {
      const from = Math.max(s, this.searched);
      let end: number;
      let next: number;
      if (!this.hasCR) {
        end = text === null ? v.indexOf(LF, from) : text.indexOf('\n', from - base);
        if (end === -1) break;
        if (text !== null) end += base;
        next = end + 1;
        // The usual frame — one data line, then its blank line — is taken whole, without the line machinery.
        if (s === this.block && next < len && v[next] === LF && isDataLine(v, s, end)) {
          this.frame(v, valueStart(v, s, end), end, this.q.base + s, next + 1 - s, time, out);
          s = this.block = next + 1;
          continue;
        }
      } else {
        if (this.nextLF !== -1 && this.nextLF < s) this.nextLF = v.indexOf(LF, from);
        if (this.nextCR !== -1 && this.nextCR < s) this.nextCR = v.indexOf(CR, from);
        const lf = this.nextLF;
        const cr = this.nextCR;
        if (cr !== -1 && (lf === -1 || cr < lf)) {
          end = cr;
          if (cr + 1 < len) next = v[cr + 1] === LF ? cr + 2 : cr + 1;
          else if (final) next = cr + 1;
          else {
            // A CR that ends the bytes held may be half of a CRLF: wait for the next byte.
            searched = cr;
            break;
          }
          this.noteLineEnding(end, next, time);
        } else if (lf !== -1) {
          end = lf;
          next = lf + 1;
        } else {
          break;
        }
      }
      this.takeLine(v, s, end, next, time, out);
      s = next;
    }
    this.line = s;
    this.searched = searched;
  }

  private noteLineEnding(end: number, next: number, time: number): void {
    if (this.lineEndingReported) return;
    this.lineEndingReported = true;
    const form = next - end === 2 ? 'CRLF' : 'CR';
    this.notes.push(
      problem(
        TRANSPORT_RULES.sseLineEnding,
        { offset: this.q.base + end, size: next - end, time },
        `SSE lines end with ${form}; the binding requires LF (read per the SSE standard; reported once per stream)`,
        false,
      ),
    );
  }

  private takeLine(v: Uint8Array, s: number, end: number, next: number, time: number, out: WireItem[]): void {
    if (s === end) {
      if (this.data.length > 0) this.dispatch(v, next, time, out);
      this.block = next;
      this.data.length = 0;
      if (this.notes.length > 0) {
        out.push(...this.notes);
        this.notes = [];
      }
      return;
    }
    if (!isDataLine(v, s, end)) return;
    this.data.push(valueStart(v, s, end), end);
  }

  private dispatch(v: Uint8Array, next: number, time: number, out: WireItem[]): void {
    const d = this.data;
    const offset = this.q.base + this.block;
    const size = next - this.block;
    if (d.length === 2) return this.frame(v, d[0]!, d[1]!, offset, size, time, out);
    let payload: Uint8Array;
    {
      let total = d.length / 2 - 1;
      for (let i = 0; i < d.length; i += 2) total += d[i + 1]! - d[i]!;
      payload = new Uint8Array(total);
      let at = 0;
      for (let i = 0; i < d.length; i += 2) {
        if (i > 0) payload[at++] = LF;
        payload.set(v.subarray(d[i], d[i + 1]), at);
        at += d[i + 1]! - d[i]!;
      }
    }
    jsonFrame(payload, offset, size, time, 'SSE data', out);
  }

  /**
   * A one-line payload, bytes [start, end): a slice of the scan's text when that covers it, else
   * decoded alone, so invalid UTF-8 is still reported against its own frame.
   */
  private frame(v: Uint8Array, start: number, end: number, offset: number, size: number, time: number, out: WireItem[]): void {
    if (this.text !== null && start >= this.textBase) jsonText(this.text.slice(start - this.textBase, end - this.textBase), true, offset, size, time, 'SSE data', out);
    else jsonFrame(v.subarray(start, end), offset, size, time, 'SSE data', out);
  }
}
