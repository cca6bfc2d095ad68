/**
 * MAIN world, document_start, before any page script: wraps fetch, XMLHttpRequest, EventSource and
 * WebSocket and reports AG-UI exchanges (see detect.ts; a socket once it carries an AG-UI input, whole,
 * page/websocket.ts) to the relay. This entry hands the modules under page/
 * the real globals, taken now, before any page script could replace them; the modules read no
 * global themselves.
 *
 * What the page observes must not change: the same bytes in the same chunks, the same errors, abort
 * and cancel behaviour, backpressure (the body is read only when the page reads), no extra requests.
 * Wrappers are Proxies of the originals, so name, length and prototype are the native ones, and
 * Function.prototype.toString reports the original source for them (disguise.ts). The page's
 * arguments are read as the native reads them, once (readInit, stringArgs, bodies.argument), and
 * errors reach the page without our frames in their stack (clean). What remains observable is listed
 * in docs/privacy.md and pinned by test/e2e/capture-unseen.test.ts.
 *
 * Known differences on recorded responses (a new Response around the tapped body): `headers` is no
 * longer immutable. XHR text bodies are recorded re-encoded from `responseText`; EventSource bodies
 * are rebuilt from the delivered events (flagged `reconstructed`). Requests made from workers are
 * not seen.
 *
 * The page can tamper with anything in this world after we ran; that only falsifies its own capture,
 * and the relay treats everything from here as untrusted. The request headers of recorded exchanges
 * stay here (page/headers.ts), for the panel's resend (page/resend.ts), and never leave the page.
 *
 * One change is the user's own: while the panel has an override armed for the tab, the page's matching
 * fetch, XHR and EventSource are answered from a recording (page/fetch.ts, xhr.ts, eventsource.ts), which is
 * what the user asked the page to see.
 */
import { LIMITS, STAGING_BYTES, type OverrideMatch } from '../messages.ts';
import { batcher } from './page/batcher.ts';
import { bodies as bodyKit } from './page/body.ts';
import { relayChannel } from './page/channel.ts';
import { disguise as makeDisguise } from './page/disguise.ts';
import { wrapEventSource } from './page/eventsource.ts';
import { wrapFetch } from './page/fetch.ts';
import { headerStore } from './page/headers.ts';
import { actor, type Actor } from './page/resend.ts';
import { bufferPool } from './page/pool.ts';
import { describe, sinks } from './page/sink.ts';
import { urlResolver } from './page/url.ts';
import { wrapWebSocket } from './page/websocket.ts';
import { wrapXhr } from './page/xhr.ts';

(() => {
  // Nothing marks the page as instrumented: the dynamic registration excludes the manifest's origins
  // (background/origins.ts), and a second copy would only wrap the wrappers, its handshake ignored.
  const perf = performance;
  const now = (): number => perf.timeOrigin + perf.now();
  // The native, taken before the EventSource wrapper replaces it.
  const addEventListener = EventTarget.prototype.addEventListener;

  // At most 8 returned staging buffers are kept: enough for the batches in flight at full speed.
  const pool = bufferPool(ArrayBuffer, STAGING_BYTES, 8);
  let recording = true;
  /** What the tab's armed override answers (fetch.ts, xhr.ts, eventsource.ts), as the relay last said. */
  let armed: OverrideMatch | null = null;
  // Acts can only come once the wrappers are in place, a task after this one at the earliest.
  let act: Actor | null = null;
  const channel = relayChannel({ window, MessageChannel, MessagePort, ArrayBuffer, Promise, MessageEvent }, pool, { recording: (on) => (recording = on), override: (match) => (armed = match) }, () => act);
  const batch = batcher({ send: channel.send, schedule: channel.schedule, pool, stagingBytes: STAGING_BYTES, maxBatch: LIMITS.batch });
  const sink = sinks({ post: batch.post, stageCopy: batch.stageCopy, now, recording: () => recording });

  const disguise = makeDisguise(Error, DOMException);
  disguise.hideWrappers(Function.prototype);

  const bodies = bodyKit({
    Blob, ArrayBuffer, URLSearchParams, FormData, ReadableStream, ReadableStreamDefaultReader, Response, Headers, TextDecoder,
    Document, XMLSerializer,
  });
  const resolveUrl = urlResolver(URL, document);
  const kept = headerStore();
  const inspectorFetch = wrapFetch(
    window,
    { Request, Response, Headers, ReadableStream, ReadableStreamDefaultReader, Promise, AbortSignal, setTimeout, clearTimeout, addEventListener },
    { disguise, sink, bodies, now, resolveUrl, kept, armed: () => armed, ask: channel.ask },
  );
  act = actor({ Headers, Response, ReadableStream, ReadableStreamDefaultReader }, kept, inspectorFetch, describe);
  wrapXhr(
    { XMLHttpRequest, addEventListener, ArrayBuffer, Blob, TextEncoder, Promise, TextDecoder, Event, ProgressEvent, setTimeout, clearTimeout },
    { disguise, sink, bodies, now, resolveUrl, armed: () => armed, ask: channel.ask },
  );
  if (window.WebSocket) {
    wrapWebSocket(window, { WebSocket: window.WebSocket, addEventListener, ArrayBuffer, Blob, Promise, MessageEvent, CloseEvent }, { disguise, post: batch.post, now, recording: () => recording });
  }
  if (window.EventSource) {
    wrapEventSource(
      window,
      { EventSource: window.EventSource, EventTarget, TextEncoder, TextDecoder, Event, MessageEvent, URL, setTimeout, clearTimeout },
      { disguise, sink, now, resolveUrl, armed: () => armed, ask: channel.ask },
    );
  }
})();
