import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';
import { crx, type ManifestV3Export } from '@crxjs/vite-plugin';

type Target = 'chrome' | 'firefox';

const root = fileURLToPath(new URL('.', import.meta.url));
const target: Target = process.env.TARGET === 'firefox' ? 'firefox' : 'chrome';

/**
 * manifest.json is written for Chrome; Firefox gets the same manifest with its own background and identity.
 * Its version is package.json's, the one the exports and the CLI name as their creator.
 */
function manifestFor(target: Target): ManifestV3Export {
  const { version } = JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as { version: string };
  const base: Record<string, unknown> = { ...(JSON.parse(readFileSync(`${root}/manifest.json`, 'utf8')) as Record<string, unknown>), version };
  if (target === 'chrome') return base as unknown as ManifestV3Export;
  const { minimum_chrome_version: _chromeOnly, message_serialization: _firefoxClones, background: _worker, ...rest } = base;
  return {
    ...rest,
    // Firefox MV3 has no extension service workers: the same module runs as an event page.
    background: { scripts: ['background/index.ts'], type: 'module' },
    browser_specific_settings: {
      gecko_android: { strict_min_version: '142.0' },
      gecko: {
        id: 'agui-inspector@ag-ui.dev',
        // 128: content_scripts world "MAIN" and scripting world "MAIN"; 140: data_collection_permissions.
        strict_min_version: '140.0',
        data_collection_permissions: { required: ['none'] },
      },
    },
  } as unknown as ManifestV3Export;
}

export default defineConfig({
  root,
  plugins: [
    preact(),
    crx({
      manifest: manifestFor(target),
      browser: target,
      contentScripts: {
        // Self-contained IIFEs run synchronously at document_start; crxjs's default async
        // loader would install the wrappers after the page's first request.
        standaloneFiles: ['src/capture/page.iife.ts', 'src/capture/relay.iife.ts'],
      },
    }),
  ],
  build: {
    outDir: `dist/${target}`,
    emptyOutDir: true,
    minify: false,
    sourcemap: false,
    // Both browsers preload modules natively; the polyfill's fetch() would be the one network call in the build.
    modulePreload: { polyfill: false },
    rollupOptions: {
      // The panel is reached only through devtools.panels.create, so crxjs cannot find it in the manifest.
      input: { panel: 'panel/index.html' },
    },
  },
});
