/** What the page says on each turn of a lab session; the scripted model answers each (model.ts). */
export const TURNS = {
  hello: 'Hello',
  weather: 'What is the weather in Paris?',
  remember: 'Remember that I like tea',
  story: 'Tell me a long story',
  // The LangGraph lab's turns whose tool stops the run to ask the user (`interrupt()`).
  book: 'Book a table for two',
  cancel: 'Cancel my booking',
} as const;

/** The story turn streams this many chunks, then waits until the run is stopped. */
export const STORY_CHUNKS_BEFORE_STOP = 3;
