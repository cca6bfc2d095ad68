/**
 * Bundles the demo page (it imports @ag-ui/client from node_modules, which a
 * browser cannot resolve on its own). Standalone: `npx tsx demo/build.ts`.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const demoPageSourceDir = fileURLToPath(new URL('./page/', import.meta.url));
export const demoPageOutDir = fileURLToPath(new URL('../dist/demo/', import.meta.url));

/** Builds the page into dist/demo and returns that directory. */
export async function buildDemoPage(): Promise<string> {
  // Loaded on demand: the agent imports this module but only needs vite when the page is missing.
  const { build } = await import('vite');
  await build({
    root: demoPageSourceDir,
    build: { outDir: demoPageOutDir, emptyOutDir: true },
    logLevel: 'warn',
    configFile: false,
  });
  return demoPageOutDir;
}

/** Built, and newer than every source the page bundles from demo/ (a stale page would run old code). */
export function demoPageIsBuilt(): boolean {
  const built = join(demoPageOutDir, 'index.html');
  if (!existsSync(built)) return false;
  // Besides its own folder, the page bundles the scenarios and the one rule of where a socket exchange ends.
  const sources = [
    ...readdirSync(demoPageSourceDir).map((f) => join(demoPageSourceDir, f)),
    fileURLToPath(new URL('./scenarios.ts', import.meta.url)),
    fileURLToPath(new URL('../src/exchange/run-end.ts', import.meta.url)),
  ];
  const newest = Math.max(...sources.map((f) => statSync(f).mtimeMs));
  return statSync(built).mtimeMs >= newest;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(`demo page built into ${await buildDemoPage()}`);
}
