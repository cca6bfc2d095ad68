/** Import, export and copy: the controls that move a session in and out of the panel. */
import { useRef, useState } from 'preact/hooks';
import { DEFAULT_REDACTION, REDACTION_GROUPS, type RedactionGroup } from '../src/recording/index.ts';
import type { ImportProgress } from './files.ts';
import { exportFileName } from './transfer.ts';
import { copyInWorker, download, exportInWorker, writeClipboard } from './jobs.ts';
import { endpointOf, formatBytes, type PanelExchange, type SessionSource } from './model.ts';

/** One line each, from what src/recording/redact.ts overwrites. */
export const REDACTION_NOTES: Record<RedactionGroup, string> = {
  messages: 'Messages (text, parts, names), text events, interrupt questions, resume answers, error messages',
  tools: 'Tool-call arguments and results, tool events, tool descriptions and parameter schemas',
  reasoning: 'Reasoning messages and events, every encrypted value',
  state: 'State, context, activity, run results, CUSTOM and RAW events, step and subagent events',
  forwardedProps: 'Everything inside forwardedProps',
  query: 'Query-string values in the URL (API keys ride there)',
};

/** What no group removes: src/recording/redact.ts's allow-list, in one line. */
export const ALWAYS_KEPT =
  'Always kept: ids, event types, keys, roles, versions, tool, step and subagent names, activity and MIME types, error codes, model ids, timestamps, structure and lengths; everything else in a ticked group becomes a filler, equal values alike, so the findings do not change. On a WebSocket, frames that are not AG-UI (the app\'s own messages) and the close reason are filled by any group but query.';

export const ACCEPTED = '.har,.json,.jsonl,.ndjson,.sse,.txt,.bin,application/json,text/event-stream';

/** The import button and its file picker. */
export function ImportButton({ onImport, label = 'Import…' }: { onImport: (file: File) => void; label?: string }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button type="button" onClick={() => input.current?.click()} title="Open a HAR, SSE, JSONL or protobuf recording, or an Inspector export">{label}</button>
      <input
        ref={input} type="file" accept={ACCEPTED} class="visually-hidden" tabIndex={-1} aria-label="Recording to import" data-testid="import-input"
        onChange={(e) => {
          const file = e.currentTarget.files?.[0];
          // Cleared, so choosing the same file again imports it again.
          e.currentTarget.value = '';
          if (file) onImport(file);
        }}
      />
    </>
  );
}

function progressText(p: ImportProgress): string {
  switch (p.phase) {
    case 'reading': return `Reading ${formatBytes(p.bytesRead)} of ${formatBytes(p.totalBytes)}`;
    case 'parsing': return `Parsing ${formatBytes(p.totalBytes)}`;
    case 'analysing': return `Analysing: ${p.exchangesAnalysed} of ${p.totalExchanges} exchanges`;
  }
}

export function ImportProgressBar({ progress }: { progress: ImportProgress }) {
  const text = progressText(progress);
  return (
    <span class="import-progress">
      <span class="meter" role="progressbar" aria-label="Import" aria-valuemin={0} aria-valuemax={100} aria-valuenow={progress.percent} aria-valuetext={text}
        data-testid="import-progress" data-phase={progress.phase}>
        <span class="fill" style={{ width: `${progress.percent}%` }} />
      </span>
      <span class="muted">{text}</span>
    </span>
  );
}

type Note = { state: 'busy' | 'done' | 'failed'; text: string } | null;

/** Export with redaction chosen by group: the whole session, or the exchanges ticked in the list. */
/** Shifts an open popover left just enough to end inside the panel, however narrow DevTools is docked. */
function keepInside(el: HTMLElement | null): void {
  if (!el) return;
  el.style.left = '0px';
  const margin = 8;
  const { left, right } = el.getBoundingClientRect();
  const over = right - (document.documentElement.clientWidth - margin);
  if (over > 0) el.style.left = `${-Math.min(over, left - margin)}px`;
}

export function ExportMenu({ source, exchanges, ticked, label, ready }: {
  source: SessionSource;
  exchanges: PanelExchange[];
  ticked: Set<string>;
  /** The inspected page, or the file name. */
  label: string;
  ready: boolean;
}) {
  const [redact, setRedact] = useState<Set<RedactionGroup>>(() => new Set(DEFAULT_REDACTION));
  const [note, setNote] = useState<Note>(null);
  const tickedOnes = exchanges.filter((x) => ticked.has(x.id));
  const can = ready && source.captured !== undefined && note?.state !== 'busy';

  const run = async (list: PanelExchange[]): Promise<void> => {
    setNote({ state: 'busy', text: `Exporting ${list.length} exchanges…` });
    try {
      const set = await source.captured!(list.map((x) => x.id));
      const groups = REDACTION_GROUPS.filter((g) => redact.has(g));
      const name = exportFileName(source.kind === 'live' ? label : (list[0]?.url ?? null), new Date());
      const { blob, exchanges: n } = await exportInWorker(set, groups);
      download(blob, name);
      setNote({ state: 'done', text: `Saved ${n} exchanges as ${name}${groups.length ? `, redacted: ${groups.join(', ')}` : ''}` });
    } catch (e) {
      setNote({ state: 'failed', text: `Export failed: ${e instanceof Error ? e.message : String(e)}` });
    }
  };

  const toggle = (g: RedactionGroup, on: boolean): void => {
    setRedact((prev) => {
      const next = new Set(prev);
      if (on) next.add(g);
      else next.delete(g);
      return next;
    });
  };

  return (
    <details class="export" onToggle={(e) => keepInside(e.currentTarget.querySelector<HTMLElement>('.export-body'))}>
      <summary>Export</summary>
      <div class="export-body">
        <fieldset>
          <legend>Redact before export</legend>
          {REDACTION_GROUPS.map((g) => (
            <label key={g} class="check redact">
              <input type="checkbox" checked={redact.has(g)} onChange={(e) => toggle(g, e.currentTarget.checked)} data-testid="redact-group" data-group={g} />
              <span><strong>{g}</strong> <span class="muted">{REDACTION_NOTES[g]}</span></span>
            </label>
          ))}
          <p class="muted">{ALWAYS_KEPT}</p>
        </fieldset>
        <div class="export-actions">
          <button type="button" disabled={!can || exchanges.length === 0} onClick={() => void run(exchanges)} data-testid="export-button">
            Export all ({exchanges.length}) as HAR
          </button>
          <button type="button" disabled={!can || tickedOnes.length === 0} onClick={() => void run(tickedOnes)} data-testid="export-selected">
            Export selected ({tickedOnes.length})
          </button>
        </div>
        <p class="muted" data-testid="export-replay">
          To hand it over: attach the HAR to the bug report; the maintainer runs{' '}
          <code>npx agui-inspector replay file.har</code> and points the app's agent URL at it to see the same stream, no agent needed.
        </p>
        {note ? <p class={`export-note${note.state === 'failed' ? ' sev-error' : ''}`} role="status" data-testid="export-status" data-state={note.state}>{note.text}</p> : null}
      </div>
    </details>
  );
}

/** A fixture's name: the endpoint's path as a slug. */
function fixtureName(x: PanelExchange): string {
  const slug = endpointOf(x.url).replace(/\?.*$/, '').replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '');
  return `recorded-${slug || 'exchange'}`;
}

type CopyState = { as: 'fixture' | 'curl'; state: 'busy' | 'clipboard' | 'selection' | 'manual' | 'failed'; text: string } | null;

/** Copy one exchange as a conformance-style fixture or a curl command. */
export function CopyActions({ source, x, ready }: { source: SessionSource; x: PanelExchange; ready: boolean }) {
  const [copy, setCopy] = useState<CopyState>(null);
  const manual = useRef<HTMLTextAreaElement>(null);
  if (!source.captured) return null;

  const run = async (as: 'fixture' | 'curl'): Promise<void> => {
    setCopy({ as, state: 'busy', text: '' });
    try {
      const text = await copyInWorker(await source.captured!([x.id]), as, fixtureName(x));
      const how = await writeClipboard(text);
      setCopy({ as, state: how === 'failed' ? 'manual' : how, text });
      if (how === 'failed') requestAnimationFrame(() => manual.current?.select());
    } catch (e) {
      setCopy({ as, state: 'failed', text: e instanceof Error ? e.message : String(e) });
    }
  };
  const stateOf = (as: 'fixture' | 'curl'): string | undefined => (copy?.as === as ? copy.state : undefined);
  const label = { fixture: 'Copy as fixture', curl: 'Copy as curl' } as const;

  return (
    <div class="copy-actions">
      {(['fixture', 'curl'] as const).map((as) => (
        <button key={as} type="button" disabled={!ready || copy?.state === 'busy'} onClick={() => void run(as)} data-testid={`copy-${as}`} data-copied={stateOf(as)}
          title={as === 'fixture' ? 'The input, the decoded events and the verdict, in the conformance corpus format' : 'The request, to replay it against the agent'}>
          {label[as]}
        </button>
      ))}
      <span role="status" class="muted">
        {copy?.state === 'clipboard' || copy?.state === 'selection' ? `Copied ${copy.as === 'fixture' ? 'the fixture' : 'the curl command'}` : null}
        {copy?.state === 'failed' ? <span class="sev-error">Cannot copy: {copy.text}</span> : null}
      </span>
      {copy?.state === 'manual' ? (
        <label class="manual-copy">
          The clipboard is not available here: press Ctrl+C (⌘C) to copy.
          <textarea ref={manual} readOnly value={copy.text} rows={4} data-testid="copy-text" />
        </label>
      ) : null}
    </div>
  );
}
