import type { Rule } from '../rules/index.ts';

/** Where a frame sat in the response body and when it was complete. */
export interface FramePosition {
  /** Byte offset of the frame's first byte within the response body. */
  offset: number;
  /** Bytes the frame occupies on the wire, delimiters and length prefix included. */
  size: number;
  /** Arrival time (ms, caller's clock) of the chunk that completed the frame. */
  time: number;
}

/** One frame that decoded to a value; whether that value is a valid event is not the reader's question. */
export interface WireEvent extends FramePosition {
  kind: 'event';
  /** SSE/JSONL: the frame's payload text; protobuf: the message bytes without the length prefix. */
  raw: string | Uint8Array;
  /** The decoded value exactly as the wire carried it (JSON.parse result, or the proto decode). */
  value: unknown;
}

/** Something the reader itself must report: a frame that maps to no event, or a transport irregularity. */
export interface WireProblem extends FramePosition {
  kind: 'problem';
  rule: Rule;
  message: string;
  /** True when the problem consumed a frame (it still gets an event index, so the timeline shows it). */
  frame: boolean;
  raw?: string | Uint8Array;
}

export type WireItem = WireEvent | WireProblem;

/** Incremental reader over arbitrary chunk boundaries. Never throws on any input. */
export interface StreamDecoder {
  readonly transport: Transport;
  /** Copies what it keeps of `chunk`: a caller may reuse the chunk's buffer once this returns. */
  push(chunk: Uint8Array, time: number): WireItem[];
  /** The body ended; flushes or reports whatever is incomplete. */
  end(time: number): WireItem[];
}

export type Transport = 'sse' | 'protobuf' | 'jsonl' | 'json';
