/**
 * The LangGraph lab's graph, as a LangGraph JS app writes one and `langgraphjs dev` serves it:
 * chat → backend tools → chat on the scripted model, with
 * - the page's own tools (AG-UI `tools`, which `@ag-ui/langgraph` puts in the state's `tools`): a call
 *   to one ends the run, and the page answers it,
 * - `remember`, a backend tool that updates the shared state through a `Command`,
 * - `book_table` and `cancel_booking`, backend tools that stop the run to ask the user (`interrupt()`).
 * No subgraph: with one, @ag-ui/langgraph reads the thread's state as the stream leaves it, racing the
 * server's checkpoint write, so its mid-run MESSAGES_SNAPSHOT differs from run to run (once with the
 * subgraph's answer doubled) and the lab could not compare two sessions.
 * The state schema is zod 4's (`zod4`, an npm alias of zod 4.6.7 beside the other labs' zod 3; zod 3's `zod/v4` has no Standard JSON Schema, and the server would see only `messages`): the server derives the graph's input and output keys from
 * it, and `@ag-ui/langgraph` keeps only those in its state snapshots.
 */
import { tool } from '@langchain/core/tools';
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { Command, END, interrupt, MessagesValue, START, StateGraph, StateSchema } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { z } from 'zod4';
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

export const graph = new StateGraph(State)
  .addNode('chat', chat)
  .addNode('backend', new ToolNode(backendTools))
  .addEdge(START, 'chat')
  .addConditionalEdges('chat', next, ['backend', END])
  .addEdge('backend', 'chat')
  .compile();
