/** Every rule the Inspector checks, gathered from beside their checkers, for listings, SARIF and docs. */
import { CHUNK_RULES } from '../analyzer/index.ts';
import { DISCIPLINE_RULES } from '../analyzer/index.ts';
import { INPUT_RULES } from '../analyzer/index.ts';
import { VERSION_RULES } from '../analyzer/index.ts';
import { IDENTITY_RULES, LIFECYCLE_RULES } from '../analyzer/index.ts';
import { STATE_RULES } from '../analyzer/index.ts';
import { RESUME_RULES } from '../analyzer/index.ts';
import { HTTP_RULES } from '../analyzer/index.ts';
import { SCHEMA_RULES } from '../schema/index.ts';
import { TRANSPORT_RULES } from '../wire/index.ts';
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
export { defineRules, makeFinding } from './types.ts';
export type { Category, Finding, ProtocolVersion, Rule, Severity, Where } from './types.ts';
