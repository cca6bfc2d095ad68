import { JsonArrayDecoder, JsonlDecoder } from './jsonl.ts';
import { MAX_PROTO_FRAME, ProtoDecoder } from './proto.ts';
import { PROTO_MEDIA_TYPE } from './proto-decode.ts';
import { SseDecoder } from './sse.ts';
import type { StreamDecoder, Transport, WireItem } from './types.ts';

export type { FramePosition, StreamDecoder, Transport, WireEvent, WireItem, WireProblem } from './types.ts';
export { TRANSPORT_RULES } from './rules.ts';
export { errorText } from './frame.ts';
export { decodeEvent } from './proto-decode.ts';
export { SseDecoder } from './sse.ts';

/** The media type each transport is labelled with when a file gives none. */
export const MEDIA_TYPES: Readonly<Record<Transport, string>> = {
  sse: 'text/event-stream',
  protobuf: PROTO_MEDIA_TYPE,
  jsonl: 'application/x-ndjson',
  json: 'application/json',
};

const JSONL_TYPES = new Set([
  'application/x-ndjson',
  'application/ndjson',
  'application/jsonl',
  'application/x-jsonl',
  'application/jsonlines',
  'application/x-jsonlines',
  'application/json-seq',
]);

/** The transport a Content-Type names, or null when it names none of them. */
export function transportOf(contentType: string): Transport | null {
  const essence = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  if (essence === 'text/event-stream') return 'sse';
  if (essence === PROTO_MEDIA_TYPE) return 'protobuf';
  if (JSONL_TYPES.has(essence)) return 'jsonl';
  if (essence === 'application/json' || /^application\/[^/]+\+json$/.test(essence)) return 'json';
  return null;
}

export function decoderFor(transport: Transport): StreamDecoder {
  switch (transport) {
    case 'sse':
      return new SseDecoder();
    case 'protobuf':
      return new ProtoDecoder();
    case 'jsonl':
      return new JsonlDecoder();
    case 'json':
      return new JsonArrayDecoder();
  }
}

/** A decoder for the response's Content-Type; an unknown or missing type is sniffed from the first bytes. */
export function createDecoder(contentType: string): StreamDecoder {
  const transport = transportOf(contentType);
  return transport ? decoderFor(transport) : new SniffingDecoder();
}

const SSE_FIELDS = ['data', 'event', 'id', 'retry'].map((f) => new TextEncoder().encode(f));

function startsWith(bytes: Uint8Array, at: number, prefix: Uint8Array): boolean {
  if (bytes.length - at < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[at + i] !== prefix[i]) return false;
  return true;
}

function firstSignificant(bytes: Uint8Array): number {
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x0a || bytes[i] === 0x0d || bytes[i] === 0x09)) i++;
  return i;
}

/**
 * Whether the bytes open like a length-prefixed event: a length the frame limit
 * allows, followed by a length-delimited envelope field.
 */
function plausibleProtobuf(bytes: Uint8Array): boolean {
  if (bytes.length < 5) return false;
  const length = ((bytes[0]! << 24) >>> 0) + (bytes[1]! << 16) + (bytes[2]! << 8) + bytes[3]!;
  return length > 0 && length <= MAX_PROTO_FRAME && (bytes[4]! & 0x07) === 2;
}

/** The transport a body's first bytes prove, or null when they prove none. */
export function detectTransport(bytes: Uint8Array): Transport | null {
  if (plausibleProtobuf(bytes)) return 'protobuf';
  const i = firstSignificant(bytes);
  const c = bytes[i];
  if (c === 0x5b) return 'json';
  if (c === 0x7b || c === 0x1e) return 'jsonl';
  if (c === 0x3a || SSE_FIELDS.some((f) => startsWith(bytes, i, f))) return 'sse';
  return null;
}

/** Guesses the transport of a body that came without a content type. */
export function sniffTransport(bytes: Uint8Array): Transport {
  const proven = detectTransport(bytes);
  if (proven) return proven;
  const c = bytes[firstSignificant(bytes)];
  // Other text still reads best as SSE, whose reader reports what it discards; other bytes as protobuf, whose reader says why they do not frame.
  return c !== undefined && c >= 0x20 && c < 0x7f ? 'sse' : 'protobuf';
}

/** Holds the first bytes until they show which transport this is, then hands everything to that reader. */
class SniffingDecoder implements StreamDecoder {
  private inner: StreamDecoder | null = null;
  private held: { chunk: Uint8Array; time: number }[] = [];
  private heldBytes = 0;

  get transport(): Transport {
    return this.inner?.transport ?? 'sse';
  }

  push(chunk: Uint8Array, time: number): WireItem[] {
    if (this.inner) return this.inner.push(chunk, time);
    if (chunk.length === 0) return [];
    // Held past this call, so copied (StreamDecoder.push); only until a few bytes tell the transport.
    this.held.push({ chunk: chunk.slice(), time });
    this.heldBytes += chunk.length;
    const joined = this.joined();
    const i = firstSignificant(joined);
    // Five bytes settle the protobuf question; a text body settles at its first significant byte.
    if (joined.length < 5 || i >= joined.length) return [];
    const out: WireItem[] = [];
    this.start(joined, out);
    return out;
  }

  end(time: number): WireItem[] {
    const out: WireItem[] = [];
    const inner = this.inner ?? this.start(this.joined(), out);
    for (const item of inner.end(time)) out.push(item);
    return out;
  }

  private joined(): Uint8Array {
    const all = new Uint8Array(this.heldBytes);
    let at = 0;
    for (const { chunk } of this.held) {
      all.set(chunk, at);
      at += chunk.length;
    }
    return all;
  }

  private start(joined: Uint8Array, out: WireItem[]): StreamDecoder {
    const inner = decoderFor(sniffTransport(joined));
    this.inner = inner;
    for (const { chunk, time } of this.held) for (const item of inner.push(chunk, time)) out.push(item);
    this.held = [];
    return inner;
  }
}
