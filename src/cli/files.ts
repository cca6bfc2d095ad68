import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { constants } from 'node:buffer';
import { analyzeExchange, analyzeExchanges } from '../analyzer/index.ts';
import type { ExchangeReport } from '../analyzer/types.ts';
import type { Chunk } from '../formats/exchange.ts';
import { FormatError, HEAD_BYTES, isJsonLine, layoutOf, readExchanges } from '../formats/read.ts';
import type { ProtocolVersion } from '../rules/types.ts';
import { MEDIA_TYPES } from '../wire/index.ts';
import type { Transport } from '../wire/types.ts';

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
  maxDocumentBytes: number;
  onInputUnused: (reason: string) => void;
}

/** An operating-system error reading the file, as opposed to what the file holds. */
export class ReadFailure extends Error {}

/** Every exchange in a file: a response body is analysed chunk by chunk as it is read, a document parsed whole. */
export function checkFile(file: string, o: CheckOptions): ExchangeReport[] {
  const fd = io(() => openSync(file, 'r'));
  try {
    const head = read(fd, 0, HEAD_BYTES);
    const layout = layoutOf(head);
    if (layout !== 'document') return [stream(fd, file, layout, o)];
    const size = io(() => fstatSync(fd).size);
    if (size <= o.maxDocumentBytes) {
      return analyzeExchanges(readExchanges(concat([...chunks(fd)].map((c) => c.bytes)), file, { inputText: o.inputText, onInputUnused: o.onInputUnused }), o.as);
    }
    // Too long to parse whole; JSONL is the one object-led format that need not be, and its first line tells.
    const line = firstLine(fd, o.maxDocumentBytes);
    if (line === null || !isJsonLine(line)) {
      throw new FormatError(`a JSON document of ${megabytes(size)} is too large to read (the limit is ${megabytes(o.maxDocumentBytes)}); only response bodies (SSE, protobuf, JSONL, JSON arrays) are read frame by frame`);
    }
    return [stream(fd, file, 'jsonl', o)];
  } finally {
    closeSync(fd);
  }
}

function stream(fd: number, file: string, transport: Transport, o: CheckOptions): ExchangeReport {
  const x = { source: file, responseContentType: MEDIA_TYPES[transport], ...(o.inputText === undefined ? {} : { requestBody: o.inputText, requestContentType: 'application/json' }) };
  return analyzeExchange(x, chunks(fd), { as: o.as });
}

/** The file from its start, a chunk at a time, until it ends (a size from stat may be wrong: /proc, a growing file). */
function* chunks(fd: number): Generator<Chunk> {
  for (let at = 0; ; ) {
    const bytes = read(fd, at, CHUNK_BYTES);
    if (bytes.length === 0) return;
    at += bytes.length;
    yield { time: 0, bytes };
  }
}

/** The first line's bytes, or null when none ends within `limit` bytes. */
function firstLine(fd: number, limit: number): Uint8Array | null {
  const parts: Uint8Array[] = [];
  let total = 0;
  for (const { bytes } of chunks(fd)) {
    const lf = bytes.indexOf(0x0a);
    parts.push(lf === -1 ? bytes : bytes.subarray(0, lf));
    total += parts.at(-1)!.length;
    if (total > limit) return null;
    if (lf !== -1) return concat(parts);
  }
  return null;
}

function read(fd: number, position: number, length: number): Uint8Array {
  const buf = new Uint8Array(length);
  const n = io(() => readSync(fd, buf, 0, length, position));
  return n === length ? buf : buf.subarray(0, n);
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
  return err.code === 'ENOENT' ? 'no such file' : err.code === 'EISDIR' ? 'is a directory' : (err.message ?? String(e));
}

const megabytes = (n: number) => (n < 1e6 ? `${n} bytes` : `${Math.round(n / 1e6)} MB`);
