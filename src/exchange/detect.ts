/**
 * What counts as AG-UI traffic: the one detector live capture and file import share. Detection never
 * looks at the URL.
 *
 * An exchange is AG-UI when either
 * - its request body, decoded as UTF-8, is JSON whose top level is an object with members `threadId`,
 *   `runId` and `messages` (the members RunAgentInput requires, which no other common payload has
 *   together) — or a known framework envelope (ENVELOPES) whose inner body is such an object; their
 *   values are not inspected, so a malformed input (a numeric runId) is still captured and the analyzer
 *   reports it. Or
 * - its response media type is `application/vnd.ag-ui.event+proto` (used by nothing else), or
 * - its response media type is `text/event-stream` and the first event that carries data is a JSON
 *   object whose `type` is an AG-UI event type; at most PEEK_LIMIT bytes are examined.
 */
import { isObject, type JsonObject } from '../json.ts';
import { EVENT_TYPES } from '../schema/index.ts';

export const PROTO_MEDIA_TYPE = 'application/vnd.ag-ui.event+proto';
export const SSE_MEDIA_TYPE = 'text/event-stream';
export const PEEK_LIMIT = 64 * 1024;

const EVENT_TYPE_NAMES = new Set<unknown>(EVENT_TYPES);

/**
 * Framework bindings that carry the RunAgentInput one level down. The transports page leaves how an
 * input travels to each binding (basic/transports#the-binding-contract); these are the ones seen on real
 * apps, as data: the member naming the operation, the operations that carry an input, and where it sits.
 */
export interface Envelope {
  name: string;
  /** The member that names the operation, and the operations whose envelope carries a RunAgentInput. */
  method: { member: string; values: readonly string[] };
  /** The member holding the RunAgentInput. */
  at: string;
}

export const ENVELOPES: readonly Envelope[] = [
  // @copilotkitnext/runtime single-route endpoint (endpoints/single-route-helpers): { method, params, body }.
  { name: 'CopilotKit single-route', method: { member: 'method', values: ['agent/run', 'agent/connect'] }, at: 'body' },
];

/** The known envelope a request body is, with the value it carries; null when it is none. */
export function envelopeOf(value: unknown): { envelope: Envelope; operation: string; inner: unknown } | null {
  if (!isObject(value)) return null;
  for (const envelope of ENVELOPES) {
    const op = value[envelope.method.member];
    if (typeof op === 'string' && envelope.method.values.includes(op) && Object.prototype.hasOwnProperty.call(value, envelope.at)) {
      return { envelope, operation: op, inner: value[envelope.at] };
    }
  }
  return null;
}

/** A RunAgentInput at the top level: its three required members present, whatever their values. */
export function isBareRunAgentInput(v: unknown): v is JsonObject {
  return isObject(v) && 'threadId' in v && 'runId' in v && 'messages' in v;
}

/** The RunAgentInput a parsed request body carries, bare or in a known envelope; null when it carries none. */
function runAgentInputOf(value: unknown): JsonObject | null {
  if (isBareRunAgentInput(value)) return value;
  const inner = envelopeOf(value)?.inner;
  return isBareRunAgentInput(inner) ? inner : null;
}

/** The same for request body text, which may not be JSON at all; the caller bounds its size. */
export function runAgentInputIn(text: string): JsonObject | null {
  // Cheap pre-check so that non-JSON bodies never reach JSON.parse.
  const first = /\S/.exec(text);
  if (!first || first[0] !== '{') return null;
  try {
    return runAgentInputOf(JSON.parse(text));
  } catch {
    return null;
  }
}

/** Whether request body text is a RunAgentInput, bare or in a known envelope. */
export function isRunAgentInputText(text: string): boolean {
  return runAgentInputIn(text) !== null;
}

/** Whether a decoded frame is an AG-UI event: an object whose `type` the schema names. */
export function isAgUiEventValue(v: unknown): boolean {
  return isObject(v) && EVENT_TYPE_NAMES.has(v.type);
}

export function isAgUiEventJson(text: string): boolean {
  try {
    return isAgUiEventValue(JSON.parse(text));
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
