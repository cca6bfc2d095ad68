/**
 * What every view of one exchange shows, as plain data: computed once by whoever analysed the exchange
 * (the extension's worker for a tab, the import worker for a file) and sent across as it is asked for.
 * Nothing here needs the analyzer to read: the panel renders it as given.
 */
import type { Ev, ExchangeReport, InputField, PendingInterrupt, RunReport } from '../analyzer/index.ts';
import type { JsonObject } from '../json.ts';
import type { Finding, ProtocolVersion } from '../rules/index.ts';
import type { ConversationStep, ConvMessage } from './conversation.ts';
import type { Timing } from './timing.ts';
import type { ToolCallRow } from './tools.ts';
import type { SubagentRow } from './run-tree.ts';

export type { ConvChange, ConvChangeKind, ConvContent, ConvDiff, ConversationStep, ConvMessage, ToolCallView } from './conversation.ts';
export type { ArgsCheck, ArgsStatus, LaterRequest, ToolCallRow } from './tools.ts';
export type { ToolSide } from './tool-side.ts';
export type { SchemaCheck, SchemaError } from './json-schema.ts';
export type { Buffering, RunUsage, Span, SpanKind, Stall, Timing, ToolRoundTrip, ToolSpan } from './timing.ts';
/** The analyzer's vocabulary the detail is written in, so that its readers need nothing else. */
export type { Ev, ExchangeReport, NegotiationVerdict, PendingInterrupt, RunOutcome, RunReport } from '../analyzer/index.ts';

export type FieldStatus = 'fine' | 'warning' | 'error';

export interface FieldRow extends InputField {
  /** From the report's input findings about the field; a readiness item marks it but is no defect today. */
  status: FieldStatus;
  value: unknown;
  findings: Finding[];
}

export interface StrippedMember {
  /** 'input', or the index of the event it was stripped from. */
  at: 'input' | number;
  eventType: string | null;
  path: string;
  trigger: string;
  why: string;
  removed: unknown;
  /** The whole event is dropped, not one of its members. */
  whole: boolean;
}

/** The input as a producer receives it. */
export interface InputDetail {
  input: {
    /** A request body was captured. */
    present: boolean;
    /** The input as sent (a framework envelope's inner input), when it parsed to an object. */
    value: JsonObject | null;
    /** Its protocolVersion, verbatim. */
    declared: string | null;
    /** The version it is judged as. */
    version: ProtocolVersion;
  };
  fields: FieldRow[];
  /** What the producer strips from it. */
  stripped: StrippedMember[];
  /** The report's input findings (resume coverage included). */
  findings: Finding[];
  /** The report's input verdict: for a pre-1.0 exchange, its own client's reading (readiness items do not count). */
  verdict: 'valid' | 'invalid';
  era: ExchangeReport['era'];
  /** What its resume list answers: the interrupts its thread's last run ended waiting on; null when that thread was not seen. */
  pending: PendingInterrupt[] | null;
  /** The pending interrupts its resume list leaves unanswered (the coverage check's own reading); null when `pending` is. */
  uncovered: string[] | null;
}

export interface RunRow {
  run: RunReport;
  /** The boundary events as received. */
  started: JsonObject | null;
  finished: JsonObject | null;
}

/** One state event; the state after it is asked for on its own (`stateAt`), since states can be large. */
export interface StateRow {
  event: number;
  type: string;
  failed: boolean;
}

/** Every part a view may ask for; each is computed from what the analysis kept, when asked. */
export interface ExchangeDetail {
  report: ExchangeReport;
  input: InputDetail;
  runs: RunRow[];
  /** In the input, then in each event. */
  stripped: StrippedMember[];
  /** Frames that chunk expansion rewrote, and what the consumer handles instead (START/CONTENT/END, synthesised ends). */
  expanded: [index: number, events: Ev[]][];
  states: StateRow[];
  /** The conversation the consumer holds after the stream (analyzer/consumer.ts). */
  conversation: ConvMessage[];
  /** Each event that changed it; the conversation after one is asked for on its own (`conversationAt`). */
  conversationSteps: ConversationStep[];
  /** Where the time went; null when the source recorded no times. */
  timing: Timing | null;
  /** Every tool call the stream started, checked against the input's tools (detail/tools.ts). */
  toolCalls: ToolCallRow[];
  /** The subagent invocations the stream carried, for the run tree (run-tree.ts). */
  subagents: SubagentRow[];
}

export type DetailPart = keyof ExchangeDetail;

export const DETAIL_PARTS: readonly DetailPart[] = ['report', 'input', 'runs', 'stripped', 'expanded', 'states', 'conversation', 'conversationSteps', 'timing', 'toolCalls', 'subagents'];
