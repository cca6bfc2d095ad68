/**
 * What the Inspector reads of an error ajv's standalone code sets (ajv's ErrorObject has these members and
 * more). Written here rather than imported from ajv, a build-time dependency only: the package's type
 * declarations reach this module, and an installed agui-inspector has no ajv to resolve.
 */
export interface ValidatorError {
  keyword: string;
  /** JSON Pointer to the value that failed. */
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/** The shape of one validator ajv emitted as standalone code (src/schema/generated/). */
export interface StandaloneValidator {
  (data: unknown): boolean;
  /** Set after a failed call: ajv stops at the first error, so there is one. */
  errors?: ValidatorError[] | null;
}
