/** An exchange's request as a `curl` command for a POSIX shell, to replay it against the agent. */
import type { CapturedExchange } from '../exchange/index.ts';
import { FormatError } from './error.ts';
import { MEDIA_TYPES, transportOf } from '../wire/index.ts';

/** Single quotes keep every byte literal, newlines included; only a single quote itself must leave and re-enter them. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** What the request asked for: the transport the response came in, so the replay gets the same one. */
function acceptFor(contentType: string): string {
  switch (transportOf(contentType)) {
    case 'sse':
      return 'text/event-stream';
    case 'protobuf':
      // The binding wants SSE offered too: a producer that cannot encode protobuf answers with it.
      return `${MEDIA_TYPES.protobuf}, text/event-stream`;
    case 'jsonl':
    case 'json':
      return contentType.split(';')[0]!.trim();
    case null:
      return '*/*';
  }
}

/** printf's format language, so a body holding NUL (which no argument can carry) is written by printf instead. */
function printfFormat(body: string): string {
  return body.replace(/[\\%\0]/g, (c) => (c === '\\' ? '\\\\' : c === '%' ? '%%' : '\\000'));
}

export function toCurl(exchange: CapturedExchange): string {
  if (exchange.url === undefined) throw new FormatError(`${exchange.source}: no URL was captured, so there is nothing to replay against`);
  const method = (exchange.method ?? 'POST').toUpperCase();
  const body = exchange.requestBody;
  // -N: print events as they arrive instead of when curl's buffer fills. -g: the URL is sent as recorded,
  // its brackets and braces (an IPv6 host, `filter[0]=`) not read as curl's ranges and lists.
  const lines = ['curl -N -g'];
  const inferred = body === undefined ? 'GET' : 'POST';
  if (method !== inferred) lines.push(`-X ${shellQuote(method)}`);
  lines.push(`--url ${shellQuote(exchange.url)}`);
  if (body !== undefined) lines.push(`-H ${shellQuote(`Content-Type: ${exchange.requestContentType ?? 'application/json'}`)}`);
  lines.push(`-H ${shellQuote(`Accept: ${acceptFor(exchange.responseContentType)}`)}`);
  let prefix = '';
  if (body !== undefined && body.includes('\0')) {
    prefix = `printf -- ${shellQuote(printfFormat(body))} | `;
    lines.push('--data-binary @-');
  } else if (body !== undefined) {
    // --data-raw, never --data-binary: that reads a body starting with `@` as the name of a file to send
    // (`@/home/user/.ssh/id_rsa`, `@-`), so a recorded body could make the command upload a local file.
    lines.push(`--data-raw ${shellQuote(body)}`);
  }
  return prefix + lines.join(' \\\n  ') + '\n';
}
