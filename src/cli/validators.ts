import { createRequire } from 'node:module';
import type { ProtocolVersion } from '../rules/index.ts';
import type { Validators } from '../schema/index.ts';

/**
 * src/schema/validators.ts for the command-line tool, whose build puts this module in its place
 * (vite.cli.config.ts). A version's validators are most of the code a check would load, and a stream
 * of well-formed events never runs them, so they are required — synchronously, as enforcement is —
 * the first time a value of that version fails its quick check. The build writes the CommonJS form
 * gen-validators emits at the same place relative to the chunks as src/schema/generated is to src/cli.
 */
const load = createRequire(import.meta.url);
const FILES: Record<ProtocolVersion, string> = { '1.0': '../schema/generated/v1_0.cjs', '1.1': '../schema/generated/v1_1.cjs' };
const loaded: Partial<Record<ProtocolVersion, Validators>> = {};

export function validatorsOf(version: ProtocolVersion): Validators {
  return (loaded[version] ??= required(version));
}

function required(version: ProtocolVersion): Validators {
  try {
    return load(FILES[version]) as Validators;
  } catch (e) {
    throw new Error(`this installation lacks the AG-UI ${version} validators (${FILES[version]}): reinstall agui-inspector`, { cause: e });
  }
}
