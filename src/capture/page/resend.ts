/**
 * The page script's side of acting on an exchange: what the panel asked, through the worker and the relay,
 * over the private port no page code can reach (channel.ts). It sends with the page's original fetch, through
 * our wrapper, so the request carries the page's origin and cookies and is captured like the page's own; the
 * answer is read to its end, since no page code will read it.
 */
import type { ActResult, PageAct } from '../../messages.ts';
import { MAX_HEADER_NAMES } from '../../messages.ts';
import type { InspectorFetch } from './fetch.ts';
import type { HeaderStore } from './headers.ts';

export interface ResendNatives {
  Headers: typeof Headers;
  Response: typeof Response;
  ReadableStream: typeof ReadableStream;
  ReadableStreamDefaultReader: typeof ReadableStreamDefaultReader;
}

export type Actor = (ref: number, act: PageAct) => Promise<ActResult>;

export function actor(n: ResendNatives, kept: HeaderStore, fetcher: InspectorFetch, describe: (e: unknown) => string): Actor {
  const { apply, construct } = Reflect;
  const headersSet = n.Headers.prototype.set;
  const getReader = n.ReadableStream.prototype.getReader;
  const readerRead = n.ReadableStreamDefaultReader.prototype.read;
  const bodyOf = Object.getOwnPropertyDescriptor(n.Response.prototype, 'body')!.get!;

  /** Reads the answer to its end: the capture records what is read. */
  async function drain(res: Response): Promise<void> {
    const body = apply(bodyOf, res, []) as ReadableStream<Uint8Array> | null;
    if (!body) return;
    const reader = apply(getReader, body, []) as ReadableStreamDefaultReader<Uint8Array>;
    for (;;) if ((await (apply(readerRead, reader, []) as Promise<ReadableStreamReadResult<Uint8Array>>)).done) return;
  }

  return async (ref, act) => {
    if (act.do === 'headers') {
      const request = kept.get(act.id);
      return { names: request ? request.headers.slice(0, MAX_HEADER_NAMES).map(([name]) => name) : null };
    }
    const request = act.id === null ? undefined : kept.get(act.id);
    // Asked to reuse headers that are gone: nothing is sent without them unless the user said so.
    if (act.id !== null && !request) return { error: 'the page no longer keeps the headers of that request' };
    const headers = construct(n.Headers, [request?.headers ?? []]) as Headers;
    if (!request) {
      if (act.contentType !== null) apply(headersSet, headers, ['content-type', act.contentType]);
      if (act.accept !== null) apply(headersSet, headers, ['accept', act.accept]);
    }
    try {
      const res = await fetcher.send(ref, act.url, { method: act.method, headers, body: act.body, credentials: request?.credentials ?? 'same-origin' });
      drain(res).catch(() => undefined);
      return { sent: true };
    } catch (e) {
      return { error: describe(e) };
    }
  };
}
