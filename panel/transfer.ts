/**
 * What the panel page itself needs of the import worker's side: unpacking the event batches it posts,
 * and the name an export is saved under. Kept apart from files.ts, which the worker runs, so the panel
 * page does not bundle the readers, the redactor and the protobuf encoder it never calls.
 */
import type { EventView } from '../src/messages.ts';

/**
 * A hundred thousand frame texts of a kilobyte each, held as that many strings, make every full garbage
 * collection in the panel copy them all (50 ms pauses at 100 MB). Sent joined, they arrive as one string
 * in the large-object space, which is never moved, and each event's text is a slice of it.
 */
export function packEvents(events: EventView[]): { events: EventView[]; raws: string; ends: number[] } {
  const ends: number[] = [];
  let at = 0;
  for (const e of events) ends.push((at += e.raw.length));
  const raws = events.map((e) => e.raw).join('');
  return { events: events.map((e) => ({ ...e, raw: '' })), raws, ends };
}

export function unpackEvents(m: { events: EventView[]; raws: string; ends: number[] }): EventView[] {
  let from = 0;
  return m.events.map((e, i) => {
    const to = m.ends[i]!;
    e.raw = m.raws.slice(from, to);
    from = to;
    return e;
  });
}

/** `agui-<host>-<yyyymmdd-hhmmss>.har`, in local time. */
export function exportFileName(url: string | null, at: Date): string {
  let host = 'session';
  try {
    if (url) host = new URL(url).hostname || host;
  } catch {
    // Not a URL (a file's own name, a bare body): the generic name stays.
  }
  const two = (n: number): string => String(n).padStart(2, '0');
  const date = `${at.getFullYear()}${two(at.getMonth() + 1)}${two(at.getDate())}`;
  const time = `${two(at.getHours())}${two(at.getMinutes())}${two(at.getSeconds())}`;
  return `agui-${host.replace(/[^A-Za-z0-9.-]/g, '_')}-${date}-${time}.har`;
}
