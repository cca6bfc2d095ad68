/** The page script's batching and buffer pool: one batch per task, bounded, staging buffers reused. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { relayChannel } from '../../src/capture/page/channel.ts';
import { bufferPool } from '../../src/capture/page/pool.ts';
import { HANDSHAKE, type PageMessage } from '../../src/messages.ts';
import { STAGING, relay } from './fakes.ts';

const end = (id: number): PageMessage => ({ k: 'end', id, t: 1, outcome: 'complete', error: null });

describe('bufferPool', () => {
  it('hands back a returned buffer instead of allocating one', () => {
    const pool = bufferPool(ArrayBuffer, 1024, 2);
    const a = pool.take();
    assert.equal(a.byteLength, 1024);
    pool.give(a);
    assert.equal(pool.take(), a);
    assert.notEqual(pool.take(), a, 'a buffer is handed out once');
  });

  it('keeps at most `keep` buffers, and only ArrayBuffers of its size', () => {
    const pool = bufferPool(ArrayBuffer, 1024, 2);
    const kept = [new ArrayBuffer(1024), new ArrayBuffer(1024), new ArrayBuffer(1024)];
    for (const b of kept) pool.give(b);
    pool.give(new ArrayBuffer(512));
    pool.give(new Uint8Array(1024));
    pool.give(null);
    const taken = [pool.take(), pool.take(), pool.take()];
    assert.ok(taken.includes(kept[0]!) && taken.includes(kept[1]!));
    assert.ok(!taken.includes(kept[2]!), 'the third was over the limit');
    assert.ok(taken.every((b) => b.byteLength === 1024));
  });
});

describe('batcher', () => {
  it('sends nothing on the page\'s call, then everything of the task as one batch, in order', () => {
    const r = relay();
    for (let id = 1; id <= 5; id++) r.batch.post(end(id));
    assert.equal(r.batches.length, 0);
    assert.equal(r.tasks.length, 1, 'one task scheduled for the whole batch');
    r.runTasks();
    assert.equal(r.batches.length, 1);
    assert.deepEqual(r.batches[0]!.batch.map((m) => (m as { id: number }).id), [1, 2, 3, 4, 5]);
    r.batch.post(end(6));
    assert.equal(r.tasks.length, 1, 'a new task for the next batch');
    r.runTasks();
    assert.equal(r.batches.length, 2);
  });

  it('sends a full batch at once, never more than maxBatch messages', () => {
    const r = relay({ maxBatch: 3 });
    for (let id = 1; id <= 7; id++) r.batch.post(end(id));
    assert.deepEqual(r.batches.map((b) => b.batch.length), [3, 3]);
    r.runTasks();
    assert.deepEqual(r.batches.map((b) => b.batch.length), [3, 3, 1]);
  });

  it('copies chunks into one staging buffer, transferred once with the batch', () => {
    const r = relay();
    const page = new Uint8Array([1, 2, 3, 4]);
    const a = r.batch.stageCopy(page);
    page.fill(9);
    const b = r.batch.stageCopy(new Uint8Array([5, 6]));
    assert.deepEqual([...a], [1, 2, 3, 4], 'the copy does not follow the page\'s later writes');
    assert.deepEqual([...b], [5, 6]);
    assert.equal(a.buffer, b.buffer);
    assert.equal(b.byteOffset, 4);
    r.batch.post({ k: 'chunk', id: 1, t: 1, bytes: a });
    r.batch.post({ k: 'chunk', id: 1, t: 1, bytes: b });
    r.runTasks();
    assert.deepEqual(r.batches[0]!.transfer, [a.buffer]);
  });

  it('transfers a chunk in a buffer of its own along with it', () => {
    const r = relay();
    const own = new Uint8Array([7, 7]);
    r.batch.post({ k: 'chunk', id: 1, t: 1, bytes: own });
    r.runTasks();
    assert.deepEqual(r.batches[0]!.transfer, [own.buffer]);
  });

  it('sends the batch before a copy that would overflow the staging buffer, and starts a new one', () => {
    const r = relay();
    const first = r.batch.stageCopy(new Uint8Array(STAGING - 10));
    r.batch.post({ k: 'chunk', id: 1, t: 1, bytes: first });
    const second = r.batch.stageCopy(new Uint8Array(20).fill(3));
    assert.equal(r.batches.length, 1, 'the full buffer left at once');
    assert.deepEqual(r.batches[0]!.transfer, [first.buffer]);
    assert.notEqual(second.buffer, first.buffer);
    assert.equal(second.byteOffset, 0);
  });

  it('stages into a buffer the relay returned', () => {
    const r = relay();
    const a = r.batch.stageCopy(new Uint8Array([1]));
    r.batch.post({ k: 'chunk', id: 1, t: 1, bytes: a });
    r.runTasks();
    const returned = r.batches[0]!.transfer[0]!;
    r.pool.give(returned);
    const b = r.batch.stageCopy(new Uint8Array([2]));
    assert.equal(b.buffer, returned);
  });
});

describe('relayChannel', () => {
  class FakePort {
    sent: unknown[][] = [];
    onmessage: ((ev: { data: unknown }) => void) | null = null;
    postMessage(...args: unknown[]): void {
      this.sent.push(args);
    }
  }
  class FakeChannel {
    static made: FakeChannel[] = [];
    port1 = new FakePort();
    port2 = new FakePort();
    constructor() {
      FakeChannel.made.push(this);
    }
  }

  it('hands the relay its port in one handshake, then batches over it and takes back what the relay returns', () => {
    FakeChannel.made = [];
    const posted: unknown[][] = [];
    const pool = bufferPool(ArrayBuffer, 1024, 8);
    const states: boolean[] = [];
    const channel = relayChannel(
      { window: { postMessage: (...args: unknown[]) => posted.push(args) }, MessageChannel: FakeChannel as unknown as typeof MessageChannel, MessagePort: FakePort as unknown as typeof MessagePort, ArrayBuffer, Promise },
      pool, { recording: (on) => void states.push(on), override: () => undefined }, () => null,
    );
    const [relayEnd, tick] = FakeChannel.made as [FakeChannel, FakeChannel];
    assert.deepEqual(posted, [[{ [HANDSHAKE]: true }, '*', [relayEnd.port2]]]);

    const transfer = [new ArrayBuffer(1)];
    channel.send([end(1)], transfer);
    assert.deepEqual(relayEnd.port1.sent, [[[end(1)], transfer]]);

    let ran = 0;
    channel.schedule(() => ran++);
    assert.equal(tick.port2.sent.length, 1, 'a message to itself');
    assert.equal(ran, 0);
    tick.port1.onmessage!({ data: null });
    assert.equal(ran, 1);

    const returned = new ArrayBuffer(1024);
    relayEnd.port1.onmessage!({ data: returned });
    assert.equal(pool.take(), returned);
    relayEnd.port1.onmessage!({ data: { recording: false } });
    relayEnd.port1.onmessage!({ data: { recording: 'no' } });
    relayEnd.port1.onmessage!({ data: null });
    assert.deepEqual(states, [false]);
  });
});
