import { LIMITS } from '../../messages.ts';

/** A request URL as the native resolves it against the document's base URL, cut to LIMITS.url. */
export function urlResolver(NativeURL: typeof URL, doc: { readonly baseURI: string }): (url: unknown) => string {
  return (url) => {
    try {
      return new NativeURL(String(url), doc.baseURI).href.slice(0, LIMITS.url);
    } catch {
      return String(url).slice(0, LIMITS.url);
    }
  };
}
