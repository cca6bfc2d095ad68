import { defineConfig } from 'vite';

/** The command-line tool as one self-contained Node ESM file, so an installed package needs nothing else. */
export default defineConfig({
  build: {
    ssr: 'src/cli/bin.ts',
    outDir: 'dist/cli',
    emptyOutDir: true,
    target: 'node20',
    minify: false,
    rollupOptions: {
      output: { entryFileNames: 'agui-inspector.mjs', banner: '#!/usr/bin/env node' },
    },
  },
  ssr: { noExternal: true, target: 'node' },
  logLevel: 'warn',
});
