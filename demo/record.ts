/**
 * Records the demo agent's traffic from Node the way the extension captures it — each response read as a
 * chunk stamped with its arrival time — for the bundled example recording and the recording tests.
 */
import type { Interrupt, Message, RunAgentInput } from '@ag-ui/core';
import { AGUI_MEDIA_TYPE } from '@ag-ui/proto';
import type { CapturedExchange, Chunk } from '../src/exchange/exchange.ts';
import { startDemoAgent } from './agent.ts';
import { demoFrontendTool, resumeEntriesFor, scenarios, type ScenarioInfo } from './scenarios.ts';

export const demoUserMessage: Message = { id: 'user-1', role: 'user', content: 'Hi there, who are you?' };

/** A RunAgentInput as the demo page's HttpAgent sends it. */
export function demoInput(overrides: Partial<RunAgentInput> = {}): RunAgentInput {
  return {
    threadId: 'thread-demo',
    runId: 'run-demo',
    protocolVersion: '1.0',
    messages: [demoUserMessage],
    tools: [demoFrontendTool],
    context: [],
    state: { preferences: { units: 'metric' } },
    ...overrides,
  };
}

/** What the demo page sends for a scenario: a pre-1.0 client's input declares no protocolVersion. */
export function scenarioInput(s: Pick<ScenarioInfo, 'client'>, overrides: Partial<RunAgentInput> = {}): Partial<RunAgentInput> {
  const input = demoInput(overrides);
  if (s.client !== 'pre-1.0') return input;
  const { protocolVersion: _, ...pre } = input;
  return pre;
}

/**
 * A request as a defective consumer would send it — unknown members, an activity message sent back, a
 * provider file handle, nulls inside forwardedProps — which HttpAgent never builds, so tests and the
 * screenshots post it themselves.
 */
export const defectiveInput = {
  threadId: 'thread-crafted',
  runId: 'run-crafted',
  protocolVersion: '1.0',
  messages: [
    { id: 'u1', role: 'user', content: 'Hello', mood: 'curious' },
    { id: 'a1', role: 'activity', activityType: 'progress', content: { percent: 40 } },
    { id: 'u2', role: 'user', content: [{ type: 'text', text: 'See attached' }, { type: 'image', source: { type: 'file', value: 'file-abc123', provider: 'openai' } }] },
  ],
  tools: [],
  context: [],
  state: {},
  forwardedProps: { session: null, flags: [1, null] },
  clientHint: 'beta',
} as const;

/** POSTs a body with fetch and keeps the response as the extension does. */
export async function captureExchange(url: string, body: string, accept: string, source: string): Promise<CapturedExchange> {
  const startedDateTime = new Date().toISOString();
  const t0 = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: accept }, body });
  const chunks: Chunk[] = [];
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push({ time: performance.now() - t0, bytes: value });
  }
  return {
    source,
    url,
    method: 'POST',
    status: res.status,
    startedDateTime,
    requestContentType: 'application/json',
    requestBody: body,
    responseContentType: res.headers.get('content-type') ?? '',
    chunks,
    arrival: 'chunks',
  };
}

const ACCEPT = { sse: 'text/event-stream', protobuf: `${AGUI_MEDIA_TYPE}, text/event-stream` } as const;
const RAISED: Interrupt[] = [
  { id: 'approve-send', reason: 'approval' },
  { id: 'choose-format', reason: 'input_required' },
];

/**
 * Every scenario over SSE and protobuf, with an interrupt and its resumes. Sources are named as
 * readExchanges names HAR entries, so an export of a re-read session is comparable byte for byte.
 */
export async function recordDemoSession(base: string): Promise<CapturedExchange[]> {
  const out: CapturedExchange[] = [];
  const post = async (scenario: string, transport: 'sse' | 'protobuf', input: object) => {
    out.push(await captureExchange(`${base}/agent/${scenario}`, JSON.stringify(input), ACCEPT[transport], `session.har#entries/${out.length}`));
  };
  for (const transport of ['sse', 'protobuf'] as const) {
    const threadId = `thread-${transport}`;
    for (const s of scenarios) {
      if (!s.transports.includes(transport)) continue;
      const runId = `${transport}-${s.name}`;
      await post(s.name, transport, scenarioInput(s, { threadId, runId }));
      if (s.name === 'interrupt') {
        await post(s.name, transport, demoInput({ threadId, runId: `${runId}-resumed`, resume: resumeEntriesFor(RAISED, 'all') }));
      }
    }
    // An incomplete resume on a thread of its own: the Inspector judges it against the exchange before.
    const partial = `thread-${transport}-partial`;
    await post('interrupt', transport, demoInput({ threadId: partial, runId: `${transport}-partial-1` }));
    await post('interrupt', transport, demoInput({ threadId: partial, runId: `${transport}-partial-2`, resume: resumeEntriesFor(RAISED, 'partial') }));
  }
  return out;
}

/** The same session from a demo agent of its own, stopped once recorded; `base` is where it served. */
export async function recordFromOwnAgent(delayMs = 0): Promise<{ session: CapturedExchange[]; base: string }> {
  const agent = await startDemoAgent({ port: 0, delayMs, page: false });
  try {
    return { session: await recordDemoSession(agent.url), base: agent.url };
  } finally {
    await agent.close();
  }
}
