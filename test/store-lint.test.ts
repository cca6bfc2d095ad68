/**
 * The Firefox build passes Mozilla's add-on linter (`web-ext lint`, what addons.mozilla.org runs on
 * upload) with no error, and every warning it gives is one we know and can explain.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { ROOT } from './support/paths.ts';

interface Message {
  code: string;
  file?: string;
  message: string;
}

/** Code and the bundle it appears in (name without its content hash), with why it is harmless. */
const KNOWN: { code: string; file: RegExp; why: string }[] = [
  {
    code: 'DANGEROUS_EVAL',
    file: /^assets\/(import-worker|index\.ts)-[\w-]+\.js$/,
    why: "zod, which @ag-ui/proto's encoder brings into the redactor (the export, in the import worker and in the background worker), probes for `new Function` inside a try; extension CSP refuses it and zod takes its interpreted path",
  },
  {
    code: 'UNSAFE_VAR_ASSIGNMENT',
    file: /^assets\/panel-[\w-]+\.js$/,
    why: "Preact's dangerouslySetInnerHTML branch; the panel never passes that prop, so every text reaches the DOM as text",
  },
];

test('web-ext lint: no errors, only the known warnings', async (t) => {
  const { stdout } = await promisify(execFile)(join(ROOT, 'node_modules', '.bin', 'web-ext'), ['lint', '--source-dir', join(ROOT, 'dist', 'firefox'), '--output', 'json', '--no-config-discovery'], { maxBuffer: 16 << 20 });
  const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { errors: Message[]; warnings: Message[] };
  assert.deepEqual(report.errors.map((e) => `${e.code} ${e.file ?? ''}: ${e.message}`), []);
  const unknown = report.warnings.filter((w) => !KNOWN.some((k) => k.code === w.code && k.file.test(w.file ?? '')));
  assert.deepEqual(unknown.map((w) => `${w.code} ${w.file ?? ''}: ${w.message}`), []);
  for (const w of report.warnings) t.diagnostic(`${w.code} in ${w.file}: ${KNOWN.find((k) => k.code === w.code)!.why}`);
});
