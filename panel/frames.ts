/**
 * The worker tells panels the frames it decoded, not the bytes that carried them. Until it offers the
 * captured chunks (see panel/README.md), the panel rebuilds an equivalent body from the frames: the
 * same events at the same times, so re-running the analyzer on it yields the same decoded values.
 * Transport-level detail (chunk boundaries, comments, line endings) is not recoverable this way.
 */
import { decodeEvent } from '../src/wire/proto-decode.ts';
import type { Chunk } from '../src/formats/exchange.ts';
import { fromBase64 } from '../src/base64.ts';
import { mediaType, type EventView } from '../src/messages.ts';
import { transportOf } from '../src/wire/index.ts';

const encoder = new TextEncoder();

function sseFrame(payload: string): string {
  return payload.split(/\r\n|\r|\n/).map((line) => `data: ${line}\n`).join('') + '\n';
}

function protoFrame(message: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + message.length);
  new DataView(out.buffer).setUint32(0, message.length);
  out.set(message, 4);
  return out;
}

export function rebuildChunks(events: readonly EventView[], contentType: string | null): Chunk[] {
  const transport = transportOf(mediaType(contentType)) ?? 'sse';
  const text = (e: EventView): string => (e.rawEncoding === 'text' ? e.raw : new TextDecoder().decode(fromBase64(e.raw)));
  switch (transport) {
    case 'protobuf':
      return events.map((e) => ({ time: e.time, bytes: protoFrame(e.rawEncoding === 'base64' ? fromBase64(e.raw) : encoder.encode(e.raw)) }));
    case 'json': {
      // One array body: the frames are its elements.
      const body = `[${events.map(text).join(',')}]`;
      return [{ time: events.at(-1)?.time ?? 0, bytes: encoder.encode(body) }];
    }
    case 'jsonl':
      return events.map((e) => ({ time: e.time, bytes: encoder.encode(text(e) + '\n') }));
    case 'sse':
      return events.map((e) => ({ time: e.time, bytes: encoder.encode(sseFrame(text(e))) }));
  }
}

/** Decodes one frame as a consumer would: JSON text, or a protobuf message. */
export function decodeFrame(e: EventView): { value: unknown; error: string | null } {
  try {
    return { value: e.rawEncoding === 'text' ? JSON.parse(e.raw) : decodeEvent(fromBase64(e.raw)), error: null };
  } catch (err) {
    return { value: undefined, error: err instanceof Error ? err.message : String(err) };
  }
}

