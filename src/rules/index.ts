/** Every rule the Inspector checks, gathered from beside their checkers, for listings, SARIF and docs. */
import { CHUNK_RULES } from '../analyzer/chunks.ts';
import { DISCIPLINE_RULES } from '../analyzer/discipline.ts';
import { INPUT_RULES } from '../analyzer/input.ts';
import { VERSION_RULES } from '../analyzer/negotiation.ts';
import { IDENTITY_RULES, LIFECYCLE_RULES } from '../analyzer/runs.ts';
import { STATE_RULES } from '../analyzer/state.ts';
import { RESUME_RULES } from '../analyzer/thread.ts';
import { HTTP_RULES } from '../analyzer/http.ts';
import { SCHEMA_RULES } from '../schema/rules.ts';
import { TRANSPORT_RULES } from '../wire/rules.ts';
import type { Rule } from './types.ts';

export const ALL_RULES: readonly Rule[] = [
  SCHEMA_RULES,
  TRANSPORT_RULES,
  HTTP_RULES,
  INPUT_RULES,
  VERSION_RULES,
  LIFECYCLE_RULES,
  IDENTITY_RULES,
  CHUNK_RULES,
  DISCIPLINE_RULES,
  STATE_RULES,
  RESUME_RULES,
].flatMap((group) => Object.values(group));

export function ruleById(id: string): Rule | undefined {
  return ALL_RULES.find((r) => r.id === id);
}
