/**
 * Every rule the Inspector checks, gathered from beside their checkers, for listings, SARIF and docs. A
 * folder of its own: it depends on every checker, which all depend on the vocabulary in src/rules.
 */
import { BINDING_RULES, CHUNK_RULES, CONVERSATION_RULES, DISCIPLINE_RULES, HTTP_RULES, IDENTITY_RULES, INPUT_RULES, LIFECYCLE_RULES, RESUME_RULES, STATE_RULES, VERSION_RULES } from '../analyzer/index.ts';
import { SCHEMA_RULES } from '../schema/index.ts';
import { TRANSPORT_RULES } from '../wire/index.ts';
import type { Rule } from '../rules/index.ts';

export const ALL_RULES: readonly Rule[] = [
  SCHEMA_RULES,
  TRANSPORT_RULES,
  HTTP_RULES,
  BINDING_RULES,
  INPUT_RULES,
  VERSION_RULES,
  LIFECYCLE_RULES,
  IDENTITY_RULES,
  CHUNK_RULES,
  DISCIPLINE_RULES,
  STATE_RULES,
  RESUME_RULES,
  CONVERSATION_RULES,
].flatMap((group) => Object.values(group));

export function ruleById(id: string): Rule | undefined {
  return ALL_RULES.find((r) => r.id === id);
}
