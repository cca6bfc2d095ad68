/**
 * The inputs the panel composes for acting on an exchange: the same input again with a fresh runId (edit
 * and resend), the thread's next input answering the interrupts its run ended waiting on
 * (basic/patterns/interrupt-resume), or the results of the frontend tool calls it left pending
 * (events/tool-calls#frontend-tools). Each continues from the conversation and state as the consumer holds
 * them after the exchange (`conversation`, the last state step), as a sequential run does.
 */
import { isObject, type JsonObject } from '../json.ts';
import type { ConvMessage, ToolCallView } from './conversation.ts';
import type { RunRow } from './types.ts';

/** An interrupt the composed resume answers: its id, and what it asked, for the editor to show. */
export interface OpenInterrupt {
  id: string;
  message: string | null;
  reason: string | null;
}

/** The same input, to run again: only its runId is new. */
export function composeResend(input: JsonObject, runId: string): JsonObject {
  return { ...input, runId };
}

/** A message of the conversation as a RunAgentInput carries it. */
export function messageOf(m: ConvMessage): JsonObject {
  const out: JsonObject = { id: m.id, role: m.role, content: m.content };
  if (m.toolCalls.length > 0) out.toolCalls = m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
  if (m.toolCallId !== undefined) out.toolCallId = m.toolCallId;
  return out;
}

/** The thread's next input: its conversation and state as the exchange left them, and a new runId. */
function continuation(input: JsonObject, conversation: ConvMessage[], state: unknown, runId: string): JsonObject {
  // Activity messages are the consumer's own progress display: an input does not send them back.
  const next: JsonObject = { ...input, runId, messages: conversation.filter((m) => m.role !== 'activity').map(messageOf) };
  delete next.resume;
  if (state !== undefined) next.state = state;
  return next;
}

/** The interrupts the exchange's last run ended waiting on, as its RUN_FINISHED gave them; none unless it was interrupted. */
export function openInterrupts(runs: RunRow[]): OpenInterrupt[] {
  const last = runs.at(-1);
  if (last?.run.outcome !== 'interrupt') return [];
  const outcome = last.finished?.outcome;
  const given = isObject(outcome) && Array.isArray(outcome.interrupts) ? outcome.interrupts.filter(isObject) : [];
  return last.run.interrupts.map((id) => {
    const i = given.find((g) => g.id === id);
    return { id, message: typeof i?.message === 'string' ? i.message : null, reason: typeof i?.reason === 'string' ? i.reason : null };
  });
}

/** Answers every interrupt with a resolved entry whose payload the user edits; coverage is checked as they do. */
export function composeResume(input: JsonObject, conversation: ConvMessage[], state: unknown, interrupts: OpenInterrupt[], runId: string): JsonObject {
  return { ...continuation(input, conversation, state, runId), resume: interrupts.map((i) => ({ interruptId: i.id, status: 'resolved', payload: {} })) };
}

/** Tool calls of the conversation no tool message answers: what a run that stopped on frontend tools left the app. */
export function pendingToolCalls(conversation: ConvMessage[]): ToolCallView[] {
  const answered = new Set(conversation.filter((m) => m.role === 'tool').map((m) => m.toolCallId));
  return conversation.flatMap((m) => m.toolCalls).filter((c) => !answered.has(c.id));
}

/** A tool message for each pending call, its content for the user to fill in; `ids` names the new messages. */
export function composeToolResult(input: JsonObject, conversation: ConvMessage[], state: unknown, calls: ToolCallView[], runId: string, ids: (i: number) => string): JsonObject {
  const next = continuation(input, conversation, state, runId);
  next.messages = [...(next.messages as JsonObject[]), ...calls.map((c, i) => ({ id: ids(i), role: 'tool', toolCallId: c.id, content: '' }))];
  return next;
}
