/**
 * Which recorded exchange answers a replayed request: the matching half of `agui-inspector replay`,
 * browser- and Node-free so it is tested alone (the server is src/cli/replay.ts).
 *
 * A request is answered by the next unserved exchange recorded on the same endpoint path (its query
 * aside), over the same channel — an HTTP request by an HTTP exchange, an input frame on a WebSocket by
 * one recorded on a socket — and on the same thread. An app replayed against a recording usually starts threads of its own, so an incoming thread
 * id the recording does not know is paired, once, with the first recorded thread on that path that no
 * other incoming thread has taken; from then on the two threads advance together, exchange by exchange.
 * A request nothing can answer gets the closest recorded exchange and how it differs, so whoever replays
 * a bug report sees at once why the app's request is not the one that was recorded.
 */
import { LONGEST_WAIT_MS } from '../answer/index.ts';
import type { JsonObject } from '../json.ts';
import { runAgentInputIn, type CapturedExchange } from '../exchange/index.ts';
import { FormatError } from '../formats/index.ts';
import { transportOf } from '../wire/index.ts';

/** What a request came over: an HTTP request, or a frame on a WebSocket (basic/transports#custom-transports). */
export type Channel = 'http' | 'websocket';
const channelOf = (x: CapturedExchange): Channel => x.transport ?? 'http';

interface Entry {
  index: number;
  exchange: CapturedExchange;
  channel: Channel;
  path: string;
  input: JsonObject | null;
}

/** One recorded thread at one path: its exchanges in order, how many are served, and whether an incoming thread took it. */
interface Track {
  entries: Entry[];
  next: number;
  taken: boolean;
}

export type ReplayMatch =
  | { ok: true; index: number; exchange: CapturedExchange; differences: string[] }
  | { ok: false; message: string; closest: { index: number; url: string | null; differences: string[] } | null };

/**
 * Where an exchange was sent: the URL's path, or `/` when the recording kept no URL. The query string is
 * left out: an export redacts its values by default, and an app's query is seldom what tells its runs apart.
 */
export function pathOf(url: string | undefined): string {
  if (url === undefined) return '/';
  try {
    return new URL(url, 'http://recording.invalid').pathname;
  } catch {
    return url;
  }
}

const inputOf = (body: string | undefined): JsonObject | null => (body === undefined ? null : runAgentInputIn(body));

const NAMES: Record<Channel, string> = { http: 'HTTP', websocket: 'a WebSocket' };
/** Where a request was sent, as the console names it. */
const placeOf = (channel: Channel, path: string) => (channel === 'http' ? path : `${path} (WebSocket)`);

const NO_THREAD = '\u0000no-thread';
const threadOf = (input: JsonObject | null): string => (input && typeof input.threadId === 'string' ? input.threadId : NO_THREAD);
const count = (v: unknown): number | null => (Array.isArray(v) ? v.length : null);

/** What tells an incoming request from a recorded one, as a person would say it. */
export function differences(path: string, input: JsonObject | null, e: Pick<Entry, 'path' | 'input' | 'channel'>, channel: Channel = 'http'): string[] {
  const out: string[] = [];
  if (path !== e.path) out.push(`the endpoint is ${path}, the recording's ${e.path}`);
  if (channel !== e.channel) out.push(`this request came over ${NAMES[channel]}, the recorded one over ${NAMES[e.channel]}`);
  if ((input === null) !== (e.input === null)) out.push(input === null ? 'this request carries no RunAgentInput, the recorded one does' : 'this request carries a RunAgentInput, the recorded one none');
  if (!input || !e.input) return out;
  if (input.threadId !== e.input.threadId) out.push(`threadId ${JSON.stringify(input.threadId)} is ${JSON.stringify(e.input.threadId)} in the recording`);
  if (input.runId !== e.input.runId) out.push(`runId ${JSON.stringify(input.runId)} is ${JSON.stringify(e.input.runId)} in the recording`);
  const [n, m] = [count(input.messages), count(e.input.messages)];
  if (n !== m) out.push(`${n ?? 'no'} messages, the recording ${m ?? 'none'}`);
  const resume = [count(input.resume), count(e.input.resume)];
  if (resume[0] !== resume[1]) out.push(`${resume[0] ?? 'no'} resume entries, the recording ${resume[1] ?? 'none'}`);
  return out;
}

/** What an HTTP header value may hold: tab, visible ASCII, space and Latin-1 beyond ASCII (Node refuses anything else mid-answer). */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Why `x` cannot be answered as recorded, or null. Checked when the recording is loaded, because each of
 * these fails only once an app asks: a 1xx status leaves the client waiting for the real answer, 0 or 1000
 * is no status at all, a content type no header can carry breaks the answer's head half-written, and a
 * chunk time beyond what a timer can wait overflows it.
 */
export function unreplayable(x: CapturedExchange): string | null {
  const status = x.status ?? 200;
  if (!Number.isInteger(status) || status < 200 || status > 599) return `the recorded status ${status} cannot be replayed: a replay answers with a final status from 200 to 599`;
  if (!HEADER_VALUE.test(x.responseContentType)) {
    return `the recorded content type ${JSON.stringify(x.responseContentType)} holds a character no HTTP header can carry (CR, LF, another control character, or one beyond Latin-1)`;
  }
  const late = x.chunks.findIndex((c) => !(Number.isFinite(c.time) && c.time <= LONGEST_WAIT_MS));
  if (late !== -1) return `chunk ${late} is recorded at ${x.chunks[late]!.time} ms: a replay waits for a finite time of at most ${LONGEST_WAIT_MS} ms (about 24 days)`;
  return null;
}

/**
 * The Content-Type a replay answers with: an AG-UI media type (SSE, protobuf, JSON, JSONL) as recorded;
 * anything else as opaque bytes, so a recording's HTML or script is never rendered or run by a browser.
 */
export function servedContentType(recorded: string): string {
  return transportOf(recorded) === null ? 'application/octet-stream' : recorded;
}

export class ReplayPlan {
  private readonly entries: Entry[];
  /**
   * channel and path → recorded threadId → its track, threads in the order the recording first sent them (requests
   * without a threadId advance along a track of their own per path). Indexed so a request costs the
   * threads at its path, not the whole recording.
   */
  private readonly tracks = new Map<string, Map<string, Track>>();
  /** channel, path and incoming threadId → the recorded track it replays */
  private readonly pairs = new Map<string, Track>();

  /** Throws a FormatError naming the first exchange that cannot be replayed, and why. */
  constructor(exchanges: readonly CapturedExchange[]) {
    this.entries = exchanges.map((exchange, index) => {
      const why = unreplayable(exchange);
      if (why !== null) throw new FormatError(`${exchange.source}: ${why}`);
      const e = { index, exchange, channel: channelOf(exchange), path: pathOf(exchange.url), input: inputOf(exchange.requestBody) };
      const place = placeOf(e.channel, e.path);
      let threads = this.tracks.get(place);
      if (!threads) this.tracks.set(place, (threads = new Map()));
      const thread = threadOf(e.input);
      let track = threads.get(thread);
      if (!track) threads.set(thread, (track = { entries: [], next: 0, taken: false }));
      track.entries.push(e);
      return e;
    });
  }

  get size(): number {
    return this.entries.length;
  }

  /** Whether some exchange was recorded on a WebSocket at `path`: where the replay accepts sockets. */
  servesSocketAt(path: string): boolean {
    return this.tracks.has(placeOf('websocket', path));
  }

  /** The recorded exchange that answers `body` sent to `path` over `channel`, marked served; or why there is none. */
  match(path: string, body: string, channel: Channel = 'http'): ReplayMatch {
    const input = inputOf(body);
    const incoming = threadOf(input);
    const place = placeOf(channel, path);
    const key = `${place}\u0000${incoming}`;
    const threads = this.tracks.get(place);
    let track = this.pairs.get(key);
    if (track === undefined && threads) {
      const open = (t: Track | undefined) => t !== undefined && !t.taken && t.next < t.entries.length;
      // The recorded thread of the same id when there is one (a replay that reuses the recorded ids), else the first free.
      const same = threads.get(incoming);
      track = open(same) ? same : [...threads.values()].find(open);
      if (track) {
        track.taken = true;
        this.pairs.set(key, track);
      }
    }
    const next = track?.entries[track.next];
    if (track && next) {
      track.next++;
      return { ok: true, index: next.index, exchange: next.exchange, differences: differences(path, input, next, channel) };
    }
    const message = track
      ? `the recording has no further exchange on this thread at ${place}: all ${track.entries.length} were replayed`
      : threads
        ? `every recorded thread at ${place} is already being replayed by another thread`
        : `the recording has no exchange at ${place}`;
    return { ok: false, message, closest: this.closest(path, input, channel) };
  }

  private closest(path: string, input: JsonObject | null, channel: Channel): { index: number; url: string | null; differences: string[] } | null {
    let best: Entry | undefined;
    let bestScore = -1;
    for (const e of this.entries) {
      const score =
        (e.path === path ? 16 : 0) +
        (e.channel === channel ? 8 : 0) +
        (input && e.input && input.threadId === e.input.threadId ? 4 : 0) +
        (input && e.input && input.runId === e.input.runId ? 2 : 0) +
        (input && e.input && count(input.messages) === count(e.input.messages) ? 1 : 0);
      if (score > bestScore) [best, bestScore] = [e, score];
    }
    return best ? { index: best.index, url: best.exchange.url ?? null, differences: differences(path, input, best, channel) } : null;
  }
}

/** The body of the HTTP error a request nothing answers gets: the reason, and the closest recorded exchange. */
export function unmatchedBody(m: Extract<ReplayMatch, { ok: false }>): string {
  return JSON.stringify({ error: 'not-in-recording', message: m.message, closest: m.closest }, null, 2);
}
