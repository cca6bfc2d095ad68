/**
 * `probe`: a RunAgentInput sent to a live endpoint with the platform's `fetch`, the answer recorded chunk by
 * chunk with its arrival times — a CapturedExchange like a capture's, so it is analysed, written as a HAR,
 * replayed, reduced and diffed like one — and what the transport did: the content type, whether the stream
 * came as it was produced or held back in one lump (basic/transports: a proxy that buffers SSE defeats
 * streaming), and the keep-alive comments it carried.
 */
import { bytesOnlyAnalysis, MAX_CAPTURE_BYTES, type CapturedExchange, type Chunk } from '../exchange/index.ts';
import { analyzeSession, type SessionExchange } from '../detail/index.ts';
import { writeHar } from '../formats/index.ts';
import { TOOL } from '../meta.ts';

export const ACCEPT = { sse: 'text/event-stream', protobuf: 'application/vnd.ag-ui.event+proto' } as const;

export interface ProbeOptions {
  /** The RunAgentInput, as JSON text. */
  input: string;
  accept?: keyof typeof ACCEPT;
  headers?: Record<string, string>;
  /** Gives up after this long, whether or not the answer has begun (default 30 s). */
  timeoutMs?: number;
  /** Reads at most this many bytes of the answer (default the page capture's cap, MAX_CAPTURE_BYTES). */
  maxBytes?: number;
  /**
   * Follow a redirect whose Location is on the probed URL's own origin, sending the same request again.
   * A redirect to any other origin is never followed: it would hand that origin the input and the headers.
   */
  followSameOrigin?: boolean;
}

/** A redirect the endpoint answered with: followed (same origin, when asked), or where the probe stopped. */
export interface Redirect {
  status: number;
  from: string;
  /** The `Location` header as sent; null when there was none. */
  location: string | null;
  /** Whether Location names a URL on the probed URL's own origin. */
  sameOrigin: boolean;
  followed: boolean;
}

export interface TransportSeen {
  contentType: string;
  status: number;
  chunks: number;
  /** Request start → first and last byte, ms. */
  firstByteMs: number | null;
  lastByteMs: number | null;
  /** More than one event, and every byte arrived within one burst: the stream was held back and sent in one lump. */
  oneLump: boolean;
  /** SSE comment lines (`:`), which keep a connection open through proxies and carry no event. */
  keepAlives: number;
  /** The probe stopped reading at its timeout. */
  timedOut: boolean;
  /** The probe stopped reading at the byte cap (a tab's capture cap): the body and its analysis end there. */
  capped: boolean;
  /** Every redirect answered, in order; the last is where the probe stopped unless it was followed. */
  redirects: Redirect[];
}

export interface Probe extends SessionExchange {
  exchange: CapturedExchange;
  transport: TransportSeen;
  /** The Inspector's recording of the exchange: `check`, `replay`, `reduce` and `diff` read it. */
  har(): string;
}

/** No answer to analyse: the endpoint could not be reached, or sent no response head in time. */
export class ProbeError extends Error {}

/** Chunks no further apart than this arrived in one burst (one read of one flushed buffer). */
const BURST_MS = 10;
/** As many as fetch itself follows before it calls it a loop. */
const MAX_REDIRECTS = 20;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * SSE comment lines (a line whose first byte is `:`) across the chunks as they came, read in place: a
 * body at the byte cap is not copied, nor decoded to one string, to count them. A leading BOM is skipped
 * as an SSE parser skips it; CR, LF and CRLF each end a line.
 */
function countKeepAlives(chunks: readonly Chunk[]): number {
  let n = 0;
  let lineStart = true;
  let first = true;
  for (const { bytes } of chunks) {
    let i = 0;
    if (first && bytes.length > 0) {
      first = false;
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = 3;
    }
    for (; i < bytes.length; i++) {
      const b = bytes[i]!;
      if (lineStart && b === 0x3a) n++;
      lineStart = b === 0x0a || b === 0x0d;
    }
  }
  return n;
}

export async function probe(url: string, o: ProbeOptions): Promise<Probe> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, o.timeoutMs ?? 30_000);
  const started = performance.now();
  const startedDateTime = new Date().toISOString();
  const chunks: Chunk[] = [];
  const redirects: Redirect[] = [];
  let at = url;
  let response: Response;
  for (;;) {
    try {
      response = await fetch(at, {
        method: 'POST',
        headers: { ...o.headers, 'content-type': 'application/json', accept: ACCEPT[o.accept ?? 'sse'] },
        body: o.input,
        signal: controller.signal,
        redirect: 'manual',
      });
    } catch (e) {
      clearTimeout(timer);
      throw new ProbeError(timedOut ? `no answer from ${at} within ${(o.timeoutMs ?? 30_000) / 1000} s` : `cannot reach ${at}: ${causeOf(e)}`);
    }
    if (!REDIRECTS.has(response.status)) break;
    const location = response.headers.get('location');
    const next = location !== null && URL.canParse(location, at) ? new URL(location, at) : null;
    const sameOrigin = next !== null && next.origin === new URL(url).origin;
    const followed = o.followSameOrigin === true && sameOrigin && redirects.length < MAX_REDIRECTS;
    redirects.push({ status: response.status, from: at, location, sameOrigin, followed });
    if (!followed) break;
    await response.body?.cancel();
    at = next!.href;
  }
  let bytes = 0;
  let capped = false;
  const maxBytes = o.maxBytes ?? MAX_CAPTURE_BYTES;
  const reader = response.body?.getReader();
  try {
    for (;;) {
      const r = reader ? await reader.read() : { done: true as const, value: undefined };
      if (r.done) break;
      // Past the cap the rest is not read at all: fetch decompresses as it is read, so a compression bomb stops here too.
      capped = bytes + r.value.length > maxBytes;
      const kept = capped ? r.value.subarray(0, maxBytes - bytes) : r.value;
      if (kept.length > 0) chunks.push({ time: performance.now() - started, bytes: kept });
      bytes += kept.length;
      if (capped) break;
    }
  } catch {
    // Stopped by the timeout, or the connection broke mid-body: what arrived is the answer, and its analysis says
    // it was cut. A timeout is no choice of the consumer's: the producer had not ended its run, which fails it.
  } finally {
    clearTimeout(timer);
  }
  if (capped) await reader!.cancel();
  const contentType = response.headers.get('content-type') ?? '';
  const refused = redirects.at(-1)?.followed === false ? redirects.at(-1)!.location : null;
  const exchange: CapturedExchange = {
    source: url,
    url: at,
    method: 'POST',
    status: response.status,
    startedDateTime,
    requestContentType: 'application/json',
    requestBody: o.input,
    responseContentType: contentType,
    chunks,
    arrival: 'chunks',
    ...(refused !== null ? { redirectURL: refused } : {}),
  };
  const [analysed] = analyzeSession([exchange]);
  // Recorded as the capture records a stream past its cap, so the recording says where its body stops.
  if (capped) exchange.analysis = { ...bytesOnlyAnalysis(analysed!.report, null), capped };
  const first = chunks[0]?.time ?? null;
  const last = chunks.at(-1)?.time ?? null;
  const transport: TransportSeen = {
    contentType,
    status: response.status,
    chunks: chunks.length,
    firstByteMs: first,
    lastByteMs: last,
    // The timing has gaps when at least two events arrived.
    oneLump: analysed!.timing?.gaps != null && first !== null && last !== null && last - first <= BURST_MS,
    keepAlives: contentType.startsWith(ACCEPT.sse) ? countKeepAlives(chunks) : 0,
    timedOut,
    capped,
    redirects,
  };
  return {
    exchange,
    ...analysed!,
    transport,
    har: () => writeHar([exchange], { creator: { name: TOOL.name, version: TOOL.version } }),
  };
}

function causeOf(e: unknown): string {
  const cause = e instanceof Error && e.cause instanceof Error ? e.cause : e;
  return cause instanceof Error ? cause.message : String(cause);
}
