/**
 * The LangGraph lab's graph, as a LangGraph JS app writes one and `langgraphjs dev` serves it:
 * chat → backend tools → chat on the scripted model, with
 * - the page's own tools (AG-UI `tools`, which `@ag-ui/langgraph` puts in the state's `tools`): a call
 *   to one ends the run, and the page answers it,
 * - `remember`, a backend tool that updates the shared state through a `Command`,
 * - `book_table` and `cancel_booking`, backend tools that stop the run to ask the user (`interrupt()`),
 * - a `recall` subgraph (its own compiled graph, as a node) that answers "What do I like?".
 * The state schema is zod 4's (`zod4`, an npm alias of zod 4.6.7 beside the other labs' zod 3; zod 3's `zod/v4` has no Standard JSON Schema, and the server would see only `messages`): the server derives the graph's input and output keys from
 * it, and `@ag-ui/langgraph` keeps only those in its state snapshots.
 */
import { tool } from '@langchain/core/tools';
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { Command, END, interrupt, MessagesValue, START, StateGraph, StateSchema } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { z } from 'zod4';
import { TURNS } from '../turns.ts';
import { ScriptedChatModel } from './model.ts';

const State = new StateSchema({
  messages: MessagesValue,
  /** The page's tools, as `@ag-ui/langgraph` hands them over. */
  tools: z.array(z.any()).default(() => []),
  likes: z.array(z.string()).default(() => []),
});

const remember = tool(
  async ({ like }, config) =>
    new Command({
      update: {
        likes: [like],
        messages: [new ToolMessage({ content: `Remembered: ${like}`, tool_call_id: config.toolCall!.id!, name: 'remember' })],
      },
    }),
  { name: 'remember', description: 'Remembers something the user likes', schema: z.object({ like: z.string() }) },
);

/** A tool that asks the user before it acts; the answer is what `interrupt()` returns on resume. */
const asking = (name: string, question: string) =>
  tool(
    async ({ guests }) => {
      const answer: unknown = interrupt({ question, guests });
      return answer === 'yes' ? `${name}: done for ${guests}` : `${name}: not done (${JSON.stringify(answer)})`;
    },
    { name, description: question, schema: z.object({ guests: z.number() }) },
  );

const backendTools = [remember, asking('book_table', 'Book a table?'), asking('cancel_booking', 'Cancel the booking?')];
const backend = new Set(backendTools.map((t) => t.name));
const model = new ScriptedChatModel({});

async function chat(state: typeof State.State) {
  const response = await model.bindTools([...backendTools, ...state.tools]).invoke(state.messages);
  return { messages: [response] };
}

/** A backend tool call goes to the backend node; a call to the page's tool, or an answer, ends the run. */
function next(state: typeof State.State): 'backend' | typeof END {
  const last = state.messages.at(-1);
  const calls = last instanceof AIMessage ? (last.tool_calls ?? []) : [];
  return calls.some((c) => backend.has(c.name)) ? 'backend' : END;
}

/** The subgraph: one model call that reads what `remember` stored, streamed from the subgraph's namespace. */
const recall = new StateGraph(State).addNode('lookup', chat).addEdge(START, 'lookup').addEdge('lookup', END).compile();

/** The recall question goes to the subgraph; every other turn to the chat loop. */
function entry(state: typeof State.State): 'recall' | 'chat' {
  const last = state.messages.at(-1);
  return last?.getType() === 'human' && last.content === TURNS.recall ? 'recall' : 'chat';
}

export const graph = new StateGraph(State)
  .addNode('chat', chat)
  .addNode('backend', new ToolNode(backendTools))
  .addNode('recall', recall)
  .addConditionalEdges(START, entry, ['recall', 'chat'])
  .addEdge('recall', END)
  .addConditionalEdges('chat', next, ['backend', END])
  .addEdge('backend', 'chat')
  .compile();
