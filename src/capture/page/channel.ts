/**
 * The private channel to the relay: a MessagePort handed over in the document's first HANDSHAKE
 * window message, which the relay takes and hides from page listeners. It is posted once, and only
 * reaches a relay already listening: the relay is the content script that runs first (relay.iife.ts
 * says why). The relay answers on it with the tab's record/pause state, the emptied staging buffers, and
 * the acts the panel asks for (resend.ts), which only this port carries: a page's window message is no act.
 * So are what the tab's armed override answers and its answers (fetch.ts): a page cannot arm one.
 */
import { HANDSHAKE, type ActedMessage, type AnswerAsk, type OverrideMatch, type PageAnswer, type PageMessage, type RelayToPage } from '../../messages.ts';
import type { Actor } from './resend.ts';
import { nativeGetter } from './disguise.ts';
import type { BufferPool } from './pool.ts';

export interface ChannelNatives {
  window: { postMessage(message: unknown, targetOrigin: string, transfer: Transferable[]): void };
  MessageChannel: typeof MessageChannel;
  MessagePort: typeof MessagePort;
  ArrayBuffer: ArrayBufferConstructor;
  Promise: PromiseConstructor;
  /** Whose native `data` accessor reads the relay's messages; absent where the port delivers events of its own (the unit tests'). */
  MessageEvent?: typeof MessageEvent;
}

/** What the relay tells the page script of the tab's state. */
export interface Told {
  recording(on: boolean): void;
  override(match: OverrideMatch | null): void;
}

export interface Channel {
  /** Posts one batch to the relay, transferring `transfer`. */
  send(batch: PageMessage[], transfer: ArrayBuffer[]): void;
  /** Runs `task` in a task of its own. */
  schedule(task: () => void): void;
  /** The armed override's answer to a request, from the worker; null when the network is to answer it. */
  ask(method: string, url: string, body: string | null): Promise<PageAnswer | null>;
}

export function relayChannel(n: ChannelNatives, pool: BufferPool, told: Told, act: () => Actor | null): Channel {
  const { apply } = Reflect;
  const portPost = n.MessagePort.prototype.postMessage;
  const NativeArrayBuffer = n.ArrayBuffer;
  const eventData = nativeGetter(n.MessageEvent?.prototype, 'data');
  const channel = new n.MessageChannel();
  const port = channel.port1;
  n.window.postMessage({ [HANDSHAKE]: true }, '*', [channel.port2]);
  port.onmessage = (ev: MessageEvent) => {
    const data = eventData(ev);
    if (data instanceof NativeArrayBuffer) pool.give(data);
    else if (typeof data !== 'object' || data === null) return;
    else if ('recording' in data && typeof data.recording === 'boolean') told.recording(data.recording);
    else if ('override' in data) told.override((data as Extract<RelayToPage, { override: unknown }>).override);
    else if ('answered' in data && typeof data.answered === 'number') {
      const { answered, answer } = data as Extract<RelayToPage, { answered: number }>;
      const waiting = asks.get(answered);
      asks.delete(answered);
      waiting?.(answer);
    }
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
  const asks = new Map<number, (answer: PageAnswer | null) => void>();
  let lastAsk = 0;
  return {
    ask(method, url, body) {
      const m: AnswerAsk = { answerFor: ++lastAsk, method, url, body };
      return new n.Promise<PageAnswer | null>((resolve) => {
        asks.set(m.answerFor, resolve);
        apply(portPost, port, [m]);
      });
    },
    send: (batch, transfer) => apply(portPost, port, [batch, transfer]),
    schedule(next) {
      task = next;
      apply(portPost, tick.port2, [null]);
    },
  };
}
