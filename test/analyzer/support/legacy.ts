import { generateScenario, type Event, type Scenario } from './grammar.ts';
import type { Rng } from './prng.ts';

/**
 * Event types a pre-1.0 protobuf producer can send at all: the values of @ag-ui/proto 0.0.59's `EventType`
 * enum. Its encoder throws on any other type (the chunk events have an envelope variant but no enum value),
 * or writes an envelope with no variant, which its decoder rejects.
 */
const PROTO_059_TYPES: ReadonlySet<string> = new Set([
  'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END', 'TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END',
  'STATE_SNAPSHOT', 'STATE_DELTA', 'MESSAGES_SNAPSHOT', 'RAW', 'CUSTOM', 'RUN_STARTED', 'RUN_FINISHED', 'RUN_ERROR',
  'STEP_STARTED', 'STEP_FINISHED', 'SUBAGENT_STARTED', 'SUBAGENT_FINISHED', 'SUBAGENT_ERROR',
]);

const CHUNKS = new Set(['TEXT_MESSAGE_CHUNK', 'TOOL_CALL_CHUNK', 'REASONING_MESSAGE_CHUNK']);

/** A thinking block as pre-1.0 producers streamed reasoning, before REASONING_* existed. */
function thinkingBlock(rng: Rng): Event[] {
  const out: Event[] = [rng.chance(0.5) ? { type: 'THINKING_START', title: 'Considering the request' } : { type: 'THINKING_START' }];
  for (let m = rng.int(0, 2); m > 0; m--) {
    out.push({ type: 'THINKING_TEXT_MESSAGE_START' });
    for (let n = rng.int(0, 3); n > 0; n--) out.push({ type: 'THINKING_TEXT_MESSAGE_CONTENT', delta: rng.text(1, 30) });
    out.push({ type: 'THINKING_TEXT_MESSAGE_END' });
  }
  out.push({ type: 'THINKING_END' });
  return out;
}

/** What a pre-1.0 producer does to one event of the 1.0 grammar: no version, none of 1.0's additions, and its own habits. */
function legacyEvent(rng: Rng, ev: Event): Event {
  const out = structuredClone(ev);
  if (out.type === 'RUN_STARTED') {
    delete out.protocolVersion;
    if (typeof out.input === 'object' && out.input !== null) delete (out.input as Record<string, unknown>).protocolVersion;
  }
  if (out.type === 'RUN_FINISHED' && typeof out.outcome === 'object' && out.outcome !== null) {
    // 0.0.59's RunFinishedOutcomeSchema is a strict union of success and interrupt: no cancelled outcome, no pendingToolCallIds.
    const outcome = out.outcome as Record<string, unknown>;
    if (outcome.type === 'cancelled') delete out.outcome;
    delete outcome.pendingToolCallIds;
  }
  // Pre-1.0 SDKs serialised unset optionals as null where 0.0.59's schemas allow it (nullable parentMessageId, outcome; any result and rawEvent).
  if (out.type === 'TOOL_CALL_START' && out.parentMessageId === undefined && rng.chance(0.2)) out.parentMessageId = null;
  if (out.type === 'RUN_FINISHED' && rng.chance(0.15)) out[rng.pick(out.outcome === undefined ? ['outcome', 'result'] : ['result'])] ??= null;
  if (rng.chance(0.03)) out.rawEvent = null;
  if (rng.chance(0.1)) out.timestamp = 1_760_000_000_000 + rng.int(0, 1e6);
  // Framework members the event schemas let through (BaseEventSchema is passthrough).
  if (rng.chance(0.05)) out.langgraphNode = rng.pick(['agent', 'tools', '__end__']);
  return out;
}

/**
 * A pre-1.0 exchange: the 1.0 grammar's scenario with `protocolVersion` gone from the input and from every
 * RUN_STARTED (and its input echo), as a producer built on @ag-ui/core 0.0.59 sends it — legacy THINKING_*
 * blocks between items (SSE only: the 0.0.59 envelope has no variant for them), nulls for unset optionals,
 * timestamps, framework members — and, over protobuf, only the events its envelope can carry.
 */
export function generateLegacyScenario(rng: Rng, seq: number, transport: 'sse' | 'protobuf'): Scenario {
  const { input, events } = generateScenario(rng, seq);
  delete input.protocolVersion;
  const out: Event[] = [];
  let inRun = false;
  // A result the envelope cannot carry never reached the consumer, so a snapshot restating it would be news to it.
  const unsent = new Set(transport === 'protobuf' ? events.filter((e) => e.type === 'TOOL_CALL_RESULT').map((e) => e.messageId) : []);
  for (const ev of events) {
    if (transport === 'protobuf' && !PROTO_059_TYPES.has(ev.type)) continue;
    if (ev.type === 'MESSAGES_SNAPSHOT' && unsent.size > 0) ev.messages = (ev.messages as { id?: unknown }[]).filter((m) => !unsent.has(m.id));
    // A thinking block lands between items of a run, never inside a chunk burst it would close.
    if (transport === 'sse' && inRun && !CHUNKS.has(ev.type) && rng.chance(0.06)) out.push(...thinkingBlock(rng));
    out.push(legacyEvent(rng, ev));
    if (ev.type === 'RUN_STARTED') inRun = true;
    if (ev.type === 'RUN_FINISHED' || ev.type === 'RUN_ERROR') inRun = false;
  }
  return { input, events: out };
}
