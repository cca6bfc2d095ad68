import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, wherever the clone lives. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** `../shared` beside the clone, as developers and CI have it; absent elsewhere. */
export const SHARED = resolve(ROOT, '..', 'shared');

export const CONFORMANCE_1_1 = resolve(SHARED, 'agui-spec/spec/1.1/conformance/streams');
export const REFERENCE_SCHEMA_1_1 = resolve(SHARED, 'agui-spec/docs/spec/1.1/schema.json');

/** Whether a shared folder is present; tests that need it print why they skip when it is not. */
export function sharedAvailable(path: string): boolean {
  return existsSync(path);
}
