import { closeSync, fstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { constants } from 'node:buffer';
import { analyzeOne, analyzeSession, type SessionExchange } from '../detail/index.ts';
import type { Chunk } from '../exchange/index.ts';
import { FormatError, HEAD_BYTES, isJsonLine, layoutOf, readExchanges } from '../formats/index.ts';
import type { ProtocolVersion } from '../rules/index.ts';
import { MEDIA_TYPES } from '../wire/index.ts';
import type { Transport } from '../wire/index.ts';

/**
 * The largest file read whole: a HAR, a fixture or one JSON event is parsed as one string, and V8 makes
 * no string longer than this (about 512 MB; UTF-8 never takes fewer bytes than UTF-16 code units).
 * Response bodies are streamed instead and have no limit.
 */
export const MAX_DOCUMENT_BYTES = constants.MAX_STRING_LENGTH;

const CHUNK_BYTES = 1 << 20;

export interface CheckOptions {
  inputText?: string;
  as?: ProtocolVersion;
  stallMs?: number;
  /** Whether the output prints timing: junit and sarif print none, so for them none is read (analyzeSession). */
  timing?: boolean;
  /** Whether it prints the summary, which lists the tool calls their declared schemas reject: junit and sarif print none. */
  tools?: boolean;
  maxDocumentBytes: number;
  onInputUnused: (reason: string) => void;
}

/** An operating-system error reading the file, as opposed to what the file holds. */
export class ReadFailure extends Error {}

/**
 * Every exchange in a file: a response body is analysed chunk by chunk as it is read, a document parsed whole.
 * The file is read once, front to back, so a pipe (`/dev/stdin`) reads as well as a regular file.
 */
export function checkFile(file: string, o: CheckOptions): SessionExchange[] {
  const fd = io(() => openSync(file, 'r'));
  try {
    const f = new SequentialFile(fd);
    f.holdUntil(() => f.heldBytes >= HEAD_BYTES);
    const layout = layoutOf(f.held());
    if (layout !== 'document') return [stream(f, file, layout, o)];
    const stat = io(() => fstatSync(fd));
    // A regular file's size is known; a pipe's shows once more than the limit has arrived.
    const known = stat.isFile() ? stat.size : null;
    if (known === null || known <= o.maxDocumentBytes) {
      const ended = f.holdUntil(() => f.heldBytes > o.maxDocumentBytes);
      if (ended && f.heldBytes <= o.maxDocumentBytes) return analyzeSession(readExchanges(f.held(), file, { inputText: o.inputText, onInputUnused: o.onInputUnused }), o);
    }
    // Too long to parse whole; JSONL is the one object-led format that need not be, and its first line tells.
    f.holdUntil(() => f.lineEnd() !== -1 || f.heldBytes > o.maxDocumentBytes);
    const lf = f.lineEnd();
    if (lf === -1 || !isJsonLine(f.held().subarray(0, lf))) {
      const size = known === null ? `over ${megabytes(o.maxDocumentBytes)}` : `of ${megabytes(known)}`;
      throw new FormatError(`a JSON document ${size} is too large to read (the limit is ${megabytes(o.maxDocumentBytes)}); only response bodies (SSE, protobuf, JSONL, JSON arrays) are read frame by frame`);
    }
    return [stream(f, file, 'jsonl', o)];
  } finally {
    closeSync(fd);
  }
}

function stream(f: SequentialFile, file: string, transport: Transport, o: CheckOptions): SessionExchange {
  const x = { source: file, responseContentType: MEDIA_TYPES[transport], ...(o.inputText === undefined ? {} : { requestBody: o.inputText, requestContentType: 'application/json' }) };
  try {
    return analyzeOne(x, f.chunks(), o);
  } catch (e) {
    // One frame is decoded as one string; a frame longer than any string can be is the file's limit, not our bug.
    if ((e as NodeJS.ErrnoException).code !== 'ERR_STRING_TOO_LONG') throw e;
    throw new FormatError(`a frame is too long to decode (a JavaScript string holds at most ${megabytes(MAX_DOCUMENT_BYTES)})`);
  }
}

/** A file read front to back in chunks, holding what has been read until it is handed on. */
class SequentialFile {
  private readonly parts: Uint8Array[] = [];
  heldBytes = 0;
  private ended = false;
  /** Where the held bytes were searched for a line end, so a long first line is scanned once. */
  private searched = 0;

  constructor(private readonly fd: number) {}

  /** Reads on until `enough()` or the end of the file; true when the file ended. */
  holdUntil(enough: () => boolean): boolean {
    while (!this.ended && !enough()) {
      const bytes = this.read();
      if (bytes.length === 0) this.ended = true;
      else {
        this.parts.push(bytes);
        this.heldBytes += bytes.length;
      }
    }
    return this.ended;
  }

  /** Everything held, as one array. */
  held(): Uint8Array {
    if (this.parts.length > 1) this.parts.splice(0, this.parts.length, concat(this.parts));
    return this.parts[0] ?? new Uint8Array(0);
  }

  /** The index of the first LF held, or -1; only bytes not searched before are. */
  lineEnd(): number {
    let base = 0;
    for (const part of this.parts) {
      const from = this.searched - base;
      if (from < part.length) {
        const lf = part.indexOf(0x0a, Math.max(0, from));
        if (lf !== -1) return (this.searched = base + lf);
      }
      base += part.length;
    }
    this.searched = base;
    return -1;
  }

  /**
   * What is held, then the rest of the file, a chunk at a time. The rest is read into one buffer, so each
   * chunk is valid until the next is asked for: the analyzer copies what it keeps (StreamDecoder.push),
   * and a fresh buffer per megabyte cost more in page faults than reading it.
   */
  *chunks(): Generator<Chunk> {
    for (const bytes of this.parts.splice(0)) yield { time: 0, bytes };
    if (this.ended) return;
    const buf = new Uint8Array(CHUNK_BYTES);
    for (let n = this.readInto(buf); n > 0; n = this.readInto(buf)) yield { time: 0, bytes: buf.subarray(0, n) };
  }

  private read(): Uint8Array {
    const buf = new Uint8Array(CHUNK_BYTES);
    const n = this.readInto(buf);
    return n === CHUNK_BYTES ? buf : buf.subarray(0, n);
  }

  private readInto(buf: Uint8Array): number {
    return io(() => readSync(this.fd, buf, 0, buf.length, null));
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

function io<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    throw new ReadFailure(reason(e));
  }
}

/** Why the operating system would not let a file be read, in a few words. */
export function reason(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  if (err.code === 'ENOENT') return err.path !== undefined && undecodableNameExists(err.path) ? UNDECODABLE : 'no such file';
  return err.code === 'EISDIR' ? 'is a directory' : (err.message ?? String(e));
}

const UNDECODABLE = 'its name is not valid UTF-8: a file by that name exists, but Node reads command-line arguments as UTF-8 and cannot name it; rename it';

/**
 * Node decodes the arguments as UTF-8, so a name holding other bytes arrives with U+FFFD in their place
 * and names no file. Whether it did is told by an entry of its folder that decodes to the same text.
 */
function undecodableNameExists(path: string): boolean {
  if (!path.includes('\uFFFD')) return false;
  try {
    const name = basename(path);
    return readdirSync(dirname(path), { encoding: 'buffer' }).some((entry) => entry.toString('utf8') === name && !Buffer.from(name).equals(entry));
  } catch {
    return false;
  }
}

const megabytes = (n: number) => (n < 1e6 ? `${n} bytes` : `${Math.round(n / 1e6)} MB`);
