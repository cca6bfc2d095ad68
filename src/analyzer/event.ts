import { asString, isObject, type JsonObject } from '../json.ts';

/** An event that passed enforcement: an object whose `type` the judged version describes. */
export interface Ev extends JsonObject {
  type: string;
}

/** The owner lane of an event: a subagent invocation, or '' for the parent agent. */
export function ownerOf(ev: JsonObject): string {
  const tag = ev.subagentRunId;
  return typeof tag === 'string' ? tag : '';
}

export function str(ev: JsonObject, key: string): string | undefined {
  return asString(ev[key]);
}

export function describeOwner(owner: string): string {
  return owner === '' ? 'the parent agent' : `subagent ${JSON.stringify(owner)}`;
}

export { isObject };
