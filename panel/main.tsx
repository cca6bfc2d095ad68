/**
 * Entry point. Inside DevTools the panel inspects `devtools.inspectedWindow.tabId`; opened as a page
 * (tests, Firefox automation) it takes `?tabId=N`, and without one it waits for a recording to import.
 * `?view=` picks the first view, `?theme=` the theme.
 */
import { render } from 'preact';
import browser from 'webextension-polyfill';
import { App, type SourceActions } from './app.tsx';
import { VIEWS, type ViewId } from './tabs.ts';
import type { SessionSource, SessionState } from './model.ts';
import { prepareWorker } from './jobs.ts';
import './panel.css';
import { FileSource, LiveSource } from './sources.ts';

const params = new URLSearchParams(location.search);

type Theme = 'light' | 'dark';

/** DevTools' own theme wins; outside DevTools the stylesheet follows prefers-color-scheme. */
function applyTheme(name: string | undefined): void {
  const theme: Theme | null = name === 'dark' ? 'dark' : name === 'default' || name === 'light' ? 'light' : null;
  if (theme) document.documentElement.dataset.theme = theme;
  else delete document.documentElement.dataset.theme;
}

const devtools = browser.devtools as typeof browser.devtools | undefined;
applyTheme(params.get('theme') ?? devtools?.panels?.themeName);
// Firefox tells panels when the DevTools theme changes; Chrome reloads them.
const panels = devtools?.panels as { onThemeChanged?: { addListener(l: (t: string) => void): void } } | undefined;
panels?.onThemeChanged?.addListener((t) => applyTheme(params.get('theme') ?? t));

const param = params.get('tabId');
const tabId = param !== null ? Number(param) : devtools?.inspectedWindow?.tabId;
const view = VIEWS.find((v) => v.id === params.get('view'))?.id ?? 'overview';

/** What a panel with no tab shows: the test pages that only use the worker API open it this way. */
const idle: SessionSource = {
  kind: 'live',
  subscribe(l: (s: SessionState) => void) {
    l({ status: 'no-tab', label: '', exchanges: [], stats: null, preserve: false, recording: false, progress: null, error: null });
    return () => undefined;
  },
  detail: () => Promise.resolve(null),
  stateAt: () => Promise.resolve(null),
  overview: () => Promise.resolve(null),
  socket: () => Promise.resolve(null),
  stateDiff: () => Promise.resolve(null),
  conversationDiff: () => Promise.resolve(null),
  conversationAt: () => Promise.resolve(null),
  close() {},
};

const root = document.getElementById('app')!;
const inspected = tabId !== undefined && Number.isSafeInteger(tabId) ? tabId : null;
let current: SessionSource = inspected !== null ? new LiveSource(inspected) : idle;

let generation = 0;

function openFile(file: Blob, name: string, initialView?: ViewId): FileSource {
  const source = new FileSource(file, name, inspected);
  show(source, initialView);
  return source;
}

const actions = (source: SessionSource): SourceActions => ({
  importFile(file) {
    // The panel shows why a file could not be read; nobody else waits on it.
    openFile(file, file.name).done.catch(() => undefined);
  },
  live: inspected !== null && source.kind === 'file' ? () => show(new LiveSource(inspected)) : undefined,
});

function show(source: SessionSource, initialView: ViewId = view): void {
  if (source !== current) current.close();
  current = source;
  // A new source starts the panel over: no selection or filter carries across.
  render(<App key={++generation} source={source} initialView={initialView} actions={actions(source)} />, root);
}
show(current);
prepareWorker();

/** Test and benchmark hook (panel/README.md): shows a recorded file instead of the live tab. */
declare global {
  interface Window {
    __aguiPanel?: { openFile(bytes: Uint8Array, name: string, view?: ViewId): Promise<void> };
  }
}
window.__aguiPanel = {
  openFile(bytes, name, initialView) {
    return openFile(new Blob([bytes as Uint8Array<ArrayBuffer>]), name, initialView).done;
  },
};
