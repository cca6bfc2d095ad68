import { differentialSuite, events, type Difference } from './support/differential.ts';
import type { Event } from './support/grammar.ts';
import { ENCRYPTED_VALUE_PROVENANCE, UNTERMINATED_TAIL, zodIssues } from './support/differences.ts';
import { encodeProto, encoder059, runReference059 } from './support/harness.ts';
import { generateLegacyScenario } from './support/legacy.ts';

/*
 * Differential testing of pre-1.0 traffic against the last pre-1.0 reference consumer, @ag-ui/client
 * 0.0.59 (support/differential.ts). An exchange whose input and runs declare no protocolVersion is judged
 * as its own consumer would: findings that are only 1.0-readiness items (src/analyzer/era.ts) do not count
 * toward the verdict, so the analyzer fails such an exchange exactly when 0.0.59 rejects the run, except
 * for the differences listed below, each with the spec section or the 0.0.59 code that decides it.
 */

/** Whether every issue of a zod error is one of these codes at a path this predicate accepts. */
const zodOnly = (error: string, ok: (code: string, path: (string | number)[]) => boolean): boolean => {
  const issues = zodIssues(error);
  return issues !== null && issues.length > 0 && issues.every((i) => ok(i.code, i.path));
};

const THINKING = /^THINKING_/;

// Identity and truncation are no differences here: the pre-1.0 reading is 0.0.59's own (era.ts), and the spec's errors stay findings.
const DIFFERENCES_059: readonly Difference[] = [
  UNTERMINATED_TAIL,
  ENCRYPTED_VALUE_PROVENANCE,
  {
    kind: 'strict-outcome',
    spec: 'basic/processing#what-a-consumer-does-with-unrecognised-material',
    why: "a property a closed object does not describe is stripped, never fatal; 0.0.59 declares RUN_FINISHED's and SUBAGENT_FINISHED's outcome schemas .strict() and rejects the event. The analyzer reads unrecognised/property as a readiness item (era.ts) for the passthrough top level, where 0.0.59 keeps such members",
    rejection: (error, c) =>
      zodOnly(error, (code, path) => code === 'unrecognized_keys' && path[0] === 'outcome') && c.analyzer.findings.some((f) => f.rule === 'unrecognised/property' && f.path?.startsWith('/outcome/') === true),
  },
  {
    kind: 'legacy-thinking',
    spec: 'basic/versioning#retired-shapes',
    why: "the 0.x THINKING_* events are retired: a 1.0 consumer translates them into reasoning events before enforcement, or drops them as unrecognised, which is what the analyzer reports (a readiness item) without judging them further; 0.0.59 still validates them (ThinkingStartEventSchema.title, ThinkingTextMessageContentEventSchema.delta) and its verifyEvents enforces their nesting (one thinking step at a time, thinking messages inside one) and their place in the run (first event, nothing after RUN_FINISHED or RUN_ERROR), and its transformChunks lets one close the chunk stream it interrupts; a stream that breaks any of that is rejected",
    rejection: (error, c) => {
      if (/^Cannot send (event type )?'THINKING_/.test(error)) return true;
      if (error === "First event must be 'RUN_STARTED'" && THINKING.test(events(c)[0]?.type ?? '')) return true;
      // transformChunks closes the parent lane's chunk stream on a THINKING_* event, so a continuation after one has nothing to continue.
      const chunk = /^First ((?:TEXT_MESSAGE|TOOL_CALL|REASONING_MESSAGE)_CHUNK) must have/.exec(error)?.[1];
      const all = events(c);
      if (chunk !== undefined && all.some((e, i) => THINKING.test(e.type) && all.slice(0, i).some((x) => x.type === chunk) && all.slice(i + 1).some((x) => x.type === chunk))) return true;
      // A THINKING_* member of the wrong type: zod names the member, not the event, so the stream must hold such an event.
      const bad = (key: string): boolean => events(c).some((e) => THINKING.test(e.type) && (e.type === 'THINKING_START' ? key === 'title' && e.title !== undefined : key === 'delta' && e.type === 'THINKING_TEXT_MESSAGE_CONTENT') && typeof e[key] !== 'string');
      return zodOnly(error, (code, path) => code === 'invalid_type' && path.length === 1 && bad(String(path[0])));
    },
  },
  {
    kind: 'null-subagent-run-id-unknown-member',
    spec: 'basic/processing#what-a-consumer-does-with-unrecognised-material',
    why: "on an event 1.0 gives no subagentRunId (RUN_*, MESSAGES_SNAPSHOT, ...) the member is unrecognised and stripped, whatever its value (a readiness item: a per-finding reading the other way, fatal, would fail the exchange on a warning the report could not explain); 0.0.59's verifyEvents rejects 'subagentRunId: null' on every event before looking at its type",
    rejection: (error, c) => {
      const type = /^Cannot send '([A-Z_]+)' with 'subagentRunId: null'/.exec(error)?.[1];
      return type !== undefined && c.analyzer.findings.some((f) => f.rule === 'unrecognised/property' && f.path === '/subagentRunId' && f.event !== null && (c.frames[f.event] as { type?: string }).type === type);
    },
  },
  {
    kind: 'chunk-closed-by-explicit-id',
    spec: 'basic/patterns/streaming#closing-a-chunk-stream',
    why: "an explicit event naming the id a chunk stream in another lane is assembling ends that shorthand (the analyzer's ChunkExpander); 0.0.59's transformChunks closes a chunk stream only on an event of the same lane, so an explicit TEXT_MESSAGE_START or TOOL_CALL_START for that id from another subagent finds it still in progress and verifyEvents rejects",
    rejection: (error, c) => {
      const id = /^Cannot send '(?:TEXT_MESSAGE|TOOL_CALL)_START' event: A (?:text message|tool call) with ID '([^']*)' is already in progress/.exec(error)?.[1];
      const owner = (e: Event): unknown => e.subagentRunId;
      const named = (e: Event): boolean => e.messageId === id || e.toolCallId === id;
      const chunks = events(c).filter((e) => e.type.endsWith('_CHUNK') && named(e));
      return id !== undefined && events(c).some((e) => e.type.endsWith('_START') && named(e) && chunks.some((k) => owner(k) !== owner(e)));
    },
  },
  {
    kind: 'reasoning-span-and-message-share-owner',
    spec: 'client-0.0.59:verifyEvents',
    why: "1.0 keeps a reasoning span (REASONING_START/END) and a reasoning message (REASONING_MESSAGE_*) apart (events/reasoning), so the analyzer judges each one's attribution against its own opener; 0.0.59's verifyEvents keeps one map for both and rejects a reasoning message whose subagentRunId differs from a span's that used the same messageId",
    rejection: (error, c) => {
      const id = /^Cannot send 'REASONING_(?:MESSAGE_)?START': subagentRunId '[^']*' does not match the reasoning message '([^']*)' opener's/.exec(error)?.[1];
      const uses = (pattern: RegExp): boolean => events(c).some((e) => pattern.test(e.type) && e.messageId === id);
      return id !== undefined && uses(/^REASONING_START$/) && uses(/^REASONING_MESSAGE_(START|CHUNK)$/);
    },
  },
];

differentialSuite({
  name: '@ag-ui/client 0.0.59 (pre-1.0 traffic)',
  run: runReference059,
  encodeProto: (frames) => encodeProto(frames, encoder059),
  scenario: generateLegacyScenario,
  differences: DIFFERENCES_059,
  regressions: [],
  // DIFF_SEED explores other streams; the default is what CI pins.
  seed: Number(process.env.DIFF_SEED ?? 0x0059_5eed),
  sse: { scenarios: 240, mutantsEach: 3, minimum: 900 },
  protobuf: { scenarios: 100, mutantsEach: 2, minimum: 250 },
});
