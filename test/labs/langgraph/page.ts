/**
 * The LangGraph lab's page: the lab's own @ag-ui/client HttpAgent on one thread (`?thread=`, a UUID:
 * the LangGraph API rejects any other thread id), against `/api/langgraph`. It answers the page's
 * tool call itself and runs again; when a run stops to ask (a backend tool's `interrupt()`), it
 * answers "yes" the way each of the adapter's conventions expects: after a `CUSTOM` `on_interrupt`
 * with `forwardedProps.command.resume`, after a `RUN_FINISHED` interrupt outcome (on
 * `/api/langgraph-outcome`) with `resume[]`.
 */
import { HttpAgent, type BaseEvent, type RunAgentParameters, type Tool } from '@ag-ui/client';
import { TURNS } from '../turns.ts';
import { exposeLab, stopMidStory, type LabPage } from '../page-api.ts';

const threadId = new URLSearchParams(location.search).get('thread') ?? crypto.randomUUID();
const agent = new HttpAgent({ url: '/api/langgraph', threadId });
const events: BaseEvent[] = [];
agent.subscribe({ onEvent: ({ event }) => void events.push(event) });

const tools: Tool[] = [
  {
    name: 'showWeather',
    description: 'Shows the weather for a city in the page',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];

interface Asked {
  interrupts?: { id: string }[];
}

/** How the run just made asks to be resumed, if it stopped to ask. */
function resumeOf(from: number): RunAgentParameters | null {
  const ran = events.slice(from);
  if (ran.some((e) => e.type === 'CUSTOM' && (e as { name?: string }).name === 'on_interrupt')) return { forwardedProps: { command: { resume: 'yes' } } };
  const outcome = ([...ran].reverse().find((e) => e.type === 'RUN_FINISHED') as { outcome?: Asked & { type: string } } | undefined)?.outcome;
  if (outcome?.type === 'interrupt') return { resume: (outcome.interrupts ?? []).map((i) => ({ interruptId: i.id, status: 'resolved' as const, payload: 'yes' })) };
  return null;
}

/** Runs the agent; answers the page's tool call and every question, running again, until the agent is done. */
async function run(): Promise<void> {
  let params: RunAgentParameters = {};
  for (;;) {
    const from = events.length;
    await agent.runAgent({ tools, ...params });
    const asked = resumeOf(from);
    if (asked) {
      params = asked;
      continue;
    }
    params = {};
    const last = agent.messages.at(-1);
    const call = last?.role === 'assistant' ? last.toolCalls?.find((c) => c.function.name === 'showWeather') : undefined;
    if (!call) return;
    const { city } = JSON.parse(call.function.arguments) as { city: string };
    agent.addMessage({ id: crypto.randomUUID(), role: 'tool', toolCallId: call.id, content: JSON.stringify({ city, sky: 'sunny', celsius: 21 }) });
  }
}

async function say(text: string, url = '/api/langgraph'): Promise<void> {
  agent.url = url;
  agent.addMessage({ id: crypto.randomUUID(), role: 'user', content: text });
  await run();
}

const lab: LabPage = {
  events,
  steps: {
    connect: async () => undefined,
    hello: () => say(TURNS.hello),
    weather: () => say(TURNS.weather),
    remember: () => say(TURNS.remember),
    book: () => say(TURNS.book),
    cancel: () => say(TURNS.cancel, '/api/langgraph-outcome'),
    stop: () => stopMidStory(events, () => say(TURNS.story).catch(() => undefined), () => agent.abortRun()),
  },
};
exposeLab(lab);
