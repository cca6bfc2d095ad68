/**
 * The conversation as the views show it: what the consumer model (analyzer/consumer.ts) holds, as plain
 * data, and what one step changed in it. The model is the one truth; nothing here applies an event.
 *
 * What a step changed is what the model noted while applying it (ConsumerModel.changes), kept per step
 * as a few ids: a step's diff costs what the step changed, never the conversation it changed. A
 * MESSAGES_SNAPSHOT reconciles as events/state#messages_snapshot says — replaced in place, appended when
 * new, dropped when absent except activity and reasoning — so the consumer never reorders what it holds:
 * `reordered` names the held messages the snapshot lists in another order, whose place the consumer keeps.
 */
import type { ConsumerModel, HeldChange, HeldMessage, Origin } from '../analyzer/index.ts';
import { asString, isObject, type JsonObject } from '../json.ts';

export interface ToolCallView {
  id: string;
  name: string;
  arguments: string;
}

/** A message's content as the views show it. */
export interface ConvContent {
  /** Text, or the content parts as sent. */
  content: unknown;
  toolCalls: ToolCallView[];
  toolCallId?: string;
  activityType?: string;
}

export interface ConvMessage extends ConvContent {
  id: string;
  role: string;
  /** Index of the event that last changed it; null for history the app sent, as sent. */
  event: number | null;
  /** How the consumer came to hold it: the app's input, this stream's own events, a snapshot, a RUN_STARTED echo. */
  origin: Origin['how'];
}

/** One event that changed the conversation; the conversation after it is asked for on its own (`conversationAt`). */
export interface ConversationStep {
  event: number;
  type: string;
}

export type ConvChangeKind = 'added' | 'replaced' | 'dropped' | 'reordered';

/** What one step did to one message. */
export interface ConvChange {
  change: ConvChangeKind;
  id: string;
  role: string;
  /** An activity message is the application's own UI state, not conversation (events/activity); it never travels to the producer. */
  kind: 'message' | 'activity';
  activityType?: string;
  /** Where the step's MESSAGES_SNAPSHOT lists it, when it does. */
  listed?: number;
  /** As the step's snapshot states it (added, replaced and reordered rows of a snapshot). */
  now?: ConvContent;
  /** As the consumer held it before: a dropped message, and one the snapshot replaced (a reordered one too, when it also changed). */
  was?: ConvContent;
}

/** What conversation step `step` changed, rows in the order the consumer holds them, additions last. */
export interface ConvDiff {
  step: number;
  event: number;
  type: string;
  changes: ConvChange[];
  /** More rows than `changes` holds; the rest are left out. */
  truncated: boolean;
}

/** One step's changes as kept between questions: ids and roles, and the copies a snapshot let go. */
export interface KeptChange {
  change: ConvChangeKind;
  id: string;
  role: string;
  activityType?: string;
  listed?: number;
  was?: HeldMessage;
}

/** A held or listed message's content as the views show it. */
export function contentOf(m: JsonObject): ConvContent {
  return {
    content: m.content ?? '',
    toolCalls: (Array.isArray(m.toolCalls) ? m.toolCalls.filter(isObject) : []).map((c) => {
      const fn = isObject(c.function) ? c.function : {};
      return { id: asString(c.id) ?? '', name: asString(fn.name) ?? '', arguments: asString(fn.arguments) ?? '' };
    }),
    ...(typeof m.toolCallId === 'string' ? { toolCallId: m.toolCallId } : {}),
    ...(typeof m.activityType === 'string' ? { activityType: m.activityType } : {}),
  };
}

function viewOfMessage(model: ConsumerModel, m: HeldMessage): ConvMessage {
  return { id: asString(m.id) ?? '', role: asString(m.role) ?? '?', ...contentOf(m), event: model.eventOf(m), origin: model.originOf(m)?.how ?? 'stream' };
}

/** What the model holds, as the views show it. */
export function conversationOf(model: ConsumerModel): ConvMessage[] {
  return model.messages.map((m) => viewOfMessage(model, m));
}

/** Indices of a longest increasing subsequence of `xs` (patience sorting): what kept its relative order. */
function increasing(xs: number[]): Set<number> {
  const tails: number[] = [];
  const prev = new Array<number>(xs.length).fill(-1);
  for (let i = 0; i < xs.length; i++) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (xs[tails[mid]!]! < xs[i]!) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) prev[i] = tails[lo - 1]!;
    tails[lo] = i;
  }
  const out = new Set<number>();
  for (let i = tails.at(-1) ?? -1; i >= 0; i = prev[i]!) out.add(i);
  return out;
}

/**
 * One step's changes as the model noted them, kept until asked for. Of the held messages a snapshot lists,
 * those outside a longest run it lists in the consumer's own order are `reordered`: the fewest that moved.
 */
export function keptChanges(noted: readonly HeldChange[]): KeptChange[] {
  const listedHeld = noted.filter((c) => (c.change === 'kept' || c.change === 'replaced') && c.listed !== undefined);
  const inOrder = listedHeld.length > 1 ? increasing(listedHeld.map((c) => c.listed!)) : null;
  const moved = new Set(inOrder ? listedHeld.filter((_, i) => !inOrder.has(i)) : []);
  const out: KeptChange[] = [];
  for (const c of noted) {
    const change: ConvChangeKind | null = moved.has(c) ? 'reordered' : c.change === 'kept' ? null : c.change;
    if (change === null) continue;
    const m = c.message;
    const row: KeptChange = { change, id: asString(m.id) ?? '', role: asString(m.role) ?? '?' };
    if (typeof m.activityType === 'string') row.activityType = m.activityType;
    if (c.listed !== undefined) row.listed = c.listed;
    if (c.was) row.was = c.was;
    else if (change === 'dropped') row.was = m;
    out.push(row);
  }
  // Additions come last, as the consumer appends them.
  return [...out.filter((r) => r.change !== 'added'), ...out.filter((r) => r.change === 'added')];
}

/** Most rows one answer carries: a snapshot restating a whole conversation must not send every message. */
export const MAX_CONV_CHANGES = 2000;

/** The answer for conversation step `step`, at event `event` (`ev` the event, for what a snapshot states). */
export function convDiff(step: number, event: number, ev: JsonObject, kept: readonly KeptChange[]): ConvDiff {
  const listed = ev.type === 'MESSAGES_SNAPSHOT' && Array.isArray(ev.messages) ? ev.messages : [];
  const changes = kept.slice(0, MAX_CONV_CHANGES).map((k): ConvChange => {
    const row: ConvChange = { change: k.change, id: k.id, role: k.role, kind: k.role === 'activity' ? 'activity' : 'message' };
    if (k.activityType !== undefined) row.activityType = k.activityType;
    if (k.listed !== undefined) {
      row.listed = k.listed;
      const now = listed[k.listed];
      if (isObject(now) && k.change !== 'dropped') row.now = contentOf(now);
    }
    if (k.was) row.was = contentOf(k.was);
    return row;
  });
  return { step, event, type: typeof ev.type === 'string' ? ev.type : '', changes, truncated: kept.length > changes.length };
}
