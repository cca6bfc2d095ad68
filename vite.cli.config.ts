import { readFileSync } from 'node:fs';
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
      output: {
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
  plugins: [validatorsOnDemand()],
  // Everything bundled, `ws` for the replay's sockets too. Its optional native add-ons (bufferutil,
  // utf-8-validate) are not installed: each is written as a stub that throws inside ws's own try, so ws
  // takes its JavaScript paths and nothing is required at run time.
  ssr: { noExternal: true, target: 'node' },
  logLevel: 'warn',
});
