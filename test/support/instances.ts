/**
 * Valid instances of the project's own schema (src/schema/protocol.ts), for tests that plant values
 * in every position of every event type and of RunAgentInput. What goes in each leaf is the caller's.
 */
import { toBase64 } from '../../src/base64.ts';
import { JSON_POINTER, schemaFor, type JsonSchema } from '../../src/schema/protocol.ts';
import type { ProtocolVersion } from '../../src/rules/index.ts';

/** Where a leaf sits: the definition that holds it and its member name. */
export interface At {
  def: string;
  key: string;
}

/** The caller's values for the leaves the schema leaves open. */
export interface Leaves {
  string(at: At): string;
  /** A JSON Patch pointer's value: it must keep the pointer grammar. */
  pointer(at: At): string;
  /** A member of an object the schema leaves open (state, forwardedProps, a tool's parameters…). */
  anyJson(at: At): unknown;
  /** A closed-set value (an event's, part's or source's type, a role, a patch op); the schema's own by default. */
  kind?(at: At, value: unknown): unknown;
  /** A member no version defines, added to every protocol object, or none. */
  future?(): [string, unknown] | undefined;
}

export function instances(version: ProtocolVersion) {
  const defs = schemaFor(version).$defs!;

  const resolve = (s: JsonSchema): { schema: JsonSchema; def?: string } => {
    if (!s.$ref) return { schema: s };
    const def = s.$ref.slice('#/$defs/'.length);
    return { schema: { ...defs[def]!, ...(s.default !== undefined ? { default: s.default } : {}) }, def };
  };

  const propertiesOf = (s: JsonSchema): Record<string, JsonSchema> => {
    const out: Record<string, JsonSchema> = {};
    for (const part of s.allOf ?? []) Object.assign(out, propertiesOf(resolve(part).schema));
    return Object.assign(out, s.properties);
  };

  /**
   * A valid instance of `s`. `variant` picks among a union's members, so instances 0, 1, 2 together
   * hold every member of every union of up to three; a list holds one item of each member.
   */
  const generate = (leaves: Leaves, s0: JsonSchema, variant: number, at: At): unknown => {
    const { schema: s, def = at.def } = resolve(s0);
    const kind = (value: unknown) => (leaves.kind ? leaves.kind({ def, key: at.key }, value) : value);
    if (s.const !== undefined) return kind(s.const);
    if (s.enum) return kind(s.enum[variant % s.enum.length]);
    if (s.oneOf) return generate(leaves, s.oneOf[variant % s.oneOf.length]!, variant, { def, key: at.key });
    switch (s.type) {
      case 'string': {
        if (s.pattern === JSON_POINTER) return leaves.pointer(at);
        const text = leaves.string(at);
        return s.contentEncoding === 'base64' ? toBase64(new TextEncoder().encode(text)) : text;
      }
      case 'integer':
        return at.key === 'timestamp' ? 1_700_000_000_000 : 3;
      case 'boolean':
        return true;
      case 'array': {
        const items = resolve(s.items!).schema;
        const members = items.oneOf ? items.oneOf.map((_, i) => i) : [variant];
        return members.map((m) => generate(leaves, s.items!, m, at));
      }
    }
    const properties = propertiesOf(s);
    if (Object.keys(properties).length === 0) return leaves.anyJson(at);
    const out: Record<string, unknown> = {};
    for (const [key, prop] of Object.entries(properties)) out[key] = generate(leaves, prop, variant, { def, key });
    const extra = leaves.future?.();
    if (extra) out[extra[0]] = extra[1];
    return out;
  };

  return {
    /** An instance of the named definition (`RunAgentInput`, `RunStartedEvent`…). */
    of: (def: string, leaves: Leaves, variant: number) => generate(leaves, { $ref: `#/$defs/${def}` }, variant, { def, key: '' }) as Record<string, unknown>,
  };
}
