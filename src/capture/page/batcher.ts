/**
 * Messages leave in batches, one per task: the page's read path only copies its chunk into a staging
 * buffer, and posting, checking and encoding happen in tasks of their own, many chunks at a time.
 * Staging buffers are transferred, never copied again.
 */
import type { PageMessage } from '../../messages.ts';
import type { BufferPool } from './pool.ts';

export interface Batcher {
  post(msg: PageMessage): void;
  /** A copy of `bytes` (at most `stagingBytes`) in the staging buffer, which leaves with the current batch. */
  stageCopy(bytes: Uint8Array): Uint8Array;
  /** Sends what is batched now. */
  flush(): void;
}

export interface BatcherOptions {
  /** Posts one batch to the relay, transferring `transfer`. */
  send(batch: PageMessage[], transfer: ArrayBuffer[]): void;
  /** Runs `task` in a task of its own, soon. */
  schedule(task: () => void): void;
  pool: BufferPool;
  stagingBytes: number;
  /** Most messages in one batch. */
  maxBatch: number;
}

export function batcher({ send, schedule, pool, stagingBytes, maxBatch }: BatcherOptions): Batcher {
  const { apply } = Reflect;
  const Bytes = Uint8Array;
  const bytesSet = (Object.getPrototypeOf(Uint8Array.prototype) as Uint8Array).set;
  let batch: PageMessage[] = [];
  let transfer: ArrayBuffer[] = [];
  let stage: ArrayBuffer | null = null;
  let staged = 0;
  let scheduled = false;

  function flush(): void {
    if (batch.length === 0) return;
    if (staged > 0) {
      transfer.push(stage!);
      stage = null;
      staged = 0;
    }
    send(batch, transfer);
    batch = [];
    transfer = [];
  }

  const tick = (): void => {
    scheduled = false;
    flush();
  };

  return {
    flush,
    post(msg) {
      if (msg.k === 'chunk' && msg.bytes.buffer !== stage) transfer.push(msg.bytes.buffer as ArrayBuffer);
      batch.push(msg);
      if (batch.length >= maxBatch) flush();
      else if (!scheduled) {
        scheduled = true;
        schedule(tick);
      }
    },
    stageCopy(bytes) {
      if (staged + bytes.byteLength > stagingBytes) flush();
      stage ??= pool.take();
      const copy = new Bytes(stage, staged, bytes.byteLength);
      apply(bytesSet, copy, [bytes]);
      staged += bytes.byteLength;
      return copy;
    },
  };
}
