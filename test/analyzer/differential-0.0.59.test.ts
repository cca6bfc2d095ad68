import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { differentialSuite, events, judgeExactly, type Difference, type Reference } from './support/differential.ts';
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

const REFERENCE_059: Reference = {
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
};

differentialSuite(REFERENCE_059);

/*
 * The cases that once made every LangGraph exchange read "failed, judged as its own pre-1.0 client would"
 * while 0.0.59 completed them (#19 §3): boundary ids that disagree, terminal events without their identity,
 * and streams cut at each place. Judged with no difference admitted: the verdict is 0.0.59's, and the
 * spec's error stays a finding with its severity.
 */
describe('pre-1.0 verdicts on boundary identity and truncation are exactly 0.0.59\'s', () => {
  const input = { threadId: 'thread-1', runId: 'run-1', messages: [{ id: 'user-1', role: 'user', content: 'hi' }], tools: [], context: [], state: {}, forwardedProps: {} };
  const started = { type: 'RUN_STARTED', threadId: 'thread-1', runId: 'run-1' };
  const text = [
    { type: 'TEXT_MESSAGE_START', messageId: 'm1', role: 'assistant' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm1', delta: 'hello' },
    { type: 'TEXT_MESSAGE_END', messageId: 'm1' },
  ];
  const finished = { type: 'RUN_FINISHED', threadId: 'thread-1', runId: 'run-1' };
  /** `admits`: the one documented difference the case may show, when a section other than identity or truncation decides it. */
  const cases: { name: string; frames: Event[]; keep?: number; finding?: string; admits?: Difference }[] = [
    { name: 'RUN_FINISHED carries the server\'s own runId (@ag-ui/langgraph)', frames: [started, ...text, { ...finished, runId: 'server-run-9' }], finding: 'identity/run-id-mismatch' },
    { name: 'RUN_FINISHED names another thread', frames: [started, ...text, { ...finished, threadId: 'thread-2' }], finding: 'identity/thread-id-mismatch' },
    { name: 'RUN_STARTED answers with another runId than the input asked for', frames: [{ ...started, runId: 'run-2' }, ...text, { ...finished, runId: 'run-2' }], finding: 'identity/requested-run-id' },
    { name: 'RUN_STARTED names another thread', frames: [{ ...started, threadId: 'thread-2' }, ...text, { ...finished, threadId: 'thread-2' }], finding: 'identity/thread-id-mismatch' },
    { name: 'the second run\'s RUN_FINISHED disagrees with its RUN_STARTED', frames: [started, ...text, finished, { ...started, runId: 'run-b' }, { ...finished, runId: 'run-c' }], finding: 'identity/run-id-mismatch' },
    { name: 'a bare RUN_FINISHED with no ids (CopilotKit\'s finalizer after Stop)', frames: [started, text[0]!, text[1]!, { type: 'RUN_FINISHED' }] },
    { name: 'RUN_FINISHED without its runId', frames: [started, ...text, { type: 'RUN_FINISHED', threadId: 'thread-1' }] },
    { name: 'RUN_FINISHED without its threadId', frames: [started, ...text, { type: 'RUN_FINISHED', runId: 'run-1' }] },
    { name: 'RUN_ERROR ends the run without ids', frames: [started, text[0]!, { type: 'RUN_ERROR', message: 'model overloaded' }] },
    { name: 'the stream ends after RUN_STARTED', frames: [started], finding: 'lifecycle/truncated' },
    { name: 'the stream ends inside a message', frames: [started, text[0]!, text[1]!], finding: 'lifecycle/truncated' },
    { name: 'the stream ends after the message, before any terminal event', frames: [started, ...text], finding: 'lifecycle/truncated' },
    { name: 'the stream is cut inside its last frame', frames: [started, ...text, finished], keep: 0.93, finding: 'lifecycle/truncated', admits: UNTERMINATED_TAIL },
    { name: 'the stream ends before the second run finishes', frames: [started, ...text, finished, { ...started, runId: 'run-b' }, ...text.map((e) => ({ ...e, messageId: 'm2' }))], finding: 'lifecycle/truncated' },
  ];
  for (const k of cases) {
    for (const transport of ['sse', 'protobuf'] as const) {
      it(`${k.name} (${transport})`, async (t) => {
        const judged = await judgeExactly(REFERENCE_059, k.name, transport, input, { frames: k.frames, mutations: [], ...(k.keep === undefined ? {} : { keep: k.keep }) });
        if (!judged) return t.skip(`${transport} has no form for these frames`);
        assert.ok(judged.agree || k.admits?.rejection?.(judged.c.reference.error ?? '', judged.c) === true, judged.shown);
        if (k.finding !== undefined) {
          const f = judged.c.analyzer.findings.find((x) => x.rule === k.finding);
          assert.ok(f, `${k.finding} stays a finding\n${judged.shown}`);
          assert.equal(f.severity, 'error', 'with the severity the spec gives it');
          assert.equal(judged.c.analyzer.readiness?.verdict, 'failed', 'and a 1.0 consumer would fail the exchange');
        }
      });
    }
  }
});
