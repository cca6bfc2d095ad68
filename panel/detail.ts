/**
 * The selected exchange's detail as its source answers it (the worker for a tab, the import worker for a
 * file): asked for by part, only for the view on screen, and asked again when the exchange changes.
 * One question per part is in flight at a time; changes meanwhile are asked for once it is answered, so a
 * fast stream costs one round trip at a time, not one per update.
 */
import { useEffect, useLayoutEffect, useState } from 'preact/hooks';
import type { ConvDiff, ConvMessage, DetailPart, ExchangeDetail, StateDiff } from '../src/detail/index.ts';
import type { PanelExchange, SessionSource } from './model.ts';

interface Entry {
  /** undefined until first answered. */
  value: unknown;
  /** The exchange revision answered for. */
  rev: number;
  asking: boolean;
  listeners: Set<() => void>;
}

const entries = new WeakMap<PanelExchange, Map<DetailPart, Entry>>();

function entryOf(x: PanelExchange, part: DetailPart): Entry {
  let parts = entries.get(x);
  if (!parts) entries.set(x, (parts = new Map()));
  let e = parts.get(part);
  if (!e) parts.set(part, (e = { value: undefined, rev: -1, asking: false, listeners: new Set() }));
  return e;
}

/** Waits before asking again after a question that went unanswered (the worker restarting), in ms. */
const RETRIES = [100, 400, 1600];

/**
 * What a view shows of an entry: the last answer while a newer one is asked for, except "none", which said
 * nothing of the exchange as it is now (asked while it was still arriving, say): shown as still asking, so
 * the view reads *Reading…* rather than *Not available* until the newer answer is in.
 */
function shown(e: Entry, x: PanelExchange): unknown {
  return e.value === null && e.rev !== x.rev ? undefined : e.value;
}

function ask(source: SessionSource, x: PanelExchange, part: DetailPart, e: Entry, tries = 0): void {
  if (e.asking || e.rev === x.rev) return;
  e.asking = true;
  const rev = x.rev;
  const settle = (value: unknown): void => {
    e.value = value;
    e.rev = rev;
    e.asking = false;
    for (const l of e.listeners) l();
    // Changed while asked: ask again, for whoever still shows it.
    if (e.listeners.size > 0) ask(source, x, part, e);
  };
  // A message that reached no worker says nothing of the exchange: asked again a few times before the
  // view says "Not available", which it would otherwise keep until the exchange next changed.
  const unanswered = (): void => {
    const wait = RETRIES[tries];
    if (wait === undefined) return settle(null);
    setTimeout(() => {
      e.asking = false;
      if (e.listeners.size > 0) ask(source, x, part, e, tries + 1);
    }, wait);
  };
  source.detail(x, part).then(settle, unanswered);
}

/**
 * One part of each of `xs`'s details, listened to and asked for while shown: undefined while first asked
 * for, null when the source has none; while newer is asked for, the last answer. A null part asks nothing.
 */
function useParts<K extends DetailPart>(source: SessionSource, xs: readonly PanelExchange[], part: K | null): (ExchangeDetail[K] | null | undefined)[] {
  const es = part === null ? [] : xs.map((x) => entryOf(x, part));
  const [, rerender] = useState(0);
  // Keyed by the entries and revisions, never by the arrays, which are new on every render. Run as the
  // view is drawn, not after its frame is painted: the question leaves a frame sooner (a file's first
  // Waterfall waits on it), and the listener is in place before any answer can come.
  useLayoutEffect(() => {
    const l = (): void => rerender((n) => n + 1);
    for (const e of es) e.listeners.add(l);
    return () => {
      for (const e of es) e.listeners.delete(l);
    };
  }, es);
  useLayoutEffect(() => {
    if (part !== null) xs.forEach((x, i) => ask(source, x, part, es[i]!));
  }, [source, part, ...xs, ...xs.map((x) => x.rev)]);
  return es.map((e, i) => shown(e, xs[i]!) as ExchangeDetail[K] | null | undefined);
}

/** A part of the selected exchange's detail, as `useParts` keeps it. */
export function useDetail<K extends DetailPart>(source: SessionSource, x: PanelExchange, part: K | null): ExchangeDetail[K] | null | undefined {
  return useParts(source, [x], part)[0];
}

/** One part of each of `xs`'s details (the run tree and the thread-wide views read every exchange of a thread). */
export function useDetails<K extends DetailPart>(source: SessionSource, xs: readonly PanelExchange[], part: K): (ExchangeDetail[K] | null | undefined)[] {
  return useParts(source, xs, part);
}

/**
 * An answer about one state or conversation step, asked for when it is shown: `key` names the question, so a view asking
 * about another step or exchange never shows a stale answer.
 */
function useStepAnswer<T>(key: string, ask: () => Promise<T | null>, shown: boolean): T | null | undefined {
  const [answer, setAnswer] = useState<{ for: string; value: T | null } | undefined>(undefined);
  useEffect(() => {
    if (!shown || answer?.for === key) return;
    let live = true;
    ask().then((value) => live && setAnswer({ for: key, value }), () => live && setAnswer({ for: key, value: null }));
    return () => void (live = false);
  }, [key, shown]);
  return answer?.for === key ? answer.value : undefined;
}

/** The state after one state step, asked for when it is shown (states can be large; see StateRow). */
export function useStateAt(source: SessionSource, x: PanelExchange, step: number, shown: boolean): { state: unknown } | null | undefined {
  return useStepAnswer(`${x.id}:${step}`, () => source.stateAt(x, step), shown);
}

/** What one state step changed, worked out by whoever analysed the exchange. */
export function useStateDiff(source: SessionSource, x: PanelExchange, step: number): StateDiff | null | undefined {
  return useStepAnswer(`${x.id}:${step}`, () => source.stateDiff(x, step), step >= 0);
}

/** What one conversation step changed, worked out by whoever analysed the exchange. */
export function useConversationDiff(source: SessionSource, x: PanelExchange, step: number): ConvDiff | null | undefined {
  return useStepAnswer(`${x.id}:${step}`, () => source.conversationDiff(x, step), step >= 0);
}

/** The messages the consumer holds after one conversation step, asked for when shown (the whole conversation). */
export function useConversationAt(source: SessionSource, x: PanelExchange, step: number, shown: boolean): { messages: ConvMessage[] } | null | undefined {
  return useStepAnswer(`${x.id}:${step}`, () => source.conversationAt(x, step), shown);
}
