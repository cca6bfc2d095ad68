/**
 * What `npm run package` writes, opened as the stores open it: each zip holds its manifest at the root with
 * package.json's version, the icons it names at their sizes, and no key of the other browser; the Firefox
 * zip passes Mozilla's add-on linter (addons-linter, what addons.mozilla.org runs on upload; `web-ext lint`
 * is the same linter on a folder) with no error, warning or notice. test/e2e/package-chromium.test.ts loads
 * the Chrome zip in Chromium.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { packageExtension, TARGETS, zipName } from '../scripts/package.ts';
import { buildExtension, type Target } from './e2e/browsers.ts';
import { ROOT } from './support/paths.ts';

const execFileP = promisify(execFile);
const out = mkdtempSync(join(tmpdir(), 'agui-package-'));
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const zips = new Map<Target, string>();
const unzipped = new Map<Target, string>();

interface Manifest {
  version: string;
  icons: Record<string, string>;
  action: { default_icon: Record<string, string>; theme_icons?: { light: string; dark: string; size: number }[] };
  browser_specific_settings?: { gecko: { id: string; strict_min_version: string } };
  background: Record<string, unknown>;
}
const manifestOf = (target: Target) => JSON.parse(readFileSync(join(unzipped.get(target)!, 'manifest.json'), 'utf8')) as Manifest;

/** Width, height and colour type of a PNG, from its IHDR; throws on anything else. */
function pngHeader(file: string): { width: number; height: number; colourType: number } {
  const b = readFileSync(file);
  assert.deepEqual([...b.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], `${file}: not a PNG`);
  assert.equal(b.toString('latin1', 12, 16), 'IHDR');
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20), colourType: b[25]! };
}

before(async () => {
  for (const target of TARGETS) {
    const zip = await packageExtension(target, await buildExtension(target), out);
    zips.set(target, zip);
    const dir = join(out, target);
    await execFileP('unzip', ['-q', zip, '-d', dir]);
    unzipped.set(target, dir);
  }
});
after(() => rmSync(out, { recursive: true, force: true }));

describe('npm run package', () => {
  it("writes agui-inspector-<target>-<version>.zip, the manifest at the root carrying package.json's version", () => {
    assert.deepEqual(readdirSync(out).filter((f) => f.endsWith('.zip')).sort(), TARGETS.map((t) => zipName(t, version)).sort());
    for (const target of TARGETS) assert.equal(manifestOf(target).version, version, target);
  });

  it('each names icons of 16, 32, 48 and 128 pixels and a toolbar icon, all in the zip at their sizes', () => {
    for (const target of TARGETS) {
      const m = manifestOf(target);
      assert.deepEqual(Object.keys(m.icons), ['16', '32', '48', '128'], target);
      const named = [...Object.entries(m.icons), ...Object.entries(m.action.default_icon), ...(m.action.theme_icons ?? []).flatMap((t) => [[String(t.size), t.light], [String(t.size), t.dark]] as const)];
      for (const [size, path] of named) {
        const png = pngHeader(join(unzipped.get(target)!, path));
        assert.deepEqual(png, { width: Number(size), height: Number(size), colourType: 6 }, `${target}: ${path}`);
      }
    }
  });

  it('Firefox: a gecko id and minimum version, and a light and a dark toolbar icon that differ; Chrome: none of that', () => {
    const firefox = manifestOf('firefox');
    assert.equal(firefox.browser_specific_settings?.gecko.id, 'agui-inspector@ag-ui.dev');
    assert.match(firefox.browser_specific_settings!.gecko.strict_min_version, /^\d+\.0$/);
    assert.deepEqual(firefox.action.theme_icons?.map((t) => t.size), [16, 32]);
    for (const t of firefox.action.theme_icons!) {
      assert.notDeepEqual(readFileSync(join(unzipped.get('firefox')!, t.light)), readFileSync(join(unzipped.get('firefox')!, t.dark)));
    }
    const chrome = manifestOf('chrome');
    assert.equal(chrome.browser_specific_settings, undefined);
    assert.equal(chrome.action.theme_icons, undefined);
    assert.deepEqual(Object.keys(chrome.background), ['service_worker', 'type']);
  });

  it('the Firefox zip passes the add-on linter with no error, warning or notice', async () => {
    const linter = join(ROOT, 'node_modules/.bin/addons-linter');
    // Exit status 1 when anything is reported: the JSON says what.
    const r = await execFileP(linter, ['--output', 'json', zips.get('firefox')!], { maxBuffer: 16 << 20 }).catch((e: { stdout: string }) => e);
    const report = JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))) as Record<'errors' | 'warnings' | 'notices', { code: string; file?: string; message: string }[]>;
    const listed = (k: 'errors' | 'warnings' | 'notices') => report[k].map((m) => `${m.code} ${m.file ?? ''}: ${m.message}`);
    assert.deepEqual({ errors: listed('errors'), warnings: listed('warnings'), notices: listed('notices') }, { errors: [], warnings: [], notices: [] });
  });
});
