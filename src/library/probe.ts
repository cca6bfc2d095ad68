/**
 * `probe`: a RunAgentInput sent to a live endpoint with the platform's `fetch`, the answer recorded chunk by
 * chunk with its arrival times — a CapturedExchange like a capture's, so it is analysed, written as a HAR,
 * replayed, reduced and diffed like one — and what the transport did: the content type, whether the stream
 * came as it was produced or held back in one lump (basic/transports: a proxy that buffers SSE defeats
 * streaming), and the keep-alive comments it carried.
 */
import { bodyOf, type CapturedExchange, type Chunk } from '../exchange/index.ts';
import { analyzeSession, type Timing } from '../detail/index.ts';
import type { ExchangeReport } from '../analyzer/index.ts';
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
}

export interface Probe {
  exchange: CapturedExchange;
  report: ExchangeReport;
  timing: Timing | null;
  transport: TransportSeen;
  /** The Inspector's recording of the exchange: `check`, `replay`, `reduce` and `diff` read it. */
  har(): string;
}

/** No answer to analyse: the endpoint could not be reached, or sent no response head in time. */
export class ProbeError extends Error {}

/** Chunks no further apart than this arrived in one burst (one read of one flushed buffer). */
const BURST_MS = 10;

const countKeepAlives = (body: string) => body.split(/\r\n|\r|\n/).filter((l) => l.startsWith(':')).length;

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
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { ...o.headers, 'content-type': 'application/json', accept: ACCEPT[o.accept ?? 'sse'] },
      body: o.input,
      signal: controller.signal,
    });
  } catch (e) {
    clearTimeout(timer);
    throw new ProbeError(timedOut ? `no answer from ${url} within ${(o.timeoutMs ?? 30_000) / 1000} s` : `cannot reach ${url}: ${causeOf(e)}`);
  }
  try {
    const reader = response.body?.getReader();
    for (;;) {
      const r = reader ? await reader.read() : { done: true as const, value: undefined };
      if (r.done) break;
      chunks.push({ time: performance.now() - started, bytes: r.value });
    }
  } catch {
    // Aborted by the timeout, or the connection broke mid-body: what arrived is the answer, and its analysis says it was cut.
  } finally {
    clearTimeout(timer);
  }
  const contentType = response.headers.get('content-type') ?? '';
  const exchange: CapturedExchange = {
    source: url,
    url,
    method: 'POST',
    status: response.status,
    startedDateTime,
    requestContentType: 'application/json',
    requestBody: o.input,
    responseContentType: contentType,
    chunks,
    arrival: 'chunks',
    ...(timedOut ? { abandoned: true } : {}),
  };
  const [analysed] = analyzeSession([exchange]);
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
    keepAlives: contentType.startsWith(ACCEPT.sse) ? countKeepAlives(new TextDecoder().decode(bodyOf(exchange))) : 0,
    timedOut,
  };
  return {
    exchange,
    report: analysed!.report,
    timing: analysed!.timing,
    transport,
    har: () => writeHar([exchange], { creator: { name: TOOL.name, version: TOOL.version } }),
  };
}

function causeOf(e: unknown): string {
  const cause = e instanceof Error && e.cause instanceof Error ? e.cause : e;
  return cause instanceof Error ? cause.message : String(cause);
}
