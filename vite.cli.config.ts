import { defineConfig } from 'vite';

/**
 * The command-line tool as self-contained Node ESM, so an installed package needs nothing else: the
 * entry, and a chunk per dynamic import() — the analyzer is loaded by the commands that analyse, the
 * replay server by `replay`, so `--version` and `--help` load neither.
 */
export default defineConfig({
  build: {
    ssr: 'src/cli/bin.ts',
    outDir: 'dist/cli',
    emptyOutDir: true,
    target: 'node20',
    minify: false,
    rollupOptions: {
      output: {
        entryFileNames: 'agui-inspector.mjs',
        chunkFileNames: 'chunks/[name]-[hash].mjs',
        banner: (chunk) => (chunk.isEntry ? '#!/usr/bin/env node' : ''),
      },
    },
  },
  ssr: { noExternal: true, target: 'node' },
  logLevel: 'warn',
});
