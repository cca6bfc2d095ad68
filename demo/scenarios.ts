/**
 * What the demo agent says, scenario by scenario. Each scenario is a pure
 * function of the RunAgentInput, so a test, the agent and the page all see the
 * same stream for the same input. Browser-safe: the demo page imports this too.
 */
import {
  EventType,
  type Event,
  type Interrupt,
  type Message,
  type ResumeEntry,
  type RunAgentInput,
  type Tool,
} from '@ag-ui/core';

export type DemoTransport = 'sse' | 'protobuf';

/**
 * An event as it goes on the wire. Misbehaving scenarios carry material the
 * schema does not describe, which `Event` cannot type.
 */
export type WireEvent = { type: string; [key: string]: unknown };

export interface ScenarioInfo {
  name: string;
  /** One line: what the agent does. */
  description: string;
  /** What the Inspector should show for this stream. */
  shows: string;
  /**
   * `protobuf` only for scenarios whose every event the official encoder can
   * express; the others answer SSE whatever the Accept header asks for, which
   * the HTTP binding permits (a client must always be ready for SSE).
   */
  transports: readonly DemoTransport[];
  /**
   * What the Inspector judges one request of this scenario (the `interrupt` scenario's first, unresumed
   * one): the exchange's verdict and the warning and error rules among its findings, exactly.
   */
  inspector: {
    verdict: 'completed' | 'failed';
    rules: readonly string[];
    /** A pre-1.0 exchange's 1.0-readiness items (warnings and errors), which never fail it. */
    readiness?: readonly string[];
  };
  /**
   * `pre-1.0`: the page sends it with the pre-1.0 reference client (`@ag-ui/client` 0.0.59, what current
   * CopilotKit ships), whose input declares no protocolVersion; otherwise with the official 1.0 client.
   */
  client?: 'pre-1.0';
}

export type Scenario = ScenarioInfo & {
  /**
   * Where when is the point (the timing scenarios): the pause before each event, ms, in place of the
   * request's delay between events; `undefined` keeps that delay for the event.
   */
  pauses?(events: readonly { type: string }[]): readonly (number | undefined)[];
} & (
    | { encodable: true; events(input: RunAgentInput): Event[] }
    | { encodable: false; events(input: RunAgentInput): WireEvent[] }
  );

/** The version our tool speaks, and so the one the conforming scenarios declare. */
export const DEMO_PROTOCOL_VERSION = '1.0';

/** The frontend tool the demo page advertises, so the `tools` scenario has one to call. */
export const demoFrontendTool: Tool = {
  name: 'show_weather_card',
  description: 'Shows a weather card in the page.',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' }, summary: { type: 'string' } },
    required: ['city', 'summary'],
  },
};

/** The two interrupts the `interrupt` scenario raises, with the answer the demo gives each. */
const interruptPlan: readonly { interrupt: Interrupt; answer: Record<string, unknown> }[] = [
  {
    interrupt: {
      id: 'approve-send',
      reason: 'approval',
      message: 'Send the quarterly report to finance@example.com?',
      responseSchema: {
        type: 'object',
        properties: { approved: { type: 'boolean' } },
        required: ['approved'],
      },
    },
    answer: { approved: true },
  },
  {
    interrupt: {
      id: 'choose-format',
      reason: 'input_required',
      message: 'Which format should the report use?',
      responseSchema: {
        type: 'object',
        properties: { format: { type: 'string', enum: ['pdf', 'html'] } },
        required: ['format'],
      },
    },
    answer: { format: 'pdf' },
  },
];

/**
 * Resume entries answering `interrupts`: every one (`all`), or only the first
 * (`partial`) — an incomplete resume, which a conforming consumer must refuse
 * to send, offered so the Inspector has one to catch. An interrupt the demo
 * has no answer for is abandoned explicitly, because omission is not abandonment.
 */
export function resumeEntriesFor(interrupts: readonly Interrupt[], coverage: 'all' | 'partial'): ResumeEntry[] {
  const entries = interrupts.map((interrupt): ResumeEntry => {
    const planned = interruptPlan.find((p) => p.interrupt.id === interrupt.id);
    return planned
      ? { interruptId: interrupt.id, status: 'resolved', payload: planned.answer }
      : { interruptId: interrupt.id, status: 'cancelled' };
  });
  return coverage === 'all' ? entries : entries.slice(0, 1);
}

function runStarted(input: RunAgentInput, runId = input.runId, protocolVersion = DEMO_PROTOCOL_VERSION): Event {
  // The requested run says which run spawned it, as its input did (events/lifecycle#run_started).
  const parent = runId === input.runId && input.parentRunId !== undefined ? { parentRunId: input.parentRunId } : {};
  return { type: EventType.RUN_STARTED, threadId: input.threadId, runId, protocolVersion, ...parent };
}

function runFinished(input: RunAgentInput, extra: Partial<Extract<Event, { type: EventType.RUN_FINISHED }>> = {}): Event {
  return { type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId, ...extra };
}

/** Splits text into a few word groups, so a message streams as several CONTENT events. */
function chunks(text: string, wordsPerChunk = 3): string[] {
  const words = text.split(/(?<=\s)/);
  const out: string[] = [];
  for (let i = 0; i < words.length; i += wordsPerChunk) out.push(words.slice(i, i + wordsPerChunk).join(''));
  return out;
}

function textMessage(messageId: string, text: string): Event[] {
  return [
    { type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' },
    ...chunks(text).map((delta): Event => ({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta })),
    { type: EventType.TEXT_MESSAGE_END, messageId },
  ];
}

function toolCall(toolCallId: string, toolCallName: string, parentMessageId: string, args: unknown): Event[] {
  const json = JSON.stringify(args);
  const half = Math.ceil(json.length / 2);
  return [
    { type: EventType.TOOL_CALL_START, toolCallId, toolCallName, parentMessageId },
    { type: EventType.TOOL_CALL_ARGS, toolCallId, delta: json.slice(0, half) },
    { type: EventType.TOOL_CALL_ARGS, toolCallId, delta: json.slice(half) },
    { type: EventType.TOOL_CALL_END, toolCallId },
  ];
}

/** Ids are scoped by run, so several runs on one thread never reuse one. */
function idFor(input: RunAgentInput, local: string): string {
  return `${input.runId}:${local}`;
}

function lastUserText(messages: readonly Message[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    return m.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join(' ');
  }
  return undefined;
}

function chatReply(input: RunAgentInput): string {
  const asked = lastUserText(input.messages);
  return asked
    ? `You said: "${asked}". I'm the AG-UI demo agent, streaming this reply a few words at a time.`
    : `Hello! I'm the AG-UI demo agent, streaming this reply a few words at a time.`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const chat: Scenario = {
  name: 'chat',
  inspector: { verdict: 'completed', rules: [] },
  description: 'A clean run: one assistant message streamed in several chunks.',
  shows: 'A conformant run with no findings: RUN_STARTED declaring 1.0, one assembled assistant message, RUN_FINISHED.',
  transports: ['sse', 'protobuf'],
  encodable: true,
  events: (input) => [
    runStarted(input),
    ...textMessage(idFor(input, 'reply'), chatReply(input)),
    runFinished(input),
  ],
};

const tools: Scenario = {
  name: 'tools',
  inspector: { verdict: 'completed', rules: [] },
  description: 'A backend tool call answered in-stream, then a call of the frontend tool the input advertises, left pending; an input ending with its tool result gets a short acknowledging run.',
  shows:
    'Two tool calls: the agent-executed one with its TOOL_CALL_RESULT, the frontend one unanswered and named in the success outcome\'s pendingToolCallIds; no findings.',
  transports: ['sse', 'protobuf'],
  encodable: true,
  events: (input) => {
    // The app answered the card call (the next input's tool message): the run acknowledges it and ends.
    const last = input.messages.at(-1);
    if (last?.role === 'tool' && last.toolCallId.endsWith(':call-card')) {
      return [runStarted(input), ...textMessage(idFor(input, 'shown'), 'Glad the card is on your page.'), runFinished(input)];
    }
    const lookupId = idFor(input, 'call-lookup');
    const checking = idFor(input, 'checking');
    const events: Event[] = [
      runStarted(input),
      ...textMessage(checking, 'Let me check the weather in Lisbon.'),
      ...toolCall(lookupId, 'lookup_weather', checking, { city: 'Lisbon' }),
      {
        type: EventType.TOOL_CALL_RESULT,
        messageId: idFor(input, 'lookup-result'),
        toolCallId: lookupId,
        content: '{"city":"Lisbon","tempC":22,"sky":"sunny"}',
        role: 'tool',
      },
    ];
    const frontend = input.tools.find((t) => t.name === demoFrontendTool.name) ?? input.tools[0];
    const summary = idFor(input, 'summary');
    if (!frontend) {
      return [
        ...events,
        ...textMessage(summary, 'It is 22°C and sunny in Lisbon. (No frontend tool was advertised, so I cannot show a card.)'),
        runFinished(input, { outcome: { type: 'success' } }),
      ];
    }
    const cardId = idFor(input, 'call-card');
    return [
      ...events,
      ...textMessage(summary, 'It is 22°C and sunny in Lisbon; showing it on your page.'),
      ...toolCall(cardId, frontend.name, summary, { city: 'Lisbon', summary: '22°C, sunny' }),
      runFinished(input, { outcome: { type: 'success', pendingToolCallIds: [cardId] } }),
    ];
  },
};

const state: Scenario = {
  name: 'state',
  inspector: { verdict: 'completed', rules: [] },
  description: 'A STATE_SNAPSHOT that keeps the input state and adds a trip plan, then JSON Patch deltas against that snapshot.',
  shows: 'State evolving: a snapshot keeping the input state\'s keys, then RFC 6902 deltas (test/add/replace) that all apply; no findings.',
  transports: ['sse', 'protobuf'],
  encodable: true,
  events: (input) => {
    const base = isRecord(input.state) ? input.state : {};
    return [
      runStarted(input),
      { type: EventType.STATE_SNAPSHOT, snapshot: { ...base, trip: { destination: 'Lisbon', days: 3, stops: [] }, status: 'planning' } },
      { type: EventType.STEP_STARTED, stepName: 'plan-trip' },
      {
        type: EventType.STATE_DELTA,
        delta: [
          { op: 'add', path: '/trip/stops/-', value: 'Belém Tower' },
          { op: 'add', path: '/trip/stops/-', value: 'Alfama' },
        ],
      },
      { type: EventType.STATE_DELTA, delta: [{ op: 'add', path: '/trip/budgetEur', value: 450 }] },
      {
        type: EventType.STATE_DELTA,
        delta: [
          { op: 'test', path: '/status', value: 'planning' },
          { op: 'replace', path: '/status', value: 'ready' },
        ],
      },
      { type: EventType.STEP_FINISHED, stepName: 'plan-trip' },
      ...textMessage(idFor(input, 'summary'), 'Your three-day Lisbon plan is ready: Belém Tower, Alfama, about 450 EUR.'),
      runFinished(input),
    ];
  },
};

/** Answers collected so far, read back from the state a previous partial resume left. */
function answersInState(state: unknown): Record<string, ResumeEntry> {
  if (!isRecord(state) || !isRecord(state.report) || state.report.status !== 'awaiting-answers') return {};
  return isRecord(state.report.answers) ? (state.report.answers as Record<string, ResumeEntry>) : {};
}

/**
 * Stateless on purpose: the spec lets a producer keep nothing between runs. The
 * demo recognises its own interrupt ids, so it can still tell an incomplete
 * resume and keep the uncovered interrupt open, as the spec asks of a producer
 * that can tell. Answers already given ride in the thread state, which the
 * consumer carries across the gap, so the next resume need only answer what
 * was raised again.
 */
const interrupt: Scenario = {
  name: 'interrupt',
  inspector: { verdict: 'completed', rules: [] },
  description: 'Without resume: the run ends interrupted, asking two questions. With resume entries answering them: a normal run.',
  shows:
    "RUN_FINISHED with the interrupt outcome carrying two interrupts, then a request whose resume entries cover both and a success run. A partial resume shows an incomplete resume list and the run interrupting again with the uncovered interrupt.",
  transports: ['sse', 'protobuf'],
  encodable: true,
  events: (input) => {
    const base = isRecord(input.state) ? input.state : {};
    const recognised = (input.resume ?? []).filter((entry) => interruptPlan.some((p) => p.interrupt.id === entry.interruptId));
    if (recognised.length === 0) {
      return [
        runStarted(input),
        { type: EventType.STATE_SNAPSHOT, snapshot: { ...base, report: { status: 'awaiting-answers', answers: {} } } },
        ...textMessage(idFor(input, 'ask'), 'The quarterly report is drafted. Before I send it I need two answers from you.'),
        runFinished(input, { outcome: { type: 'interrupt', interrupts: interruptPlan.map((p) => p.interrupt) } }),
      ];
    }
    const answers = { ...answersInState(input.state), ...Object.fromEntries(recognised.map((entry) => [entry.interruptId, entry])) };
    const open = interruptPlan.filter((p) => answers[p.interrupt.id] === undefined).map((p) => p.interrupt);
    if (open.length > 0) {
      return [
        runStarted(input),
        { type: EventType.STATE_SNAPSHOT, snapshot: { ...base, report: { status: 'awaiting-answers', answers } } },
        ...textMessage(idFor(input, 'still-waiting'), `Thanks. I still need an answer to: ${open.map((i) => i.message ?? i.id).join(' ')}`),
        runFinished(input, { outcome: { type: 'interrupt', interrupts: open } }),
      ];
    }
    const approval = answers['approve-send'];
    const format = answers['choose-format'];
    const approved = approval?.status === 'resolved' && isRecord(approval.payload) && approval.payload.approved === true;
    const chosen = format?.status === 'resolved' && isRecord(format.payload) ? String(format.payload.format) : 'pdf';
    return [
      runStarted(input),
      { type: EventType.STATE_SNAPSHOT, snapshot: { ...base, report: approved ? { status: 'sent', format: chosen } : { status: 'held' } } },
      ...textMessage(
        idFor(input, 'done'),
        approved ? `Sent the quarterly report to finance@example.com as ${chosen.toUpperCase()}.` : 'Understood: the report stays unsent.',
      ),
      runFinished(input),
    ];
  },
};

const replayHistory: readonly { user: string; assistant: string; state: Record<string, unknown> }[] = [
  { user: 'Plan a trip to Lisbon.', assistant: 'Three days in Lisbon it is.', state: { destination: 'Lisbon', days: 3 } },
  { user: 'Add a day trip.', assistant: 'Added a day trip to Sintra.', state: { destination: 'Lisbon', days: 3, dayTrip: 'Sintra' } },
];

const replay: Scenario = {
  name: 'replay',
  inspector: { verdict: 'completed', rules: [] },
  description: 'One stream, three runs on the thread: two replayed past runs restated as snapshots, then the requested run.',
  shows:
    'Three runs in one response: two replayed runs with their own runIds carrying MESSAGES_SNAPSHOT/STATE_SNAPSHOT, then the requested run echoing the input runId; no findings.',
  transports: ['sse', 'protobuf'],
  encodable: true,
  events: (input) => {
    const restated: Message[] = [];
    const replayed = replayHistory.flatMap((turn, i): Event[] => {
      const runId = `${input.threadId}:replayed-${i + 1}`;
      restated.push(
        { id: `${runId}:user`, role: 'user', content: turn.user },
        { id: `${runId}:assistant`, role: 'assistant', content: turn.assistant },
      );
      // The last restatement includes what the consumer just sent: a snapshot
      // reconciles by id, and leaving those out would drop them from its thread.
      const messages = i === replayHistory.length - 1 ? [...restated, ...input.messages] : [...restated];
      return [
        runStarted(input, runId),
        { type: EventType.MESSAGES_SNAPSHOT, messages },
        { type: EventType.STATE_SNAPSHOT, snapshot: turn.state },
        { type: EventType.RUN_FINISHED, threadId: input.threadId, runId },
      ];
    });
    return [
      ...replayed,
      runStarted(input),
      ...textMessage(idFor(input, 'reply'), 'Picking up where we left off: three days in Lisbon plus Sintra.'),
      { type: EventType.STATE_DELTA, delta: [{ op: 'add', path: '/confirmed', value: true }] },
      runFinished(input),
    ];
  },
};

const misbehaveIdentity: Scenario = {
  name: 'misbehave-identity',
  inspector: { verdict: 'failed', rules: ['identity/run-id-mismatch'] },
  description: 'RUN_FINISHED names a runId other than the one RUN_STARTED opened.',
  shows: 'An identity violation: RUN_FINISHED closes a run that was never started (its runId differs from RUN_STARTED\'s).',
  transports: ['sse', 'protobuf'],
  encodable: true,
  events: (input) => [
    runStarted(input),
    ...textMessage(idFor(input, 'reply'), chatReply(input)),
    runFinished(input, { runId: `${input.runId}-other` }),
  ],
};

const misbehaveVersion: Scenario = {
  name: 'misbehave-version',
  inspector: { verdict: 'completed', rules: ['version/producer-newer'] },
  description: 'RUN_STARTED declares protocolVersion "1.9", newer than the 1.0 the consumer speaks.',
  shows: 'A version warning: the producer declares 1.9 against the consumer\'s 1.0; the run itself is served and completes.',
  transports: ['sse', 'protobuf'],
  encodable: true,
  events: (input) => [
    runStarted(input, input.runId, '1.9'),
    ...textMessage(idFor(input, 'reply'), chatReply(input)),
    runFinished(input),
  ],
};

const misbehaveUnknown: Scenario = {
  name: 'misbehave-unknown',
  inspector: { verdict: 'completed', rules: ['unrecognised/event-type', 'unrecognised/property', 'unrecognised/union-member'] },
  description: 'Unknown material: a property on TEXT_MESSAGE_CONTENT, a PROGRESS_UPDATE event, a "handoff" RUN_FINISHED outcome.',
  shows:
    'Unrecognised material stripped or dropped with warnings: /confidence on TEXT_MESSAGE_CONTENT, the PROGRESS_UPDATE event, and /outcome (read as success).',
  transports: ['sse'],
  encodable: false,
  events: (input) => {
    const messageId = idFor(input, 'reply');
    return [
      runStarted(input),
      { type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' },
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: 'Working on it… ', confidence: 0.92 },
      { type: 'PROGRESS_UPDATE', progress: 0.5, label: 'Halfway there' },
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: 'done. Handing you over to billing.' },
      { type: EventType.TEXT_MESSAGE_END, messageId },
      { type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId, outcome: { type: 'handoff', target: 'billing-agent' } },
    ];
  },
};

const misbehaveTruncated: Scenario = {
  name: 'misbehave-truncated',
  inspector: { verdict: 'failed', rules: ['lifecycle/truncated'] },
  description: 'The response ends mid-message: TEXT_MESSAGE_START and some CONTENT, then no END and no RUN_FINISHED.',
  shows: 'A truncated run: the body ended with a message still open and no terminal event.',
  transports: ['sse', 'protobuf'],
  encodable: true,
  events: (input) => {
    const messageId = idFor(input, 'reply');
    return [
      runStarted(input),
      { type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' },
      ...chunks('This reply is going to be cut off in the middle of a').map(
        (delta): Event => ({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta }),
      ),
    ];
  },
};

const misbehaveToolArgs: Scenario = {
  name: 'misbehave-tool-args',
  inspector: { verdict: 'completed', rules: [] },
  description: "A backend tool call answered in-stream, then two calls of the input's frontend tool: one whose arguments its parameters schema rejects, one whose arguments are not JSON; both left pending.",
  shows:
    "The Tools view: the backend call with its result, its arguments unchecked (no schema declared); the frontend call invalid, /city not a string and /summary missing; the torn one unparsed; both pending. No findings: the protocol leaves validating arguments to the application (events/tool-calls#security-considerations).",
  transports: ['sse', 'protobuf'],
  encodable: true,
  events: (input) => {
    const asking = idFor(input, 'asking');
    const lookupId = idFor(input, 'call-lookup');
    const frontend = input.tools.find((t) => t.name === demoFrontendTool.name)?.name ?? demoFrontendTool.name;
    const cardId = idFor(input, 'call-card');
    const tornId = idFor(input, 'call-torn');
    return [
      runStarted(input),
      ...textMessage(asking, 'Let me look up Lisbon and put it on your page.'),
      ...toolCall(lookupId, 'lookup_weather', asking, { city: 'Lisbon' }),
      { type: EventType.TOOL_CALL_RESULT, messageId: idFor(input, 'lookup-result'), toolCallId: lookupId, content: '{"city":"Lisbon","tempC":22}', role: 'tool' },
      // The model got the tool's schema wrong: a number for the city, and no summary.
      ...toolCall(cardId, frontend, asking, { city: 42, tempC: 22 }),
      { type: EventType.TOOL_CALL_START, toolCallId: tornId, toolCallName: frontend, parentMessageId: asking },
      { type: EventType.TOOL_CALL_ARGS, toolCallId: tornId, delta: '{"city": "Lisb' },
      { type: EventType.TOOL_CALL_END, toolCallId: tornId },
      runFinished(input, { outcome: { type: 'success', pendingToolCallIds: [cardId, tornId] } }),
    ];
  },
};

const misbehaveState: Scenario = {
  name: 'misbehave-state',
  inspector: { verdict: 'completed', rules: ['state/patch-failed'] },
  description: 'A snapshot, deltas that apply, then a delta whose second operation removes a path that is not there, then one that applies.',
  shows:
    'State time travel: each step\'s diff against the one before; the failing delta with its remove marked failed (nothing at /cart/coupon), the replace before it undone and the state kept as it was.',
  transports: ['sse', 'protobuf'],
  encodable: true,
  events: (input) => [
    runStarted(input),
    { type: EventType.STATE_SNAPSHOT, snapshot: { cart: { items: ['apple'], total: 1 }, status: 'shopping' } },
    { type: EventType.STATE_DELTA, delta: [{ op: 'add', path: '/cart/items/-', value: 'pear' }, { op: 'replace', path: '/cart/total', value: 2 }] },
    {
      type: EventType.STATE_DELTA,
      delta: [
        { op: 'replace', path: '/status', value: 'checkout' },
        { op: 'remove', path: '/cart/coupon' },
      ],
    },
    { type: EventType.STATE_DELTA, delta: [{ op: 'move', from: '/cart/items/0', path: '/cart/items/1' }, { op: 'add', path: '/paid', value: false }] },
    ...textMessage(idFor(input, 'summary'), 'Your cart has a pear and an apple.'),
    runFinished(input),
  ],
};

/** What the `misbehave-conversation` scenario streams, message by message, before its snapshot restates them. */
const conversationPlan = {
  plan: "I'll look that up.",
  draft: 'The answer is 41.',
  check: 'Checking the sources…',
  aside: '(thinking out loud: not meant for you)',
  source: 'Source: the manual, page 12.',
  note: 'Note: the figures are from 2024.',
} as const;

const misbehaveConversation: Scenario = {
  name: 'misbehave-conversation',
  inspector: { verdict: 'completed', rules: ['conversation/snapshot-drops-own-message'] },
  description:
    'Six streamed messages and an activity, then a MESSAGES_SNAPSHOT that leaves one out, lists two of the others first and rewrites one.',
  shows:
    'Conversation time travel: at the snapshot step the diff says "aside" dropped, "source" and "note" reordered (listed first, yet kept in place: a snapshot does not reorder what the consumer holds), "draft" replaced (41 → 42); the activity, which no snapshot of messages carries, survives as activity.',
  transports: ['sse', 'protobuf'],
  encodable: true,
  events: (input) => {
    const id = (k: keyof typeof conversationPlan): string => idFor(input, k);
    const said = (k: keyof typeof conversationPlan, content: string = conversationPlan[k]): Message => ({ id: id(k), role: 'assistant', content });
    return [
      runStarted(input),
      { type: EventType.ACTIVITY_SNAPSHOT, messageId: idFor(input, 'progress'), activityType: 'PROGRESS', content: { step: 'looking up' } },
      ...(Object.keys(conversationPlan) as (keyof typeof conversationPlan)[]).flatMap((k) => textMessage(id(k), conversationPlan[k])),
      { type: EventType.MESSAGES_SNAPSHOT, messages: [...input.messages, said('source'), said('note'), said('plan'), said('draft', 'The answer is 42.'), said('check')] },
      runFinished(input),
    ];
  },
};

/** A text message of a subagent invocation: its events carry the invocation's subagentRunId (events/subagents). */
function delegated(subagentRunId: string, messageId: string, text: string): Event[] {
  return textMessage(messageId, text).map((e) => ({ ...e, subagentRunId }) as Event);
}

const subagents: Scenario = {
  name: 'subagents',
  inspector: { verdict: 'completed', rules: [] },
  description: 'A run that delegates: a planner subagent hands research to one subagent and drafting to another; the drafter fails, the planner finishes, the run answers.',
  shows: 'The run tree in the Identity & runs view: the run, the planner under it, the researcher (success) and the drafter (error) under the planner.',
  transports: ['sse', 'protobuf'],
  encodable: true,
  events: (input) => {
    const [planner, researcher, drafter] = ['planner', 'researcher', 'drafter'].map((n) => idFor(input, n)) as [string, string, string];
    return [
      runStarted(input),
      { type: EventType.SUBAGENT_STARTED, subagentRunId: planner, name: 'planner', description: 'Splits the request into research and drafting.' },
      ...delegated(planner, idFor(input, 'plan'), 'Research the options, then draft the answer.'),
      { type: EventType.SUBAGENT_STARTED, subagentRunId: researcher, name: 'researcher', parentSubagentRunId: planner },
      ...delegated(researcher, idFor(input, 'found'), 'Three flights and two trains fit the dates.'),
      { type: EventType.SUBAGENT_FINISHED, subagentRunId: researcher, outcome: { type: 'success' } },
      { type: EventType.SUBAGENT_STARTED, subagentRunId: drafter, name: 'drafter', parentSubagentRunId: planner },
      { type: EventType.SUBAGENT_ERROR, subagentRunId: drafter, message: 'The drafting model is over its quota.', code: 'quota' },
      { type: EventType.SUBAGENT_FINISHED, subagentRunId: planner },
      ...textMessage(idFor(input, 'answer'), 'I found three flights and two trains; drafting failed, so here is the plain list.'),
      runFinished(input),
    ];
  },
};

const misbehaveMalformed: Scenario = {
  name: 'misbehave-malformed',
  inspector: { verdict: 'failed', rules: ['schema/malformed'] },
  description: 'A known field with a malformed value: TEXT_MESSAGE_CONTENT whose delta is the number 42.',
  shows: 'A fatal schema violation at /delta (a number where a string is required); the rest of the stream is conformant.',
  transports: ['sse'],
  encodable: false,
  events: (input) => {
    const messageId = idFor(input, 'reply');
    return [
      runStarted(input),
      { type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' },
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: 'The answer is ' },
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: 42 },
      { type: EventType.TEXT_MESSAGE_END, messageId },
      runFinished(input),
    ];
  },
};

const preVersion: Scenario = {
  name: 'pre-1.0',
  client: 'pre-1.0',
  inspector: { verdict: 'completed', rules: [], readiness: ['unrecognised/event-type', 'version/consumer-undeclared'] },
  description: 'An app and agent from before 1.0, as every framework release on npm still ships: no protocolVersion on either side, and the agent thinks aloud with the retired THINKING_* events.',
  shows:
    'A pre-1.0 badge and nothing that is the app’s bug today; 1.0 readiness lists the undeclared version and the THINKING_* events a 1.0 consumer drops.',
  transports: ['sse'],
  encodable: false,
  events: (input) => {
    const thought = idFor(input, 'thought');
    return [
      { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId },
      { type: 'THINKING_START', title: 'Planning the answer' },
      { type: 'THINKING_TEXT_MESSAGE_START' },
      ...chunks('The user greets me; I should introduce myself briefly.').map((delta): WireEvent => ({ type: 'THINKING_TEXT_MESSAGE_CONTENT', delta })),
      { type: 'THINKING_TEXT_MESSAGE_END' },
      { type: 'THINKING_END' },
      ...textMessage(thought, chatReply(input)),
      runFinished(input),
    ];
  },
};


/**
 * The schedule the timing scenarios keep, whatever delay the request asks for elsewhere: what the
 * Waterfall, the timing summary and the CLI's `timing` must read back from them.
 */
export const demoSchedule = {
  /** `slow-start`: the first content delta, after RUN_STARTED and TEXT_MESSAGE_START sent at once. */
  firstContentMs: 400,
  /** `stall`: the silence in the middle of its message. */
  stallMs: 1500,
  /** `slow-tool`: from TOOL_CALL_START (its arguments sent with it) to TOOL_CALL_RESULT. */
  toolMs: 600,
  /** `buffered`: how far apart the producer stamped its events, which all go on the wire at once. */
  producedEveryMs: 250,
} as const;

/** The index of the first event of `type`: where a schedule's pause goes. */
function firstOf(events: readonly { type: string }[], type: string, from = 0): number {
  const i = events.findIndex((e, j) => j >= from && e.type === type);
  if (i < 0) throw new Error(`demo scenario without ${type}`);
  return i;
}

const slowStart: Scenario = {
  name: 'slow-start',
  inspector: { verdict: 'completed', rules: [] },
  description: `A clean run whose first words take ${demoSchedule.firstContentMs} ms: RUN_STARTED and TEXT_MESSAGE_START at once, then a wait before the first delta.`,
  shows: `A slow first token: the timing summary's TTFT (and the list's TTFT column) near ${demoSchedule.firstContentMs} ms against a time to first byte of a few ms.`,
  transports: ['sse', 'protobuf'],
  encodable: true,
  events: (input) => [runStarted(input), ...textMessage(idFor(input, 'reply'), 'Sorry for the wait: thinking before the first word is what a slow model looks like.'), runFinished(input)],
  pauses: (events) => {
    const first = firstOf(events, EventType.TEXT_MESSAGE_CONTENT);
    return events.map((_, i) => (i < first ? 0 : i === first ? demoSchedule.firstContentMs : undefined));
  },
};

const stall: Scenario = {
  name: 'stall',
  inspector: { verdict: 'completed', rules: [] },
  description: `A clean run whose message goes silent for ${demoSchedule.stallMs / 1000} s halfway through, then carries on.`,
  shows: `A stall: the Waterfall marks a ${demoSchedule.stallMs} ms gap inside the message bar, and the summary and the CLI count one stall.`,
  transports: ['sse', 'protobuf'],
  encodable: true,
  events: (input) => [
    runStarted(input),
    ...textMessage(idFor(input, 'reply'), 'This answer starts well, then the agent stops to fetch something slow, and finally it finishes the sentence.'),
    runFinished(input),
  ],
  pauses: (events) => {
    const first = firstOf(events, EventType.TEXT_MESSAGE_CONTENT);
    const middle = Math.floor((first + firstOf(events, EventType.TEXT_MESSAGE_END)) / 2);
    return events.map((_, i) => (i === middle ? demoSchedule.stallMs : undefined));
  },
};

const slowTool: Scenario = {
  name: 'slow-tool',
  inspector: { verdict: 'completed', rules: [] },
  description: `A backend tool call whose result comes ${demoSchedule.toolMs} ms after it started, then a message reading it.`,
  shows: `A long backend tool call: its Waterfall bar spans ${demoSchedule.toolMs} ms from TOOL_CALL_START to TOOL_CALL_RESULT, side backend.`,
  transports: ['sse', 'protobuf'],
  encodable: true,
  events: (input) => {
    const asking = idFor(input, 'asking');
    const callId = idFor(input, 'call-search');
    return [
      runStarted(input),
      ...textMessage(asking, 'Let me search the archive for that.'),
      ...toolCall(callId, 'search_archive', asking, { query: 'quarterly report', limit: 3 }),
      { type: EventType.TOOL_CALL_RESULT, messageId: idFor(input, 'search-result'), toolCallId: callId, content: '{"hits":3}', role: 'tool' },
      ...textMessage(idFor(input, 'found'), 'Found three matching reports.'),
      runFinished(input),
    ];
  },
  pauses: (events) => {
    const start = firstOf(events, EventType.TOOL_CALL_START);
    const result = firstOf(events, EventType.TOOL_CALL_RESULT, start);
    return events.map((_, i) => (i > start && i < result ? 0 : i === result ? demoSchedule.toolMs : undefined));
  },
};

/**
 * A fixed producer clock: the scenario stays a pure function of its input, and a stamp need only be
 * consistent with the others for the producer-against-arrival comparison.
 */
const BUFFERED_CLOCK_START = Date.UTC(2026, 0, 1, 12);

const buffered: Scenario = {
  name: 'buffered',
  inspector: { verdict: 'completed', rules: [] },
  description: `A clean run whose events the producer stamped ${demoSchedule.producedEveryMs} ms apart, all written to the wire at once, as a buffering proxy delivers them.`,
  shows: 'A buffered stream: the timing\'s buffering is suspected, events produced over seconds arriving within a few ms, so the Waterfall shows every bar at one instant.',
  transports: ['sse', 'protobuf'],
  encodable: true,
  events: (input) =>
    [runStarted(input), ...textMessage(idFor(input, 'reply'), 'Every word of this reply was ready in good time, but something on the way held them all back.'), runFinished(input)].map(
      (e, i): Event => ({ ...e, timestamp: BUFFERED_CLOCK_START + i * demoSchedule.producedEveryMs }),
    ),
  pauses: (events) => events.map(() => 0),
};

export const scenarios: readonly Scenario[] = [
  chat,
  tools,
  state,
  interrupt,
  replay,
  misbehaveIdentity,
  misbehaveVersion,
  misbehaveUnknown,
  misbehaveTruncated,
  misbehaveMalformed,
  preVersion,
  misbehaveState,
  misbehaveConversation,
  misbehaveToolArgs,
  slowStart,
  stall,
  slowTool,
  buffered,
  subagents,
];

export function findScenario(name: string): Scenario | undefined {
  return scenarios.find((s) => s.name === name);
}

/** The scenario list without the event functions, as served at GET /scenarios. */
export function scenarioInfo(): ScenarioInfo[] {
  return scenarios.map(({ name, description, shows, transports, inspector, client }) => ({ name, description, shows, transports, inspector, ...(client ? { client } : {}) }));
}
