/**
 * The CopilotKit lab's page: CopilotKitCore (what CopilotKit's React and Angular bindings wrap) on
 * the runtime's REST or single-route transport (`?transport=`), on one thread (`?thread=`), with a
 * frontend tool the page answers. The test drives it step by step through `window.lab`; every AG-UI
 * event the agent receives is recorded through the client's own subscriber.
 */
import { CopilotKitCore } from '@copilotkitnext/core';
import { TURNS } from '../turns.ts';
import { exposeLab, stopMidStory, type LabPage } from '../page-api.ts';
import { COPILOTKIT_WEATHER_TOOL } from '../weather.ts';

const params = new URLSearchParams(location.search);
const transport = params.get('transport') === 'single' ? 'single' : 'rest';
const threadId = params.get('thread') ?? 'lab-thread';

const core = new CopilotKitCore({
  runtimeUrl: transport === 'single' ? '/api/copilotkit-single' : '/api/copilotkit',
  runtimeTransport: transport,
  tools: [COPILOTKIT_WEATHER_TOOL],
});

type Agent = NonNullable<ReturnType<CopilotKitCore['getAgent']>>;

const events: { type: string }[] = [];

async function agent(): Promise<Agent> {
  for (;;) {
    const a = core.getAgent('default');
    if (a) return a;
    await new Promise((r) => setTimeout(r, 20));
  }
}

const ready = agent().then((a) => {
  a.threadId = threadId;
  a.subscribe({ onEvent: ({ event }) => void events.push(event) });
  return a;
});

async function say(text: string): Promise<void> {
  const a = await ready;
  a.addMessage({ id: crypto.randomUUID(), role: 'user', content: text });
  await core.runAgent({ agent: a });
}

const lab: LabPage = {
  events,
  steps: {
  async connect() {
    await core.connectAgent({ agent: await ready });
  },
  hello: () => say(TURNS.hello),
  weather: () => say(TURNS.weather),
  async remember() {
    (await ready).setState({ likes: [] });
    await say(TURNS.remember);
  },
  async stop() {
    const a = await ready;
    await stopMidStory(events, () => say(TURNS.story), () => core.stopAgent({ agent: a }));
  },
  },
};
exposeLab(lab);
