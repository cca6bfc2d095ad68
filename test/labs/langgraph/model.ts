/**
 * The LangGraph lab's chat model: a `BaseChatModel` subclass scripted turn by turn from the last
 * prompt message, streaming as a provider's stream does — one id per message,
 * reasoning blocks, text deltas, tool-call chunks (name first, then argument fragments), a last
 * chunk with the usage and finish reason — so the graph, the LangGraph server and `@ag-ui/langgraph`
 * see what they would for a real model, with no network and no key.
 */
import { randomUUID } from 'node:crypto';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { BaseChatModel, type BaseChatModelCallOptions, type BindToolsInput } from '@langchain/core/language_models/chat_models';
import { AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import { STORY_CHUNKS_BEFORE_STOP, TURNS } from '../turns.ts';

/** One fragment the provider streams; the last of every turn carries the usage. */
type Fragment =
  | { kind: 'reasoning'; text: string }
  | { kind: 'text'; text: string }
  | { kind: 'tool'; name: string; args: unknown };

interface Turn {
  fragments: Fragment[];
  /** Streams the fragments, then stays open until the run is cancelled (the Stop step). */
  hang: boolean;
}

const say = (...words: string[]): Fragment[] => words.map((text) => ({ kind: 'text', text }));

/** What the model answers to the conversation so far, from its last message. */
function turn(messages: BaseMessage[]): Turn {
  const last = messages.at(-1);
  const text = typeof last?.content === 'string' ? last.content : '';
  if (last?.getType() === 'tool') {
    const answers: Record<string, string[]> = {
      showWeather: ['It is ', 'sunny in ', 'Paris.'],
      remember: ['Noted: ', 'you like tea.'],
      book_table: [`The booking says: `, text],
      cancel_booking: [`The cancellation says: `, text],
    };
    return { fragments: say(...(answers[last.name ?? ''] ?? ['Done.'])), hang: false };
  }
  switch (text) {
    case TURNS.hello:
      return { fragments: [{ kind: 'reasoning', text: 'A greeting; ' }, { kind: 'reasoning', text: 'answer in kind.' }, ...say('Hi! ', 'I can show ', 'the weather ', 'and remember things.')], hang: false };
    case TURNS.weather:
      return { fragments: [{ kind: 'tool', name: 'showWeather', args: { city: 'Paris' } }], hang: false };
    case TURNS.remember:
      return { fragments: [{ kind: 'tool', name: 'remember', args: { like: 'tea' } }], hang: false };
    case TURNS.book:
      return { fragments: [...say('Let me ', 'check. '), { kind: 'tool', name: 'book_table', args: { guests: 2 } }], hang: false };
    case TURNS.cancel:
      return { fragments: [{ kind: 'tool', name: 'cancel_booking', args: { guests: 2 } }], hang: false };
    case TURNS.story:
      return { fragments: say('Once ', 'upon ', 'a time').slice(0, STORY_CHUNKS_BEFORE_STOP), hang: true };
    default:
      return { fragments: say(`I have no script for "${text}".`), hang: false };
  }
}

/**
 * The chunks a provider streams for a turn's fragments. A turn that reasons streams content blocks as
 * Anthropic's does (a thinking block, then a text block, each chunk naming its block's index, so that
 * they merge into one block each); any other turn streams text as plain string deltas, as OpenAI's does.
 */
function* chunksOf(fragments: Fragment[], id: string): Generator<AIMessageChunk> {
  const blocks = fragments.some((f) => f.kind === 'reasoning');
  let index = 0;
  for (const f of fragments) {
    if (f.kind === 'reasoning') yield new AIMessageChunk({ id, content: [{ type: 'thinking', thinking: f.text, index: 0 }] });
    else if (f.kind === 'text') yield new AIMessageChunk({ id, content: blocks ? [{ type: 'text', text: f.text, index: 1 }] : f.text });
    else {
      const args = JSON.stringify(f.args);
      const callId = `call_${randomUUID()}`;
      yield new AIMessageChunk({ id, content: '', tool_call_chunks: [{ type: 'tool_call_chunk', id: callId, name: f.name, args: '', index }] });
      for (const part of [args.slice(0, 8), args.slice(8)]) yield new AIMessageChunk({ id, content: '', tool_call_chunks: [{ type: 'tool_call_chunk', args: part, index }] });
      index++;
    }
  }
}

export class ScriptedChatModel extends BaseChatModel {
  _llmType(): string {
    return 'labs-scripted';
  }

  /** The script decides which tool it calls; binding only has to be accepted, as a provider's is. */
  override bindTools(_tools: BindToolsInput[], _kwargs?: Partial<BaseChatModelCallOptions>): this {
    return this;
  }

  override async *_streamResponseChunks(messages: BaseMessage[], options: this['ParsedCallOptions'], runManager?: CallbackManagerForLLMRun): AsyncGenerator<ChatGenerationChunk> {
    const { fragments, hang } = turn(messages);
    const id = `chatcmpl-${randomUUID()}`;
    const emit = async (message: AIMessageChunk) => {
      // A few milliseconds apart, so that they cross the wire as separate chunks, as a provider's do.
      await new Promise((r) => setTimeout(r, 5));
      const text = typeof message.content === 'string' ? message.content : '';
      const chunk = new ChatGenerationChunk({ message, text });
      await runManager?.handleLLMNewToken(text, undefined, undefined, undefined, undefined, { chunk });
      return chunk;
    };
    for (const message of chunksOf(fragments, id)) yield await emit(message);
    if (hang) {
      const signal = options.signal;
      await new Promise<void>((resolve) => (signal?.aborted ? resolve() : signal?.addEventListener('abort', () => resolve(), { once: true })));
      return;
    }
    const toolCalls = fragments.some((f) => f.kind === 'tool');
    yield await emit(
      new AIMessageChunk({
        id,
        content: '',
        usage_metadata: { input_tokens: 10 * messages.length, output_tokens: 5 * fragments.length, total_tokens: 10 * messages.length + 5 * fragments.length },
        response_metadata: { finish_reason: toolCalls ? 'tool_calls' : 'stop', model_name: 'scripted' },
      }),
    );
  }

  async _generate(messages: BaseMessage[], options: this['ParsedCallOptions'], runManager?: CallbackManagerForLLMRun): Promise<ChatResult> {
    let whole: ChatGenerationChunk | undefined;
    for await (const chunk of this._streamResponseChunks(messages, options, runManager)) whole = whole ? whole.concat(chunk) : chunk;
    return { generations: whole ? [whole] : [] };
  }
}
