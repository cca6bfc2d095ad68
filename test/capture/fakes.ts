/** Fakes for the page-side capture modules: what the relay would receive, and tasks run on demand. */
import { concatBytes } from '../../src/bytes.ts';
import { LIMITS, type PageMessage } from '../../src/messages.ts';
import { batcher, type Batcher } from '../../src/capture/page/batcher.ts';
import { bufferPool, type BufferPool } from '../../src/capture/page/pool.ts';
import { sinks, type SinkFactory } from '../../src/capture/page/sink.ts';

export const STAGING = 64 * 1024;

export interface Relay {
  /** Every batch sent, in order, with what it transferred. */
  batches: { batch: PageMessage[]; transfer: ArrayBuffer[] }[];
  /** Scheduled tasks not yet run. */
  tasks: (() => void)[];
  /** Runs the scheduled tasks, as the event loop would. */
  runTasks(): void;
  /** Every message sent so far, after running the scheduled tasks. */
  messages(): PageMessage[];
  pool: BufferPool;
  batch: Batcher;
  sink: SinkFactory;
  recording: boolean;
  clock: number;
}

export function relay(options: { maxBatch?: number; stagingBytes?: number } = {}): Relay {
  const r = {
    batches: [], tasks: [], recording: true, clock: 1000,
    runTasks() {
      while (r.tasks.length > 0) r.tasks.shift()!();
    },
    messages() {
      r.runTasks();
      return r.batches.flatMap((b) => b.batch);
    },
  } as unknown as Relay;
  r.pool = bufferPool(ArrayBuffer, options.stagingBytes ?? STAGING, 8);
  r.batch = batcher({
    send: (batch, transfer) => r.batches.push({ batch, transfer }),
    schedule: (task) => r.tasks.push(task),
    pool: r.pool,
    stagingBytes: options.stagingBytes ?? STAGING,
    maxBatch: options.maxBatch ?? LIMITS.batch,
  });
  r.sink = sinks({ post: r.batch.post, stageCopy: r.batch.stageCopy, now: () => r.clock++, recording: () => r.recording });
  return r;
}

/** The bytes of every chunk message of exchange `id`, joined. */
export function chunkBytes(messages: PageMessage[], id?: number): Uint8Array {
  return concatBytes(messages.flatMap((m) => (m.k === 'chunk' && (id === undefined || m.id === id) ? [m.bytes] : [])));
}

export const kinds = (messages: PageMessage[]): string[] => messages.map((m) => m.k);

export const RUN_INPUT = JSON.stringify({ threadId: 't1', runId: 'r1', messages: [], state: {}, tools: [], context: [], forwardedProps: {} });
export const sse = (event: Record<string, unknown>): string => `data: ${JSON.stringify(event)}\n\n`;
export const AGUI_SSE = sse({ type: 'RUN_STARTED', threadId: 't1', runId: 'r1' }) + sse({ type: 'RUN_FINISHED', threadId: 't1', runId: 'r1' });
export const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
