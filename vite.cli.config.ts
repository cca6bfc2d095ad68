import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const src = (file: string): string => fileURLToPath(new URL(`src/${file}`, import.meta.url));

/**
 * A version's quick checks are loaded when it is first judged and its ajv validators when one of its
 * values first fails a quick check, not with the tool: src/cli/validators.ts stands in for
 * src/schema/validators.ts, and the CommonJS forms it requires are written where it looks for them
 * (dist/node/schema/generated, as src/schema/generated is to src/cli). The library's build
 * (vite.lib.config.ts) writes its module to dist/node/lib, at the same depth, so both use one copy.
 */
export function validatorsOnDemand(): Plugin {
  const generic = src('schema/validators.ts');
  return {
    name: 'agui-inspector:validators-on-demand',
    // Before Vite's own resolver, which would otherwise answer first.
    enforce: 'pre',
    async resolveId(source, importer, options) {
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      return resolved?.id === generic ? src('cli/validators.ts') : null;
    },
    generateBundle() {
      for (const name of ['v1_0', 'v1_0.quick', 'v1_1', 'v1_1.quick']) {
        this.emitFile({ type: 'asset', fileName: `schema/generated/${name}.cjs`, source: readFileSync(src(`schema/generated/${name}.cjs`)) });
      }
    },
  };
}

/**
 * `ws`, which only `replay` needs, shipped beside the tool as its own CommonJS files (dist/node/ws) and
 * loaded by replay's dynamic import, not bundled: bundled, its CommonJS modules brought the bundler's
 * interop helpers into a chunk every command loads, and with them ws itself — `check` on a two-event body
 * ran 1,014 M instructions where it ran 627 M. Its optional native add-ons are not shipped: ws's own try
 * falls back to its JavaScript paths.
 */
function wsBeside(): Plugin {
  const root = fileURLToPath(new URL('node_modules/ws/', import.meta.url));
  const files = ['index.js', 'LICENSE', ...readdirSync(`${root}lib`).filter((f) => f.endsWith('.js')).map((f) => `lib/${f}`)];
  return {
    name: 'agui-inspector:ws-beside',
    generateBundle() {
      for (const f of files) this.emitFile({ type: 'asset', fileName: `ws/${f}`, source: readFileSync(root + f) });
      // The package is "type": "module": without this, Node would read ws's files as ES modules.
      this.emitFile({ type: 'asset', fileName: 'ws/package.json', source: '{ "type": "commonjs" }\n' });
    },
  };
}

/**
 * The command-line tool, self-contained, so an installed package needs nothing else: the entry, and a
 * chunk per dynamic import() — the analyzer is loaded by the commands that analyse, the replay server by
 * `replay`, so `--version` and `--help` load neither. CommonJS, though the sources are ESM: Node starts
 * a CommonJS entry without setting up its ES module loader, about 7 ms and a third of `--version`'s work.
 */
export default defineConfig({
  build: {
    ssr: 'src/cli/bin.ts',
    outDir: 'dist/node',
    emptyOutDir: true,
    target: 'node20',
    minify: false,
    // The validators are assets, which an SSR build drops unless told to write them.
    ssrEmitAssets: true,
    rollupOptions: {
      external: ['ws'],
      output: {
        // From the chunk replay is in (chunks/) to what wsBeside writes.
        paths: { ws: '../ws/index.js' },
        format: 'cjs',
        entryFileNames: 'agui-inspector.cjs',
        chunkFileNames: 'chunks/[name]-[hash].cjs',
        banner: (chunk) => (chunk.isEntry ? '#!/usr/bin/env node' : ''),
        // Whitespace only, names and code kept as written: V8 scans every byte of a module before it
        // runs, and the quick checks and schema tables are much of what every `check` loads. ASCII only
        // (other characters as escapes), so the source is a one-byte string, not a UTF-16 one twice its size.
        minify: { compress: false, mangle: false, codegen: { removeWhitespace: true, asciiOnly: true } },
      },
    },
  },
  plugins: [validatorsOnDemand(), wsBeside()],
  // Everything bundled but ws (wsBeside).
  ssr: { noExternal: true, target: 'node' },
  logLevel: 'warn',
});
