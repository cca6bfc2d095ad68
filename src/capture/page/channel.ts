/**
 * The private channel to the relay: a MessagePort handed over in the document's first HANDSHAKE
 * window message, which the relay takes and hides from page listeners. It is posted once, and only
 * reaches a relay already listening: the relay is the content script that runs first (relay.iife.ts
 * says why). The relay answers on it with the tab's record/pause state, the emptied staging buffers, and
 * the acts the panel asks for (resend.ts), which only this port carries: a page's window message is no act.
 */
import { HANDSHAKE, type ActedMessage, type PageMessage, type RelayToPage } from '../../messages.ts';
import type { Actor } from './resend.ts';
import type { BufferPool } from './pool.ts';

export interface ChannelNatives {
  window: { postMessage(message: unknown, targetOrigin: string, transfer: Transferable[]): void };
  MessageChannel: typeof MessageChannel;
  MessagePort: typeof MessagePort;
  ArrayBuffer: ArrayBufferConstructor;
}

export interface Channel {
  /** Posts one batch to the relay, transferring `transfer`. */
  send(batch: PageMessage[], transfer: ArrayBuffer[]): void;
  /** Runs `task` in a task of its own. */
  schedule(task: () => void): void;
}

export function relayChannel(n: ChannelNatives, pool: BufferPool, setRecording: (on: boolean) => void, act: () => Actor | null): Channel {
  const { apply } = Reflect;
  const portPost = n.MessagePort.prototype.postMessage;
  const NativeArrayBuffer = n.ArrayBuffer;
  const channel = new n.MessageChannel();
  const port = channel.port1;
  n.window.postMessage({ [HANDSHAKE]: true }, '*', [channel.port2]);
  port.onmessage = (ev: MessageEvent) => {
    const data: unknown = ev.data;
    if (data instanceof NativeArrayBuffer) pool.give(data);
    else if (typeof data !== 'object' || data === null) return;
    else if ('recording' in data && typeof data.recording === 'boolean') setRecording(data.recording);
    else if ('ref' in data && typeof data.ref === 'number') {
      const { ref, act: what } = data as Extract<RelayToPage, { ref: number }>;
      void act()?.(ref, what).then((result) => {
        const answer: ActedMessage = { acted: ref, result };
        apply(portPost, port, [answer]);
      });
    }
  };
  // A message to ourselves is a task that, unlike a timer, is not throttled in background tabs.
  const tick = new n.MessageChannel();
  let task: (() => void) | null = null;
  tick.port1.onmessage = () => {
    const run = task;
    task = null;
    run?.();
  };
  return {
    send: (batch, transfer) => apply(portPost, port, [batch, transfer]),
    schedule(next) {
      task = next;
      apply(portPost, tick.port2, [null]);
    },
  };
}
