/**
 * The page of the LangGraph lab behind CopilotKit: CopilotKitCore (`@copilotkit/core` 1.75.0, what
 * CopilotKit's React and Angular bindings wrap) on the runtime's REST or single-route transport
 * (`?transport=`), on one UUID thread (`?thread=`), with the frontend tool CopilotKit answers in the
 * page. When a run stops to ask, the page answers "yes" as CopilotKit's bindings do: the core's
 * framework-neutral interrupt state (`ɵInterruptState`) takes the question — a `CUSTOM`
 * `on_interrupt`, or RUN_FINISHED's interrupt outcome — and says how to resume, and
 * `CopilotKitCore.runAgent` sends it: `forwardedProps.command.resume`, or `resume[]`.
 */
import { CopilotKitCore, ɵInterruptState } from '@copilotkit/core';
import { TURNS } from '../turns.ts';
import { exposeLab, INTERRUPT_STYLE_HEADER, stopMidStory, type InterruptStyle, type LabPage } from '../page-api.ts';
import { COPILOTKIT_WEATHER_TOOL } from '../weather.ts';

const params = new URLSearchParams(location.search);
const single = params.get('transport') === 'single';
const threadId = params.get('thread') ?? crypto.randomUUID();

const core = new CopilotKitCore({
  runtimeUrl: single ? '/api/copilotkit-langgraph-single' : '/api/copilotkit-langgraph',
  runtimeTransport: single ? 'single' : 'rest',
  tools: [COPILOTKIT_WEATHER_TOOL],
});

type Agent = NonNullable<ReturnType<CopilotKitCore['getAgent']>>;

const events: { type: string }[] = [];
const asked = new ɵInterruptState();

/** The runtime's agent once the core has read the runtime's info, on the page's thread. */
const ready = new Promise<Agent>((resolve) => {
  const watching = core.subscribe({
    onAgentsChanged: ({ agents }) => {
      const agent = agents.default;
      if (!agent) return;
      watching.unsubscribe();
      agent.threadId = threadId;
      agent.subscribe({
        onEvent: ({ event }) => void events.push(event),
        onCustomEvent: ({ event }) => {
          if (event.name === 'on_interrupt') asked.setLegacy({ name: event.name, value: event.value as unknown });
        },
        onRunFinishedEvent: ({ event }) => {
          const outcome = (event as { outcome?: { type: string; interrupts?: Parameters<typeof asked.setStandard>[0] } }).outcome;
          if (outcome?.type === 'interrupt') asked.setStandard(outcome.interrupts ?? []);
        },
      });
      resolve(agent);
    },
  });
});

/**
 * Sends the user's turn in the given interrupt style and answers every question the run asks with
 * "yes", as a user who clicks Yes does, until a run no longer asks. The decision's `toolResults`
 * stay unused: they answer interrupts whose reason is `tool_call`, and LangGraph's say
 * `langgraph:interrupt`.
 */
async function say(text: string, style: InterruptStyle = 'legacy'): Promise<void> {
  const agent = await ready;
  core.setHeaders({ [INTERRUPT_STYLE_HEADER]: style });
  agent.addMessage({ id: crypto.randomUUID(), role: 'user', content: text });
  await core.runAgent({ agent });
  for (;;) {
    const decision = asked.resolve('yes');
    if (decision.kind === 'legacy-resume') await core.runAgent({ agent, forwardedProps: { command: { resume: decision.payload } } });
    else if (decision.kind === 'resume') await core.runAgent({ agent, resume: decision.resume });
    else return;
  }
}

const lab: LabPage = {
  events,
  steps: {
    connect: async () => void (await core.connectAgent({ agent: await ready })),
    hello: () => say(TURNS.hello),
    weather: () => say(TURNS.weather),
    remember: () => say(TURNS.remember),
    book: () => say(TURNS.book),
    cancel: () => say(TURNS.cancel, 'outcome'),
    stop: async () => {
      const agent = await ready;
      await stopMidStory(events, () => say(TURNS.story), () => core.stopAgent({ agent }));
    },
  },
};
exposeLab(lab);
