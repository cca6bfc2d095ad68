/**
 * Text search over what the panel holds of a session: every exchange's URL, its input as sent and each
 * frame's payload (a protobuf frame by its event type, its bytes being no text). The Timeline searches one
 * exchange's frames with the same lower-cased texts; the Overview's search runs over all of them.
 */
import type { EventView } from '../src/messages.ts';
import type { PanelExchange } from './model.ts';

const lowered = new WeakMap<EventView[], string[]>();

/** Lower-cased search text per frame, kept per events array and extended as frames arrive. */
export function searchText(events: EventView[]): string[] {
  let out = lowered.get(events);
  if (!out) lowered.set(events, (out = []));
  for (let i = out.length; i < events.length; i++) {
    const e = events[i]!;
    out.push(e.rawEncoding === 'text' ? e.raw.toLowerCase() : e.type.toLowerCase());
  }
  return out;
}

export interface EventHit {
  index: number;
  type: string;
  /** The text around the first match, as sent. */
  snippet: string;
}

export interface SessionHit {
  id: string;
  /** Where besides its frames it matched. */
  url: boolean;
  input: boolean;
  /** The first matching frames, in order; `more` counts the rest. */
  events: EventHit[];
  more: number;
}

/** How much text a snippet shows on each side of the match. */
const AROUND = 40;

function snippet(text: string, at: number, length: number): string {
  const from = Math.max(0, at - AROUND);
  const to = Math.min(text.length, at + length + AROUND);
  return `${from > 0 ? '…' : ''}${text.slice(from, to)}${to < text.length ? '…' : ''}`;
}

/** Every exchange that matches `query` (case-insensitive), in session order, with at most `perExchange` of its frames. */
export function searchSession(exchanges: readonly PanelExchange[], query: string, perExchange = 5): SessionHit[] {
  const q = query.trim().toLowerCase();
  if (q === '') return [];
  const hits: SessionHit[] = [];
  for (const x of exchanges) {
    const url = x.url.toLowerCase().includes(q);
    const input = x.requestBody !== null && x.requestBody.toLowerCase().includes(q);
    const texts = searchText(x.events);
    const events: EventHit[] = [];
    let more = 0;
    for (let i = 0; i < texts.length; i++) {
      const at = texts[i]!.indexOf(q);
      if (at === -1) continue;
      if (events.length === perExchange) {
        more++;
        continue;
      }
      const e = x.events[i]!;
      events.push({ index: e.index, type: e.type, snippet: e.rawEncoding === 'text' ? snippet(e.raw, at, q.length) : e.type });
    }
    if (url || input || events.length > 0) hits.push({ id: x.id, url, input, events, more });
  }
  return hits;
}
