/** The public surface of src/schema/: what code outside the folder may import. */
export { enforce } from './enforce.ts';
export { EVENT_TYPES } from './event-types.ts';
export { SCHEMA_RULES, enforcementFindings } from './rules.ts';
export type { Enforcement } from './types.ts';
export type { QuickChecks, Validators } from './validators.ts';
