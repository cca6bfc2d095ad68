import { isObject } from '../json.ts';
import { defineRules, makeFinding, type Finding, type ProtocolVersion } from '../rules/index.ts';
import type { Enforcement, SchemaError, Strip } from './types.ts';

const UNRECOGNISED = 'basic/processing#what-a-consumer-does-with-unrecognised-material';

export const SCHEMA_RULES = defineRules({
  malformed: {
    id: 'schema/malformed',
    category: 'schema',
    severity: 'error',
    fatal: true,
    spec: 'basic/processing#the-rule',
    title: 'A field the protocol describes carries a value the schema rejects; the consumer must fail the run',
  },
  eventType: {
    id: 'unrecognised/event-type',
    category: 'unrecognised',
    severity: 'warning',
    fatal: false,
    spec: UNRECOGNISED,
    title: 'Event of a type this version does not describe; a consumer drops it',
  },
  property: {
    id: 'unrecognised/property',
    category: 'unrecognised',
    severity: 'warning',
    fatal: false,
    spec: UNRECOGNISED,
    title: 'Property a closed protocol object does not describe; a consumer strips it',
  },
  unionMember: {
    id: 'unrecognised/union-member',
    category: 'unrecognised',
    severity: 'warning',
    fatal: false,
    spec: UNRECOGNISED,
    title: 'Union member or closed-set string this version does not describe; a consumer strips it, or the value holding it',
  },
});

/** What the absence left behind by a strip means, where the spec gives it a meaning worth saying. */
const ABSENCE: ReadonlyMap<string, string> = new Map([
  ['RUN_FINISHED/outcome', 'an absent outcome means success'],
  ['TEXT_MESSAGE_START/role', 'an absent role means assistant'],
]);

function decode(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

const tokens = (pointer: string): string[] => (pointer === '' ? [] : pointer.slice(1).split('/').map(decode));

/** `/messages/0/content` → `.messages[0].content`: how a developer would write the access. */
function dotted(pointer: string): string {
  return tokens(pointer).map((token) => {
    if (/^(0|[1-9]\d*)$/.test(token)) return `[${token}]`;
    if (/^[A-Za-z_$][\w$]*$/.test(token)) return `.${token}`;
    return `[${JSON.stringify(token)}]`;
  }).join('');
}

/** The string no variant or enum names, read out of the removed value. */
function tagOf(strip: Strip): unknown {
  let value = strip.removed;
  const rest = tokens(strip.trigger.slice(strip.path.length));
  for (const token of strip.discriminator === undefined ? rest : [...rest, strip.discriminator]) {
    value = isObject(value) && Object.prototype.hasOwnProperty.call(value, token) ? value[token] : undefined;
  }
  return value;
}

function preview(value: unknown): string {
  const text = typeof value === 'string' ? value : String(value);
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

function stripMessage(subject: string, strip: Strip, version: ProtocolVersion): string {
  const where = `${subject}${dotted(strip.trigger)}${strip.discriminator === undefined ? '' : dotted(`/${strip.discriminator}`)}`;
  if (strip.reason === 'unknown-property') {
    return `${where} is not a property of ${strip.definition} in AG-UI ${version}: a ${version} consumer strips ${strip.path}`;
  }
  const head = `${where} ${preview(tagOf(strip))} is not a ${version} ${strip.definition}`;
  if (strip.path === '') {
    return `${head}: it sits in a required position, so a ${version} consumer drops the whole ${subject} event`;
  }
  if (strip.path !== strip.trigger) {
    return `${head}: it sits in a required position, so a ${version} consumer removes the value holding it, ${strip.path}`;
  }
  const absence = ABSENCE.get(`${subject}${strip.path}`);
  return `${head}: a ${version} consumer strips ${strip.path}${absence === undefined ? '' : ` (${absence})`}`;
}

function errorMessage(subject: string, error: SchemaError, input: boolean): string {
  const consequence = input ? 'the input must be rejected before anything is sent' : 'a conforming consumer fails the run';
  return `${subject}${dotted(error.path)}: ${error.message}. A malformed known value is fatal: ${consequence}`;
}

function stripFinding(subject: string, strip: Strip, version: ProtocolVersion, event: number | null): Finding {
  const rule = strip.reason === 'unknown-property' ? SCHEMA_RULES.property : SCHEMA_RULES.unionMember;
  return makeFinding(rule, version, stripMessage(subject, strip, version), { event, path: strip.path });
}

/**
 * One finding per strip and per error of an enforcement result. `event` is the event's index, or
 * null when the result is the run input's.
 */
export function enforcementFindings(result: Enforcement, version: ProtocolVersion, event: number | null): Finding[] {
  const input = event === null;
  switch (result.verdict) {
    case 'ok': {
      const type = isObject(result.value) ? result.value.type : undefined;
      const subject = input ? 'RunAgentInput' : typeof type === 'string' ? type : 'event';
      return result.stripped.map((strip) => stripFinding(subject, strip, version, event));
    }
    case 'dropped':
      if (result.cause !== undefined) return [stripFinding(result.type, result.cause, version, event)];
      return [makeFinding(
        SCHEMA_RULES.eventType, version,
        `Event type ${preview(result.type)} is not described by AG-UI ${version}: a ${version} consumer drops the event`,
        { event, path: '' },
      )];
    case 'fatal': {
      const subject = input ? 'RunAgentInput' : result.type ?? 'event';
      return [
        ...result.stripped.map((strip) => stripFinding(subject, strip, version, event)),
        ...result.errors.map((error) => makeFinding(SCHEMA_RULES.malformed, version, errorMessage(subject, error, input), { event, path: error.path })),
      ];
    }
  }
}
