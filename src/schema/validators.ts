import type { ProtocolVersion } from '../rules/index.ts';
import * as v1_0 from './generated/v1_0.js';
import * as quick1_0 from './generated/v1_0.quick.js';
import * as v1_1 from './generated/v1_1.js';
import * as quick1_1 from './generated/v1_1.quick.js';

/**
 * Each version's generated checks: the quick checks every judgement starts with, and ajv's validators,
 * asked for only where a quick check cannot vouch for a value (enforce.ts). A bundle that loads
 * everything at once (the extension, the tests) imports them here; the command-line tool's build puts
 * src/cli/validators.ts in this module's place, which loads a version's the first time it is judged.
 */
export type Validators = typeof v1_0;
export type QuickChecks = typeof quick1_0;

const all: Record<ProtocolVersion, Validators> = { '1.0': v1_0, '1.1': v1_1 };
const quick: Record<ProtocolVersion, QuickChecks> = { '1.0': quick1_0, '1.1': quick1_1 };

export function validatorsOf(version: ProtocolVersion): Validators {
  return all[version];
}

export function quickChecksOf(version: ProtocolVersion): QuickChecks {
  return quick[version];
}
