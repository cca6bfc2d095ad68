/**
 * The conversation as the application would hold it after the stream: the history it sent, then every
 * event a consumer keeps (after enforcement and chunk expansion) applied in order.
 */
import { isObject, type JsonObject } from '../json.ts';
import { PatchTarget } from '../analyzer/index.ts';

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
  /** Index of the event that last changed it; null for history the app sent. */
  event: number | null;
}

const s = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function fromMessage(m: JsonObject, event: number | null): ConvMessage {
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
    event,
  };
}

export class Conversation {
  readonly messages: ConvMessage[];
  private readonly byId = new Map<string, ConvMessage>();
  private readonly callOwner = new Map<string, ToolCallView>();
  /** Each activity's content as deltas edit it: one working copy per message, so a delta costs its own size. */
  private readonly activities = new WeakMap<ConvMessage, PatchTarget>();

  constructor(history: unknown) {
    this.messages = (Array.isArray(history) ? history.filter(isObject) : []).map((m) => fromMessage(m, null));
    for (const m of this.messages) this.byId.set(m.id, m);
  }

  private add(m: ConvMessage): ConvMessage {
    this.messages.push(m);
    this.byId.set(m.id, m);
    return m;
  }

  private ensure(id: string, role: string, event: number): ConvMessage {
    const m = this.byId.get(id) ?? this.add({ id, role, content: '', toolCalls: [], event });
    m.event = event;
    return m;
  }

  apply(ev: JsonObject, event: number): void {
    switch (ev.type) {
      case 'TEXT_MESSAGE_START':
        this.ensure(s(ev.messageId) ?? '', s(ev.role) ?? 'assistant', event);
        break;
      case 'REASONING_MESSAGE_START':
        this.ensure(s(ev.messageId) ?? '', 'reasoning', event);
        break;
      case 'TEXT_MESSAGE_CONTENT':
      case 'REASONING_MESSAGE_CONTENT': {
        const m = this.ensure(s(ev.messageId) ?? '', ev.type === 'TEXT_MESSAGE_CONTENT' ? 'assistant' : 'reasoning', event);
        m.content = (typeof m.content === 'string' ? m.content : '') + (s(ev.delta) ?? '');
        break;
      }
      case 'TOOL_CALL_START': {
        const id = s(ev.toolCallId) ?? '';
        const owner = this.ensure(s(ev.parentMessageId) ?? id, 'assistant', event);
        const call = { id, name: s(ev.toolCallName) ?? '', arguments: '' };
        owner.toolCalls.push(call);
        this.callOwner.set(id, call);
        break;
      }
      case 'TOOL_CALL_ARGS': {
        const call = this.callOwner.get(s(ev.toolCallId) ?? '');
        if (call) call.arguments += s(ev.delta) ?? '';
        break;
      }
      case 'TOOL_CALL_RESULT': {
        const m = this.ensure(s(ev.messageId) ?? '', 'tool', event);
        m.content = ev.content;
        m.toolCallId = s(ev.toolCallId);
        break;
      }
      case 'MESSAGES_SNAPSHOT': {
        // A snapshot restates the history: it replaces what the application held.
        this.messages.length = 0;
        this.byId.clear();
        for (const m of (Array.isArray(ev.messages) ? ev.messages : []).filter(isObject)) this.add(fromMessage(m, event));
        break;
      }
      case 'ACTIVITY_SNAPSHOT': {
        const id = s(ev.messageId) ?? '';
        const m = this.byId.get(id);
        if (m && ev.replace === false) break;
        const next = fromMessage({ id, role: 'activity', activityType: ev.activityType, content: ev.content }, event);
        if (m) Object.assign(m, next);
        else this.add(next);
        break;
      }
      case 'ACTIVITY_DELTA': {
        const m = this.byId.get(s(ev.messageId) ?? '');
        if (!m || !Array.isArray(ev.patch)) break;
        // A failing patch leaves the activity as it was, as a consumer keeps it.
        // A snapshot may have replaced the content since: a working copy is good only for the content it copied.
        const held = this.activities.get(m);
        const target = held && held.doc === m.content ? held : new PatchTarget(m.content);
        this.activities.set(m, target);
        if (target.apply(ev.patch).ok) {
          m.content = target.doc;
          m.event = event;
        }
        break;
      }
    }
  }
}
