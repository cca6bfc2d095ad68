/**
 * The redaction groups a user picks from, on their own: the panel's export menu reads them without
 * bundling the redactor (and the protobuf encoder it brings) into the panel.
 */
export const REDACTION_GROUPS = ['messages', 'tools', 'reasoning', 'state', 'forwardedProps', 'query'] as const;
export type RedactionGroup = (typeof REDACTION_GROUPS)[number];
/** The groups on unless the user turns them off: a query string is where API keys ride, and no finding reads it. */
export const DEFAULT_REDACTION: readonly RedactionGroup[] = ['query'];
