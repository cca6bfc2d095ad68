import type { ProtocolVersion } from '../rules/index.ts';

/** One member a consumer of the judged version removes, and why. */
export interface Strip {
  /** JSON Pointer (into the value as received) of what is removed: the field, the containing value, or the list element. */
  path: string;
  /** JSON Pointer of the unrecognised material itself; deeper than `path` when a required position removed its container. */
  trigger: string;
  reason: 'unknown-property' | 'unknown-member';
  /** The definition that does not describe the material: the closed object for a property, the union or enum for a member. */
  definition: string;
  /** For a member of a discriminated union: the key (`type`, `role`, `op`) whose value no variant names. */
  discriminator?: string;
  /** The value that is lost. */
  removed: unknown;
}

export interface SchemaError {
  /** JSON Pointer of the malformed value; for a missing required member, of where it belongs. */
  path: string;
  message: string;
}

export type Enforcement =
  /** Valid after stripping (`stripped` may be empty); `value` is what application code would receive. */
  | { verdict: 'ok'; value: unknown; stripped: Strip[] }
  /**
   * An event whose `type` this version does not describe, dropped whole; or, with `cause`, a known
   * event removed whole because unrecognised material sat in one of its required positions.
   */
  | { verdict: 'dropped'; type: string; cause?: Strip }
  /** A malformed known value: the consumer must fail the run. `type` is the event's, when it carried one. */
  | { verdict: 'fatal'; errors: SchemaError[]; stripped: Strip[]; type?: string };

export interface Enforcer {
  event(value: unknown, version: ProtocolVersion): Enforcement;
  /**
   * True only when `event` would answer `ok` with the value as received and nothing stripped, known
   * without building that answer: nearly every event of a stream, for a caller that keeps no answer.
   * False means "ask `event`", never "invalid".
   */
  valid(value: unknown, version: ProtocolVersion): boolean;
  input(value: unknown, version: ProtocolVersion): Enforcement;
}
