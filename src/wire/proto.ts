import { ByteQueue, errorText, problem } from './frame.ts';
import { decodeEvent, UnknownEventVariantError } from './proto-decode.ts';
import { TRANSPORT_RULES } from './rules.ts';
import type { StreamDecoder, WireItem } from './types.ts';

const PREFIX = 4;
/** Past this a declared length is taken for garbage, not an event: nothing this big would be buffered waiting for it. */
export const MAX_PROTO_FRAME = 64 * 1024 * 1024;

function readLength(v: Uint8Array, at: number): number {
  return ((v[at]! << 24) >>> 0) + (v[at + 1]! << 16) + (v[at + 2]! << 8) + v[at + 3]!;
}

/** `application/vnd.ag-ui.event+proto`: 4-byte big-endian length, then one encoded event, abutting. */
export class ProtoDecoder implements StreamDecoder {
  readonly transport = 'protobuf' as const;
  private readonly q = new ByteQueue();
  /** Once a length cannot be trusted, no later byte can be framed. */
  private stopped = false;
  private done = false;

  push(chunk: Uint8Array, time: number): WireItem[] {
    const out: WireItem[] = [];
    if (this.done || this.stopped || chunk.length === 0) return out;
    this.q.append(chunk);
    const v = this.q.view();
    // Find the complete frames first: they are copied out of the queue together, each event's bytes a view of that copy.
    let complete = 0;
    let tooLarge = -1;
    while (v.length - complete >= PREFIX) {
      const length = readLength(v, complete);
      if (length > MAX_PROTO_FRAME) {
        tooLarge = length;
        break;
      }
      if (v.length - complete < PREFIX + length) break;
      complete += PREFIX + length;
    }
    const held = complete > 0 ? v.slice(0, complete) : v;
    for (let at = 0; at < complete; ) {
      const size = PREFIX + readLength(held, at);
      this.frame(held.subarray(at + PREFIX, at + size), this.q.base + at, size, time, out);
      at += size;
    }
    if (tooLarge >= 0) {
      out.push(
        problem(
          TRANSPORT_RULES.protoFrameTooLarge,
          { offset: this.q.base + complete, size: PREFIX, time },
          `length prefix declares a ${tooLarge}-byte frame, over the ${MAX_PROTO_FRAME}-byte limit; the rest of the body is not read`,
          false,
        ),
      );
      this.stopped = true;
    }
    this.q.discard(this.stopped ? v.length : complete);
    return out;
  }

  end(time: number): WireItem[] {
    const out: WireItem[] = [];
    if (this.done) return out;
    this.done = true;
    const held = this.q.len;
    if (held > 0 && !this.stopped) {
      const v = this.q.view();
      const message =
        held < PREFIX
          ? `body ended ${held} bytes into a frame's 4-byte length prefix`
          : `body ended ${held - PREFIX} bytes into a ${readLength(v, 0)}-byte frame`;
      out.push(
        problem(TRANSPORT_RULES.protoTruncatedFrame, { offset: this.q.base, size: held, time }, message, false, v.slice()),
      );
    }
    this.q.discard(held);
    return out;
  }

  private frame(message: Uint8Array, offset: number, size: number, time: number, out: WireItem[]): void {
    try {
      out.push({ kind: 'event', raw: message, value: decodeEvent(message), offset, size, time });
    } catch (err) {
      const at = { offset, size, time };
      if (err instanceof UnknownEventVariantError) {
        out.push(
          problem(
            TRANSPORT_RULES.protoUnknownVariant,
            at,
            'frame carries only an envelope variant this build was not compiled against; dropped',
            true,
            message,
          ),
        );
      } else {
        out.push(
          problem(
            TRANSPORT_RULES.protoUndecodable,
            at,
            `frame does not decode as an event message: ${errorText(err)}`,
            true,
            message,
          ),
        );
      }
    }
  }
}
