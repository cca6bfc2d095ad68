/**
 * Staging buffers for chunk copies. Buffers are transferred to the relay and come back once their
 * bytes are encoded: writing into memory that was written before is much cheaper than into freshly
 * allocated memory, so returned buffers are kept (a few) and handed out again.
 */
export interface BufferPool {
  /** A buffer of the pool's size: a returned one if any, else a new one. */
  take(): ArrayBuffer;
  /** Keeps `b` for reuse if it is one of ours in shape (the relay is the only sender, but checked anyway). */
  give(b: unknown): void;
}

export function bufferPool(NativeArrayBuffer: ArrayBufferConstructor, size: number, keep: number): BufferPool {
  const spare: ArrayBuffer[] = [];
  return {
    take: () => spare.pop() ?? new NativeArrayBuffer(size),
    give(b) {
      if (b instanceof NativeArrayBuffer && b.byteLength === size && spare.length < keep) spare.push(b);
    },
  };
}
