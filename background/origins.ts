/**
 * Capture beyond localhost, one origin at a time, only where the user granted it.
 *
 * The granted optional host permissions are the single source of truth: the dynamic content scripts
 * are re-derived from them at install, update and browser start and whenever a grant changes, because
 * browsers drop dynamically registered scripts on extension update.
 */
import browser from 'webextension-polyfill';

const PAGE_ID = 'agui-inspector-page';
const RELAY_ID = 'agui-inspector-relay';

interface ManifestScript {
  matches?: string[];
  js?: string[];
  world?: string;
}

function manifestScripts(): { builtin: Set<string>; page: string[]; relay: string[] } {
  const scripts = (browser.runtime.getManifest().content_scripts ?? []) as ManifestScript[];
  const page = scripts.find((s) => s.world === 'MAIN');
  const relay = scripts.find((s) => s.world !== 'MAIN');
  return {
    builtin: new Set(scripts.flatMap((s) => s.matches ?? [])),
    page: page?.js ?? [],
    relay: relay?.js ?? [],
  };
}

/** Origins (match patterns) the user enabled, beyond the built-in localhost ones. */
export async function enabledOrigins(): Promise<string[]> {
  const { builtin } = manifestScripts();
  const granted = (await browser.permissions.getAll()).origins ?? [];
  return granted.filter((o) => !builtin.has(o)).sort();
}

let syncing: Promise<string[]> = Promise.resolve([]);

/** Makes the registered scripts match the granted origins; calls are serialised. */
export function syncOrigins(): Promise<string[]> {
  syncing = syncing.catch(() => []).then(sync);
  return syncing;
}

async function sync(): Promise<string[]> {
  const origins = await enabledOrigins();
  const { builtin, page, relay } = manifestScripts();
  const registered = await browser.scripting.getRegisteredContentScripts({ ids: [PAGE_ID, RELAY_ID] });
  if (registered.length > 0) await browser.scripting.unregisterContentScripts({ ids: registered.map((s) => s.id) });
  if (origins.length === 0 || page.length === 0 || relay.length === 0) return origins;
  // Where the manifest's scripts run already (a grant of every site covers localhost), these must not:
  // the page script leaves no mark a second copy could look for.
  const excludeMatches = [...builtin];
  // The relay first, as in the manifest: it must be listening when the page script hands over its port.
  await browser.scripting.registerContentScripts([
    { id: RELAY_ID, matches: origins, excludeMatches, js: relay, runAt: 'document_start', allFrames: true, persistAcrossSessions: true },
    { id: PAGE_ID, matches: origins, excludeMatches, js: page, runAt: 'document_start', world: 'MAIN', allFrames: true, persistAcrossSessions: true },
  ] as Parameters<typeof browser.scripting.registerContentScripts>[0]);
  return origins;
}
