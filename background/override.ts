/**
 * The tab's armed override (issue #36): the Inspector answers the page's matching requests from a recording
 * instead of the agent. The worker holds it (at most one a tab, in memory: a restarted worker forgets it and
 * the page's requests reach the network again), runs src/answer for each request, and hands the page script
 * only the chunks' bytes and times, so the page script stays free of the answer's encoder.
 */
import { answer, editedSource, idsOf, parseFault, type AnswerSource, type Fault } from '../src/answer/index.ts';
import { SSE_MEDIA_TYPE, patternError, requestMatches } from '../src/exchange/index.ts';
import { fromBase64, toBase64 } from '../src/base64.ts';
import { mediaType, type OverrideMatch, type OverrideStatus, type PageAnswer, type RequestOf } from '../src/messages.ts';
import { freshRef, type Session } from './session.ts';

export interface Armed {
  status: OverrideStatus;
  source: AnswerSource;
  faults: Fault[];
}

export const matchOf = (a: Armed | undefined): OverrideMatch | null => (a ? { method: a.status.method, url: a.status.url } : null);

/** What answers: the tab's exchange as recorded, or the imported one the panel sent. */
function sourceOf(s: Session | undefined, req: RequestOf<'agui-inspector/override-arm'>): AnswerSource | { error: string } {
  const r = req.recorded;
  if (r) {
    const chunks = r.chunks.map((c) => ({ time: c.time, bytes: fromBase64(c.bytes) }));
    return { status: r.status, responseContentType: r.contentType, chunks, ...(r.requestBody === null ? {} : { requestBody: r.requestBody }) };
  }
  const x = s?.exchange(req.exchangeId);
  const chunks = s?.chunksOf(req.exchangeId);
  if (!x || !chunks) return { error: 'this tab holds no such exchange' };
  if (x.outcome === 'pending' || !x.response) return { error: 'the exchange is still under way: arm once its recording is complete' };
  if (x.capped) return { error: 'bytes of this exchange were dropped for the memory cap: its recording is incomplete' };
  // The chunks as they are now: the recording is complete, and the session may be cleared while armed.
  return { status: x.response.status, responseContentType: x.response.contentType ?? '', chunks: [...chunks], ...(x.request.body === null ? {} : { requestBody: x.request.body }) };
}

/** The override the panel asks for, or why it cannot be armed. */
export function arming(s: Session | undefined, req: RequestOf<'agui-inspector/override-arm'>): Armed | { error: string } {
  let source = sourceOf(s, req);
  if ('error' in source) return source;
  if (req.edited !== undefined) {
    try {
      source = editedSource(req.edited, source);
    } catch (e) {
      return { error: e instanceof Error ? e.message : String(e) };
    }
  }
  const wrong = patternError(req.url);
  if (wrong !== null) return { error: wrong };
  const contentType = source.responseContentType;
  // EventSource makes the only GETs an agent is asked with, and reads nothing but an event stream.
  if (req.method.toUpperCase() === 'GET' && mediaType(contentType) !== SSE_MEDIA_TYPE) {
    return { error: `a GET is answered as an EventSource reads it, and it reads only ${SSE_MEDIA_TYPE}: this recording is ${contentType || 'of no type'}; arm it for the method it was asked with` };
  }
  let faults: Fault[];
  try {
    faults = req.faults.map(parseFault);
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
  return {
    source,
    faults,
    status: {
      method: req.method.toUpperCase(), url: req.url, from: req.exchangeId, once: req.once, pace: req.pace, keepIds: req.keepIds,
      faults: req.faults.map((f) => f.trim()), pinned: req.pinned, answered: 0,
    },
  };
}

/**
 * The answer to a request that matched, all its chunks computed (a recording is finite), with the ref its
 * exchange opens with; the session marks that exchange by it. Null when `method` and `url` are not the
 * override's: the armed one changed while the request was on its way.
 */
export async function answerFor(s: Session, a: Armed, method: string, url: string, body: string | null): Promise<PageAnswer<string> | null> {
  if (!requestMatches(a.status, method, url)) return null;
  const ids = a.status.keepIds || body === null ? null : idsOf(body);
  const out = answer(a.source, { pace: a.status.pace, ids, faults: a.faults });
  const chunks: PageAnswer<string>['chunks'] = [];
  for await (const c of out.chunks) chunks.push({ at: c.at, bytes: toBase64(c.bytes) });
  const by = freshRef();
  s.answering.set(by, { from: a.status.from, pace: a.status.pace, idsRewritten: ids !== null, faults: [...out.injected] });
  return { by, status: out.status, contentType: out.contentType, headers: Object.entries(out.headers), chunks };
}
