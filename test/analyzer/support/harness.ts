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
import { HttpAgent as HttpAgent059 } from '@ag-ui/client-0.0.59';
import { EventEncoder } from '@ag-ui/encoder';
import { AGUI_MEDIA_TYPE } from '@ag-ui/proto';
import { createRequire } from 'node:module';
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

/**
 * The encoder a pre-1.0 producer links: the `@ag-ui/encoder` (and `@ag-ui/proto`) that `@ag-ui/client` 0.0.59
 * depends on, resolved from that client's own directory so it is exactly the copy its decoder pairs with.
 */
const { EventEncoder: EventEncoder059 } = createRequire(import.meta.resolve('@ag-ui/client-0.0.59'))('@ag-ui/encoder') as typeof import('@ag-ui/encoder');
export const encoder059 = new EventEncoder059();

/** Length-prefixed protobuf frames, as `@ag-ui/encoder` (1.0.0 unless told) writes them; throws when an event has no proto form. */
export function encodeProto(events: readonly unknown[], by: EventEncoder = encoder): Uint8Array {
  // The encoder warns on every mutant it encodes unvalidated, which is the point of a mutant.
  const warn = console.warn;
  console.warn = () => {};
  try {
    return concatBytes(events.map((e) => by.encodeProtobuf(e as BaseEvent)));
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

/**
 * What `@ag-ui/client` 0.0.59, the last pre-1.0 reference consumer, does with a response: its own
 * HttpAgent.runAgent end to end, with `fetch` answering the given body. That pipeline (dist/index.mjs) is
 * transformHttpEventStream — SSE frames through JSON.parse then the core's EventSchemas.parse (zod,
 * passthrough at the top level), protobuf frames through @ag-ui/proto 0.0.59's decode, which ends in the
 * same EventSchemas.parse — then transformChunks, verifyEvents and defaultApplyEvents; no
 * CompatibilityBoundary, no enforceEvents, and no check at the end of the body. The run is rejected
 * exactly when runAgent rejects.
 */
export async function runReference059(chunks: readonly Uint8Array[], contentType: string, input: Record<string, unknown>): Promise<ReferenceResult> {
  const given = structuredClone(input) as Partial<RunAgentInput>;
  const agent = new HttpAgent059({
    url: 'http://agent.invalid/run',
    threadId: given.threadId,
    initialMessages: given.messages as never,
    initialState: given.state,
    fetch: async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(c) {
            for (const data of chunks) c.enqueue(data);
            c.close();
          },
        }),
        { status: 200, headers: { 'content-type': contentType } },
      ),
  });
  let delivered = 0;
  // The client logs every warning it recovers from and every failure it rethrows; thousands of cases would bury the summary.
  const { warn, error } = console;
  console.warn = console.error = () => {};
  try {
    await agent.runAgent(
      { runId: given.runId, tools: given.tools as never, context: given.context as never, forwardedProps: given.forwardedProps },
      { onEvent: () => void delivered++ },
    );
    return { rejected: false, error: null, delivered };
  } catch (e) {
    return { rejected: true, error: e instanceof Error ? e.message : String(e), delivered };
  } finally {
    Object.assign(console, { warn, error });
  }
}
