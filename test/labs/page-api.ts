import { STORY_CHUNKS_BEFORE_STOP } from './turns.ts';

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
