/**
 * One exchange's report stream. Messages queue while it is undecided (its first SSE event not yet
 * seen) or opening (the request text still being read), and are discarded if it is not AG-UI.
 */
import { LIMITS, type Api, type BodyNote, type Outcome, type PageMessage } from '../../messages.ts';
import { SsePeek, withoutUserInfo } from '../../exchange/index.ts';

export interface RequestInfo {
  api: Api;
  t: number;
  method: string;
  url: string;
  contentType: () => string | null;
  /** An act's ref when the Inspector sent it (resend.ts), for the open message to carry. */
  by?: number;
  /** Told the exchange's id once it is recorded. */
  opened?: (id: number) => void;
}

/** What the request body says about the exchange. */
export interface Body {
  agui: boolean;
  text: string | null;
  note: BodyNote | null;
  /** Produces the text for bodies not worth serialising unless the exchange is recorded. */
  later?: () => Promise<string>;
}
export const NO_BODY: Body = { agui: false, text: null, note: null };

export type ResponseInfo = Omit<Extract<PageMessage, { k: 'response' }>, 'k' | 'id' | 't'>;

export interface Sink {
  readonly id: number;
  /** Whether messages are still worth producing: undecided, opening or recording. */
  readonly active: boolean;
  /** Records the exchange (it is AG-UI), unless capture is paused or too many are open. */
  start(): void;
  /** Drops the exchange, if still undecided. */
  discard(): void;
  /** Decide from the first SSE event; until then chunks are held (at most PEEK_LIMIT bytes). */
  sniff(): void;
  response(r: ResponseInfo): void;
  /** Copies `bytes` now, before the page gets them: the page may modify or transfer them. */
  chunk(bytes: Uint8Array): void;
  end(outcome: Outcome, error: unknown): void;
}

export interface SinkOptions {
  post(msg: PageMessage): void;
  /** A copy of at most LIMITS.chunk bytes that leaves with the current batch. */
  stageCopy(bytes: Uint8Array): Uint8Array;
  now(): number;
  /** Off while the user has paused capture for this tab: new exchanges pass through unrecorded. */
  recording(): boolean;
}

export type SinkFactory = (req: RequestInfo, body: Body) => Sink;

/** Sinks sharing one id sequence and one count of open exchanges. */
export function sinks({ post, stageCopy, now, recording }: SinkOptions): SinkFactory {
  const { apply } = Reflect;
  const typedArray = Object.getPrototypeOf(Uint8Array.prototype) as Uint8Array;
  const bytesSlice = typedArray.slice;
  const bytesSubarray = typedArray.subarray;
  let nextId = 1;
  let open = 0;

  class ExchangeSink implements Sink {
    readonly id = nextId++;
    private state: 'undecided' | 'opening' | 'recording' | 'discarded' | 'ended' = 'undecided';
    private queue: PageMessage[] = [];
    private peek: SsePeek | null = null;

    constructor(private readonly req: RequestInfo, private readonly body: Body) {}

    get active(): boolean {
      return this.state === 'undecided' || this.state === 'opening' || this.state === 'recording';
    }

    start(): void {
      if (this.state !== 'undecided') return;
      this.peek = null;
      if (!recording()) {
        this.state = 'discarded';
        this.queue = [];
        return;
      }
      if (open >= LIMITS.openExchanges) {
        this.state = 'discarded';
        this.queue = [];
        post({ k: 'dropped', t: now(), id: null, exchanges: 1, chunks: 0, bytes: 0, rejected: 0 });
        return;
      }
      open++;
      const later = this.body.later;
      if (!later) {
        this.open(this.body.text, this.body.note);
        return;
      }
      this.state = 'opening';
      later().then(
        (text) => (text.length <= LIMITS.requestBody ? this.open(text, this.body.note) : this.open(null, 'too-large')),
        () => this.open(null, 'unreadable'),
      );
    }

    /** Opens the exchange with its request body, then sends what waited for it. */
    private open(text: string | null, note: BodyNote | null): void {
      this.state = 'recording';
      post({
        k: 'open', id: this.id, api: this.req.api, t: this.req.t, method: this.req.method, url: withoutUserInfo(this.req.url),
        requestContentType: this.req.contentType()?.slice(0, LIMITS.text) ?? null, requestBody: text, requestBodyNote: note,
        ...(this.req.by === undefined ? {} : { by: this.req.by }),
      });
      this.req.opened?.(this.id);
      const queued = this.queue;
      this.queue = [];
      for (const m of queued) this.send(m);
    }

    discard(): void {
      if (this.state !== 'undecided') return;
      this.state = 'discarded';
      this.peek = null;
      this.queue = [];
    }

    sniff(): void {
      if (this.state === 'undecided') this.peek = new SsePeek();
    }

    private send(msg: PageMessage): void {
      if (this.state === 'recording') {
        post(msg);
        if (msg.k === 'end') {
          this.state = 'ended';
          open--;
        }
      } else if (this.state === 'undecided' || this.state === 'opening') {
        this.queue.push(msg);
      }
    }

    response(r: ResponseInfo): void {
      this.send({ k: 'response', id: this.id, t: now(), ...r, url: withoutUserInfo(r.url) });
    }

    chunk(bytes: Uint8Array): void {
      if (!this.active) return;
      const t = now();
      for (let at = 0; at < bytes.byteLength; at += LIMITS.chunk) {
        const piece = apply(bytesSubarray, bytes, [at, at + LIMITS.chunk]) as Uint8Array;
        // Queued pieces wait for the verdict in buffers of their own, which batches may not take along early.
        const copy = this.state === 'recording' ? stageCopy(piece) : (apply(bytesSlice, piece, []) as Uint8Array);
        this.send({ k: 'chunk', id: this.id, t, bytes: copy });
      }
      if (this.peek) {
        const verdict = this.peek.push(bytes);
        if (verdict !== undefined) this.decide(verdict);
      }
    }

    end(outcome: Outcome, error: unknown): void {
      if (this.peek) this.decide(this.peek.end());
      // Undecided without a peek: nothing ever showed this exchange to be AG-UI.
      if (this.state === 'undecided') this.discard();
      if (!this.active) return;
      this.send({ k: 'end', id: this.id, t: now(), outcome, error: error === undefined ? null : describe(error) });
      // Further calls (an abort after the error, a cancel after the end) change nothing.
      if (this.state === 'opening') this.state = 'ended';
    }

    private decide(agui: boolean): void {
      this.peek = null;
      if (agui) this.start();
      else this.discard();
    }
  }

  return (req, body) => new ExchangeSink(req, body);
}

/** An error as the report names it, whatever the page threw. */
export function describe(error: unknown): string {
  try {
    const e = error as { name?: unknown; message?: unknown };
    const text = typeof e?.name === 'string' ? `${e.name}: ${String(e.message)}` : String(error);
    return text.slice(0, LIMITS.text);
  } catch {
    return 'unknown error';
  }
}

export const isAbort = (e: unknown): boolean => (e as { name?: unknown } | null)?.name === 'AbortError';
