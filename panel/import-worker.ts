/**
 * The panel's module worker: reads, analyses and writes session files (panel/files.ts) so the panel's
 * own thread only receives results. One job per worker; the panel terminates it when the job is over.
 */
import { FormatError } from '../src/formats/read.ts';
import { copyText, exportBlob, importFile, type JobReply, type JobRequest } from './files.ts';

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<JobRequest>) => void) | null;
  postMessage(m: JobReply, transfer?: Transferable[]): void;
};

function failed(e: unknown): JobReply {
  // A FormatError says what is wrong with the file; anything else is ours, and its name helps a report.
  return { type: 'failed', message: e instanceof FormatError ? e.message : e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
}

scope.onmessage = (e) => {
  const job = e.data;
  switch (job.type) {
    case 'import':
      importFile(job.file, job.name, (m, transfer) => scope.postMessage(m, transfer)).catch((err: unknown) => scope.postMessage(failed(err)));
      return;
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
