import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import preact from '@preact/preset-vite';
import { crx, type ManifestV3Export } from '@crxjs/vite-plugin';
import { iconFiles } from './scripts/icons.ts';

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
    // Chrome has no key for a toolbar's theme, so its button shows the tile; Firefox picks the bare glyph that suits.
    action: {
      ...(base.action as Record<string, unknown>),
      theme_icons: [16, 32].map((size) => ({ light: `icons/toolbar-light-${size}.png`, dark: `icons/toolbar-dark-${size}.png`, size })),
    },
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

/** The icons the target's manifest names, drawn by scripts/icons.ts; emitted first, so crxjs finds them in the bundle. */
function icons(target: Target): Plugin {
  return {
    name: 'agui-inspector:icons',
    buildStart() {
      for (const [fileName, source] of iconFiles({ themed: target === 'firefox' })) this.emitFile({ type: 'asset', fileName, source });
    },
  };
}

/**
 * Two spots of library code the extension can never run, rewritten so that Mozilla's add-on linter (what
 * addons.mozilla.org runs on upload) has nothing to warn about:
 * - zod 4's probe for eval (`new Function("")`, brought in by @ag-ui/proto's encoder, in the redactor): an
 *   extension's CSP forbids eval, so the probe always answered false; now it answers false without trying,
 *   and Chrome logs no CSP refusal.
 * - Preact's assignment of dangerouslySetInnerHTML: the panel never passes that prop, so every text reaches
 *   the DOM as text; should it ever, the render throws instead of writing HTML.
 * Each rewrite must find its code: a dependency update that moves it fails the build, not the store review.
 */
const REWRITES: { module: RegExp; from: RegExp; to: string }[] = [
  { module: /[\\/]zod[\\/]v4[\\/]core[\\/]util\.js$/, from: /export const allowsEval = cached\(\(\) => \{[^]*?\n\}\);/, to: 'export const allowsEval = cached(() => false);' },
  { module: /[\\/]preact[\\/]dist[\\/]preact\.mjs$/, from: /\(t\.innerHTML=h\.__html\)/, to: '(()=>{throw new Error("dangerouslySetInnerHTML: the panel renders text only")})()' },
];

function storeClean(): Plugin {
  return {
    name: 'agui-inspector:store-clean',
    enforce: 'pre',
    transform(code, id) {
      const rewrite = REWRITES.find((r) => r.module.test(id));
      if (!rewrite) return null;
      if (!rewrite.from.test(code)) throw new Error(`${id}: the code ${rewrite.from} rewrites is not there any more (vite.config.ts, storeClean)`);
      return { code: code.replace(rewrite.from, rewrite.to), map: null };
    },
  };
}

export default defineConfig({
  root,
  plugins: [
    icons(target),
    storeClean(),
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
  // The import worker is bundled apart, with these plugins only.
  worker: { plugins: () => [storeClean()] },
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
