/**
 * The panel's module worker: reads, analyses and writes session files (panel/files.ts) so the panel's
 * own thread only receives results. One job per worker; the panel terminates it when the job is over.
 * An import's worker lives as long as its file is shown: it holds the file's analysis and answers the
 * views' questions about it, as the extension's worker does for a tab.
 */
import { overviewOf } from '../src/detail/index.ts';
import { socketView } from '../src/exchange/index.ts';
import { FormatError } from '../src/formats/index.ts';
import { answerOf, copyText, exportBlob, importFile, type Held, type JobReply, type JobRequest } from './files.ts';

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<JobRequest>) => void) | null;
  postMessage(m: JobReply, transfer?: Transferable[]): void;
};

function failed(e: unknown): JobReply {
  // A FormatError says what is wrong with the file; anything else is ours, and its name helps a report.
  return { type: 'failed', message: e instanceof FormatError ? e.message : e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
}

/** The import's readings, each from when its exchange's analysis begins, and its exchanges' sockets. */
const held: Held = { readings: [], sockets: [] };
const { readings } = held;

scope.onmessage = (e) => {
  const job = e.data;
  switch (job.type) {
    case 'import':
      importFile(job.file, job.name, (m, transfer) => scope.postMessage(m, transfer), held).catch((err: unknown) => scope.postMessage(failed(err)));
      return;
    case 'detail':
    case 'state-at':
    case 'state-diff':
    case 'conversation-diff':
    case 'conversation-at': {
      let value: unknown = null;
      try {
        value = answerOf(readings, job);
      } catch {
        // An analysis that fails on a question has no answer to give; the view says so.
      }
      scope.postMessage({ type: 'answer', ask: job.ask, value });
      return;
    }
    case 'overview':
      // Of the file as read so far: a question asked during the import is answered as it stands.
      scope.postMessage({ type: 'answer', ask: job.ask, value: overviewOf(readings) });
      return;
    case 'socket': {
      const socket = held.sockets[job.index];
      scope.postMessage({ type: 'answer', ask: job.ask, value: socket ? socketView(socket) : null });
      return;
    }
    case 'export':
      try {
        scope.postMessage({ type: 'exported', ...exportBlob(job.from, job.redact) });
      } catch (err) {
        scope.postMessage(failed(err));
      }
      return;
    case 'copy':
      try {
        scope.postMessage({ type: 'copied', text: copyText(job.from, job.as, job.name) });
      } catch (err) {
        scope.postMessage(failed(err));
      }
      return;
  }
};
