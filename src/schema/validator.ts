import type { ErrorObject } from 'ajv';

/** The shape of one validator ajv emitted as standalone code (src/schema/generated/). */
export interface StandaloneValidator {
  (data: unknown): boolean;
  /** Set after a failed call: ajv stops at the first error, so there is one. */
  errors?: ErrorObject[] | null;
}
