import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from './support/paths.ts';

/** The privacy promises of docs/privacy.md, checked against what `npm run build` produced. */
// Sockets and event sources are opened with `new`: their names alone are in messages (about recorded
// sockets, or what an EventSource reads when an override answers one).
const NETWORK = /fetch\(|XMLHttpRequest|sendBeacon|new WebSocket|new EventSource/;
/** The page-side wrapper names the page's own network APIs in order to pass them through. */
const WRAPPER = 'src/capture/page.iife.js';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

for (const target of ['chrome', 'firefox'] as const) {
  describe(`the ${target} build`, () => {
    const dir = join(ROOT, 'dist', target);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));

    it('asks for no permission that could observe or send traffic by itself', () => {
      const all = [...(manifest.permissions ?? []), ...(manifest.host_permissions ?? [])];
      for (const p of ['debugger', 'webRequest', 'webRequestBlocking', 'declarativeNetRequest', 'cookies', 'history', 'tabs', '<all_urls>']) {
        assert.ok(!all.includes(p), `${p} is requested`);
      }
      assert.deepEqual(manifest.host_permissions ?? [], [], 'no host permission by default');
      const scripted = manifest.content_scripts.flatMap((c: { matches: string[] }) => c.matches);
      assert.ok(scripted.every((m: string) => /^https?:\/\/(localhost|127\.0\.0\.1)\//.test(m)), `content scripts only on localhost: ${scripted}`);
    });

    it('contains network calls only in the page wrapper', () => {
      const calling = files(dir)
        .filter((f) => f.endsWith('.js') && NETWORK.test(readFileSync(f, 'utf8')))
        .map((f) => relative(dir, f).replace(/\\/g, '/'));
      assert.deepEqual(calling, [WRAPPER]);
    });
  });
}
