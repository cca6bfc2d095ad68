import { isObject } from '../json.ts';
import type { JsonSchema } from './protocol.ts';

/*
 * How the schema-as-data types values and composes objects and unions, read the one way both its readers need it:
 * the enforcement walker (enforce.ts) at run time, and the quick checks' compiler (quick.ts) at build time.
 */

/** Where a reference into the document's own definitions points. */
export const DEFS = '#/$defs/';

export type JsonType = NonNullable<JsonSchema['type']>;

/** Whether a value is of a schema's `type`, as ajv reads it. */
export function hasType(value: unknown, type: JsonType): boolean {
  switch (type) {
    case 'object': return isObject(value);
    case 'array': return Array.isArray(value);
    case 'string': return typeof value === 'string';
    case 'boolean': return typeof value === 'boolean';
    case 'integer': return Number.isInteger(value);
  }
}

export interface Shape {
  /** Every property named by the schema or the parts it composes through $ref and allOf, with each part's schema for it. */
  properties: Map<string, JsonSchema[]>;
  required: Set<string>;
  /** Closedness is the composing schema's own, as with unevaluatedProperties. */
  closed: boolean;
  /** Some composed part admits any property (additionalProperties), so none is unevaluated. */
  open: boolean;
  /** Some composed part is a union, whose arm may evaluate properties not listed here. */
  unions: boolean;
}

export interface Discriminator {
  key: string;
  arms: Map<string, JsonSchema>;
}

/** The definitions of one schema document, with what is derived from them computed once. */
export class Shapes {
  private readonly shapes = new WeakMap<JsonSchema, Shape>();
  private readonly discriminators = new WeakMap<readonly JsonSchema[], Discriminator | null>();

  constructor(private readonly defs: Readonly<Record<string, JsonSchema>>) {}

  resolve(ref: string): JsonSchema {
    const target = ref.startsWith(DEFS) ? this.defs[ref.slice(DEFS.length)] : undefined;
    if (target === undefined) throw new Error(`schema reference ${ref} does not resolve`);
    return target;
  }

  /** Properties gathered through allOf; closedness is the composing schema's own, as with unevaluatedProperties. */
  shape(schema: JsonSchema): Shape {
    const cached = this.shapes.get(schema);
    if (cached !== undefined) return cached;
    const shape: Shape = { properties: new Map(), required: new Set(), closed: schema.unevaluatedProperties === false, open: false, unions: false };
    const gather = (part: JsonSchema): void => {
      if (part.$ref !== undefined) gather(this.resolve(part.$ref));
      for (const member of part.allOf ?? []) gather(member);
      if (part.additionalProperties === true) shape.open = true;
      if (part.oneOf !== undefined) shape.unions = true;
      for (const [key, property] of Object.entries(part.properties ?? {})) {
        shape.properties.set(key, [...(shape.properties.get(key) ?? []), property]);
      }
      for (const key of part.required ?? []) shape.required.add(key);
    };
    gather(schema);
    this.shapes.set(schema, shape);
    return shape;
  }

  /** A union is discriminated when every arm is an object requiring one key fixed to a distinct string. */
  discriminator(arms: readonly JsonSchema[]): Discriminator | null {
    if (this.discriminators.has(arms)) return this.discriminators.get(arms) ?? null;
    const shapes = arms.map((arm) => ({ arm, shape: this.shape(arm.$ref === undefined ? arm : this.resolve(arm.$ref)) }));
    const tagOf = (shape: Shape, key: string): string | undefined =>
      shape.required.has(key) ? shape.properties.get(key)?.find((s) => s.const !== undefined)?.const : undefined;
    const first = shapes[0];
    const key = first === undefined ? undefined : [...first.shape.properties.keys()].find((candidate) =>
      shapes.every(({ shape }) => tagOf(shape, candidate) !== undefined));
    const found = key === undefined ? null : {
      key,
      arms: new Map(shapes.map(({ arm, shape }) => [tagOf(shape, key) as string, arm])),
    };
    this.discriminators.set(arms, found);
    return found;
  }
}
