import {
  CompatibilityBoundary,
  enforceEvents,
  transformChunks,
  transformHttpEventStream,
  verifyEvents,
  type AbstractAgent,
  type BaseEvent,
  type RunAgentInput,
} from '@ag-ui/client';
import { EventEncoder } from '@ag-ui/encoder';
import { AGUI_MEDIA_TYPE } from '@ag-ui/proto';
import { Observable } from 'rxjs';
import { ExchangeAnalyzer } from '../../../src/analyzer/index.ts';
import type { ExchangeReport } from '../../../src/analyzer/types.ts';
import { concatBytes } from '../../../src/bytes.ts';

// The reference warns on every strip; thousands of cases would bury the summary.
process.env.SUPPRESS_TRANSFORMATION_WARNINGS = 'true';

export const SSE = 'text/event-stream';
export const PROTO = AGUI_MEDIA_TYPE;

/** One SSE frame per item; a string is sent verbatim as the data payload (garbage frames). */
export function encodeSse(frames: readonly unknown[]): Uint8Array {
  return new TextEncoder().encode(frames.map((f) => `data: ${typeof f === 'string' ? f : JSON.stringify(f)}\n\n`).join(''));
}

const encoder = new EventEncoder();

/** Length-prefixed protobuf frames, as `@ag-ui/encoder` writes them; throws when an event has no proto form. */
export function encodeProto(events: readonly unknown[]): Uint8Array {
  // The encoder warns on every mutant it encodes unvalidated, which is the point of a mutant.
  const warn = console.warn;
  console.warn = () => {};
  try {
    return concatBytes(events.map((e) => encoder.encodeProtobuf(e as BaseEvent)));
  } finally {
    console.warn = warn;
  }
}


/** Cuts a body into chunks of the given sizes (the last size repeats), as a network would deliver it. */
export function chunk(bytes: Uint8Array, sizes: () => number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; ) {
    const n = Math.max(1, sizes());
    out.push(bytes.subarray(at, at + n));
    at += n;
  }
  return out;
}

export function runAnalyzer(chunks: readonly Uint8Array[], contentType: string, input: unknown): ExchangeReport {
  const a = new ExchangeAnalyzer({ source: 'differential', requestBody: JSON.stringify(input), contentType });
  for (const c of chunks) a.push(c, 0);
  a.end(0);
  return a.report();
}

export interface ReferenceResult {
  rejected: boolean;
  error: string | null;
  /** Events that reached the end of the pipeline (after chunk expansion). */
  delivered: number;
}

/**
 * What HttpAgent.runAgent does to a response body, minus the network and the state/message
 * application: content-type dispatch and frame checks (transformHttpEventStream), the
 * CompatibilityBoundary middleware, then enforceEvents → transformChunks → verifyEvents. The
 * run is rejected exactly when that observable errors.
 */
export function runReference(chunks: readonly Uint8Array[], contentType: string, input: unknown): Promise<ReferenceResult> {
  // transformHttpEventStream subscribes eagerly and forwards through a Subject, so a body emitted
  // synchronously would complete before anyone listens; a real fetch body is never synchronous either.
  const http$ = new Observable<never>((sub) => {
    queueMicrotask(() => {
      sub.next({ type: 'headers', status: 200, headers: new Headers({ 'content-type': contentType }) } as never);
      for (const data of chunks) sub.next({ type: 'data', data } as never);
      sub.complete();
    });
  });
  const agent = { run: () => transformHttpEventStream(http$) } as unknown as AbstractAgent;
  const events$ = new CompatibilityBoundary()
    .run(structuredClone(input) as RunAgentInput, agent)
    .pipe(enforceEvents(), transformChunks(), verifyEvents());
  return new Promise((resolve) => {
    let delivered = 0;
    events$.subscribe({
      next: () => delivered++,
      error: (e: unknown) => resolve({ rejected: true, error: e instanceof Error ? e.message : String(e), delivered }),
      complete: () => resolve({ rejected: false, error: null, delivered }),
    });
  });
}
