import { readFileSync } from 'node:fs';
import { defineConfig, type Plugin } from 'vite';
import { validatorsOnDemand } from './vite.cli.config.ts';

/**
 * tsc emits no declarations for declarations, and src/schema/validators.ts types every version's checks
 * as 1.0's generated modules: their .d.ts go where the emitted validators.d.ts looks for them.
 */
function generatedDeclarations(): Plugin {
  return {
    name: 'agui-inspector:generated-declarations',
    generateBundle() {
      for (const name of ['v1_0', 'v1_0.quick']) {
        this.emitFile({ type: 'asset', fileName: `types/schema/generated/${name}.d.ts`, source: readFileSync(new URL(`src/schema/generated/${name}.d.ts`, import.meta.url)) });
      }
    },
  };
}

/**
 * The library, `import { check } from 'agui-inspector'`: one ES module, src/library/index.ts and all it
 * uses, beside the command-line tool in dist/node. It loads each version's validators on demand from
 * dist/node/schema/generated as the tool does (lib/ is one level down, as chunks/ is), so the package
 * holds them once. Run after vite.cli.config.ts, which empties dist/node; the declarations come from
 * tsconfig.lib.json.
 */
export default defineConfig({
  build: {
    ssr: 'src/library/index.ts',
    outDir: 'dist/node',
    emptyOutDir: false,
    target: 'node20',
    minify: false,
    ssrEmitAssets: true,
    rolldownOptions: {
      output: {
        format: 'es',
        entryFileNames: 'lib/index.js',
        // One file: a chunk in another folder would look for the validators elsewhere.
        codeSplitting: false,
      },
    },
  },
  plugins: [validatorsOnDemand(), generatedDeclarations()],
  ssr: { noExternal: true, target: 'node' },
  logLevel: 'warn',
});
