import { STORY_CHUNKS_BEFORE_STOP, TURNS } from './turns.ts';

/**
 * What every lab page exposes to the test as `window.lab`: the session's steps and the events the page's agent received.
 * Each lab types its events with its own @ag-ui/client, which differ between labs.
 */
export type Step = 'connect' | 'hello' | 'weather' | 'remember' | 'book' | 'cancel' | 'stop';

/** The two ways `@ag-ui/langgraph` says a run stopped to ask (langgraph/server.ts's INTERRUPTS). */
export type InterruptStyle = 'legacy' | 'outcome';

/**
 * The request header by which the LangGraph lab behind CopilotKit picks the adapter's interrupt
 * style for a run, so that one thread can use both.
 */
export const INTERRUPT_STYLE_HEADER = 'x-lab-interrupts';

export interface LabPage {
  /** The steps this lab's session takes (labs.test.ts lists them per lab). */
  steps: Partial<Record<Step, () => Promise<void>>>;
  /** Every event the page's agent received since the page loaded, through the client's subscriber. */
  events: { type: string }[];
}

declare global {
  interface Window {
    lab?: LabPage;
  }
}

export function exposeLab(lab: LabPage): void {
  window.lab = lab;
}

/**
 * The Stop step: starts the story turn, waits until its first chunks have arrived, stops the run the
 * way the page's framework does, and waits for the run to settle.
 */
export async function stopMidStory(events: { type: string }[], start: () => Promise<unknown>, stop: () => void): Promise<void> {
  const before = events.length;
  const running = start();
  const streamed = () => events.slice(before).filter((e) => e.type === 'TEXT_MESSAGE_CHUNK' || e.type === 'TEXT_MESSAGE_CONTENT').length;
  while (streamed() < STORY_CHUNKS_BEFORE_STOP) await new Promise((r) => setTimeout(r, 10));
  stop();
  await running;
}

/**
 * What the helpers below use of a page's bare @ag-ui/client HttpAgent (the LangGraph and Mastra labs),
 * by shape: each lab's client is its own version.
 */
export interface BareAgent {
  readonly messages: readonly { role: string; toolCalls?: readonly { id: string; function: { name: string; arguments: string } }[] }[];
  addMessage(message: { id: string; role: 'user'; content: string } | { id: string; role: 'tool'; toolCallId: string; content: string }): void;
}

/** The frontend tool a bare-agent page offers the model and answers itself. */
export const WEATHER_TOOL = {
  name: 'showWeather',
  description: 'Shows the weather for a city in the page',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** What the page's weather tool answers for a city, whichever lab's page answers it. */
export const weatherIn = (city: string) => ({ city, sky: 'sunny', celsius: 21 });

/**
 * The page's side of the tool step: when the agent's last message calls the page's tool, adds its
 * result and says so, for the page to run the agent again; false when the turn is over.
 */
export function answerWeather(agent: BareAgent): boolean {
  const last = agent.messages.at(-1);
  const call = last?.role === 'assistant' ? last.toolCalls?.find((c) => c.function.name === WEATHER_TOOL.name) : undefined;
  if (!call) return false;
  const { city } = JSON.parse(call.function.arguments) as { city: string };
  agent.addMessage({ id: crypto.randomUUID(), role: 'tool', toolCallId: call.id, content: JSON.stringify(weatherIn(city)) });
  return true;
}

/**
 * A bare-agent page's steps every such lab takes: a user turn is the text added as the user's message,
 * then `run`; `connect` does nothing, as an app on a bare HttpAgent has no reconnect (a reloaded page
 * starts from what it kept itself).
 */
export function bareAgentSteps(agent: BareAgent, run: () => Promise<void>): { say: (text: string) => Promise<void>; steps: LabPage['steps'] } {
  const say = async (text: string): Promise<void> => {
    agent.addMessage({ id: crypto.randomUUID(), role: 'user', content: text });
    await run();
  };
  return { say, steps: { connect: async () => undefined, hello: () => say(TURNS.hello), weather: () => say(TURNS.weather) } };
}
