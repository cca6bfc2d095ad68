/**
 * The panel's side of `import-worker.ts`: one worker per job, ended with it (an import's, when its file
 * is no longer shown). One more is kept started and idle, because loading the worker's code is most of
 * the wait before a dropped file's first rows.
 */
import type { DetailPart } from '../src/detail/index.ts';
import type { RedactionGroup } from '../src/recording/index.ts';
import type { ExchangeSet, ImportMessage, JobReply, JobRequest } from './files.ts';

export interface Job {
  /** Ends the job and its worker; no message is delivered after it. */
  cancel(): void;
}

/** A question about one exchange of an imported file. */
export type Question =
  | { type: 'detail'; index: number; part: DetailPart }
  | { type: 'state-at'; index: number; step: number }
  | { type: 'state-diff'; index: number; step: number }
  | { type: 'conversation-diff'; index: number; step: number }
  | { type: 'conversation-at'; index: number; step: number }
  /** What went wrong across the whole file (detail/overview.ts). */
  | { type: 'overview' }
  /** The socket exchange `index` ran on (exchange/socket.ts's socketView). */
  | { type: 'socket'; index: number };

export interface ImportJob extends Job {
  /** What the import's worker answers, once the file is read; null when it has no answer (or the job ended). */
  ask(q: Question): Promise<unknown>;
}

// This exact form is what vite recognises and bundles as a module worker of the extension.
const spawn = (): Worker => new Worker(new URL('./import-worker.ts', import.meta.url), { type: 'module' });

let spare: Worker | null = null;

/** Starts the idle worker the next job will take, once the panel has nothing better to do. */
export function prepareWorker(): void {
  requestIdleCallback(() => {
    if (spare) return;
    const w = spawn();
    // A worker that cannot load is dropped; the job that would have used it starts its own and reports why.
    w.onerror = () => {
      if (spare === w) spare = null;
      w.terminate();
    };
    spare = w;
  });
}

function start(request: JobRequest, onReply: (m: JobReply) => boolean): Job & { worker: Worker } {
  const worker = spare ?? spawn();
  spare = null;
  let over = false;
  const end = (): void => {
    over = true;
    worker.terminate();
    prepareWorker();
  };
  worker.onmessage = (e: MessageEvent<JobReply>) => {
    if (!over && onReply(e.data)) end();
  };
  worker.onerror = (e) => {
    if (over) return;
    // A worker that fails to load (CSP, a missing chunk) reports only here.
    onReply({ type: 'failed', message: e.message || 'the import worker could not start' });
    end();
  };
  worker.postMessage(request);
  return {
    worker,
    cancel: () => {
      if (!over) end();
    },
  };
}

/** Streams an import's messages to `onMessage` until `done` or `failed`; the worker then answers questions until cancelled. */
export function startImport(file: Blob, name: string, onMessage: (m: ImportMessage) => void): ImportJob {
  const waiting = new Map<number, (value: unknown) => void>();
  let asked = 0;
  const job = start({ type: 'import', file, name }, (m) => {
    if (m.type === 'answer') {
      waiting.get(m.ask)?.(m.value);
      waiting.delete(m.ask);
      return false;
    }
    if (m.type === 'exported' || m.type === 'copied') return false;
    onMessage(m);
    return m.type === 'failed';
  });
  return {
    cancel: () => {
      job.cancel();
      for (const resolve of waiting.values()) resolve(null);
      waiting.clear();
    },
    ask: (q) => new Promise((resolve) => {
      const ask = ++asked;
      waiting.set(ask, resolve);
      job.worker.postMessage({ ...q, ask } satisfies JobRequest);
    }),
  };
}

function once<T>(request: JobRequest, pick: (m: JobReply) => T | undefined): Promise<T> {
  return new Promise((resolve, reject) => {
    start(request, (m) => {
      if (m.type === 'failed') {
        reject(new Error(m.message));
        return true;
      }
      const v = pick(m);
      if (v === undefined) return false;
      resolve(v);
      return true;
    });
  });
}

export function exportInWorker(from: ExchangeSet, redact: RedactionGroup[]): Promise<{ blob: Blob; exchanges: number }> {
  return once({ type: 'export', from, redact }, (m) => (m.type === 'exported' ? { blob: m.blob, exchanges: m.exchanges } : undefined));
}

export function copyInWorker(from: ExchangeSet, as: 'fixture' | 'curl', name: string): Promise<string> {
  return once({ type: 'copy', from, as, name }, (m) => (m.type === 'copied' ? m.text : undefined));
}

/** Saves through a blob URL and a download link, which needs no `downloads` permission. */
export function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  // The download has taken its copy once the click's task is over; a minute is ample.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * Puts text on the clipboard. DevTools panels often lack the clipboard permission policy, so a selected
 * textarea and `execCommand('copy')` are tried next; when both fail the caller shows the text selected.
 */
export async function writeClipboard(text: string): Promise<'clipboard' | 'selection' | 'failed'> {
  try {
    await navigator.clipboard.writeText(text);
    return 'clipboard';
  } catch {
    // Blocked or unavailable: fall back to a selection.
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  area.remove();
  return ok ? 'selection' : 'failed';
}
