/**
 * The Mastra lab's page: the lab's own @ag-ui/client HttpAgent against /api/mastra, on one thread
 * (`?thread=`), answering the agent's frontend tool call itself and running again, as an app with no
 * framework on the page does. The test drives it step by step through `window.lab`.
 */
import { HttpAgent, type BaseEvent, type Tool } from '@ag-ui/client';
import { TURNS } from '../turns.ts';
import { exposeLab, stopMidStory, type LabPage } from '../page-api.ts';

const threadId = new URLSearchParams(location.search).get('thread') ?? 'lab-thread';
const agent = new HttpAgent({ url: '/api/mastra', threadId });
const events: BaseEvent[] = [];
agent.subscribe({ onEvent: ({ event }) => void events.push(event) });

const tools: Tool[] = [
  {
    name: 'showWeather',
    description: 'Shows the weather for a city in the page',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];

/** Runs the agent; while its last message asks for the page's tool, answers it and runs again. */
async function run(): Promise<void> {
  for (;;) {
    await agent.runAgent({ tools });
    const last = agent.messages.at(-1);
    const call = last?.role === 'assistant' ? last.toolCalls?.find((c) => c.function.name === 'showWeather') : undefined;
    if (!call) return;
    const { city } = JSON.parse(call.function.arguments) as { city: string };
    agent.addMessage({ id: crypto.randomUUID(), role: 'tool', toolCallId: call.id, content: JSON.stringify({ city, sky: 'sunny', celsius: 21 }) });
  }
}

async function say(text: string): Promise<void> {
  agent.addMessage({ id: crypto.randomUUID(), role: 'user', content: text });
  await run();
}

const lab: LabPage = {
  events,
  steps: {
  // An app on a bare HttpAgent has no reconnect: a reloaded page starts from what it kept itself.
  connect: async () => undefined,
  hello: () => say(TURNS.hello),
  weather: () => say(TURNS.weather),
  async remember() {
    agent.setState({ likes: [] });
    await say(TURNS.remember);
  },
  stop: () => stopMidStory(events, () => say(TURNS.story).catch(() => undefined), () => agent.abortRun()),
  },
};
exposeLab(lab);
