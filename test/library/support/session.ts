/**
 * Long, realistic, conforming AG-UI sessions — a history in the input, tools, context and state; a stream of
 * turns each with a step, reasoning, streamed text, a tool call with streamed arguments and its result, and
 * state deltas — grown to a number of events, with one violation planted at a chosen place. The reduce and
 * diff tests and the reduce benchmark share them.
 */
export type Event = Record<string, unknown>;

export interface Session {
  input: Record<string, unknown>;
  events: Event[];
}

/** What can be planted, each breaking one rule the clean session never raises. */
export const PLANTS = {
  /** A TEXT_MESSAGE_CONTENT for a message that never started: streaming/text-not-open. */
  'text-not-open': (ids: Ids) => [{ type: 'TEXT_MESSAGE_CONTENT', messageId: `${ids.prefix}-ghost`, delta: 'stray' }],
  /** TOOL_CALL_ARGS after the call's end: tool-call/not-open. */
  'args-after-end': (ids: Ids) => [
    { type: 'TOOL_CALL_START', toolCallId: `${ids.prefix}-late`, toolCallName: 'search', parentMessageId: `${ids.prefix}-late-msg` },
    { type: 'TOOL_CALL_END', toolCallId: `${ids.prefix}-late` },
    { type: 'TOOL_CALL_ARGS', toolCallId: `${ids.prefix}-late`, delta: '{"q":1}' },
  ],
  /** A step finished that never started: lifecycle/step-not-started. */
  'step-not-started': () => [{ type: 'STEP_FINISHED', stepName: 'never-started' }],
} as const satisfies Record<string, (ids: Ids) => Event[]>;
export type Plant = keyof typeof PLANTS;
/** The rule each plant raises. */
export const PLANT_RULES: Record<Plant, string> = {
  'text-not-open': 'streaming/text-not-open',
  'args-after-end': 'tool-call/not-open',
  'step-not-started': 'lifecycle/step-not-started',
};

interface Ids {
  prefix: string;
}

export interface SessionOptions {
  /** Roughly how many events the stream holds (whole turns are added until it has at least this many)… */
  events?: number;
  /** …or exactly how many turns it has. */
  turns?: number;
  plant?: Plant;
  /** Where the plant goes, as a share of the turns (0 first, 1 last); 0.5 by default. */
  at?: number;
  /** Prefixes every id, so one session recorded twice can carry fresh ids. */
  ids?: string;
  /** How many pieces each text is streamed in: another chunking of the same content. */
  pieces?: number;
}

const THREAD = 'thread-1';
const WORDS = ['The', ' forecast', ' for', ' Lisbon', ' is', ' sunny', ' with', ' a', ' light', ' breeze', ' this', ' afternoon.'];

/** `text` cut into `n` pieces, each non-empty (the last takes the rest). */
function pieces(text: string, n: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / n));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function turn(t: number, o: Required<Pick<SessionOptions, 'ids' | 'pieces'>>): Event[] {
  const id = (what: string) => `${o.ids}${what}-${t}`;
  const text = WORDS.join('');
  const args = JSON.stringify({ city: 'Lisbon', day: t, units: 'metric' });
  return [
    { type: 'STEP_STARTED', stepName: `turn-${t}` },
    { type: 'REASONING_START', messageId: id('think') },
    { type: 'REASONING_MESSAGE_START', messageId: id('think'), role: 'reasoning' },
    ...pieces(`The user asks about day ${t}; the weather tool answers that.`, o.pieces).map((delta) => ({ type: 'REASONING_MESSAGE_CONTENT', messageId: id('think'), delta })),
    { type: 'REASONING_MESSAGE_END', messageId: id('think') },
    { type: 'REASONING_END', messageId: id('think') },
    { type: 'TOOL_CALL_START', toolCallId: id('call'), toolCallName: 'get_weather', parentMessageId: id('ask') },
    ...pieces(args, Math.min(o.pieces, 6)).map((delta) => ({ type: 'TOOL_CALL_ARGS', toolCallId: id('call'), delta })),
    { type: 'TOOL_CALL_END', toolCallId: id('call') },
    { type: 'TOOL_CALL_RESULT', messageId: id('result'), toolCallId: id('call'), content: `{"day":${t},"sky":"sunny"}`, role: 'tool' },
    { type: 'STATE_DELTA', delta: [{ op: 'replace', path: '/turns', value: t + 1 }, { op: 'add', path: `/days/-`, value: t }] },
    { type: 'TEXT_MESSAGE_START', messageId: id('answer'), role: 'assistant' },
    ...pieces(text, o.pieces).map((delta) => ({ type: 'TEXT_MESSAGE_CONTENT', messageId: id('answer'), delta })),
    { type: 'TEXT_MESSAGE_END', messageId: id('answer') },
    { type: 'STEP_FINISHED', stepName: `turn-${t}` },
  ];
}

/** A session of at least `o.events` events in one requested run. */
export function session(o: SessionOptions): Session {
  const ids = o.ids ?? '';
  const runId = `${ids}run-1`;
  const input = {
    threadId: THREAD,
    runId,
    protocolVersion: '1.0',
    messages: [
      { id: `${ids}u-1`, role: 'user', content: 'What is the weather in Lisbon?' },
      { id: `${ids}a-1`, role: 'assistant', content: 'Let me check.' },
      { id: `${ids}u-2`, role: 'user', content: 'And for the week?' },
    ],
    tools: [
      { name: 'get_weather', description: 'Weather for a city and day', parameters: { type: 'object', properties: { city: { type: 'string' }, day: { type: 'number' } } } },
      { name: 'search', description: 'Web search', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
      { name: 'calendar', description: 'Reads the calendar', parameters: { type: 'object', properties: {} } },
    ],
    context: [{ description: 'locale', value: 'pt-PT' }, { description: 'units', value: 'metric' }],
    state: { turns: 0, days: [], city: 'Lisbon', theme: 'dark' },
    forwardedProps: {},
  };
  const head: Event[] = [{ type: 'RUN_STARTED', threadId: THREAD, runId, protocolVersion: '1.0' }, { type: 'STATE_SNAPSHOT', snapshot: { turns: 0, days: [], city: 'Lisbon', theme: 'dark' } }];
  const turns: Event[][] = [];
  let total = head.length + 1;
  const shape = { ids, pieces: o.pieces ?? 12 };
  while (o.turns !== undefined ? turns.length < o.turns : total < (o.events ?? 0)) {
    const t = turn(turns.length, shape);
    turns.push(t);
    total += t.length;
  }
  if (o.plant) {
    const where = Math.min(turns.length, Math.round((o.at ?? 0.5) * turns.length));
    turns.splice(where, 0, PLANTS[o.plant]({ prefix: `${ids}plant` }));
  }
  return { input, events: [...head, ...turns.flat(), { type: 'RUN_FINISHED', threadId: THREAD, runId }] };
}

/** The session as an SSE body, one event per frame, with a keep-alive comment every `keepAliveEvery` frames. */
export function sse(events: Event[], keepAliveEvery = 0): string {
  return events.map((e, i) => `${keepAliveEvery && i % keepAliveEvery === 0 ? ': keep-alive\n\n' : ''}data: ${JSON.stringify(e)}\n\n`).join('');
}
