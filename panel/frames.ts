/**
 * The worker tells panels the frames it decoded as they were received; the timeline shows one decoded as
 * a consumer reads it. What the analysis made of a frame is in the exchange's detail (src/detail).
 */
import { decodeEvent } from '../src/wire/index.ts';
import { fromBase64 } from '../src/base64.ts';
import type { EventView } from '../src/messages.ts';

/** Decodes one frame as a consumer would: JSON text, or a protobuf message. */
export function decodeFrame(e: EventView): { value: unknown; error: string | null } {
  try {
    return { value: e.rawEncoding === 'text' ? JSON.parse(e.raw) : decodeEvent(fromBase64(e.raw)), error: null };
  } catch (err) {
    return { value: undefined, error: err instanceof Error ? err.message : String(err) };
  }
}

