/** Every rule the Inspector checks, gathered from beside their checkers, for listings, SARIF and docs. */
import { chunkRules } from '../analyzer/chunks.ts';
import { disciplineRules } from '../analyzer/discipline.ts';
import { inputRules } from '../analyzer/input.ts';
import { versionRules } from '../analyzer/negotiation.ts';
import { identityRules, lifecycleRules } from '../analyzer/runs.ts';
import { stateRules } from '../analyzer/state.ts';
import { resumeRules } from '../analyzer/thread.ts';
import { transportRules } from '../analyzer/transport.ts';
import { SCHEMA_RULES } from '../schema/rules.ts';
import { TRANSPORT_RULES } from '../wire/rules.ts';
import type { Rule } from './types.ts';

export const ALL_RULES: readonly Rule[] = [
  SCHEMA_RULES,
  TRANSPORT_RULES,
  transportRules,
  inputRules,
  versionRules,
  lifecycleRules,
  identityRules,
  chunkRules,
  disciplineRules,
  stateRules,
  resumeRules,
].flatMap((group) => Object.values(group));

export function ruleById(id: string): Rule | undefined {
  return ALL_RULES.find((r) => r.id === id);
}
