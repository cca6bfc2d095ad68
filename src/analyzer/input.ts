import { isObject, pointer, type JsonObject } from '../json.ts';
import { defineRules, type Finding, type ProtocolVersion } from '../rules/index.ts';
import { enforce, enforcementFindings } from '../schema/index.ts';
import type { Enforcement } from '../schema/index.ts';
import { envelopeOf, isBareRunAgentInput } from '../exchange/index.ts';
import { pre10InputReadinessOnly } from './era.ts';
import { VERSION_RULES } from './negotiation.ts';
import { FindingSink } from './sink.ts';
import { consumerVersionFor, KNOWN_VERSIONS, parseVersion, compareVersions } from './version.ts';

export const INPUT_RULES = defineRules({
  notJson: {
    id: 'input/not-json',
    category: 'input',
    severity: 'error',
    fatal: true,
    spec: 'basic/run-input#error-handling',
    title: 'The request body is not JSON: a producer must reject it before RUN_STARTED',
  },
  notObject: {
    id: 'input/not-object',
    category: 'input',
    severity: 'error',
    fatal: true,
    spec: 'basic/run-input#error-handling',
    title: 'The request body is not a RunAgentInput object',
  },
  activityMessage: {
    id: 'input/activity-message-sent',
    category: 'input',
    severity: 'error',
    fatal: false,
    spec: 'basic/run-input#messages',
    title: 'Activity messages never travel back to the producer: a consumer must strip them before sending',
  },
  fileProvider: {
    id: 'input/file-provider-not-lowercase',
    category: 'input',
    severity: 'warning',
    fatal: false,
    spec: 'basic/run-input#provider-file-handles',
    title: "A file source's provider should be the lowercase vendor id TokenUsage.provider uses",
  },
  duplicateMessageId: {
    id: 'input/duplicate-message-id',
    category: 'input',
    severity: 'warning',
    fatal: false,
    spec: 'basic/run-input#messages',
    title: 'Two messages in the history share an id',
  },
  orphanToolResult: {
    id: 'input/tool-message-without-call',
    category: 'input',
    severity: 'warning',
    fatal: false,
    spec: 'events/tool-calls',
    title: 'A tool message answers a toolCallId that no earlier assistant message called',
  },
  enveloped: {
    id: 'input/enveloped',
    category: 'input',
    severity: 'info',
    fatal: false,
    spec: 'basic/transports#the-binding-contract',
    title: "The binding wraps the RunAgentInput in a framework envelope; the input inside is what is judged",
  },
  duplicateResume: {
    id: 'interrupt/duplicate-resume-entry',
    category: 'interrupt',
    severity: 'error',
    fatal: false,
    spec: 'basic/patterns/interrupt-resume#resuming',
    title: 'Two resume entries answer the same interrupt',
  },
});

/** One RunAgentInput field as the panel's Input view shows it. */
export interface InputField {
  name: string;
  present: boolean;
  /** What the spec obliges, and what absence or emptiness means. */
  note: string;
  spec: string;
}

export interface InputAnalysis {
  present: boolean;
  /** The input as sent, when it parsed to an object. */
  value: JsonObject | null;
  /** What a producer of the judged version would act on, after stripping. */
  effective: JsonObject | null;
  /** The schema's reading of it, with what it strips; null when the body is no JSON object. */
  enforcement: Enforcement | null;
  verdict: 'valid' | 'invalid';
  findings: Finding[];
  fields: InputField[];
  /** The consumer's protocolVersion declaration, verbatim. */
  declared: string | null;
  version: ProtocolVersion;
  /** Rules that fired fatally on the input: a pre-1.0 reading re-decides the verdict from them (era.ts). */
  fatalRules: ReadonlySet<string>;
  /** Findings a pre-1.0 reading counts as 1.0-readiness items, where 0.0.59 accepts the value (era.ts PRE_1_0_INPUT). */
  pre10Readiness: ReadonlySet<Finding>;
}

/** The spec's field order, each with what it obliges (basic/run-input). */
const FIELDS: { name: string; spec: string; absent: string; present: (v: unknown) => string }[] = [
  { name: 'threadId', spec: 'basic/run-input#identity', absent: 'absent — REQUIRED: names the conversation', present: () => 'names the conversation; every run on the stream carries it on its boundary events' },
  { name: 'runId', spec: 'basic/run-input#identity', absent: 'absent — REQUIRED: names the run this input requests', present: () => "the requested run (the stream's last) must echo it; replayed runs carry their own" },
  { name: 'parentRunId', spec: 'basic/run-input#identity', absent: 'absent — this run was not spawned by another run', present: () => 'names the run that spawned this one as a separate run' },
  { name: 'protocolVersion', spec: 'basic/run-input#protocolversion', absent: 'absent — a pre-versioned consumer; one implementing 1.0 must declare', present: (v) => `the consumer speaks ${JSON.stringify(v)}; the producer answers with its own on RUN_STARTED` },
  { name: 'messages', spec: 'basic/run-input#messages', absent: 'absent — REQUIRED: the complete history, in order', present: (v) => (Array.isArray(v) && v.length === 0 ? 'empty — a conversation with no history yet' : 'the complete history the producer is shown, in order; activity messages must not be sent') },
  { name: 'tools', spec: 'basic/run-input#tools', absent: 'absent — means no tools (same as [])', present: (v) => (Array.isArray(v) && v.length === 0 ? 'empty — no tools (same as absent)' : 'frontend tools the application executes; calling one hands control back across the run boundary') },
  { name: 'context', spec: 'basic/run-input#context', absent: 'absent — means no context (same as [])', present: (v) => (Array.isArray(v) && v.length === 0 ? 'empty — no context (same as absent)' : 'every entry should be made available to the model') },
  { name: 'state', spec: 'basic/run-input#state', absent: 'absent — means {}: deltas apply to the empty object until a snapshot', present: () => "the state the run starts from; deltas apply to it until the producer's first snapshot" },
  { name: 'forwardedProps', spec: 'basic/run-input#forwardedprops', absent: 'absent — nothing forwarded', present: () => 'passed to the agent untouched; intermediaries must not alter it (nulls inside are preserved)' },
  { name: 'resume', spec: 'basic/run-input#resume', absent: 'absent — this run continues no interrupt', present: () => 'answers to the interrupts of the most recent interrupted run on the thread; must cover every one' },
];

/**
 * Judges one request body as the producer receiving it would, plus what the consumer that sent it owed
 * (basic/run-input). `as` overrides the version the input's own declaration selects.
 */
/** Checks beyond the input itself, such as resume coverage against the thread, reported like its own. */
export type InputCheck = (sink: FindingSink, input: JsonObject) => void;

export function analyzeInput(body: string | undefined, as?: ProtocolVersion, further?: InputCheck): InputAnalysis {
  if (body === undefined) {
    const version = as ?? '1.0';
    return { present: false, value: null, effective: null, enforcement: null, verdict: 'valid', findings: [], fields: [], declared: null, version, fatalRules: new Set(), pre10Readiness: new Set() };
  }
  let parsed: unknown;
  let parseError: string | null = null;
  try {
    parsed = JSON.parse(body);
  } catch (e) {
    parseError = e instanceof Error ? e.message : String(e);
  }
  const envelope = parseError === null && !isBareRunAgentInput(parsed) ? envelopeOf(parsed) : null;
  if (envelope) parsed = envelope.inner;
  const value = isObject(parsed) ? parsed : null;
  const declared = value && typeof value.protocolVersion === 'string' ? value.protocolVersion : null;
  const version = as ?? consumerVersionFor(value?.protocolVersion);
  const sink = new FindingSink(version);
  if (envelope) {
    const { name, method, at } = envelope.envelope;
    sink.report(INPUT_RULES.enveloped, `The request is a ${name} envelope (${method.member} ${JSON.stringify(envelope.operation)}); the RunAgentInput is its ${JSON.stringify(at)} member, and paths below point into it`, { path: '' });
  }
  if (parseError !== null) {
    sink.report(INPUT_RULES.notJson, `The request body is not JSON (${parseError}): a producer must reject it before RUN_STARTED`);
    return finish(sink, null, null, null, declared, version);
  }
  if (!value) {
    sink.report(INPUT_RULES.notObject, `The request body is ${Array.isArray(parsed) ? 'an array' : typeof parsed === 'object' ? 'null' : `a ${typeof parsed}`}, not a RunAgentInput object`, { path: '' });
    return finish(sink, null, null, null, declared, version);
  }
  const result = enforce.input(value, version);
  // An undeclared input may be a pre-1.0 client's, read as 0.0.59 reads it; a run declaring a version later makes the exchange 1.x, which ignores the mark.
  const pre10 = value.protocolVersion === undefined;
  for (const f of enforcementFindings(result, version, null)) sink.add(f, result.verdict === 'fatal' && f.rule === 'schema/malformed', pre10 && pre10InputReadinessOnly(f, value));
  const effective = result.verdict === 'ok' && isObject(result.value) ? result.value : null;
  checkDeclaration(sink, value);
  checkMessages(sink, value);
  checkResume(sink, value);
  further?.(sink, value);
  return finish(sink, value, effective, result, declared, version);
}

function finish(sink: FindingSink, value: JsonObject | null, effective: JsonObject | null, enforcement: Enforcement | null, declared: string | null, version: ProtocolVersion): InputAnalysis {
  const findings = sink.list();
  const fields = value
    ? FIELDS.map((f) => {
        const present = Object.prototype.hasOwnProperty.call(value, f.name);
        return { name: f.name, present, note: present ? f.present(value[f.name]) : f.absent, spec: `/spec/${version}/${f.spec}` };
      })
    : [];
  return { present: true, value, effective, enforcement, verdict: sink.fatal ? 'invalid' : 'valid', findings, fields, declared, version, fatalRules: sink.fatalRules, pre10Readiness: sink.pre10Readiness };
}

function checkDeclaration(sink: FindingSink, input: JsonObject): void {
  const v = input.protocolVersion;
  if (v === undefined) {
    sink.report(VERSION_RULES.consumerUndeclared, 'RunAgentInput declares no protocolVersion: it reads as a consumer from before the protocol carried a version; a consumer implementing 1.0 must declare it unless it knows its peer predates the field', { path: '/protocolVersion' });
    return;
  }
  if (typeof v !== 'string') return; // malformed: enforcement already reported it
  const parsed = parseVersion(v);
  if (!parsed) {
    sink.report(VERSION_RULES.consumerUninterpretable, `RunAgentInput protocolVersion ${JSON.stringify(v)} cannot be interpreted (expected MAJOR.MINOR); judged as ${KNOWN_VERSIONS.at(-1)}`, { path: '/protocolVersion' });
  } else if (compareVersions(parsed, parseVersion(KNOWN_VERSIONS.at(-1)!)!) > 0) {
    sink.report(VERSION_RULES.consumerUnknown, `RunAgentInput declares protocolVersion ${JSON.stringify(v)}, newer than this tool knows; judged as ${KNOWN_VERSIONS.at(-1)}`, { path: '/protocolVersion' });
  }
}

function checkMessages(sink: FindingSink, input: JsonObject): void {
  if (!Array.isArray(input.messages)) return;
  const ids = new Set<string>();
  const calls = new Set<string>();
  input.messages.forEach((m, i) => {
    if (!isObject(m)) return;
    const at = pointer('messages', i);
    if (m.role === 'activity') sink.report(INPUT_RULES.activityMessage, `messages[${i}] is an activity message: a consumer must strip activity messages from messages before sending`, { path: at });
    if (typeof m.id === 'string') {
      if (ids.has(m.id)) sink.report(INPUT_RULES.duplicateMessageId, `messages[${i}] reuses message id ${JSON.stringify(m.id)}`, { path: `${at}/id` });
      ids.add(m.id);
    }
    if (m.role === 'assistant' && Array.isArray(m.toolCalls)) for (const c of m.toolCalls) if (isObject(c) && typeof c.id === 'string') calls.add(c.id);
    if (m.role === 'tool' && typeof m.toolCallId === 'string' && !calls.has(m.toolCallId)) {
      sink.report(INPUT_RULES.orphanToolResult, `messages[${i}] answers toolCallId ${JSON.stringify(m.toolCallId)}, which no earlier assistant message called`, { path: `${at}/toolCallId` });
    }
    if (Array.isArray(m.content)) {
      m.content.forEach((part, j) => {
        if (!isObject(part) || !isObject(part.source) || part.source.type !== 'file') return;
        const provider = part.source.provider;
        if (typeof provider === 'string' && provider !== provider.toLowerCase()) {
          sink.report(INPUT_RULES.fileProvider, `messages[${i}].content[${j}] names provider ${JSON.stringify(provider)}; it should be the lowercase vendor id (${JSON.stringify(provider.toLowerCase())})`, { path: `${at}/content/${j}/source/provider` });
        }
      });
    }
  });
}

function checkResume(sink: FindingSink, input: JsonObject): void {
  if (!Array.isArray(input.resume)) return;
  const seen = new Set<string>();
  input.resume.forEach((e, i) => {
    if (!isObject(e) || typeof e.interruptId !== 'string') return;
    if (seen.has(e.interruptId)) sink.report(INPUT_RULES.duplicateResume, `resume[${i}] answers interrupt ${JSON.stringify(e.interruptId)} a second time`, { path: pointer('resume', i, 'interruptId') });
    seen.add(e.interruptId);
  });
}
