/**
 * The WebSocket wrapper (issue #38). A socket carries AG-UI once one of its client frames is a RunAgentInput
 * (bare or enveloped, detect.ts), as the binding contract has the input come first
 * (basic/transports#the-binding-contract). Until then it is undecided: it holds its latest frames, bounded
 * (HOLD_FRAMES, HOLD_BYTES; older ones go, counted), and reports nothing — a socket never decided reports
 * nothing at all. Decided while capture is on, it reports its opening, the frames it held, every later
 * frame in both directions and its close; decided while paused, it is let go.
 *
 * What the page sees is unchanged: the constructor and `send` are disguised Proxies; our `message` and
 * `close` listeners are added with the native addEventListener as the socket is made, before any of the
 * page's can be, so delivery to the page keeps its order; the socket's and its events' members are read
 * with the native accessors, so an accessor the page put in their place runs only when the page reads;
 * nothing here throws into the page. A binary
 * frame's ArrayBuffer is copied as the event is delivered; a Blob (binaryType 'blob') is read with the
 * native Blob.arrayBuffer, in order with the socket's other frames, each timed at its event. A frame the
 * page sends as anything but a string or binary data is converted by the native alone (converting it here
 * would run page code twice) and is counted as lost, not recorded. A frame lost or cut once the socket is
 * recorded is reported as a hole in it (`dropped` naming the socket), in order, so that the worker stops
 * reading its exchanges there rather than across it.
 */
import { runAgentInputIn, withoutUserInfo } from '../../exchange/index.ts';
import { LIMITS, type FrameMessage, type PageMessage } from '../../messages.ts';
import { nativeGetter, type Disguise } from './disguise.ts';

/** What an undecided socket holds of its latest frames. */
export const HOLD_FRAMES = 64;
export const HOLD_BYTES = 1024 * 1024;

export interface WebSocketNatives {
  WebSocket: typeof WebSocket;
  /** EventTarget's, taken before any wrapper replaced it. */
  addEventListener: EventTarget['addEventListener'];
  ArrayBuffer: typeof ArrayBuffer;
  /** Absent where the realm has none (the unit tests' Node sockets deliver no Blob). */
  Blob?: typeof Blob;
  Promise: PromiseConstructor;
  /** The realm's event classes, whose native accessors are read; absent where sockets deliver events of their own (the unit tests' `ws`). */
  MessageEvent?: typeof MessageEvent;
  CloseEvent?: typeof CloseEvent;
}

export interface WebSocketDeps {
  disguise: Pick<Disguise, 'wrap'>;
  post(msg: PageMessage): void;
  now(): number;
  /** Off while the user has paused capture for this tab: a socket decided then is not recorded. */
  recording(): boolean;
}

type Data = string | Uint8Array;

export function wrapWebSocket(scope: { WebSocket: typeof WebSocket }, n: WebSocketNatives, deps: WebSocketDeps): void {
  const { apply, construct, getOwnPropertyDescriptor } = Reflect;
  const { post, now, recording } = deps;
  const NativeWebSocket = n.WebSocket;
  const OPEN = NativeWebSocket.OPEN;
  const closeEvent = n.CloseEvent?.prototype;
  const member = {
    url: nativeGetter(NativeWebSocket.prototype, 'url'),
    readyState: nativeGetter(NativeWebSocket.prototype, 'readyState'),
    data: nativeGetter(n.MessageEvent?.prototype, 'data'),
    code: nativeGetter(closeEvent, 'code'),
    reason: nativeGetter(closeEvent, 'reason'),
    wasClean: nativeGetter(closeEvent, 'wasClean'),
  };
  const isView = n.ArrayBuffer.isView;
  const bufferLength = getOwnPropertyDescriptor(n.ArrayBuffer.prototype, 'byteLength')!.get!;
  const bufferSlice = n.ArrayBuffer.prototype.slice;
  const typedArray = Object.getPrototypeOf(Uint8Array.prototype) as Uint8Array;
  const bytesSlice = typedArray.slice;
  const blobSize = n.Blob && getOwnPropertyDescriptor(n.Blob.prototype, 'size')!.get!;
  const blobBytes = n.Blob?.prototype.arrayBuffer;
  const resolved = n.Promise.resolve();
  const then = n.Promise.prototype.then;
  const taps = new WeakMap<WebSocket, Tap>();
  let nextId = 1;

  /** Whether `call` succeeds on `x`: a native getter throws for any object not of its own kind. */
  const brand = (call: ((this: unknown) => unknown) | undefined, x: unknown): boolean => {
    if (!call || typeof x !== 'object' || x === null) return false;
    try {
      apply(call, x, []);
      return true;
    } catch {
      return false;
    }
  };

  /** A copy of binary data, at most LIMITS.frame bytes of it, and how many were cut. */
  function copy(x: ArrayBuffer | ArrayBufferView): { bytes: Uint8Array; cut: number } {
    const view = isView(x) ? new Uint8Array(x.buffer, x.byteOffset, x.byteLength) : new Uint8Array(apply(bufferSlice, x, [0, LIMITS.frame]) as ArrayBuffer);
    const total = isView(x) ? view.byteLength : (apply(bufferLength, x, []) as number);
    const bytes = isView(x) ? (apply(bytesSlice, view, [0, LIMITS.frame]) as Uint8Array) : view;
    return { bytes, cut: total - bytes.byteLength };
  }

  class Tap {
    readonly id = nextId++;
    private state: 'undecided' | 'recording' | 'done' = 'undecided';
    private held: FrameMessage[] = [];
    private heldBytes = 0;
    /** Frames and bytes lost (cut, let go while undecided, unreadable), reported once the socket is. */
    private lost = { frames: 0, bytes: 0 };
    /** Frames waiting for a Blob read ahead of them, so that they are reported in order. */
    private waiting = 0;
    private chain: Promise<unknown> = resolved;

    constructor(private readonly url: string, private readonly t: number) {}

    /** Takes a frame now, or after the Blob reads ahead of it. */
    take(type: 'send' | 'receive', data: unknown): void {
      if (this.state === 'done') return;
      const t = now();
      if (typeof data === 'string') return this.queue(() => this.frame(type, t, data));
      if (isView(data) || brand(bufferLength, data)) {
        const { bytes, cut } = copy(data as ArrayBuffer);
        // Counted when its turn comes: a loss reported while recording is a hole in what follows it.
        return this.queue(() => {
          this.lose(0, cut);
          this.frame(type, t, bytes);
        });
      }
      if (!brand(blobSize, data)) return this.lose(1, 0);
      this.waiting++;
      const read = apply(then, this.chain, [() => apply(blobBytes!, data, [])]) as Promise<ArrayBuffer>;
      this.chain = apply(then, read, [
        (buffer: ArrayBuffer) => this.settle(() => {
          const { bytes, cut } = copy(buffer);
          this.lose(0, cut);
          this.frame(type, t, bytes);
        }),
        () => this.settle(() => this.lose(1, apply(blobSize!, data, []) as number)),
      ]) as Promise<unknown>;
    }

    private queue(task: () => void): void {
      if (this.waiting === 0) return task();
      this.waiting++;
      this.chain = apply(then, this.chain, [() => this.settle(task)]) as Promise<unknown>;
    }

    private settle(task: () => void): void {
      this.waiting--;
      try {
        task();
      } catch {
        // Capture must never stand between the page and its socket.
      }
    }

    private frame(type: 'send' | 'receive', t: number, data: Data): void {
      if (this.state === 'done') return;
      if (typeof data === 'string' && data.length > LIMITS.frame) {
        this.lose(0, data.length - LIMITS.frame);
        data = data.slice(0, LIMITS.frame);
      }
      const msg: FrameMessage = { k: 'frame', id: this.id, t, type, opcode: typeof data === 'string' ? 1 : 2, data };
      if (this.state === 'recording') return post(msg);
      if (type === 'send' && typeof data === 'string' && runAgentInputIn(data) !== null) return this.decide(msg);
      this.held.push(msg);
      this.heldBytes += sizeOf(data);
      while (this.held.length > HOLD_FRAMES || this.heldBytes > HOLD_BYTES) {
        const gone = sizeOf(this.held.shift()!.data);
        this.heldBytes -= gone;
        this.lose(1, gone);
      }
    }

    /** The socket carries AG-UI: report it whole, from its opening, unless capture is paused. */
    private decide(input: FrameMessage): void {
      const held = this.held;
      this.held = [];
      if (!recording()) {
        this.state = 'done';
        return;
      }
      this.state = 'recording';
      post({ k: 'socket', id: this.id, t: this.t, url: withoutUserInfo(this.url).slice(0, LIMITS.url) });
      for (const m of held) post(m);
      post(input);
      // Lost before the input: no exchange of the socket had begun, so no hole in one.
      this.report(false);
    }

    private lose(frames: number, bytes: number): void {
      this.lost.frames += frames;
      this.lost.bytes += bytes;
      if (this.state === 'recording') this.report(true);
    }

    /** Reports what was lost so far; `hole`: lost while recorded, so what follows it cannot be read as if it followed on. */
    private report(hole: boolean): void {
      if (this.lost.frames === 0 && this.lost.bytes === 0) return;
      post({ k: 'dropped', t: now(), id: null, exchanges: 0, chunks: this.lost.frames, bytes: this.lost.bytes, rejected: 0, ...(hole ? { socket: this.id } : {}) });
      this.lost = { frames: 0, bytes: 0 };
    }

    close(ev: CloseEvent): void {
      const t = now();
      const closed = { code: member.code(ev) as number, reason: String(member.reason(ev)).slice(0, LIMITS.text), wasClean: Boolean(member.wasClean(ev)) };
      this.queue(() => {
        if (this.state === 'recording') post({ k: 'close', id: this.id, t, ...closed });
        this.state = 'done';
        this.held = [];
      });
    }
  }

  const WrappedWebSocket = deps.disguise.wrap(NativeWebSocket, {
    construct(target, args: unknown[], newTarget) {
      const ws = construct(target, args, newTarget === WrappedWebSocket ? target : newTarget) as WebSocket;
      try {
        const tap = new Tap(member.url(ws) as string, now());
        taps.set(ws, tap);
        apply(n.addEventListener, ws, ['message', (ev: MessageEvent) => guard(() => tap.take('receive', member.data(ev)))]);
        apply(n.addEventListener, ws, ['close', (ev: CloseEvent) => guard(() => tap.close(ev))]);
      } catch {
        // Capture must never stand between the page and its socket.
      }
      return ws;
    },
  });
  NativeWebSocket.prototype.send = deps.disguise.wrap(NativeWebSocket.prototype.send, {
    apply(target, self, args: unknown[]) {
      const tap = taps.get(self as WebSocket);
      // A frame sent while the socket is not open never leaves: the native drops it (or throws, while connecting).
      const open = tap !== undefined && guard(() => member.readyState(self as WebSocket) === OPEN);
      const result = apply(target, self, args);
      if (open) guard(() => tap.take('send', args[0]));
      return result;
    },
  });
  Object.defineProperty(NativeWebSocket.prototype, 'constructor', {
    ...getOwnPropertyDescriptor(NativeWebSocket.prototype, 'constructor'),
    value: WrappedWebSocket,
  });
  scope.WebSocket = WrappedWebSocket;
}

const sizeOf = (data: Data): number => (typeof data === 'string' ? data.length : data.byteLength);

/** Runs capture work where the page is, never letting it throw there; false when it failed. */
function guard<T>(work: () => T): T | false {
  try {
    return work();
  } catch {
    return false;
  }
}
