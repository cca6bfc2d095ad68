/**
 * The LangGraph lab's page: the lab's own @ag-ui/client HttpAgent on one thread (`?thread=`, a UUID:
 * the LangGraph API rejects any other thread id), against `/api/langgraph`. It answers the page's
 * tool call itself and runs again; when a run stops to ask (a backend tool's `interrupt()`), it
 * answers "yes" the way each of the adapter's conventions expects: after a `CUSTOM` `on_interrupt`
 * with `forwardedProps.command.resume`, after a `RUN_FINISHED` interrupt outcome (on
 * `/api/langgraph-outcome`) with `resume[]`.
 */
import { HttpAgent, type BaseEvent, type RunAgentParameters } from '@ag-ui/client';
import { TURNS } from '../turns.ts';
import { answerWeather, bareAgentSteps, exposeLab, stopMidStory, WEATHER_TOOL, type LabPage } from '../page-api.ts';

const threadId = new URLSearchParams(location.search).get('thread') ?? crypto.randomUUID();
const agent = new HttpAgent({ url: '/api/langgraph', threadId });
const events: BaseEvent[] = [];
agent.subscribe({ onEvent: ({ event }) => void events.push(event) });

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
    await agent.runAgent({ tools: [WEATHER_TOOL], ...params });
    const asked = resumeOf(from);
    if (asked) {
      params = asked;
      continue;
    }
    params = {};
    if (!answerWeather(agent)) return;
  }
}

const { say, steps } = bareAgentSteps(agent, run);
const lab: LabPage = {
  events,
  steps: {
    ...steps,
    remember: () => say(TURNS.remember),
    book: () => say(TURNS.book),
    // The one turn on the adapter's interrupt outcome; every other turn is on its defaults.
    async cancel() {
      agent.url = '/api/langgraph-outcome';
      try {
        await say(TURNS.cancel);
      } finally {
        agent.url = '/api/langgraph';
      }
    },
    stop: () => stopMidStory(events, () => say(TURNS.story).catch(() => undefined), () => agent.abortRun()),
  },
};
exposeLab(lab);
