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
        // Whitespace only, names and code kept as written: V8 scans every byte of a module before it
        // runs, and the generated validators are most of the bytes every `check` loads. ASCII only (other
        // characters as escapes), so the source is a one-byte string, not a UTF-16 one twice its size.
        minify: { compress: false, mangle: false, codegen: { removeWhitespace: true, asciiOnly: true } },
      },
    },
  },
  ssr: { noExternal: true, target: 'node' },
  logLevel: 'warn',
});
