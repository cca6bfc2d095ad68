/**
 * Acting on an exchange (the panel's resend): the worker asks the page script of the document that made the
 * exchange, through its relay (`tabs.sendMessage`, which only the extension can call), and the page sends
 * with its own fetch. The worker decides what is sent where: the URL and method are the exchange's as
 * captured, never the panel's, and only for an exchange the tab's page really made. It never sees a
 * header's value: the page keeps those and answers with names.
 */
import browser from 'webextension-polyfill';
import { checkActed, mediaType, type ActMessage, type ActResult, type PageAct, type RequestMap, type WhichDocMessage } from '../src/messages.ts';
import { isObject } from '../src/json.ts';
import { freshRef, type Session } from './session.ts';

/** How long a resend may take to open in the worker once the page sent it. */
const OPEN_MS = 15_000;

type Answer<K extends keyof RequestMap> = Promise<RequestMap[K]['answers']>;

/** The relay's document and the page script's own id of a captured exchange (`${doc}:${id}`, session.ts). */
function origin(id: string): { doc: string; pageId: number } | null {
  const at = id.lastIndexOf(':');
  const pageId = Number(id.slice(at + 1));
  return at > 0 && Number.isSafeInteger(pageId) ? { doc: id.slice(0, at), pageId } : null;
}

/** The page script's answer, or null when no document of the tab answered (the one named is gone). */
async function ask(tabId: number, doc: string, act: PageAct, ref = freshRef()): Promise<ActResult | null> {
  const m: ActMessage = { type: 'agui-inspector/act', doc, ref, act };
  try {
    // Every frame's relay hears it and only the named document answers.
    const answer: unknown = await browser.tabs.sendMessage(tabId, m);
    return checkActed({ acted: ref, result: answer })?.result ?? null;
  } catch {
    return null;
  }
}


/**
 * Another document of the tab with the origin of `doc`, which made the exchange and is gone: sent from it,
 * the request carries the origin and cookies it was made with. Sent from any other (the top document of a
 * cross-origin iframe's exchange), it would carry that document's: so there is none then. An unknown origin
 * (a session stored before origins were kept) matches nothing.
 */
async function sameOrigin(s: Session, doc: string): Promise<string | null> {
  const origin = s.origins[doc];
  if (origin === undefined || origin === 'null') return null;
  const m: WhichDocMessage = { type: 'agui-inspector/which-doc', origin };
  try {
    const answer: unknown = await browser.tabs.sendMessage(s.tabId, m);
    return isObject(answer) && typeof answer.doc === 'string' && answer.doc !== doc ? answer.doc : null;
  } catch {
    return null;
  }
}

export async function resendHeaders(s: Session | undefined, exchangeId: string): Answer<'agui-inspector/resend-headers'> {
  const from = s?.exchange(exchangeId) && origin(exchangeId);
  if (!s || !from) return { live: false, names: null, origin: null, sendable: false };
  const r = await ask(s.tabId, from.doc, { do: 'headers', id: from.pageId });
  const at = s.origins[from.doc] ?? null;
  return r && 'names' in r ? { live: true, names: r.names, origin: at, sendable: true } : { live: false, names: null, origin: at, sendable: (await sameOrigin(s, from.doc)) !== null };
}

export async function resend(s: Session | undefined, exchangeId: string, body: string, reuse: boolean): Answer<'agui-inspector/resend'> {
  const x = s?.exchange(exchangeId);
  const from = origin(exchangeId);
  if (!s || !x || !from) return { error: 'this tab holds no such exchange' };
  if (x.method === 'GET' || x.method === 'HEAD') return { error: `a ${x.method} request carries no input to resend` };
  if (!s.recording) return { error: 'capture is paused for this tab: record again to capture the answer' };
  const act: PageAct = {
    do: 'send', id: reuse ? from.pageId : null, url: x.url, method: x.method, contentType: x.request.contentType,
    accept: x.response?.contentType ? mediaType(x.response.contentType) : null, body,
  };
  const ref = freshRef();
  let opened!: (id: string) => void;
  const open = new Promise<string>((resolve) => (opened = resolve));
  s.acts.set(ref, { of: x.id, opened });
  // The document that made it, else (its headers gone with it) another of its origin, if the user let it go without them.
  let r = await ask(s.tabId, from.doc, act, ref);
  const other = r === null && !reuse ? await sameOrigin(s, from.doc) : null;
  if (other !== null) r = await ask(s.tabId, other, act, ref);
  if (r === null || !('sent' in r)) {
    s.acts.delete(ref);
    if (r && 'error' in r) return { error: r.error };
    return { error: reuse ? 'the page that made this exchange is gone, and its headers with it' : `the document that made this exchange${s.origins[from.doc] ? ` (${s.origins[from.doc]})` : ''} is gone, and no document of its origin is open in the tab: sent from another, it would carry that origin and its cookies` };
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const id = await Promise.race([open, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), OPEN_MS)))]);
  clearTimeout(timer);
  s.acts.delete(ref);
  return id === null ? { error: 'the page sent it, but its capture did not reach the Inspector' } : { exchangeId: id };
}
