import type { ProtocolVersion } from '../rules/index.ts';
import * as v1_0 from './generated/v1_0.js';
import * as v1_1 from './generated/v1_1.js';

/**
 * ajv's validators of each version, asked for only where a quick check cannot vouch for a value
 * (enforce.ts). A bundle that loads everything at once (the extension, the tests) imports them here;
 * the command-line tool's build puts src/cli/validators.ts in this module's place, which loads a
 * version's validators the first time they are asked for.
 */
export type Validators = typeof v1_0;

const all: Record<ProtocolVersion, Validators> = { '1.0': v1_0, '1.1': v1_1 };

export function validatorsOf(version: ProtocolVersion): Validators {
  return all[version];
}
