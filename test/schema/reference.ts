/**
 * The published 1.1 schema and conformance corpus, read from the shared checkout beside this
 * project. The reference is only compared against, never copied into the project; when it is
 * absent the tests that need it skip with a notice.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import type { ProtocolVersion } from '../../src/rules/types.ts';
import { CONFORMANCE_1_1 as STREAMS, REFERENCE_SCHEMA_1_1 as SCHEMA, SHARED } from '../support/paths.ts';

const SPEC = join(SHARED, 'agui-spec');

export const available = existsSync(SCHEMA) && existsSync(STREAMS);
export const skipReason = available ? false : `reference not found at ${SPEC}; skipped`;
if (!available) console.log(`# NOTICE: AG-UI reference schema/corpus not found at ${SPEC}: agreement tests skipped`);

type Json = Record<string, unknown>;

/** Fields 1.1 added; 1.0 is 1.1 without them. */
export const ENCRYPTED_VALUE_TYPE_DEFS = ['ReasoningEncryptedValueEvent', 'BaseMessage', 'ToolMessage', 'ReasoningMessage', 'ToolCall'];

export function referenceSchema(version: ProtocolVersion): Json {
  const schema = JSON.parse(readFileSync(SCHEMA, 'utf8')) as Json & { $defs: Record<string, { properties: Json }> };
  if (version === '1.0') {
    schema.$id = 'https://ag-ui.com/spec/1.0/schema.json';
    for (const name of ENCRYPTED_VALUE_TYPE_DEFS) delete schema.$defs[name]?.properties.encryptedValueType;
  }
  return schema;
}

export type Check = (value: unknown) => boolean;

/** Compiled at test time, which Node allows; the reference is validated the way ajv reads 2020-12. */
export function referenceValidators(version: ProtocolVersion): { event: Check; input: Check } {
  const ajv = new Ajv2020({ strict: false });
  const schema = referenceSchema(version);
  ajv.addSchema(schema);
  const id = schema.$id as string;
  const event = ajv.getSchema(id);
  const input = ajv.getSchema(`${id}#/$defs/RunAgentInput`);
  if (!event || !input) throw new Error('reference schema did not compile');
  return { event: (v) => event(v) as boolean, input: (v) => input(v) as boolean };
}

export interface Fixture {
  file: string;
  stream: unknown[];
  input?: unknown;
}

export function corpus(): Fixture[] {
  return readdirSync(STREAMS).filter((f) => f.endsWith('.json')).sort().map((file) => {
    const data = JSON.parse(readFileSync(join(STREAMS, file), 'utf8')) as { stream: unknown[]; input?: unknown };
    return { file, stream: data.stream, ...(data.input === undefined ? {} : { input: data.input }) };
  });
}
