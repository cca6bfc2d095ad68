/**
 * Capture beyond localhost is the user's choice, one origin at a time: this control asks for the
 * inspected page's origin only, through the browser's own permission prompt, and tells the worker to
 * follow the grant (background/origins.ts registers the capture scripts from the granted permissions).
 */
import { useEffect, useState } from 'preact/hooks';
import browser from 'webextension-polyfill';

/** What the manifest captures without asking (its content_scripts matches). */
const BUILT_IN = new Set(['localhost', '127.0.0.1']);

type OriginState =
  | { kind: 'unknown' }
  | { kind: 'built-in' | 'granted' | 'not-granted' | 'reload'; host: string; pattern: string };

/** Match patterns ignore ports in both browsers, so one grant covers every port of a host. */
function patternOf(origin: string): { host: string; pattern: string } | null {
  try {
    const u = new URL(origin);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    return { host: u.hostname, pattern: `${u.protocol}//${u.hostname}/*` };
  } catch {
    return null;
  }
}

interface CallbackEval {
  eval(expression: string, callback: (result: unknown) => void): void;
}

/**
 * Chrome's devtools.inspectedWindow.eval answers through a callback only, even under a native `browser`
 * namespace (which the polyfill then defers to); Firefox's `chrome` namespace takes the callback too.
 */
function inspectedOrigin(): Promise<string | null> {
  const inspected = (globalThis as { chrome?: { devtools?: { inspectedWindow?: CallbackEval } } }).chrome?.devtools?.inspectedWindow;
  if (!inspected) return Promise.resolve(null);
  return new Promise((resolve) => inspected.eval('location.origin', (origin) => resolve(typeof origin === 'string' ? origin : null)));
}

export function OriginControl() {
  const [state, setState] = useState<OriginState>({ kind: 'unknown' });

  useEffect(() => {
    let live = true;
    void (async () => {
      const origin = await inspectedOrigin().catch(() => null);
      const p = origin ? patternOf(origin) : null;
      if (!p || !live) return;
      if (BUILT_IN.has(p.host)) return setState({ kind: 'built-in', ...p });
      const granted = await browser.permissions.contains({ origins: [p.pattern] });
      if (live) setState({ kind: granted ? 'granted' : 'not-granted', ...p });
    })();
    return () => {
      live = false;
    };
  }, []);

  if (state.kind === 'unknown') return null;
  const { host, pattern } = state;

  const enable = async () => {
    // Must run in the click's own task: the browser shows its prompt only for a user gesture.
    const granted = await browser.permissions.request({ origins: [pattern] });
    if (!granted) return;
    await browser.runtime.sendMessage({ type: 'agui-inspector/origins' });
    setState({ kind: 'reload', host, pattern });
  };
  const disable = async () => {
    await browser.permissions.remove({ origins: [pattern] });
    await browser.runtime.sendMessage({ type: 'agui-inspector/origins' });
    setState({ kind: 'not-granted', host, pattern });
  };

  switch (state.kind) {
    case 'built-in':
      return <span class="origin muted" data-testid="origin" data-state="built-in">{host}: captured (built in)</span>;
    case 'granted':
      return (
        <span class="origin" data-testid="origin" data-state="granted">
          {host}: captured{' '}
          <button type="button" onClick={() => void disable()} data-testid="origin-disable">Stop capturing {host}</button>
        </span>
      );
    case 'reload':
      return (
        <span class="origin" data-testid="origin" data-state="reload">
          {host}: enabled — capture starts when the page loads{' '}
          <button type="button" onClick={() => void browser.devtools.inspectedWindow.reload({})} data-testid="origin-reload">Reload page</button>
        </span>
      );
    case 'not-granted':
      return (
        <button type="button" class="origin" onClick={() => void enable()} data-testid="origin-enable" data-state="not-granted"
          title={`Asks your browser for access to ${pattern} only; nothing is captured elsewhere`}>
          Capture {host}
        </button>
      );
  }
}
