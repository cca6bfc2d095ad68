/**
 * The conversation as the views show it: what the consumer model (analyzer/consumer.ts) holds, as plain
 * data, and what one step changed in it. The model is the one truth; nothing here applies an event.
 */
import type { ConsumerModel, HeldMessage, Origin } from '../analyzer/index.ts';
import { isObject, jsonEqual } from '../json.ts';

export interface ToolCallView {
  id: string;
  name: string;
  arguments: string;
}

export interface ConvMessage {
  id: string;
  role: string;
  /** Text, or the content parts as sent. */
  content: unknown;
  toolCalls: ToolCallView[];
  toolCallId?: string;
  activityType?: string;
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

/** What one step changed, message by message (`reordered`: a message held before and after whose place among the others moved). */
export interface ConvChange {
  change: 'added' | 'replaced' | 'dropped' | 'reordered';
  id: string;
  role: string;
}

const s = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function viewOfMessage(model: ConsumerModel, m: HeldMessage): ConvMessage {
  return {
    id: s(m.id) ?? '',
    role: s(m.role) ?? '?',
    content: m.content ?? '',
    toolCalls: (Array.isArray(m.toolCalls) ? m.toolCalls.filter(isObject) : []).map((c) => {
      const fn = isObject(c.function) ? c.function : {};
      return { id: s(c.id) ?? '', name: s(fn.name) ?? '', arguments: s(fn.arguments) ?? '' };
    }),
    ...(typeof m.toolCallId === 'string' ? { toolCallId: m.toolCallId } : {}),
    ...(typeof m.activityType === 'string' ? { activityType: m.activityType } : {}),
    event: model.eventOf(m),
    origin: model.originOf(m)?.how ?? 'stream',
  };
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
 * What changed from `before` to `after`, matched by id (a message the consumer holds twice under one id
 * is matched in order): added, dropped, replaced (held in both, differing), and reordered (held in both,
 * its place among the others moved). Costs what the two lists weigh, once.
 */
export function diffConversation(before: readonly ConvMessage[], after: readonly ConvMessage[]): ConvChange[] {
  const key = (m: ConvMessage, seen: Map<string, number>): string => {
    const n = seen.get(m.id) ?? 0;
    seen.set(m.id, n + 1);
    return `${n}\0${m.id}`;
  };
  const was = new Map<string, [number, ConvMessage]>();
  const seenBefore = new Map<string, number>();
  before.forEach((m, i) => was.set(key(m, seenBefore), [i, m]));
  const out: ConvChange[] = [];
  const seenAfter = new Map<string, number>();
  const kept: { at: number; m: ConvMessage; old: ConvMessage }[] = [];
  const present = new Set<string>();
  for (const m of after) {
    const k = key(m, seenAfter);
    present.add(k);
    const old = was.get(k);
    if (!old) out.push({ change: 'added', id: m.id, role: m.role });
    else kept.push({ at: old[0], m, old: old[1] });
  }
  const inOrder = increasing(kept.map((k) => k.at));
  kept.forEach(({ m, old }, i) => {
    if (!inOrder.has(i)) out.push({ change: 'reordered', id: m.id, role: m.role });
    else if (!jsonEqual({ ...m, event: null }, { ...old, event: null })) out.push({ change: 'replaced', id: m.id, role: m.role });
  });
  for (const [k, [, m]] of was) if (!present.has(k)) out.push({ change: 'dropped', id: m.id, role: m.role });
  return out;
}
