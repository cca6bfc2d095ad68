/**
 * The Mastra lab's page: the lab's own @ag-ui/client HttpAgent against /api/mastra, on one thread
 * (`?thread=`), answering the agent's frontend tool call itself and running again, as an app with no
 * framework on the page does. The test drives it step by step through `window.lab`.
 */
import { HttpAgent, type BaseEvent } from '@ag-ui/client';
import { TURNS } from '../turns.ts';
import { answerWeather, bareAgentSteps, exposeLab, stopMidStory, WEATHER_TOOL, type LabPage } from '../page-api.ts';

const threadId = new URLSearchParams(location.search).get('thread') ?? 'lab-thread';
const agent = new HttpAgent({ url: '/api/mastra', threadId });
const events: BaseEvent[] = [];
agent.subscribe({ onEvent: ({ event }) => void events.push(event) });

/** Runs the agent; while its last message asks for the page's tool, answers it and runs again. */
async function run(): Promise<void> {
  do await agent.runAgent({ tools: [WEATHER_TOOL] });
  while (answerWeather(agent));
}

const { say, steps } = bareAgentSteps(agent, run);
const lab: LabPage = {
  events,
  steps: {
    ...steps,
    async remember() {
      agent.setState({ likes: [] });
      await say(TURNS.remember);
    },
    stop: () => stopMidStory(events, () => say(TURNS.story).catch(() => undefined), () => agent.abortRun()),
  },
};
exposeLab(lab);
