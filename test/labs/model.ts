/**
 * The labs' language model: the AI SDK's own MockLanguageModelV3, scripted turn by turn from the
 * last prompt message, so a framework streams what it would for a real provider with no network or
 * key. Each turn is one provider stream; the framework under test turns it into AG-UI events.
 */
import { MockLanguageModelV3 } from 'ai/test';
import { STORY_CHUNKS_BEFORE_STOP, TURNS } from './turns.ts';

type Model = MockLanguageModelV3;
type StreamOptions = Parameters<Model['doStream']>[0];
export type Part = Awaited<ReturnType<Model['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never;

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

function text(id: string, chunks: string[]): Part[] {
  return [
    { type: 'text-start', id },
    ...chunks.map((delta): Part => ({ type: 'text-delta', id, delta })),
    { type: 'text-end', id },
  ];
}

export function toolParts(toolCallId: string, toolName: string, input: unknown): Part[] {
  const args = JSON.stringify(input);
  return [
    { type: 'tool-input-start', id: toolCallId, toolName },
    { type: 'tool-input-delta', id: toolCallId, delta: args.slice(0, 10) },
    { type: 'tool-input-delta', id: toolCallId, delta: args.slice(10) },
    { type: 'tool-input-end', id: toolCallId },
    { type: 'tool-call', toolCallId, toolName, input: args },
  ];
}

const finish = (unified: 'stop' | 'tool-calls'): Part => ({ type: 'finish', usage, finishReason: { unified, raw: unified } });

/** The text of the prompt's last message, and its role. */
function lastMessage(options: StreamOptions): { role: string; text: string } {
  const last = options.prompt.at(-1);
  if (!last) return { role: 'none', text: '' };
  const content = last.content;
  const words = typeof content === 'string' ? content : content.map((p) => ('text' in p ? p.text : 'toolName' in p ? p.toolName : '')).join('');
  return { role: last.role, text: words };
}

/**
 * One turn of the script. `stateTools` names the framework's own state tools, since each framework
 * exposes shared state to the model differently (CopilotKit: AGUISendStateSnapshot/Delta tools;
 * Mastra: working memory), and `frontendTool` the page's tool.
 */
export interface Script {
  frontendTool: string;
  /** Parts that update shared state on the "remember" turn. */
  remember(): Part[];
}

function turn(script: Script, options: StreamOptions): { parts: Part[]; hang: boolean } {
  const last = lastMessage(options);
  // A tool message's text is the tool's name: the page's tool answered, or the framework's own state tool ran.
  if (last.role === 'tool') {
    const words = last.text === script.frontendTool ? ['It is ', 'sunny in ', 'Paris.'] : ['Noted: ', 'you like tea.'];
    return { parts: [...text('t-after-tool', words), finish('stop')], hang: false };
  }
  switch (last.text) {
    case TURNS.hello:
      return { parts: [...text('t-hello', ['Hi! ', 'I can show ', 'the weather ', 'and remember things.']), finish('stop')], hang: false };
    case TURNS.weather:
      return { parts: [...toolParts('call-weather', script.frontendTool, { city: 'Paris' }), finish('tool-calls')], hang: false };
    case TURNS.remember:
      return { parts: [...script.remember(), finish('tool-calls')], hang: false };
    case TURNS.story:
      return {
        parts: [{ type: 'text-start', id: 't-story' }, ...['Once ', 'upon ', 'a time'].slice(0, STORY_CHUNKS_BEFORE_STOP).map((delta): Part => ({ type: 'text-delta', id: 't-story', delta }))],
        hang: true,
      };
    default:
      return { parts: [...text('t-unknown', [`I have no script for "${last.text}".`]), finish('stop')], hang: false };
  }
}

/**
 * A stream that yields the turn's parts a few milliseconds apart (so they cross the wire as separate
 * chunks, as a provider's do) and, for a turn that hangs, stays open until the run is aborted.
 */
function streamOf(parts: Part[], hang: boolean, signal: AbortSignal | undefined): ReadableStream<Part> {
  let i = 0;
  return new ReadableStream<Part>({
    async pull(controller) {
      if (i < parts.length) {
        await new Promise((r) => setTimeout(r, 5));
        controller.enqueue(parts[i++]!);
        return;
      }
      if (hang && signal && !signal.aborted) {
        await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
      }
      controller.close();
    },
  });
}

export function scriptedModel(script: Script): Model {
  return new MockLanguageModelV3({
    provider: 'labs',
    modelId: 'scripted',
    doStream: async (options) => {
      const { parts, hang } = turn(script, options);
      return { stream: streamOf([{ type: 'stream-start', warnings: [] }, ...parts], hang, options.abortSignal) };
    },
  });
}
