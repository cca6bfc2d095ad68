/** Who executes a tool call, as the Timing and the Tools view both say it. */
import { isObject, type JsonObject } from '../json.ts';

export type ToolSide = 'frontend' | 'backend' | 'unknown';

/** `frontend` when the input's `tools` declares it, `backend` when its result came in the stream, else `unknown`. */
export function toolSide(declared: boolean, resultInStream: boolean): ToolSide {
  return declared ? 'frontend' : resultInStream ? 'backend' : 'unknown';
}

/** The tools the input declares, by name (the first of a name, as a producer reading the list would meet it). */
export function declaredTools(input: JsonObject | null): Map<string, JsonObject> {
  const out = new Map<string, JsonObject>();
  const tools = input?.tools;
  if (Array.isArray(tools)) for (const t of tools) if (isObject(t) && typeof t.name === 'string' && !out.has(t.name)) out.set(t.name, t);
  return out;
}

