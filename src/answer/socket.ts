/**
 * An answer sent on a WebSocket: each chunk of an answer made from a socket exchange is one event
 * (src/exchange/socket.ts reads a socket into JSONL lines or length-prefixed protobuf messages, one an
 * event frame), so each goes out as one frame again, of the kind the binding carries it in — a JSON text
 * frame, or a binary frame holding the length-prefixed message as `@ag-ui/encoder` writes it
 * (basic/transports#custom-transports). Browser- and Node-free, like the rest of the folder.
 */
import { transportOf } from '../wire/index.ts';

const utf8 = new TextDecoder();

/** A frame's payload: text for a text frame, bytes for a binary one. */
export type SocketPayload = string | Uint8Array;

/** How the chunks of an answer of `contentType` go out as frames. */
export function socketPayload(contentType: string): (chunk: Uint8Array) => SocketPayload {
  if (transportOf(contentType) === 'protobuf') return (chunk) => chunk;
  // A JSONL line's break ends the line, not the event: the frame is the JSON text alone.
  return (chunk) => utf8.decode(chunk).replace(/\r?\n$/, '');
}
