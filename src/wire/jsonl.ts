import { ByteQueue, decodeUtf8, jsonFrame, problem } from './frame.ts';
import { TRANSPORT_RULES } from './rules.ts';
import type { StreamDecoder, WireItem } from './types.ts';

const LF = 0x0a;
const CR = 0x0d;
const TAB = 0x09;
const SPACE = 0x20;
/** RFC 7464 (application/json-seq) starts each text with RS; reading it as whitespace covers that format too. */
const RS = 0x1e;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

function isSpace(c: number | undefined): boolean {
  return c === SPACE || c === LF || c === CR || c === TAB;
}

function hasBom(v: Uint8Array, at: number): boolean {
  return v[at] === 0xef && v[at + 1] === 0xbb && v[at + 2] === 0xbf;
}

/** JSONL / NDJSON / json-seq: one JSON value per line, blank lines ignored. */
export class JsonlDecoder implements StreamDecoder {
  readonly transport = 'jsonl' as const;
  private readonly q = new ByteQueue();
  private done = false;

  push(chunk: Uint8Array, time: number): WireItem[] {
    const out: WireItem[] = [];
    if (this.done || chunk.length === 0) return out;
    // Only the unterminated line is held, so the next LF can only be in the new bytes.
    let s = 0;
    let from = this.q.len;
    this.q.append(chunk);
    const v = this.q.view();
    for (let end = v.indexOf(LF, from); end !== -1; end = v.indexOf(LF, from)) {
      this.line(v, s, end, end + 1, time, out);
      s = from = end + 1;
    }
    this.q.discard(s);
    return out;
  }

  end(time: number): WireItem[] {
    const out: WireItem[] = [];
    if (this.done) return out;
    this.done = true;
    const v = this.q.view();
    if (v.length > 0) {
      const [a, b] = this.trim(v, 0, v.length);
      if (a < b) {
        let complete = true;
        try {
          JSON.parse(decodeUtf8(v.subarray(a, b)).text);
        } catch {
          complete = false;
        }
        const start = this.frameStart(v, 0);
        const at = { offset: this.q.base + start, size: v.length - start, time };
        if (complete) {
          jsonFrame(v.subarray(a, b), at.offset, at.size, time, 'JSONL line', out);
        } else {
          out.push(
            problem(
              TRANSPORT_RULES.jsonlTruncatedLine,
              at,
              `body ended inside a ${at.size}-byte line with no newline that does not parse as JSON`,
              false,
              decodeUtf8(v.subarray(a, b)).text,
            ),
          );
        }
      }
    }
    this.q.discard(v.length);
    return out;
  }

  /** The body's BOM, if any, precedes the first frame rather than belonging to it. */
  private frameStart(v: Uint8Array, s: number): number {
    return this.q.base + s === 0 && hasBom(v, s) ? s + 3 : s;
  }

  private trim(v: Uint8Array, s: number, end: number): [number, number] {
    let a = this.frameStart(v, s);
    let b = end;
    while (a < b && (isSpace(v[a]) || v[a] === RS)) a++;
    while (b > a && isSpace(v[b - 1])) b--;
    return [a, b];
  }

  private line(v: Uint8Array, s: number, end: number, next: number, time: number, out: WireItem[]): void {
    const [a, b] = this.trim(v, s, end);
    if (a === b) return;
    const start = this.frameStart(v, s);
    jsonFrame(v.subarray(a, b), this.q.base + start, next - start, time, 'JSONL line', out);
  }
}

type Phase = 'before-array' | 'opened' | 'after-comma' | 'after-element' | 'in-element' | 'closed' | 'failed';

/**
 * A whole-body JSON array of events, read element by element as it arrives so
 * each element keeps its own offset and completion time.
 */
export class JsonArrayDecoder implements StreamDecoder {
  readonly transport = 'json' as const;
  private readonly q = new ByteQueue();
  private phase: Phase = 'before-array';
  /** Queue index where scanning resumes. */
  private pos = 0;
  /** Queue index of the element being read. */
  private elementStart = 0;
  private depth = 0;
  private inString = false;
  private failure: { offset: number; reason: string } | null = null;
  private total = 0;
  private done = false;

  push(chunk: Uint8Array, time: number): WireItem[] {
    const out: WireItem[] = [];
    if (this.done || chunk.length === 0) return out;
    this.total += chunk.length;
    if (this.phase === 'failed') return out;
    this.q.append(chunk);
    this.scan(time, false, out);
    const keep = this.phase === 'in-element' ? this.elementStart : this.pos;
    this.q.discard(keep);
    this.pos -= keep;
    this.elementStart -= keep;
    return out;
  }

  end(time: number): WireItem[] {
    const out: WireItem[] = [];
    if (this.done) return out;
    this.done = true;
    this.scan(time, true, out);
    if (this.failure) {
      out.push(
        problem(
          TRANSPORT_RULES.jsonBodyMalformed,
          { offset: this.failure.offset, size: this.total - this.failure.offset, time },
          this.failure.reason,
          true,
        ),
      );
    } else if (this.phase !== 'closed') {
      const from = this.phase === 'in-element' ? this.q.base + this.elementStart : this.total;
      out.push(
        problem(
          TRANSPORT_RULES.jsonBodyTruncated,
          { offset: from, size: this.total - from, time },
          this.phase === 'before-array'
            ? 'body ended before a JSON array began'
            : 'body ended before the JSON array of events closed',
          false,
        ),
      );
    }
    this.q.discard(this.q.len);
    return out;
  }

  private fail(at: number, reason: string): void {
    this.phase = 'failed';
    this.failure = { offset: this.q.base + at, reason };
  }

  private scan(time: number, final: boolean, out: WireItem[]): void {
    const v = this.q.view();
    const len = v.length;
    let i = this.pos;
    for (; i < len && this.phase !== 'failed'; i++) {
      const c = v[i]!;
      switch (this.phase) {
        case 'in-element': {
          if (this.inString) {
            const quote = v.indexOf(QUOTE, i);
            if (quote === -1) {
              i = len;
              break;
            }
            let slashes = 0;
            while (v[quote - 1 - slashes] === BACKSLASH) slashes++;
            i = quote;
            if (slashes % 2 === 1) break;
            this.inString = false;
            if (this.depth === 0) this.element(v, i + 1, time, out);
          } else if (c === QUOTE) {
            this.inString = true;
          } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
            this.depth++;
          } else if ((c === CLOSE_ARRAY || c === CLOSE_OBJECT) && this.depth > 0) {
            this.depth--;
            if (this.depth === 0) this.element(v, i + 1, time, out);
          } else if (this.depth === 0 && (c === COMMA || c === CLOSE_ARRAY || isSpace(c))) {
            // A bare scalar ends at whatever follows it, which is then read again as punctuation.
            this.element(v, i, time, out);
            i--;
          }
          break;
        }
        case 'before-array':
          if (this.q.base + i === 0 && c === 0xef) {
            if (len < 3 && !final) {
              this.pos = i;
              return;
            }
            if (hasBom(v, i)) i += 2;
            else this.fail(i, 'body is not a JSON array of events: it starts with a byte that is not JSON');
          } else if (c === OPEN_ARRAY) {
            this.phase = 'opened';
          } else if (!isSpace(c)) {
            this.fail(i, `body is not a JSON array of events: it starts with ${JSON.stringify(String.fromCharCode(c))}`);
          }
          break;
        case 'opened':
        case 'after-comma':
          if (isSpace(c)) break;
          if (c === CLOSE_ARRAY) {
            if (this.phase === 'after-comma') this.fail(i, 'JSON array has a trailing comma');
            else this.phase = 'closed';
            break;
          }
          this.phase = 'in-element';
          this.elementStart = i;
          this.depth = c === OPEN_ARRAY || c === OPEN_OBJECT ? 1 : 0;
          this.inString = c === QUOTE;
          break;
        case 'after-element':
          if (c === COMMA) this.phase = 'after-comma';
          else if (c === CLOSE_ARRAY) this.phase = 'closed';
          else if (!isSpace(c)) this.fail(i, 'JSON array elements are not separated by commas');
          break;
        case 'closed':
          if (!isSpace(c)) this.fail(i, 'content follows the end of the JSON array');
          break;
      }
    }
    this.pos = Math.min(i, len);
  }

  private element(v: Uint8Array, end: number, time: number, out: WireItem[]): void {
    const start = this.elementStart;
    jsonFrame(v.subarray(start, end), this.q.base + start, end - start, time, 'JSON array element', out);
    this.phase = 'after-element';
  }
}
