/** Shared by the recording tests: capturing real traffic, and comparing what analyses say. */
import { analyzeExchanges } from '../../src/analyzer/index.ts';
import type { CapturedExchange, Chunk } from '../../src/exchange/exchange.ts';
import { readExchanges } from '../../src/formats/read.ts';
import type { ProtocolVersion } from '../../src/rules/types.ts';
import { analysisShape } from '../../src/recording/export.ts';

export const utf8 = new TextEncoder();

export { captureExchange as capture } from '../../demo/record.ts';

export function shapes(exchanges: CapturedExchange[], as?: ProtocolVersion): unknown[] {
  return analyzeExchanges(exchanges, as).map(analysisShape);
}

export function reread(text: string, name = 'session.har'): CapturedExchange[] {
  return readExchanges(utf8.encode(text), name);
}

export { concatBytes as concat } from '../../src/bytes.ts';

/** The body cut into pieces of the given sizes (the rest in the last), as a network would deliver it. */
export function chunked(body: Uint8Array, sizes: number[]): Chunk[] {
  const out: Chunk[] = [];
  let at = 0;
  sizes.forEach((n, i) => {
    out.push({ time: 10 * (i + 1), bytes: body.slice(at, at + n) });
    at += n;
  });
  if (at < body.length) out.push({ time: 10 * (sizes.length + 1), bytes: body.slice(at) });
  return out;
}
