/**
 * Session files, the work behind import, export and copy. Everything here is browser-free and runs in
 * `import-worker.ts`, off the panel's thread: a 100 MB recording takes seconds to parse and analyse,
 * and the panel must keep painting meanwhile. The panel side of the conversation is in `jobs.ts`.
 */
import { SessionReader, type DetailPart, type ExchangeReading, type ExchangeReport } from '../src/detail/index.ts';
import { analysedToTheEnd, bodyOf, sentAtOf, type CapturedExchange, type Chunk, type SocketExchange } from '../src/exchange/index.ts';
import { toCurl, readExchanges } from '../src/formats/index.ts';
import { exportSession, toFixture, type RedactionGroup } from '../src/recording/index.ts';
import { eventView, type EventView } from '../src/messages.ts';
import { scheduler } from '../src/scheduler.ts';
import { packEvents } from './transfer.ts';

export type ImportPhase = 'reading' | 'parsing' | 'analysing';

export interface ImportProgress {
  phase: ImportPhase;
  /** The whole import, 0–100: reading the file is the first fifth, analysing its exchanges the last three quarters. */
  percent: number;
  bytesRead: number;
  totalBytes: number;
  exchangesAnalysed: number;
  totalExchanges: number;
}

/** An exchange as read from a file, without its body. */
export type ExchangeMeta = Omit<CapturedExchange, 'chunks'>;

export type ImportMessage =
  | { type: 'progress'; progress: ImportProgress }
  /** Exchange `index` begins; its events follow, then its end. */
  | { type: 'exchange'; index: number; meta: ExchangeMeta; report: ExchangeReport | null }
  /** The events' `raw` texts travel joined in `raws`, each ending at its entry of `ends` (see `unpackEvents`). */
  | { type: 'events'; index: number; events: EventView[]; raws: string; ends: number[]; report: ExchangeReport; firstContentMs: number | null }
  | { type: 'end'; index: number; chunks: Chunk[]; report: ExchangeReport | null; firstContentMs: number | null; analysisError: string | null }
  | { type: 'done' }
  | { type: 'failed'; message: string };

/** Exchanges to write: the worker's export of exactly the chosen exchanges of a tab, or exchanges held already. */
export type ExchangeSet = { har: string; count: number } | { exchanges: CapturedExchange[] };

export type JobRequest =
  | { type: 'import'; file: Blob; name: string }
  /** Asked of an import's worker once its file is read: one part of exchange `index`'s detail. */
  | { type: 'detail'; ask: number; index: number; part: DetailPart }
  | { type: 'state-at'; ask: number; index: number; step: number }
  | { type: 'state-diff'; ask: number; index: number; step: number }
  | { type: 'conversation-diff'; ask: number; index: number; step: number }
  | { type: 'conversation-at'; ask: number; index: number; step: number }
  | { type: 'overview'; ask: number }
  | { type: 'socket'; ask: number; index: number }
  | { type: 'export'; from: ExchangeSet; redact: RedactionGroup[] }
  | { type: 'copy'; from: ExchangeSet; as: 'fixture' | 'curl'; name: string };

export type JobReply =
  | ImportMessage
  /** What question `ask` was answered with: a detail part, or `{ state }`; null when there is none. */
  | { type: 'answer'; ask: number; value: unknown }
  | { type: 'exported'; blob: Blob; exchanges: number }
  | { type: 'copied'; text: string };

/** Between messages to the panel: often enough for a smooth progress bar, rarely enough that receiving them costs little. */
const POST_MS = 40;
/** Events in one message, so that decoding a message never holds the panel's thread long. */
const BATCH_EVENTS = 2000;
const READ_SHARE = 20;
const PARSE_SHARE = 5;

/**
 * Reads a recording and analyses it as the worker analyses a tab: in order, with one session reader so
 * resume coverage spans exchanges. `post` receives each message with the buffers it may transfer.
 * `readings` receives each exchange's reading as its analysis begins (null once it failed): they answer
 * the views' questions, about an exchange still being analysed as it stands, as a tab's worker answers
 * about a stream still arriving — the worker takes its questions between slices of the analysis.
 */
/** What an import's worker holds to answer the views' questions: each exchange's reading, and the socket of each that ran on one. */
export interface Held {
  readings: (ExchangeReading | null)[];
  sockets: (SocketExchange | undefined)[];
}

export async function importFile(file: Blob, name: string, post: (m: ImportMessage, transfer?: Transferable[]) => void, { readings, sockets }: Held): Promise<void> {
  const totalBytes = file.size;
  const progress: ImportProgress = { phase: 'reading', percent: 0, bytesRead: 0, totalBytes, exchangesAnalysed: 0, totalExchanges: 0 };
  let lastPost = 0;
  const postProgress = (force = false): void => {
    const now = performance.now();
    if (!force && now - lastPost < POST_MS) return;
    lastPost = now;
    post({ type: 'progress', progress: { ...progress } });
  };
  postProgress(true);

  const bytes = new Uint8Array(totalBytes);
  const reader = file.stream().getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes.set(value, progress.bytesRead);
    progress.bytesRead += value.length;
    progress.percent = totalBytes === 0 ? READ_SHARE : Math.floor((READ_SHARE * progress.bytesRead) / totalBytes);
    postProgress();
  }

  progress.phase = 'parsing';
  progress.percent = READ_SHARE;
  postProgress(true);
  const exchanges = readExchanges(bytes, name);
  progress.phase = 'analysing';
  progress.percent = READ_SHARE + PARSE_SHARE;
  progress.totalExchanges = exchanges.length;
  postProgress(true);

  let totalBody = 0;
  for (const x of exchanges) for (const c of x.chunks) totalBody += c.bytes.length;
  let analysed = 0;
  const analysing = (): number => READ_SHARE + PARSE_SHARE + Math.floor(((100 - READ_SHARE - PARSE_SHARE) * analysed) / Math.max(1, totalBody));
  const session = new SessionReader();
  for (const [index, x] of exchanges.entries()) {
    const { chunks: _held, ...meta } = x;
    let events: EventView[] = [];
    let reading: ExchangeReading | null = null;
    let analysisError: string | null = null;
    try {
      reading = session.read({
        source: x.source, requestBody: x.requestBody, contentType: x.responseContentType, status: x.status,
        sentAt: sentAtOf(x),
        arrival: x.arrival,
        ...(x.socket ? { websocket: x.socket } : {}),
        onEvent: (r) => void events.push(eventView(r)),
      });
    } catch (e) {
      analysisError = String(e);
    }
    readings[index] = reading;
    sockets[index] = x.socket;
    post({ type: 'exchange', index, meta, report: reading?.report() ?? null });
    const postEvents = (force: boolean): void => {
      if (!reading || events.length === 0 || (!force && events.length < BATCH_EVENTS && performance.now() - lastPost < POST_MS)) return;
      post({ type: 'events', index, report: reading.report(), firstContentMs: reading.firstContentMs(), ...packEvents(events) });
      events = [];
      progress.percent = analysing();
      postProgress(true);
    };
    if (reading) {
      try {
        for (const c of x.chunks) {
          for (let at = 0; at < c.bytes.length; at += SLICE_BYTES) {
            const slice = c.bytes.subarray(at, at + SLICE_BYTES);
            reading.push(slice, c.time);
            analysed += slice.length;
            postEvents(false);
            await turn();
          }
        }
        // Read as its source read it, so the views show the analysis the recording carries.
        if (analysedToTheEnd(x.analysis)) reading.end(x.chunks.at(-1)?.time ?? 0, x.abandoned);
      } catch (e) {
        analysisError = String(e);
      }
      postEvents(true);
    }
    readings[index] = analysisError === null ? reading : null;
    const own = ownChunks(x.chunks);
    post({ type: 'end', index, chunks: own.chunks, report: reading?.report() ?? null, firstContentMs: reading?.firstContentMs() ?? null, analysisError }, [own.buffer]);
    progress.exchangesAnalysed = index + 1;
    progress.percent = analysing();
    postProgress(index === exchanges.length - 1);
  }
  post({ type: 'done' });
}

/**
 * Lets the messages waiting for the worker run: at background priority every one goes first (the
 * background worker's slices wait the same way). The views' questions are answered in these pauses.
 */
function turn(): Promise<void> {
  return scheduler ? scheduler.postTask(() => undefined, { priority: 'background' }) : new Promise((resolve) => setTimeout(resolve, 0));
}

type QuestionType = 'detail' | 'state-at' | 'state-diff' | 'conversation-diff' | 'conversation-at';

/** An answer to a view's question about an imported exchange, as the worker answers the same question for a tab. */
export function answerOf(readings: readonly (ExchangeReading | null)[], q: Extract<JobRequest, { type: QuestionType }>): unknown {
  const reading = readings[q.index];
  if (!reading) return null;
  switch (q.type) {
    case 'detail':
      return reading.part(q.part);
    case 'state-at':
      return reading.stateAt(q.step);
    case 'state-diff':
      return reading.stateDiff(q.step);
    case 'conversation-diff':
      return reading.conversationDiff(q.step);
    case 'conversation-at':
      return reading.conversationAt(q.step);
  }
}

/** Analysed between checks for a batch to post, so a single large chunk still reports progress. */
const SLICE_BYTES = 256 * 1024;

/**
 * The chunks copied into one buffer of their own, which can be transferred: a reader's chunks may be
 * views on a buffer that holds the whole file, and cloning a view clones all of its buffer.
 */
function ownChunks(chunks: Chunk[]): { chunks: Chunk[]; buffer: ArrayBuffer } {
  const body = chunks.length === 1 ? chunks[0]!.bytes.slice() : bodyOf({ source: '', responseContentType: '', chunks });
  let at = 0;
  const own = chunks.map((c) => {
    const bytes = body.subarray(at, at + c.bytes.length);
    at += c.bytes.length;
    return { time: c.time, bytes };
  });
  return { chunks: own, buffer: body.buffer as ArrayBuffer };
}

export function exchangesOf(set: ExchangeSet): CapturedExchange[] {
  if ('exchanges' in set) return set.exchanges;
  // The worker writes an empty log for an empty choice, which readExchanges refuses.
  if (set.count === 0) return [];
  const exchanges = readExchanges(new TextEncoder().encode(set.har), 'tab.har');
  if (exchanges.length !== set.count) throw new Error(`the tab's capture holds ${exchanges.length} of the ${set.count} exchanges chosen: it was cleared meanwhile`);
  return exchanges;
}

/** The file the worker's `agui-inspector/export` writes for the same exchanges and redaction: each carries its source's analysis. */
export function exportBlob(set: ExchangeSet, redact: RedactionGroup[]): { blob: Blob; exchanges: number } {
  const exchanges = exchangesOf(set);
  const text = exportSession(exchanges, { redact });
  return { blob: new Blob([text], { type: 'application/json' }), exchanges: exchanges.length };
}

export function copyText(set: ExchangeSet, as: 'fixture' | 'curl', name: string): string {
  const [x] = exchangesOf(set);
  if (!x) throw new Error('no exchange to copy');
  return as === 'fixture' ? toFixture(x, name) : toCurl(x);
}
