import { createRequire } from 'node:module';
import type { ProtocolVersion } from '../rules/index.ts';
import type { QuickChecks, Validators } from '../schema/index.ts';

/**
 * src/schema/validators.ts for the command-line tool, whose build puts this module in its place
 * (vite.cli.config.ts). A check judges one version, and a stream of well-formed events never runs
 * ajv's validators, which are most of the generated code: so a version's quick checks are required
 * when that version is first judged, and its validators — synchronously, as enforcement is — when
 * one of its values first fails a quick check. The build writes the CommonJS forms gen-validators
 * emits at the same place relative to the chunks as src/schema/generated is to src/cli.
 */
const load = createRequire(import.meta.url);
const FILES: Record<ProtocolVersion, string> = { '1.0': '../schema/generated/v1_0', '1.1': '../schema/generated/v1_1' };
const validators: Partial<Record<ProtocolVersion, Validators>> = {};
const quick: Partial<Record<ProtocolVersion, QuickChecks>> = {};

export function validatorsOf(version: ProtocolVersion): Validators {
  return (validators[version] ??= required<Validators>(version, '.cjs'));
}

export function quickChecksOf(version: ProtocolVersion): QuickChecks {
  return (quick[version] ??= required<QuickChecks>(version, '.quick.cjs'));
}

function required<T>(version: ProtocolVersion, suffix: string): T {
  const file = FILES[version] + suffix;
  try {
    return load(file) as T;
  } catch (e) {
    throw new Error(`this installation lacks the AG-UI ${version} validators (${file}): reinstall agui-inspector`, { cause: e });
  }
}
