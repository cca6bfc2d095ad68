/**
 * Request bodies: taken as the native takes them, and sniffed for a RunAgentInput (see detect.ts)
 * without reading anything the native would not, and without serialising bodies that cannot be one
 * unless the exchange turns out to be recorded.
 */
import { concatBytes } from '../../bytes.ts';
import { LIMITS } from '../../messages.ts';
import { isRunAgentInputText } from '../../exchange/index.ts';
import type { Body } from './sink.ts';
import { NO_BODY } from './sink.ts';

/** The page's body classes and the natives read from them. */
export interface BodyNatives {
  Blob: typeof Blob;
  ArrayBuffer: ArrayBufferConstructor;
  URLSearchParams: typeof URLSearchParams;
  FormData: typeof FormData;
  ReadableStream: typeof ReadableStream;
  ReadableStreamDefaultReader: typeof ReadableStreamDefaultReader;
  Response: typeof Response;
  Headers: typeof Headers;
  TextDecoder: typeof TextDecoder;
  /** Absent where there is no DOM (XHR bodies only). */
  Document?: typeof Document;
  XMLSerializer?: typeof XMLSerializer;
}

export interface Bodies {
  /**
   * A body as the native takes it: an object of no body type is converted to a string here, once,
   * and the native gets the string (converting it twice would call the page's toString twice).
   */
  argument(body: unknown, acceptsDocument: boolean): unknown;
  /** Body of an XHR send() or a fetch init, after argument(); streams are handled by the fetch wrapper. */
  inspect(body: unknown): Body | Promise<Body>;
  /** The body whose text arrives later (a streamed upload, a copy of a Request's body). */
  fromText(text: Promise<string>): Promise<Body>;
  /** A stream's bytes as UTF-8 text; rejects with a RangeError past LIMITS.requestBody. */
  readAll(stream: ReadableStream<Uint8Array>): Promise<string>;
  /** The request's content type: its headers', else the one its body implies. */
  contentType(headers: Headers | null, body: unknown): string | null;
}

export function bodies(n: BodyNatives): Bodies {
  const { apply } = Reflect;
  const getter = (proto: object, key: string): (() => unknown) => Object.getOwnPropertyDescriptor(proto, key)!.get!;
  const { Blob, ArrayBuffer, URLSearchParams, FormData, ReadableStream, Response, TextDecoder, Document, XMLSerializer } = n;
  const getReader = n.ReadableStream.prototype.getReader;
  const readerRead = n.ReadableStreamDefaultReader.prototype.read;
  const readerCancel = n.ReadableStreamDefaultReader.prototype.cancel;
  const blobText = n.Blob.prototype.text;
  const blobSize = getter(n.Blob.prototype, 'size');
  const blobType = getter(n.Blob.prototype, 'type');
  const headersGet = n.Headers.prototype.get;
  const paramsToString = n.URLSearchParams.prototype.toString;

  function textBody(text: string, note: Body['note'] = null): Body {
    return text.length > LIMITS.requestBody
      ? { agui: false, text: null, note: 'too-large' }
      : { agui: isRunAgentInputText(text), text, note };
  }

  function bytesBody(view: ArrayBufferView | ArrayBuffer): Body {
    const bytes = view instanceof ArrayBuffer ? new Uint8Array(view) : new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
    if (bytes.byteLength > LIMITS.requestBody) return { agui: false, text: null, note: 'too-large' };
    // Only JSON can be a RunAgentInput: skip whitespace and look for '{' before copying anything.
    let i = 0;
    while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d)) i++;
    const decode = (): string => new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    if (bytes[i] !== 0x7b) {
      const copy = bytes.slice();
      return { agui: false, text: null, note: null, later: async () => new TextDecoder('utf-8', { fatal: true }).decode(copy) };
    }
    try {
      return textBody(decode());
    } catch {
      return { agui: false, text: null, note: 'unreadable' };
    }
  }

  async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
    const reader = apply(getReader, stream, []) as ReadableStreamDefaultReader<Uint8Array>;
    const parts: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const r = await (apply(readerRead, reader, []) as Promise<ReadableStreamReadResult<Uint8Array>>);
      if (r.done) break;
      size += r.value.byteLength;
      if (size > LIMITS.requestBody) {
        apply(readerCancel, reader, []);
        throw new RangeError('too large');
      }
      parts.push(r.value);
    }
    return new TextDecoder('utf-8', { fatal: true }).decode(concatBytes(parts));
  }

  const fromText = (text: Promise<string>): Promise<Body> =>
    text.then(textBody, (e: unknown) => ({ agui: false, text: null, note: e instanceof RangeError ? 'too-large' : 'unreadable' }));

  return {
    readAll,
    fromText,

    argument(body, acceptsDocument) {
      if ((typeof body !== 'object' && typeof body !== 'function') || body === null) return body;
      if (body instanceof Blob || body instanceof ArrayBuffer || ArrayBuffer.isView(body) || body instanceof URLSearchParams
        || body instanceof FormData || body instanceof ReadableStream || (acceptsDocument && Document && body instanceof Document)) return body;
      return `${body as unknown as string}`;
    },

    inspect(body) {
      if (body === null || body === undefined) return NO_BODY;
      if (typeof body === 'string') return textBody(body);
      if (body instanceof Blob) {
        return (apply(blobSize, body, []) as number) > LIMITS.requestBody
          ? { agui: false, text: null, note: 'too-large' }
          : fromText(apply(blobText, body, []) as Promise<string>);
      }
      if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return bytesBody(body as ArrayBuffer);
      if (body instanceof URLSearchParams) {
        const p = body;
        return { agui: false, text: null, note: null, later: async () => apply(paramsToString, p, []) as string };
      }
      if (body instanceof FormData) {
        const f = body;
        return { agui: false, text: null, note: 'multipart-reserialized', later: () => new Response(f).text() };
      }
      if (body instanceof ReadableStream) return { agui: false, text: null, note: 'not-teeable' };
      if (Document && XMLSerializer && body instanceof Document) return textBody(new XMLSerializer().serializeToString(body));
      return textBody(String(body));
    },

    contentType(headers, body) {
      const h = headers === null ? null : (apply(headersGet, headers, ['content-type']) as string | null);
      if (h !== null) return h;
      if (typeof body === 'string') return 'text/plain;charset=UTF-8';
      if (body instanceof Blob) return (apply(blobType, body, []) as string) || null;
      if (body instanceof URLSearchParams) return 'application/x-www-form-urlencoded;charset=UTF-8';
      if (body instanceof FormData) return 'multipart/form-data';
      return null;
    },
  };
}
