/**
 * What counts as AG-UI traffic. Detection never looks at the URL.
 *
 * An exchange is AG-UI when either
 * - its request body, decoded as UTF-8, is JSON whose top level is an object with a string `threadId`,
 *   a string `runId` and an array `messages` (the members RunAgentInput requires and no other common
 *   payload has together); other members are not inspected, so an invalid input is still captured and
 *   the analyzer reports it. Bodies over LIMITS.requestBody are not parsed. Or
 * - its response media type is `application/vnd.ag-ui.event+proto` (used by nothing else), or
 * - its response media type is `text/event-stream` and the first event that carries data is a JSON
 *   object whose `type` is an AG-UI event type; at most PEEK_LIMIT bytes are examined.
 */
import { LIMITS } from '../messages.ts';
import { EVENT_TYPES } from '../schema/event-types.ts';

export const PROTO_MEDIA_TYPE = 'application/vnd.ag-ui.event+proto';
export const SSE_MEDIA_TYPE = 'text/event-stream';
export const PEEK_LIMIT = 64 * 1024;

const EVENT_TYPE_NAMES = new Set(EVENT_TYPES);

export function isRunAgentInputText(text: string): boolean {
  if (text.length > LIMITS.requestBody) return false;
  // Cheap pre-check so that non-JSON bodies never reach JSON.parse.
  const first = /\S/.exec(text);
  if (!first || first[0] !== '{') return false;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return typeof v.threadId === 'string' && typeof v.runId === 'string' && Array.isArray(v.messages);
}

export function isAgUiEventJson(text: string): boolean {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && EVENT_TYPE_NAMES.has((v as { type?: unknown }).type as string);
  } catch {
    return false;
  }
}

/**
 * Reads the start of an SSE body until it can tell whether the stream carries AG-UI events.
 * Follows the SSE parsing rules only as far as needed: lines end in CRLF, LF or CR; `data` fields
 * accumulate; a blank line dispatches.
 */
export class SsePeek {
  private text = '';
  private seen = 0;
  private readonly decoder = new TextDecoder();

  /** true / false once decided, undefined while more bytes are needed. */
  push(bytes: Uint8Array): boolean | undefined {
    this.seen += bytes.byteLength;
    this.text += this.decoder.decode(bytes, { stream: true });
    const verdict = this.scan(false);
    if (verdict === undefined && this.seen >= PEEK_LIMIT) return false;
    return verdict;
  }

  end(): boolean {
    this.text += this.decoder.decode();
    return this.scan(true) ?? false;
  }

  private scan(final: boolean): boolean | undefined {
    const lines = this.text.split(/\r\n|\r|\n/);
    // The last piece may be an incomplete line (or a CR whose LF is still to come).
    if (!final) lines.pop();
    const data: string[] = [];
    for (const line of lines) {
      if (line === '') {
        if (data.length > 0) return isAgUiEventJson(data.join('\n'));
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      if (field !== 'data') continue;
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      data.push(value);
    }
    if (final && data.length > 0) return isAgUiEventJson(data.join('\n'));
    return undefined;
  }
}
