/** The public surface of src/recording/: what code outside the folder may import. */
export { exportSession } from './export.ts';
export { toFixture } from './fixture.ts';
export { DEFAULT_REDACTION, REDACTION_GROUPS } from './groups.ts';
export type { RedactionGroup } from './groups.ts';
export { ReplayPlan, pathOf, servedContentType, unmatchedBody, type Channel, type ReplayMatch } from './replay.ts';
