/**
 * Judging the traffic of peers from before 1.0.
 *
 * An exchange is *pre-1.0* when neither side declares a `protocolVersion`: the input carries none and no
 * `RUN_STARTED` does. Absence identifies a peer from before the protocol carried a version
 * (basic/run-input#protocolversion), and every framework release on npm still ships such a stack. What a
 * pre-1.0 client does is outside the specification, so the pre-1.0 reference client (`@ag-ui/client`
 * 0.0.59, what current CopilotKit ships) defines the exchange's present-day verdict; rules whose breach
 * hurts any client stay findings. Everything else a 1.0 consumer would strip, reject or read differently
 * is a *1.0-readiness* item: shown apart, never failing the exchange. A party that does not know its
 * peer's version behaves as though the peer were current (basic/versioning), which is the 1.0 reading
 * the readiness items come from.
 *
 * The table below is data: each rule's reading for a pre-1.0 exchange, with why. A rule not listed keeps
 * its 1.0 severity and fatality (the 0.0.59 client enforces the same: its verifyEvents throws on every
 * lifecycle, discipline, subagent and resume violation the 1.0 rules describe).
 */
import { isObject, type JsonObject } from '../json.ts';
import type { Finding } from '../rules/index.ts';

interface Reading {
  /** `readiness`: only a 1.0 consumer is affected; `finding`: the app's bug today as well. */
  reading: 'readiness' | 'finding';
  /** For `finding`: whether the pre-1.0 client rejects the run, when that differs from the 1.0 rule. */
  fatal?: boolean;
  why: string;
}

/** Keyed by rule id; a Map, so a key that spells an Object.prototype member finds nothing. */
export const PRE_1_0_READINGS: ReadonlyMap<string, Reading> = new Map(Object.entries({
  'version/consumer-undeclared': {
    reading: 'readiness',
    why: 'basic/run-input#protocolversion: absence identifies a peer from before the protocol carried a version; only a consumer implementing 1.0 must declare',
  },
  'version/producer-undeclared': {
    reading: 'readiness',
    why: 'basic/versioning#version-negotiation: an undeclared RUN_STARTED identifies a pre-versioning producer; a 1.0 producer must declare',
  },
  'unrecognised/property': {
    reading: 'readiness',
    why: "basic/processing: stripping is what a 1.0 consumer does; @ag-ui/core 0.0.59's event schemas pass unknown members through (BaseEventSchema.passthrough())",
  },
  'unrecognised/union-member': {
    reading: 'finding',
    fatal: true,
    why: "@ag-ui/core 0.0.59 checks closed sets as zod enums, literals and discriminated unions, so a member it does not describe fails EventSchemas.parse and @ag-ui/client 0.0.59 errors the run (a 1.0 consumer strips it, basic/processing); the JSON Patch lists it types z.array(z.any()) let an undescribed operation through to applyPatch, which only warns: those are readiness items (pre10ReadinessOnly)",
  },
  'unrecognised/event-type': {
    reading: 'finding',
    fatal: true,
    why: "@ag-ui/core 0.0.59's EventSchemas is a discriminated union over its EventType enum, so @ag-ui/client 0.0.59 errors the run on any other type (a 1.0 consumer drops it, basic/processing); the retired THINKING_* events it still knows (basic/versioning#retired-shapes) are readiness items (pre10ReadinessOnly)",
  },
  'streaming/reasoning-already-open': {
    reading: 'readiness',
    why: "events/reasoning: 1.0 pairs each reasoning message and span by messageId; @ag-ui/client 0.0.59's verifyEvents only checks a REASONING_START or REASONING_MESSAGE_START against its opener's subagent, never whether the id is already open",
  },
  'streaming/reasoning-not-open': {
    reading: 'readiness',
    why: "events/reasoning: 1.0 requires an open reasoning message or span before its content and end; @ag-ui/client 0.0.59's verifyEvents lets REASONING_MESSAGE_CONTENT, REASONING_MESSAGE_END and REASONING_END through with no opener (defaultApplyEvents only warns)",
  },
  'interrupt/asked-as-success': {
    reading: 'readiness',
    why: "basic/patterns/interrupt-resume#interrupting: 1.0 ends a run that stopped to ask with the interrupt outcome only; pre-1.0 adapters (@ag-ui/langgraph, @ag-ui/mastra) announce it with a CUSTOM on_interrupt event and finish as success, the convention @ag-ui/client 0.0.59 and CopilotKit act on",
  },
  'input/echo-differs': {
    reading: 'readiness',
    why: 'events/lifecycle#run_started: informational; a pre-1.0 producer may echo the input in its own, older shape',
  },
  // The spec's errors below stay findings with their severity; the pre-1.0 client completes the run regardless.
  'identity/run-id-mismatch': {
    reading: 'finding',
    fatal: false,
    why: "basic/run-input#identity: a run's boundary events must agree on runId; @ag-ui/client 0.0.59's verifyEvents never compares them (@ag-ui/langgraph puts the LangGraph server's run id on RUN_FINISHED), so the pre-1.0 client completes the run",
  },
  'identity/thread-id-mismatch': {
    reading: 'finding',
    fatal: false,
    why: "basic/run-input#identity: every run's boundary events carry the input's threadId; @ag-ui/client 0.0.59 never compares them with the input",
  },
  'identity/requested-run-id': {
    reading: 'finding',
    fatal: false,
    why: "basic/run-input#identity: the stream's last run echoes the input's runId; @ag-ui/client 0.0.59 does not check",
  },
  'lifecycle/truncated': {
    reading: 'finding',
    fatal: false,
    why: 'basic/transports#truncation: a run with no terminal event has no outcome; @ag-ui/client 0.0.59 checks nothing at the end of the body and completes the run',
  },
} satisfies Record<string, Reading>));

/** How one finding reads in a pre-1.0 exchange judged by default. */
export function pre10Reading(rule: string): Reading | undefined {
  return PRE_1_0_READINGS.get(rule);
}

/**
 * Top-level members @ag-ui/core 0.0.59 lets a pre-1.0 producer set to null — declared nullable
 * (ToolCallStartEventSchema.parentMessageId, RunFinishedEventSchema.outcome) or any (every event's rawEvent,
 * RUN_FINISHED's and SUBAGENT_FINISHED's result) — where 1.0 says absent only by omission
 * (basic#absent-means-absent), so the 1.0 reading finds the value malformed. `*` is every event type.
 */
const PRE_1_0_NULLABLE: ReadonlyMap<string, readonly string[]> = new Map([
  ['*', ['rawEvent']],
  ['TOOL_CALL_START', ['parentMessageId']],
  ['TOOL_CALL_CHUNK', ['parentMessageId']],
  ['RUN_FINISHED', ['outcome', 'result']],
  ['SUBAGENT_FINISHED', ['result']],
]);

/**
 * The event as the pre-1.0 client reads it — those nulls gone, as absent — and the JSON Pointers of what
 * went; null when there was none. Its malformed-null findings are readiness items, and the pre-1.0 reading
 * verifies the event as read rather than losing it (and everything that follows from it).
 */
export function withoutPre10Nulls(event: unknown): { event: JsonObject; paths: string[] } | null {
  if (!isObject(event)) return null;
  const keys = [...PRE_1_0_NULLABLE.get('*')!, ...(typeof event.type === 'string' ? PRE_1_0_NULLABLE.get(event.type) ?? [] : [])].filter((k) => event[k] === null);
  if (keys.length === 0) return null;
  const read = { ...event };
  for (const k of keys) delete read[k];
  return { event: read, paths: keys.map((k) => `/${k}`) };
}

/** The 0.x event types 1.0 retired for the reasoning family (changelog), which @ag-ui/client 0.0.59 still validates and verifies. */
const RETIRED_EVENT_TYPES: ReadonlySet<string> = new Set(['THINKING_START', 'THINKING_END', 'THINKING_TEXT_MESSAGE_START', 'THINKING_TEXT_MESSAGE_CONTENT', 'THINKING_TEXT_MESSAGE_END']);

/** Events whose JSON Patch list @ag-ui/core 0.0.59 types z.array(z.any()): any operation reaches applyPatch, which warns on one it cannot apply. */
const UNTYPED_PATCHES: ReadonlySet<string> = new Set(['STATE_DELTA', 'ACTIVITY_DELTA']);

/** Members 1.0 requires that @ag-ui/core 0.0.59 types z.any(), which a missing member satisfies: the client applies the event. */
const UNTYPED_REQUIRED: ReadonlyMap<string, string> = new Map([['STATE_SNAPSHOT', 'snapshot'], ['RAW', 'event'], ['CUSTOM', 'value']]);

/**
 * Whether one enforcement finding on `event` is a 1.0-readiness item of a pre-1.0 exchange although its rule
 * reads otherwise (PRE_1_0_READINGS), the pre-1.0 client accepting what the rest of the rule covers it
 * rejecting: a null it reads as absent (`nulls`, the paths withoutPre10Nulls removed), a required member it
 * types z.any() left out, a retired THINKING_* event, an operation 1.0 does not describe in a patch list it
 * leaves untyped.
 */
export function pre10ReadinessOnly(f: Finding, event: unknown, nulls: readonly string[]): boolean {
  if (!isObject(event)) return false;
  const type = typeof event.type === 'string' ? event.type : '';
  switch (f.rule) {
    case 'schema/malformed': {
      const untyped = UNTYPED_REQUIRED.get(type);
      return nulls.includes(f.path ?? '') || (untyped !== undefined && f.path === `/${untyped}` && !(untyped in event));
    }
    case 'unrecognised/event-type':
      return RETIRED_EVENT_TYPES.has(type);
    case 'unrecognised/union-member':
      return UNTYPED_PATCHES.has(type);
    default:
      return false;
  }
}

/** Where a pre-1.0 input's reading differs: a JSON Pointer pattern (`*` any array index) and what 0.0.59 accepts there. */
export interface InputReading {
  at: string;
  /** `any`: every value, at and under `at` (z.any()); `legacy-binary`: the 0.x binary content part of a user message. */
  accepts: 'any' | 'legacy-binary';
  why: string;
}

/**
 * Where @ag-ui/core 0.0.59's RunAgentInputSchema (what a pre-1.0 client builds its input with, and a pre-1.0
 * agent parses it with) accepts a request body that 1.0 rejects or strips. An enforcement finding there is a
 * 1.0-readiness item of a pre-1.0 exchange; anywhere else the 1.0 reading stands, since 0.0.59 rejects what
 * 1.0 finds malformed there too (its other members are typed as strictly, and it strips unknown members as
 * 1.0 does). test/analyzer/input-differential.test.ts proves the table against RunAgentInputSchema.safeParse.
 */
export const PRE_1_0_INPUT: readonly InputReading[] = [
  {
    at: '/state',
    accepts: 'any',
    why: "RunAgentInputSchema.state is z.any() (a null read as absent: .transform(v => v ?? undefined)), and 0.0.59's HttpAgent sends \"state\": null until the agent gave it one; 1.0 leaves a member with no value out (basic#absent-means-absent, basic/run-input#state)",
  },
  {
    at: '/forwardedProps',
    accepts: 'any',
    why: 'RunAgentInputSchema.forwardedProps is z.any(); 1.0 leaves a member with no value out (basic#absent-means-absent, basic/run-input#forwardedprops)',
  },
  {
    at: '/tools/*/parameters',
    accepts: 'any',
    why: "ToolSchema.parameters is z.any(); 1.0 wants a JSON Schema object there (basic/run-input#tools)",
  },
  {
    at: '/resume/*/payload',
    accepts: 'any',
    why: 'ResumeEntrySchema.payload is z.any().optional(); 1.0 leaves a payload with no value out (basic#absent-means-absent, basic/run-input#resume)',
  },
  {
    at: '/messages/*/content/*/metadata',
    accepts: 'any',
    why: "0.0.59's media parts type metadata z.unknown().optional() and its text part has none (stripped); 1.0 gives every part a metadata object, absent only by omission (basic/run-input#messages, basic#absent-means-absent)",
  },
  {
    at: '/messages/*/content/*',
    accepts: 'legacy-binary',
    why: "UserMessageSchema's content parts include the 0.x binary part (LegacyBinaryInputContentObjectSchema: a mimeType and at least one of id, url, data); 1.0 describes no binary part, so a 1.0 producer strips it as an unrecognised union member (basic/run-input#messages, basic/processing)",
  },
];

/** Whether pointer tokens `path` lie at or under the pattern's tokens, `*` standing for an array index. */
function under(pattern: readonly string[], path: readonly string[], exact: boolean): boolean {
  if (path.length < pattern.length || (exact && path.length !== pattern.length)) return false;
  return pattern.every((p, i) => (p === '*' ? /^(0|[1-9][0-9]*)$/.test(path[i]!) : p === path[i]));
}

/** The 0.x binary part as 0.0.59 accepts it (LegacyBinaryInputContentObjectSchema with ensureBinaryPayload); unknown members it strips. */
function isLegacyBinaryPart(part: unknown): boolean {
  if (!isObject(part) || part.type !== 'binary' || typeof part.mimeType !== 'string') return false;
  const optional = (k: string) => part[k] === undefined || typeof part[k] === 'string';
  return optional('id') && optional('url') && optional('data') && optional('filename') && Boolean(part.id || part.url || part.data);
}

/** Whether an enforcement finding on a pre-1.0 request body is a 1.0-readiness item (PRE_1_0_INPUT). */
export function pre10InputReadinessOnly(f: Finding, input: JsonObject): boolean {
  if (f.category !== 'schema' && f.category !== 'unrecognised') return false;
  const path = (f.path ?? '').split('/').slice(1).map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  return PRE_1_0_INPUT.some((r) => {
    const pattern = r.at.split('/').slice(1);
    if (r.accepts === 'any') return under(pattern, path, false);
    if (!under(pattern, path, true)) return false;
    const message = Array.isArray(input.messages) ? input.messages[Number(path[1])] : undefined;
    return isObject(message) && message.role === 'user' && Array.isArray(message.content) && isLegacyBinaryPart(message.content[Number(path[3])]);
  });
}

/**
 * The findings of a pre-1.0 exchange with its readiness items marked, and whether the pre-1.0 client fails it.
 * `readinessOnly` holds findings that are readiness items whatever their rule: by pre10ReadinessOnly (above),
 * or reasoning left open at RUN_FINISHED (the pre-1.0 client never checks it; analyzer/discipline.ts).
 */
export function splitReadiness(findings: readonly Finding[], fatalRules: ReadonlySet<string>, readinessOnly: ReadonlySet<Finding> = new Set()): { findings: Finding[]; fatal: boolean } {
  let fatal = false;
  const marked = findings.map((f) => {
    const r = pre10Reading(f.rule);
    if (r?.reading === 'readiness' || readinessOnly.has(f)) return { ...f, readiness: true as const };
    if (r?.fatal ?? fatalRules.has(f.rule)) fatal = true;
    return f;
  });
  return { findings: marked, fatal };
}
