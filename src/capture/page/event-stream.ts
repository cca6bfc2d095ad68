/**
 * What a browser's EventSource dispatches for the bytes of an event stream (HTML §9.2.6, "Interpreting an
 * event stream"), for an EventSource the armed override answers: the page must get the events the native
 * would have dispatched for those bytes — `event` names the type, `data` lines joined by LF, `id` the last
 * event id (kept across events, ignored when it holds NULL), `retry` the reconnection time. src/wire reads
 * the same bytes as AG-UI frames for the analysis; this reads them as the browser does, for the page.
 */

export interface Dispatch {
  type: string;
  data: string;
  lastEventId: string;
}

export interface EventStream {
  /** The events the bytes complete, in order; `retry` set when a `retry` field gave a new reconnection time. */
  push(bytes: Uint8Array): { events: Dispatch[]; retry: number | null };
  /** The last event id so far: a reconnection sends it (Last-Event-ID). */
  readonly lastEventId: string;
}

/** `decoder` a UTF-8 TextDecoder of the page's realm, as the native decodes the stream (BOM stripped). */
export function eventStream(decoder: { decode(b?: Uint8Array, o?: { stream: boolean }): string }): EventStream {
  let pending = '';
  let afterCR = false;
  let data = '';
  let type = '';
  let idBuffer = '';
  let lastEventId = '';

  function field(line: string, out: { events: Dispatch[]; retry: number | null }): void {
    if (line === '') {
      lastEventId = idBuffer;
      if (data === '') {
        type = '';
        return;
      }
      out.events.push({ type: type === '' ? 'message' : type, data: data.endsWith('\n') ? data.slice(0, -1) : data, lastEventId });
      data = '';
      type = '';
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (name === 'event') type = value;
    else if (name === 'data') data += `${value}\n`;
    else if (name === 'id') {
      if (!value.includes('\0')) idBuffer = value;
    } else if (name === 'retry' && /^\d+$/.test(value)) out.retry = Number(value);
  }

  return {
    push(bytes) {
      const out: { events: Dispatch[]; retry: number | null } = { events: [], retry: null };
      let text = decoder.decode(bytes, { stream: true });
      // A CR ends a line; an LF right after it, even in the next chunk, is the same line end.
      if (afterCR && text.startsWith('\n')) text = text.slice(1);
      afterCR = false;
      let from = 0;
      for (let i = 0; i < text.length; i++) {
        const c = text[i];
        if (c !== '\n' && c !== '\r') continue;
        field(pending + text.slice(from, i), out);
        pending = '';
        if (c === '\r') {
          if (i + 1 === text.length) afterCR = true;
          else if (text[i + 1] === '\n') i++;
        }
        from = i + 1;
      }
      pending += text.slice(from);
      return out;
    },
    get lastEventId() {
      return lastEventId;
    },
  };
}
