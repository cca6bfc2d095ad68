import type { Event } from './grammar.ts';
import type { Rng } from './prng.ts';

/** A frame of the response: an event object, or a raw payload string sent verbatim. */
export type Frame = Event | string;

export type MutationKind =
  | 'drop'
  | 'duplicate'
  | 'swap'
  | 'reorder'
  | 'change-id'
  | 'corrupt-type'
  | 'remove-field'
  | 'unknown-property'
  | 'unknown-event'
  | 'unknown-enum'
  | 'null-field'
  | 'garbage-frame'
  | 'truncate-events'
  | 'cut-bytes';

export interface Mutation {
  kind: MutationKind;
  detail: string;
}

export interface Mutant {
  frames: Frame[];
  mutations: Mutation[];
  /** Fraction of the encoded body to keep (byte-level cut), when a `cut-bytes` mutation applied. */
  keep?: number;
}

const ID_FIELDS = ['messageId', 'toolCallId', 'stepName', 'subagentRunId', 'runId', 'threadId', 'parentMessageId', 'parentSubagentRunId', 'entityId'];

/** Closed string sets and discriminated unions, with a member no version describes. */
const ENUM_SLOTS: { type: string; apply: (e: Event) => string }[] = [
  { type: 'TEXT_MESSAGE_START', apply: (e) => ((e.role = 'narrator'), 'role') },
  { type: 'TEXT_MESSAGE_CHUNK', apply: (e) => ((e.role = 'narrator'), 'role') },
  { type: 'REASONING_ENCRYPTED_VALUE', apply: (e) => ((e.subtype = 'image'), 'subtype') },
  { type: 'RUN_FINISHED', apply: (e) => ((e.outcome = { type: 'paused' }), 'outcome.type') },
  { type: 'SUBAGENT_FINISHED', apply: (e) => ((e.outcome = { type: 'paused' }), 'outcome.type') },
  { type: 'STATE_DELTA', apply: (e) => (Array.isArray(e.delta) && e.delta.push({ op: 'increment', path: '/counter' }), 'delta[].op') },
  { type: 'TOOL_CALL_RESULT', apply: (e) => ((e.content = [{ type: 'hologram', uri: 'x' }, { type: 'text', text: 'ok' }]), 'content[].type') },
];

const WRONG_VALUES: unknown[] = [42, true, null, [], { nested: 1 }, 'text'];

function typeOf(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

const isEvent = (f: Frame): f is Event => typeof f !== 'string';

/**
 * Applies one random mutation; it may be a no-op when the stream offers no place for it (the kind is
 * still recorded, so the case is counted honestly as whatever it ends up being).
 */
export function mutateOnce(rng: Rng, frames: Frame[], seen: string[]): { frames: Frame[]; mutation: Mutation; keep?: number } {
  const out = frames.map((f) => (isEvent(f) ? structuredClone(f) : f));
  const n = out.length;
  const at = (): number => rng.int(0, Math.max(0, n - 1));
  const events = (): number[] => out.flatMap((f, i) => (isEvent(f) ? [i] : []));
  const kind = rng.pick<MutationKind>([
    'drop', 'drop', 'duplicate', 'swap', 'swap', 'reorder', 'change-id', 'change-id', 'corrupt-type', 'corrupt-type', 'remove-field',
    'unknown-property', 'unknown-event', 'unknown-enum', 'null-field', 'garbage-frame', 'truncate-events', 'cut-bytes',
  ]);
  const m = (detail: string): Mutation => ({ kind, detail });
  switch (kind) {
    case 'drop': {
      const i = at();
      const [gone] = out.splice(i, 1);
      return { frames: out, mutation: m(`#${i} ${label(gone)}`) };
    }
    case 'duplicate': {
      const i = at();
      out.splice(i, 0, structuredClone(out[i]!));
      return { frames: out, mutation: m(`#${i} ${label(out[i])}`) };
    }
    case 'swap': {
      const i = rng.int(0, Math.max(0, n - 2));
      if (i + 1 < n) [out[i], out[i + 1]] = [out[i + 1]!, out[i]!];
      return { frames: out, mutation: m(`#${i}<->#${i + 1}`) };
    }
    case 'reorder': {
      const i = at();
      const [f] = out.splice(i, 1);
      const j = rng.int(0, out.length);
      out.splice(j, 0, f!);
      return { frames: out, mutation: m(`#${i} ${label(f)} -> #${j}`) };
    }
    case 'change-id': {
      const candidates = events().flatMap((i) => ID_FIELDS.filter((k) => typeof (out[i] as Event)[k] === 'string').map((k) => [i, k] as const));
      if (candidates.length === 0) return { frames: out, mutation: m('no id') };
      const [i, k] = rng.pick(candidates);
      const ev = out[i] as Event;
      const value = rng.chance(0.5) && seen.length > 0 ? rng.pick(seen) : `${String(ev[k])}-x`;
      ev[k] = value;
      return { frames: out, mutation: m(`#${i} ${ev.type}.${k} = ${JSON.stringify(value)}`) };
    }
    case 'corrupt-type': {
      const candidates = events().flatMap((i) => Object.keys(out[i] as Event).filter((k) => k !== 'type').map((k) => [i, k] as const));
      if (candidates.length === 0) return { frames: out, mutation: m('no field') };
      const [i, k] = rng.pick(candidates);
      const ev = out[i] as Event;
      const value = rng.pick(WRONG_VALUES.filter((v) => typeOf(v) !== typeOf(ev[k])));
      ev[k] = value;
      return { frames: out, mutation: m(`#${i} ${ev.type}.${k} = ${JSON.stringify(value)}`) };
    }
    case 'remove-field': {
      const candidates = events().flatMap((i) => Object.keys(out[i] as Event).map((k) => [i, k] as const));
      const [i, k] = rng.pick(candidates);
      const ev = out[i] as Event;
      delete ev[k];
      return { frames: out, mutation: m(`#${i} ${String(ev.type)} -${k}`) };
    }
    case 'unknown-property': {
      const i = rng.pick(events());
      const ev = out[i] as Event;
      const nested = Object.keys(ev).filter((k) => typeOf(ev[k]) === 'object');
      if (nested.length > 0 && rng.chance(0.4)) {
        const k = rng.pick(nested);
        (ev[k] as Record<string, unknown>).futureField = 'x';
        return { frames: out, mutation: m(`#${i} ${ev.type}.${k}.futureField`) };
      }
      ev.futureField = { since: '1.9' };
      return { frames: out, mutation: m(`#${i} ${ev.type}.futureField`) };
    }
    case 'unknown-event': {
      const i = rng.int(0, n);
      const type = rng.pick(['FUTURE_EVENT', 'vendor.ping', 'run_started', '']);
      out.splice(i, 0, { type, payload: { n: 1 } });
      return { frames: out, mutation: m(`insert ${JSON.stringify(type)} at #${i}`) };
    }
    case 'unknown-enum': {
      const slots = events().flatMap((i) => ENUM_SLOTS.filter((s) => s.type === (out[i] as Event).type).map((s) => [i, s] as const));
      if (slots.length === 0) return { frames: out, mutation: m('no enum slot') };
      const [i, slot] = rng.pick(slots);
      const where = slot.apply(out[i] as Event);
      return { frames: out, mutation: m(`#${i} ${(out[i] as Event).type}.${where}`) };
    }
    case 'null-field': {
      const candidates = events().flatMap((i) => Object.keys(out[i] as Event).filter((k) => k !== 'type').map((k) => [i, k] as const));
      const extra: [number, string][] = events().flatMap((i) => {
        const t = (out[i] as Event).type;
        if (t === 'TOOL_CALL_START' || t === 'TOOL_CALL_CHUNK') return [[i, 'parentMessageId']];
        if (t === 'RUN_FINISHED') return [[i, rng.pick(['outcome', 'result'])]];
        return [[i, rng.pick(['rawEvent', 'subagentRunId'])]];
      });
      const [i, k] = rng.pick([...candidates, ...extra]);
      const ev = out[i] as Event;
      ev[k] = null;
      return { frames: out, mutation: m(`#${i} ${ev.type}.${k} = null`) };
    }
    case 'garbage-frame': {
      const i = rng.int(0, n);
      const raw = rng.pick(['{"type":', 'not json', '[1,2]', '"RUN_STARTED"', '{"kind":"TEXT_MESSAGE_CONTENT"}', '{"type":7}']);
      out.splice(i, 0, raw);
      return { frames: out, mutation: m(`insert ${raw} at #${i}`) };
    }
    case 'truncate-events': {
      const i = rng.int(1, Math.max(1, n - 1));
      out.length = Math.min(out.length, i);
      return { frames: out, mutation: m(`keep ${i} of ${n}`) };
    }
    case 'cut-bytes': {
      const keep = rng.next();
      return { frames: out, mutation: m(`keep ${(keep * 100).toFixed(1)}% of the bytes`), keep };
    }
  }
}

/** One to three mutations in sequence; the values already in the stream feed `change-id`. */
export function mutate(rng: Rng, frames: Frame[]): Mutant {
  const seen = [...new Set(frames.filter(isEvent).flatMap((e) => ID_FIELDS.map((k) => e[k]).filter((v): v is string => typeof v === 'string')))];
  const count = rng.chance(0.7) ? 1 : rng.int(2, 3);
  let current = frames;
  const mutations: Mutation[] = [];
  let keep: number | undefined;
  for (let i = 0; i < count; i++) {
    const r = mutateOnce(rng, current, seen);
    current = r.frames;
    mutations.push(r.mutation);
    if (r.keep !== undefined) keep = Math.min(keep ?? 1, r.keep);
  }
  return keep === undefined ? { frames: current, mutations } : { frames: current, mutations, keep };
}

export function label(f: Frame | undefined): string {
  if (f === undefined) return '(none)';
  return typeof f === 'string' ? `raw ${JSON.stringify(f)}` : String(f.type);
}
