/**
 * Opens the real DevTools window on a page and shows the Inspector's panel in it, over CDP — used by
 * `npm start`, the panel's e2e tests and the screenshots. The panel is an extension frame inside the
 * DevTools window, reachable as its own target once shown.
 */
import type { BrowserContext, CDPSession } from 'playwright-core';

/** The panel's title as panel/devtools.ts registers it; DevTools ids an extension panel by origin + title. */
export const PANEL_TITLE = 'AG-UI';

interface TargetInfo {
  targetId: string;
  type: string;
  url: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A session on one target through the browser's CDP connection. Playwright's CDPSession cannot address
 * flat sessions, so commands travel as Target.sendMessageToTarget.
 */
export class TargetSession {
  private next = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  private constructor(private readonly cdp: CDPSession, private readonly sessionId: string) {
    cdp.on('Target.receivedMessageFromTarget', (e) => {
      if (e.sessionId !== sessionId) return;
      const m = JSON.parse(e.message) as { id?: number; result?: unknown; error?: unknown };
      const p = m.id === undefined ? undefined : this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id!);
      if (m.error) p.reject(new Error(JSON.stringify(m.error)));
      else p.resolve(m.result);
    });
  }

  static async attach(cdp: CDPSession, targetId: string): Promise<TargetSession> {
    const { sessionId } = await cdp.send('Target.attachToTarget', { targetId, flatten: false });
    return new TargetSession(cdp, sessionId);
  }

  send(method: string, params: object = {}): Promise<unknown> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      void this.cdp.send('Target.sendMessageToTarget', { sessionId: this.sessionId, message: JSON.stringify({ id, method, params }) }).catch(reject);
    });
  }

  /** Evaluates `fn(arg)` in the target; both must survive JSON. */
  async eval<T, A = undefined>(fn: (arg: A) => T | Promise<T>, arg?: A): Promise<T> {
    const r = (await this.send('Runtime.evaluate', {
      // tsx compiles with keepNames, so the source of a nested function calls esbuild's __name helper.
      expression: `(() => { const __name = (f) => f; return (${fn.toString()})(${JSON.stringify(arg ?? null)}); })()`,
      awaitPromise: true,
      returnByValue: true,
    })) as { result: { value: T }; exceptionDetails?: { exception?: { description?: string }; text: string } };
    if (r.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text);
    return r.result.value;
  }
}

export interface DevToolsPanel {
  /** The browser-level CDP session the targets were found with. */
  cdp: CDPSession;
  /** The DevTools window itself (screenshots of the whole window go through it). */
  devtools: TargetSession;
  /** The Inspector's panel frame inside it. */
  panel: TargetSession;
}

/** Opens DevTools on the page whose URL starts with `pageUrlPrefix` and brings up the Inspector's panel. */
export async function openInspectorPanel(context: BrowserContext, pageUrlPrefix: string, extensionId: string, timeoutMs = 30_000): Promise<DevToolsPanel> {
  const browser = context.browser();
  if (!browser) throw new Error('no browser-level CDP access for this context');
  const cdp = await browser.newBrowserCDPSession();
  const targets = async (): Promise<TargetInfo[]> => (await cdp.send('Target.getTargets')).targetInfos;
  const before = await targets();
  const page = before.find((t) => t.type === 'page' && t.url.startsWith(pageUrlPrefix));
  if (!page) throw new Error(`no page at ${pageUrlPrefix}`);
  // The panel page may be open on its own too (the tests open it as a page): only the frame DevTools makes is its panel.
  const already = new Set(before.map((t) => t.targetId));
  // Target.openDevTools is missing from playwright's protocol typings; it answers with the DevTools window's target.
  const opened = (await cdp.send('Target.openDevTools' as 'Target.activateTarget', { targetId: page.targetId })) as unknown as { targetId: string };
  const devtools = await TargetSession.attach(cdp, opened.targetId);
  const panelId = `chrome-extension://${extensionId}${PANEL_TITLE.replace(/\s/g, '')}`;
  const panelUrl = `chrome-extension://${extensionId}/panel/index.html`;
  const end = Date.now() + timeoutMs;
  // The panel exists only once the devtools page has run panels.create, so keep asking until it shows.
  let found: TargetInfo | undefined;
  for (;;) {
    await devtools.eval((id) => (globalThis as unknown as { InspectorFrontendAPI: { showPanel(id: string): void } }).InspectorFrontendAPI.showPanel(id), panelId).catch(() => undefined);
    found = (await targets()).find((t) => t.type !== 'page' && !already.has(t.targetId) && t.url.startsWith(panelUrl));
    if (found) break;
    if (Date.now() > end) throw new Error('the Inspector panel did not appear in DevTools');
    await sleep(250);
  }
  const panel = await TargetSession.attach(cdp, found.targetId);
  // The target shows up before the panel's module has run; callers expect a panel that has rendered.
  while (!(await panel.eval(() => document.getElementById('app')?.firstChild != null).catch(() => false))) {
    if (Date.now() > end) throw new Error('the Inspector panel appeared in DevTools but did not render');
    await sleep(50);
  }
  return { cdp, devtools, panel };
}
