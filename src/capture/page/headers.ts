/**
 * The request headers of the tab's recent AG-UI requests, kept in the page's memory only, so that the
 * Inspector can resend an exchange as the app sent it (resend.ts). Nothing here is ever posted to the
 * relay: the capture carries no request header but the content type, and what leaves the page about
 * these is their names, when the panel asks (README, Privacy). Bounded in count and bytes, oldest
 * forgotten first; gone with the document, so a reload forgets them all.
 */
export interface KeptRequest {
  headers: [name: string, value: string][];
  /** The request's credentials mode, so cookies go (or not) as they went. */
  credentials: RequestCredentials;
}

export interface HeaderStore {
  keep(id: number, request: KeptRequest): void;
  get(id: number): KeptRequest | undefined;
}

/** Requests kept, and their header bytes at most: enough for the exchanges a user would resend. */
export const KEPT_REQUESTS = 32;
export const KEPT_BYTES = 256 * 1024;

export function headerStore(maxRequests = KEPT_REQUESTS, maxBytes = KEPT_BYTES): HeaderStore {
  // A Map of our own realm's: the page cannot reach it, and iterates in insertion order for eviction.
  const kept = new Map<number, { request: KeptRequest; size: number }>();
  let bytes = 0;
  return {
    keep(id, request) {
      const size = request.headers.reduce((n, [k, v]) => n + k.length + v.length, 0);
      if (size > maxBytes) return;
      kept.set(id, { request, size });
      bytes += size;
      for (const [old, entry] of kept) {
        if (kept.size <= maxRequests && bytes <= maxBytes) break;
        kept.delete(old);
        bytes -= entry.size;
      }
    },
    get: (id) => kept.get(id)?.request,
  };
}
