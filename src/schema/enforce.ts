import { isObject, pointerToken, type JsonObject } from '../json.ts';
import type { ProtocolVersion } from '../rules/index.ts';
import { eventDefinitions, schemaFor, type JsonSchema } from './protocol.ts';
import { DEFS, hasType, Shapes, type JsonType, type Shape } from './shape.ts';
import type { Enforcement, Enforcer, SchemaError, Strip } from './types.ts';
import type { StandaloneValidator, ValidatorError } from './validator.ts';
import { quickChecksOf, validatorsOf } from './validators.ts';

/*
 * The processing model's enforcement stage. A valid event or input costs one quick check compiled from
 * the schema (quick.ts), or where that cannot tell, one generated validator call (validators.ts).
 * Only a value that fails is walked against the schema-as-data, which decides what a consumer
 * of the version strips and collects readable errors; the stripped copy is then validated
 * again, so the verdict is always the generated validator's.
 */

interface EventType {
  type: string;
  definition: string;
  /** True only for an event the validator accepts; false sends it to the validator (quick.ts). */
  quick: (event: unknown) => boolean;
  /** The definition's validator, fetched the first time an event of the type fails its quick check. */
  validator: StandaloneValidator | null;
}

const notQuick = (): boolean => false;

/** A version's event types, looked up once per event. */
function eventTypesOf(version: ProtocolVersion): ReadonlyMap<string, EventType> {
  const types = new Map<string, EventType>();
  for (const [type, definition] of eventDefinitions(version)) {
    types.set(type, { type, definition, quick: quickChecksOf(version).quickChecks.get(type) ?? notQuick, validator: null });
  }
  return types;
}

function validatorOf(known: EventType, version: ProtocolVersion): StandaloneValidator {
  return (known.validator ??= validatorsOf(version).eventValidators.get(known.type)!);
}

/** Each version's, built when it is first judged (schemaFor). */
const eventTypes: Partial<Record<ProtocolVersion, ReadonlyMap<string, EventType>>> = {};

/** Shared by every clean result; frozen, so a caller that tried to add to it would fail loudly. */
const NO_STRIPS = Object.freeze([]) as unknown as Strip[];

const child = (pointer: string, key: string | number): string => `${pointer}/${pointerToken(key)}`;

/** Own keys only: a `__proto__` or `constructor` member from JSON.parse is data, never the prototype. */
const hasOwn = (value: JsonObject, key: string): boolean => Object.prototype.hasOwnProperty.call(value, key);

/** Plain assignment of `__proto__` would replace the copy's prototype instead of adding the member. */
function put(target: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

const ARTICLE: Record<JsonType, string> = {
  object: 'an object', array: 'an array', string: 'a string', integer: 'an integer', boolean: 'a boolean',
};

/** A short, bounded rendering of a received value: messages must stay readable for megabyte strings. */
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string': return `string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
    case 'number': return `number ${String(value)}`;
    case 'boolean': return `boolean ${String(value)}`;
    case 'object': return 'an object';
    default: return typeof value;
  }
}

/** What the walker concludes about one value. */
type Outcome =
  | { kind: 'ok'; value: unknown }
  /** The value is, or holds in a required position, material the version does not describe. */
  | { kind: 'unrecognised'; trigger: string; definition: string; discriminator?: string }
  | { kind: 'malformed' };

const MALFORMED: Outcome = { kind: 'malformed' };

function memberStrip(path: string, outcome: Extract<Outcome, { kind: 'unrecognised' }>, removed: unknown): Strip {
  const { trigger, definition, discriminator } = outcome;
  return { path, trigger, reason: 'unknown-member', definition, ...(discriminator === undefined ? {} : { discriminator }), removed };
}

/** One per version, so the derived shapes are computed once; `begin` starts a fresh judgement. */
class Walker {
  strips: Strip[] = [];
  errors: SchemaError[] = [];
  private readonly patterns = new Map<string, RegExp>();

  constructor(private readonly shapes: Shapes) {}

  begin(): this {
    this.strips = [];
    this.errors = [];
    return this;
  }

  check(value: unknown, schema: JsonSchema, pointer: string, label: string): Outcome {
    let current = value;
    if (schema.$ref !== undefined) {
      const name = schema.$ref.slice(DEFS.length);
      const outcome = this.check(current, this.shapes.resolve(schema.$ref), pointer, name);
      if (outcome.kind !== 'ok') return outcome;
      current = outcome.value;
    }
    if (schema.not !== undefined && current === null) return this.fail(pointer, 'must not be null');
    if (schema.oneOf !== undefined) {
      const outcome = this.union(current, schema.oneOf, pointer, label);
      if (outcome.kind !== 'ok') return outcome;
      current = outcome.value;
    }
    if (schema.type !== undefined && !hasType(current, schema.type)) {
      return this.fail(pointer, `expected ${ARTICLE[schema.type]}, received ${describe(current)}`);
    }
    if (schema.const !== undefined && current !== schema.const) {
      return this.fail(pointer, `expected ${JSON.stringify(schema.const)}, received ${describe(current)}`);
    }
    if (typeof current === 'string') {
      if (schema.enum !== undefined && !schema.enum.includes(current)) {
        return { kind: 'unrecognised', trigger: pointer, definition: label };
      }
      if (schema.pattern !== undefined && !this.pattern(schema.pattern).test(current)) {
        return this.fail(pointer, `${describe(current)} is not a valid ${label}`);
      }
    }
    if (typeof current === 'number') {
      if (schema.minimum !== undefined && current < schema.minimum) return this.fail(pointer, `must be >= ${schema.minimum}, received ${describe(current)}`);
      if (schema.maximum !== undefined && current > schema.maximum) return this.fail(pointer, `must be <= ${schema.maximum}, received ${describe(current)}`);
    }
    if (Array.isArray(current) && schema.items !== undefined) return this.list(current, schema, pointer, label);
    if (isObject(current) && (schema.properties !== undefined || schema.allOf !== undefined)) {
      return this.object(current, this.shapes.shape(schema), pointer, label);
    }
    return { kind: 'ok', value: current };
  }

  private list(value: readonly unknown[], schema: JsonSchema, pointer: string, label: string): Outcome {
    const items = schema.items as JsonSchema;
    const kept: unknown[] = [];
    let malformed = false;
    value.forEach((element, index) => {
      const at = child(pointer, index);
      const outcome = this.check(element, items, at, `${label}[]`);
      if (outcome.kind === 'unrecognised') {
        this.strips.push(memberStrip(at, outcome, element));
        return;
      }
      if (outcome.kind === 'malformed') malformed = true;
      kept.push(outcome.kind === 'ok' ? outcome.value : element);
    });
    // Judged after stripping, as the stripped list is what the consumer keeps.
    if (schema.minItems !== undefined && kept.length < schema.minItems) {
      return this.fail(pointer, `must hold at least ${schema.minItems} item(s), holds ${kept.length}`);
    }
    return malformed ? MALFORMED : { kind: 'ok', value: kept };
  }

  private object(value: JsonObject, shape: Shape, pointer: string, label: string): Outcome {
    const marks = [this.strips.length, this.errors.length] as const;
    const kept: JsonObject = {};
    let malformed = false;
    for (const key of Object.keys(value)) {
      const at = child(pointer, key);
      const member = value[key];
      const schemas = shape.properties.get(key);
      if (schemas === undefined) {
        if (shape.closed) this.strips.push({ path: at, trigger: at, reason: 'unknown-property', definition: label, removed: member });
        else put(kept, key, member);
        continue;
      }
      let outcome: Outcome = { kind: 'ok', value: member };
      for (const schema of schemas) {
        outcome = this.check(outcome.kind === 'ok' ? outcome.value : member, schema, at, `${label}.${key}`);
        if (outcome.kind !== 'ok') break;
      }
      if (outcome.kind === 'unrecognised') {
        if (shape.required.has(key)) {
          // The container goes, so nothing found inside it still matters.
          this.strips.length = marks[0];
          this.errors.length = marks[1];
          return outcome;
        }
        this.strips.push(memberStrip(at, outcome, member));
        continue;
      }
      if (outcome.kind === 'malformed') malformed = true;
      put(kept, key, outcome.kind === 'ok' ? outcome.value : member);
    }
    for (const key of shape.required) {
      if (!hasOwn(value, key)) {
        this.fail(child(pointer, key), `missing required property ${JSON.stringify(key)}`);
        malformed = true;
      }
    }
    return malformed ? MALFORMED : { kind: 'ok', value: kept };
  }

  private union(value: unknown, arms: readonly JsonSchema[], pointer: string, label: string): Outcome {
    const discriminator = this.shapes.discriminator(arms);
    if (discriminator === null) {
      const arm = arms.find((candidate) => candidate.type !== undefined && hasType(value, candidate.type));
      if (arm === undefined) {
        const expected = arms.map((candidate) => (candidate.type === undefined ? 'a value' : ARTICLE[candidate.type]));
        return this.fail(pointer, `expected ${expected.join(' or ')}, received ${describe(value)}`);
      }
      return this.check(value, arm, pointer, label);
    }
    const { key, arms: byTag } = discriminator;
    if (!isObject(value)) return this.fail(pointer, `expected an object (${label}), received ${describe(value)}`);
    if (!hasOwn(value, key)) return this.fail(child(pointer, key), `missing required property ${JSON.stringify(key)}`);
    const tag = value[key];
    if (typeof tag !== 'string') return this.fail(child(pointer, key), `expected a string, received ${describe(tag)}`);
    const arm = byTag.get(tag);
    if (arm === undefined) return { kind: 'unrecognised', trigger: pointer, definition: label, discriminator: key };
    return this.check(value, arm, pointer, label);
  }

  private fail(pointer: string, message: string): Outcome {
    this.errors.push({ path: pointer, message });
    return MALFORMED;
  }

  private pattern(source: string): RegExp {
    let regexp = this.patterns.get(source);
    if (regexp === undefined) {
      regexp = new RegExp(source, 'u');
      this.patterns.set(source, regexp);
    }
    return regexp;
  }
}

/** ajv stops at the first error; point at the offending member rather than at its parent. */
function fromAjv(errors: readonly ValidatorError[] | null | undefined): SchemaError[] {
  return (errors ?? []).map((error) => {
    const { missingProperty, unevaluatedProperty } = error.params as { missingProperty?: string; unevaluatedProperty?: string };
    const member = missingProperty ?? unevaluatedProperty;
    return {
      path: member === undefined ? error.instancePath : child(error.instancePath, member),
      message: error.message ?? `fails ${error.keyword}`,
    };
  });
}

/** Built for a version when a value of it first fails its check; most streams never need one. */
const walkers: Partial<Record<ProtocolVersion, Walker>> = {};

type Judgement =
  | { kind: 'ok'; value: unknown; stripped: Strip[] }
  | { kind: 'removed'; cause: Strip }
  | { kind: 'fatal'; errors: SchemaError[]; stripped: Strip[] };

function judge(value: JsonObject, definition: string, validator: StandaloneValidator, version: ProtocolVersion): Judgement {
  if (validator(value)) return { kind: 'ok', value, stripped: [] };
  const walker = (walkers[version] ??= new Walker(new Shapes(schemaFor(version).$defs ?? {}))).begin();
  const outcome = walker.check(value, { $ref: `${DEFS}${definition}` }, '', definition);
  if (outcome.kind === 'unrecognised') {
    return { kind: 'removed', cause: memberStrip('', outcome, value) };
  }
  const stripped = outcome.kind === 'ok' ? outcome.value : value;
  if (validator(stripped)) return { kind: 'ok', value: stripped, stripped: walker.strips };
  // The walker's messages read better; should it ever miss what ajv rejects, ajv's errors stand in.
  const errors = walker.errors.length > 0 ? walker.errors : fromAjv(validator.errors);
  return { kind: 'fatal', errors, stripped: walker.strips };
}

function valid(value: unknown, version: ProtocolVersion): boolean {
  if (!isObject(value) || !hasOwn(value, 'type') || typeof value.type !== 'string') return false;
  const known = (eventTypes[version] ??= eventTypesOf(version)).get(value.type);
  return known !== undefined && known.quick(value);
}

function event(value: unknown, version: ProtocolVersion): Enforcement {
  if (!isObject(value)) {
    return { verdict: 'fatal', errors: [{ path: '', message: `expected an event object, received ${describe(value)}` }], stripped: [] };
  }
  if (!hasOwn(value, 'type')) return { verdict: 'fatal', errors: [{ path: '/type', message: 'missing required property "type"' }], stripped: [] };
  const type = value.type;
  if (typeof type !== 'string') {
    return { verdict: 'fatal', errors: [{ path: '/type', message: `expected a string, received ${describe(type)}` }], stripped: [] };
  }
  const known = (eventTypes[version] ??= eventTypesOf(version)).get(type);
  if (known === undefined) return { verdict: 'dropped', type };
  // Nearly every event is valid: one quick check (or, failing it, one validator call) and one small object, nothing else.
  if (known.quick(value)) return { verdict: 'ok', value, stripped: NO_STRIPS };
  const validator = validatorOf(known, version);
  if (validator(value)) return { verdict: 'ok', value, stripped: NO_STRIPS };
  const judgement = judge(value, known.definition, validator, version);
  switch (judgement.kind) {
    case 'ok': return { verdict: 'ok', value: judgement.value, stripped: judgement.stripped };
    case 'removed': return { verdict: 'dropped', type, cause: judgement.cause };
    case 'fatal': return { verdict: 'fatal', errors: judgement.errors, stripped: judgement.stripped, type };
  }
}

function input(value: unknown, version: ProtocolVersion): Enforcement {
  if (!isObject(value)) {
    return { verdict: 'fatal', errors: [{ path: '', message: `expected a RunAgentInput object, received ${describe(value)}` }], stripped: [] };
  }
  // A valid input is settled by its quick check: ajv's largest validator then never runs, so V8 never compiles it.
  const judgement: Judgement = quickChecksOf(version).quickInput(value)
    ? { kind: 'ok', value, stripped: [] }
    : judge(value, 'RunAgentInput', validatorsOf(version).RunAgentInput, version);
  switch (judgement.kind) {
    case 'ok': return { verdict: 'ok', value: judgement.value, stripped: judgement.stripped };
    // An input cannot be dropped the way an event is: nothing would be sent at all.
    case 'removed': return {
      verdict: 'fatal',
      errors: [{ path: judgement.cause.trigger, message: `unrecognised ${judgement.cause.definition} in a required position of the input` }],
      stripped: [],
    };
    case 'fatal': return { verdict: 'fatal', errors: judgement.errors, stripped: judgement.stripped };
  }
}

/**
 * Never throws for any JSON value: the walk follows the schema, which has no recursive
 * definition, so its depth is bounded whatever the nesting of the arbitrary-JSON members.
 * The received value is never mutated; an `ok` value shares untouched members with it.
 */
export const enforce: Enforcer = { event, valid, input };
