/** The finding vocabulary every checker defines its rules with; the rules themselves are gathered in src/catalog. */
export { defineRules, makeFinding } from './types.ts';
export type { Category, Finding, ProtocolVersion, Rule, Severity, Where } from './types.ts';
