/**
 * `npm run package`: each built extension (dist/chrome, dist/firefox) zipped as the Chrome Web Store and
 * addons.mozilla.org take it, into dist/agui-inspector-<target>-<version>.zip, with `web-ext build` (a zip
 * of the folder, the manifest at its root). The version is package.json's, which the manifests carry too.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const TARGETS = ['chrome', 'firefox'] as const;

export const zipName = (target: (typeof TARGETS)[number], version: string) => `agui-inspector-${target}-${version}.zip`;

/** Zips the extension built for `target` in `source` into `out`; returns the zip's path. */
export async function packageExtension(target: (typeof TARGETS)[number], source: string, out: string): Promise<string> {
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const built = (JSON.parse(readFileSync(join(source, 'manifest.json'), 'utf8')) as { version: string }).version;
  if (built !== version) throw new Error(`${source} is version ${built}, package.json ${version}: build it again`);
  const name = zipName(target, version);
  await promisify(execFile)(join(ROOT, 'node_modules/.bin/web-ext'), ['build', '--source-dir', source, '--artifacts-dir', out, '--filename', name, '--overwrite-dest', '--no-config-discovery']);
  return join(out, name);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dist = join(ROOT, 'dist');
  for (const target of TARGETS) console.log(`wrote ${await packageExtension(target, join(dist, target), dist)}`);
}
